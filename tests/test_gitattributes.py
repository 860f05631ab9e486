"""A pull request's own .gitattributes never decides what the review sees (issue 22, item 2).

git reads attributes from the work tree and the index, both the pull request's in a checkout: `*.py binary`
or `-diff` there made git print "Binary files differ" for every test file, which then counted as reviewed
with no lines. The review's git commands run with no tree's attributes, and a text file that git still
prints as binary (the repository's own info/attributes) is listed as not reviewed.
"""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main
from bot.git.local import load_changeset
from bot.review.engine import review
from tests.helpers import AGENTS_AGT001

NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


@pytest.mark.parametrize(
    "attributes",
    [
        {".gitattributes": "*.py binary\n"},
        {".gitattributes": "*.py -diff\n"},
        {".gitattributes": "* -diff -text\n"},
        {"tests/.gitattributes": "test_*.py binary\n"},  # a nested one, next to the files
    ],
)
def test_the_prs_gitattributes_cannot_hide_its_test_files(make_repo, attributes):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {**attributes, "tests/test_new.py": NEW_TEST})
    cs = load_changeset(r.path, base="main", head="pr")
    test_file = cs.file("tests/test_new.py")
    assert not test_file.binary and not test_file.patch_missing
    assert test_file.added_lines == {1, 2, 3}
    report = review(cs)
    assert [f.rule for f in report.findings] == ["AGT001"]  # the docstring names no PR: seen, as without
    assert report.coverage.not_reviewed == ()


def test_bot_check_of_the_working_tree_is_not_fooled_either(make_repo, capsys):
    # The default `bot check`: the work tree (with the .gitattributes checked out) as a snapshot commit.
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {".gitattributes": "*.py binary\n"})
    r.write({"tests/test_new.py": NEW_TEST})
    code = main(["check", "--repo", str(r.path), "--base", "main", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and [f["rule"] for f in report["findings"]] == ["AGT001"]
    assert report["coverage"]["not_reviewed"] == []


def test_a_text_file_the_repositorys_own_attributes_make_binary_is_not_reviewed(make_repo):
    # $GIT_DIR/info/attributes is still read (no git option leaves it out): git still prints the text file
    # as binary, and the review says it did not read it rather than count it as reviewed.
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_new.py": NEW_TEST, "logo.png": PNG})
    (r.path / ".git/info").mkdir(exist_ok=True)
    (r.path / ".git/info/attributes").write_text("*.py binary\n*.png binary\n")
    cs = load_changeset(r.path, base="main", head="pr")
    assert [(f.path, f.patch_missing) for f in cs.files] == [("logo.png", False), ("tests/test_new.py", True)]
    assert cs.file("logo.png").binary  # binary to git by its own test (a NUL byte): reviewed, nothing to read
    assert review(cs).coverage.not_reviewed == ("tests/test_new.py",)


def test_a_modified_text_file_made_binary_is_not_reviewed_and_a_real_binary_one_is(make_repo):
    r = make_repo(
        {"a.py": "a = 1\n", "logo.png": PNG, "mixed.dat": "text\n"},
        {"a.py": "a = 2\n", "logo.png": PNG + b"more", "mixed.dat": PNG},
    )
    (r.path / ".git/info").mkdir(exist_ok=True)
    (r.path / ".git/info/attributes").write_text("* binary\n")
    cs = load_changeset(r.path, base="main", head="pr")
    # mixed.dat: text before, binary after; git prints it as binary with or without the attribute.
    assert [(f.path, f.patch_missing) for f in cs.files] == [
        ("a.py", True),
        ("logo.png", False),
        ("mixed.dat", False),
    ]


def test_the_users_global_attributes_file_is_not_read_either(make_repo, tmp_path):
    # core.attributesFile (by default ~/.config/git/attributes) differs from machine to machine: the same
    # commits give the same review everywhere.
    global_attributes = tmp_path / "attributes"
    global_attributes.write_text("*.py binary\n")
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n"})
    r.git("config", "core.attributesFile", str(global_attributes))
    cs = load_changeset(r.path, base="main", head="pr")
    assert cs.file("a.py").added_lines == {1} and not cs.file("a.py").binary


def test_git_run_from_a_folder_with_its_own_gitattributes_is_not_fooled(make_repo, monkeypatch):
    # git reads the .gitattributes of the folder it runs in when that is outside the work tree it is
    # given: the review's git runs inside its own empty one, wherever the command was started.
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", ".gitattributes": "*.py binary\n"})
    monkeypatch.chdir(r.path)
    cs = load_changeset(".", base="main", head="pr")
    assert cs.file("a.py").added_lines == {1}


@pytest.mark.parametrize("fork", [True, False])
def test_the_diff_parsed_in_a_child_or_in_the_background_reads_no_tree_attributes(
    make_repo, monkeypatch, fork
):
    import bot.git.forked
    import bot.git.local

    monkeypatch.setattr(bot.git.local, "_FORK_PAST", 0 if fork else 1 << 30)
    monkeypatch.setattr(bot.git.forked, "can_fork", lambda: fork)
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", ".gitattributes": "*.py binary\n"})
    cs = load_changeset(r.path, base="main", head="pr")
    assert cs.file("a.py").added_lines == {1}


def test_a_linked_work_tree_is_read_the_same_way(make_repo, tmp_path):
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", ".gitattributes": "*.py binary\n"})
    r.git("checkout", "-q", "main")
    r.git("worktree", "add", "-q", str(tmp_path / "linked"), "pr")
    cs = load_changeset(tmp_path / "linked", base="main", head="HEAD")
    assert cs.file("a.py").added_lines == {1}
