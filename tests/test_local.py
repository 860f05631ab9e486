import os
import sys
from pathlib import Path

import pytest

from bot.git.local import SourceError, load_changeset
from rules.core.models import UnreadableFile


def test_changes_since_merge_base(make_repo):
    r = make_repo({"a.py": "a = 1\n"}, {"b.py": "b = 2\n"})
    # main moves on after the branch point: its new files are not part of the PR.
    r.git("checkout", "-q", "main")
    r.commit({"c.py": "c = 3\n"}, "main moves")
    cs = load_changeset(r.path, base="main", head="pr")
    assert [f.path for f in cs.files] == ["b.py"]
    assert cs.head_text("b.py") == "b = 2\n"
    assert cs.base_text("b.py") is None
    assert cs.base_text("a.py") == "a = 1\n"
    assert "c.py" not in cs.base_paths()
    assert cs.pr.base_ref is None and cs.pr.head_ref == "pr"


def test_default_base_is_main(make_repo):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    cs = load_changeset(r.path)
    assert [f.path for f in cs.files] == ["a.py"]


def test_default_base_prefers_remote_head(make_repo, tmp_path):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    r.git("branch", "-m", "main", "trunk")
    r.git("update-ref", "refs/remotes/origin/trunk", "trunk")
    r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    cs = load_changeset(r.path)
    assert cs.base_sha == r.git("rev-parse", "trunk").strip()
    assert [f.path for f in cs.files] == ["a.py"]


def test_symlink_is_read_as_blob_not_followed(make_repo, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    r = make_repo({"a.py": "1\n"}, {})
    (r.path / "link.txt").symlink_to(secret)
    r.commit(None, "link")
    cs = load_changeset(r.path, base="main", head="pr")
    # The blob is the link's target path, never the target's content; the review refuses to use it.
    assert cs.reader.read(cs.head_sha, "link.txt") == str(secret).encode()
    assert cs.file("link.txt").symlink
    with pytest.raises(UnreadableFile, match="symbolic link"):
        cs.head_text("link.txt")


def test_binary_text_is_unreadable(make_repo):
    r = make_repo({"a.py": "1\n"}, {"blob.py": b"\xff\xfe\x00"})
    cs = load_changeset(r.path, base="main", head="pr")
    with pytest.raises(UnreadableFile):
        cs.head_text("blob.py")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"base": "nope"}, "unknown ref: nope"),
        ({"head": "nope"}, "unknown ref: nope"),
    ],
)
def test_unknown_refs(make_repo, kwargs, message):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    with pytest.raises(SourceError, match=message):
        load_changeset(r.path, **kwargs)


def test_not_a_repository(tmp_path):
    with pytest.raises(SourceError, match="not a git repository"):
        load_changeset(tmp_path)


def test_missing_directory(tmp_path):
    with pytest.raises(SourceError, match="not a directory"):
        load_changeset(tmp_path / "missing")


def test_repository_without_commits(repo):
    with pytest.raises(SourceError, match="no commits"):
        load_changeset(repo.path)


def test_read_many_matches_read(make_repo):
    from bot.git.local import GitReader

    files = {"a.py": "a = 1\n", "b/c.txt": "two\nlines\n", "bin.dat": b"\x00\n\xff\n", "empty.py": ""}
    r = make_repo(files, {"a.py": "a = 2\n"})
    reader = GitReader(r.path)
    paths = [*files, "missing.py", "b"]
    many = reader.read_many("main", paths)
    assert many == {p: reader.read("main", p) for p in paths[:-1]} | {"b": None}
    assert many["bin.dat"] == b"\x00\n\xff\n" and many["missing.py"] is None


def test_read_many_skips_a_tree_before_other_paths(make_repo):
    # A path that is a folder at rev (a file replacing a folder) comes with the tree's bytes in the batch
    # output; the paths after it must still get their own contents.
    from bot.git.local import GitReader

    r = make_repo({"d/x.py": "x = 1\n", "f.py": "f = 1\n", "my file.py": "s = 1\n"}, {"f.py": "f = 2\n"})
    many = GitReader(r.path).read_many("main", ["d", "f.py", "gone file.py", "my file.py"])
    assert many == {"d": None, "f.py": b"f = 1\n", "gone file.py": None, "my file.py": b"s = 1\n"}


def _recording_git(monkeypatch):
    """Every git command load_changeset runs (its `-c` settings last), with how many bytes it printed. The
    diff is made in this
    process, not in a forked child (whose commands would be recorded there): with the same arguments,
    and the same files either way (test_forked.py)."""
    import bot.git.forked
    import bot.git.local

    monkeypatch.setattr(bot.git.forked, "can_fork", lambda: False)

    calls: list[tuple[tuple[str, ...], int]] = []
    real = bot.git.local._git

    def git(repo, *args, check=True, **kw):
        proc = real(repo, *args, check=check, **kw)
        calls.append(((*args, *(f"-c {c}" for c in kw.get("config", ()))), len(proc.stdout)))
        return proc

    class Background(bot.git.local._Background):
        def __init__(self, repo, args, config=()):
            super().__init__(repo, args, config)
            self.config = config

        def output(self):
            out = super().output()
            calls.append(((*self.args, *(f"-c {c}" for c in self.config)), len(out)))
            return out

    monkeypatch.setattr(bot.git.local, "_git", git)
    monkeypatch.setattr(bot.git.local, "_Background", Background)
    return calls


def test_a_file_over_the_cap_is_never_diffed_or_read(make_repo, monkeypatch):
    from bot.review.engine import review
    from rules.core.models import MAX_TEXT_BYTES

    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)  # short lines: the shape that made the diff parser explode
    r = make_repo(
        {"a.py": "a = 1\n", "grown.txt": "small\n"},
        {"a.py": "a = 2\n", "big.txt": big, "tests/test_big.py": big, "grown.txt": big, "b.py": "b = 1\n"},
    )
    calls = _recording_git(monkeypatch)
    cs = load_changeset(r.path, base="main", head="pr")
    report = review(cs)
    # No git command printed the big text, and none of its bytes reached the review.
    assert calls and max(size for _, size in calls) < len(big)
    # One diff, nothing left out of it: git takes a blob over the cap for binary and prints a line for it.
    patches = [args for args, _ in calls if args[0] == "diff" and "--raw" not in args]
    assert len(patches) == 1 and f"-c core.bigFileThreshold={MAX_TEXT_BYTES}" in patches[0]
    assert not any(a.startswith(":(top") for a in patches[0])
    assert cs.reader.bytes_read < len(big)
    # Listed in git's order, counted and reported as not reviewed; the small files keep their diff.
    assert [f.path for f in cs.files] == ["a.py", "b.py", "big.txt", "grown.txt", "tests/test_big.py"]
    assert set(report.coverage.not_reviewed) == {"big.txt", "grown.txt", "tests/test_big.py"}
    assert cs.file("a.py").added_lines == {1} and not cs.file("a.py").patch_missing
    assert cs.file("grown.txt").status.value == "modified" and cs.file("big.txt").status.value == "added"
    with pytest.raises(UnreadableFile, match="over the 2,097,152-byte limit"):
        cs.head_text("big.txt")
    assert cs.base_text("grown.txt") == "small\n"


def test_a_file_an_attribute_would_have_git_print_as_text_is_sized_first_and_left_out(make_repo, monkeypatch):
    from rules.core.models import MAX_TEXT_BYTES

    # `diff` set makes git print a file as text whatever its size (core.bigFileThreshold aside): such a
    # file is sized before the diff and, over the cap, left out of it by pathspec. Only the repository's
    # own info/attributes can say so: no tree's .gitattributes is read.
    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)
    base = {"a.py": "a = 1\n", "grown.txt": "small\n"}
    head = {"a.py": "a = 2\n", "big.txt": big, "grown.txt": big}
    r = make_repo(base, {**head, "notes.txt": "fine\n"})
    (r.path / ".git/info").mkdir(exist_ok=True)
    (r.path / ".git/info/attributes").write_text("*.txt diff\n")
    calls = _recording_git(monkeypatch)
    cs = load_changeset(r.path, base="main", head="pr")
    assert max(size for _, size in calls) < len(big) and cs.reader.bytes_read < len(big)
    (patch,) = [args for args, _ in calls if args[0] == "diff" and "--raw" not in args]
    assert {":(top,exclude,literal)big.txt", ":(top,exclude,literal)grown.txt"} <= set(patch)
    assert [f.path for f in cs.files if f.patch_missing] == ["big.txt", "grown.txt"]
    assert cs.file("notes.txt").added_lines == {1}  # under the cap: diffed as ever


def test_no_blob_is_sized_while_loading_when_git_finds_no_file_binary(make_repo, monkeypatch):
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", "b.py": "b = 1\n"})
    calls = _recording_git(monkeypatch)
    cs = load_changeset(r.path, base="main", head="pr")
    patches = [args for args, _ in calls if args[0] == "diff" and "--raw" not in args]
    assert len(patches) == 1 and not any(a.startswith(":(top") for a in patches[0])
    assert [f.path for f in cs.files] == ["a.py", "b.py"] and cs.file("b.py").added_lines == {1}
    assert cs.reader.processes == 0  # no `git cat-file` was needed
    assert cs.head_text("b.py") == "b = 1\n"


def test_a_binary_file_under_the_cap_stays_binary_and_a_failure_to_size_it_is_reported(
    make_repo, monkeypatch
):
    from bot.git.catfile import CatFileError
    from bot.git.local import GitReader

    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", "logo.png": b"\x89PNG\r\n\x1a\n\x00\x01"})
    cs = load_changeset(r.path, base="main", head="pr")
    assert [(f.path, f.binary, f.patch_missing) for f in cs.files] == [
        ("a.py", False, False),
        ("logo.png", True, False),
    ]

    def fail(self, names):
        raise CatFileError("git cat-file --batch-check did not answer every object")

    monkeypatch.setattr(GitReader, "info", fail)
    with pytest.raises(SourceError, match="did not answer every object"):
        load_changeset(r.path, base="main", head="pr")


def test_changes_under_the_cap_are_diffed_as_before(make_repo, monkeypatch):
    from rules.core.models import MAX_TEXT_BYTES

    r = make_repo({"a.py": "a = 1\n", "old.py": "x = 1\n" * 20}, {"a.py": "a = 2\n", "old.py": None})
    r.write({"new.py": "x = 1\n" * 20})
    r.commit(None, "rename")
    calls = _recording_git(monkeypatch)
    cs = load_changeset(r.path, base="main", head="pr")
    patches = [args for args, _ in calls if args[0] == "diff" and "--raw" not in args]
    assert patches == [
        (
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-M",
            cs.base_sha,
            cs.head_sha,
            f"-c core.bigFileThreshold={MAX_TEXT_BYTES}",
        )
    ]
    assert [(f.path, f.old_path, f.status.value) for f in cs.files] == [
        ("a.py", None, "modified"),
        ("new.py", "old.py", "renamed"),
    ]


def test_one_cat_file_process_per_mode_for_every_read(make_repo, monkeypatch):
    import subprocess

    from bot.review.engine import review

    started: list[list[str]] = []

    class Counted(subprocess.Popen):
        def __init__(self, args, *rest, **kw):
            started.append(list(args))
            super().__init__(args, *rest, **kw)

    files = {f"tests/test_m{i}.py": f"def test_{i}():\n    assert f({i}) == {i}\n" for i in range(30)}
    src = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(30)}
    head = {p: t + "\n\ndef test_more():\n    assert g() == 1\n" for p, t in files.items()}
    r = make_repo(
        {"AGENTS.md": "# Rules\n", **files, **src}, {**head, **{p: t + "x = 1\n" for p, t in src.items()}}
    )
    monkeypatch.setattr(subprocess, "Popen", Counted)
    cs = load_changeset(r.path, base="main", head="pr")
    loading = len(started)
    review(cs)
    # 60 changed files: none is sized while loading (git's diff finds none over the cap), and one
    # long-lived `--batch-check` and one `--batch` answer every read of the review that the checked-out
    # files (the head's) do not.
    assert [args[-1] for args in started[:loading] if "cat-file" in args] == []
    modes = [args[-1] for args in started[loading:] if "cat-file" in args]
    assert len(modes) == len(set(modes)) and set(modes) <= {"--batch-check", "--batch"}
    others = [args for args in started[loading:] if "cat-file" not in args]
    assert len(others) <= 3, others  # listing the base tree, and `git grep` at each side


def test_modules_that_never_name_a_profile_variable_are_not_read(make_repo):
    from bot.review.engine import review

    holder = 'COMPAT_PROFILES = {\n    "run": {"max_steps": 100, "batch_size": 8},\n}\n'
    src = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)}
    r = make_repo(
        {"train.py": holder, **src},
        {"train.py": holder.replace("100", "200"), **{p: t + "x = 1\n" for p, t in src.items()}},
    )
    cs = load_changeset(r.path, base="main", head="pr")
    report = review(cs)
    # The profile module is read at both sides (its dict changed without the diff naming the variable)...
    assert [(p.path, p.name) for p in report.profiles] == [("train.py", "run")]
    # ...and no plain module is.
    read = {path for _, path in cs._cache}
    assert "train.py" in read and not any(p.startswith("src/") for p in read)


def test_bot_review_with_a_checkout_takes_the_same_capped_path(gh, make_repo, monkeypatch, capsys):
    """`bot review` with a workspace checkout fills GitHub's missing patch from the local diff: capped too."""
    from bot.github.app import run
    from bot.github.entry import settings
    from rules.core.models import MAX_TEXT_BYTES
    from tests import ghapi
    from tests.conftest import github_client
    from tests.test_app import TOKEN, args
    from tests.test_publish import READY

    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n", "big.txt": big})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    # GitHub leaves out the patch of a file this large.
    st.files = [ghapi.pr_file("a.py"), ghapi.pr_file("big.txt", patch=None, status="added", changes=700_000)]
    st.repo_labels = list(READY)
    ghapi.serve(gh, st)
    calls = _recording_git(monkeypatch)
    run(
        args(repo="octo/repo", pr=7, checkout=r.path, dry_run=True),
        settings({"GITHUB_TOKEN": TOKEN}),
        github_client(gh),
    )
    assert "1 without a reviewable diff" in capsys.readouterr().out
    assert any(a[0] == "diff" and f"-c core.bigFileThreshold={MAX_TEXT_BYTES}" in a for a, _ in calls)
    assert max(size for _, size in calls) < len(big)


def test_one_rev_parse_finds_the_repository_and_both_commits(make_repo, monkeypatch, tmp_path):
    """open_repo, resolving head and base and the head's branch name are one `git rev-parse`; when it
    fails, the step-by-step path still says which part is wrong."""
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n"})
    calls = _recording_git(monkeypatch)
    cs = load_changeset(r.path, base="main", head="pr")
    assert [args[0] for args, _ in calls].count("rev-parse") == 1
    assert cs.pr.head_ref == "pr" and cs.head_sha == r.git("rev-parse", "pr").strip()
    assert cs.base_sha == r.git("rev-parse", "main").strip()
    # A commit, not a branch: no branch name.
    assert load_changeset(r.path, base="main", head=cs.head_sha).pr.head_ref is None
    with pytest.raises(SourceError, match="unknown ref: nope; branches here: main, pr"):
        load_changeset(r.path, base="nope", head="pr")
    with pytest.raises(SourceError, match="\\^main"):  # a negation is no commit: never reviewed
        load_changeset(r.path, base="main", head="^main")
    with pytest.raises(SourceError, match="not a git repository"):
        load_changeset(tmp_path, base="main", head="pr")


def test_a_checked_out_file_that_is_the_blob_is_read_from_the_work_tree(make_repo):
    r = make_repo(
        {"a.py": "a = 1\n"}, {"a.py": "a = 2\n", "tests/test_a.py": "def test_a():\n    assert 1\n"}
    )
    cs = load_changeset(r.path, base="main", head="pr")
    assert cs.head_text("tests/test_a.py") == "def test_a():\n    assert 1\n"
    assert cs.head_text("a.py") == "a = 2\n"
    # Both were the blobs' bytes: git was asked only for sizes, never for contents.
    assert cs.reader._batch.started == 0
    # The base side is not checked out: its bytes come from git.
    assert cs.base_text("a.py") == "a = 1\n" and cs.reader._batch.started == 1


@pytest.mark.parametrize("edit", ["edited", "same-size", "symlink", "fifo", "directory"])
def test_a_work_tree_copy_that_is_not_the_blob_is_not_read(make_repo, edit):
    import os

    text = "def test_a():\n    assert 1\n"
    r = make_repo({"a.py": "a = 1\n"}, {"tests/test_a.py": text})
    target = r.path / "tests" / "test_a.py"
    target.unlink()
    if edit == "edited":
        target.write_text(text + "# more\n")
    elif edit == "same-size":
        target.write_text(text.replace("1", "2"))
    elif edit == "symlink":  # a link to a file holding the very bytes: links are never followed
        (r.path / "copy.txt").write_text(text)
        os.symlink(r.path / "copy.txt", target)
    elif edit == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    cs = load_changeset(r.path, base="main", head="pr")
    assert cs.head_text("tests/test_a.py") == text
    assert cs.reader._batch.started == 1


def _findings(report):
    return [(f.rule, f.path, f.line, f.message) for f in report.findings]


def test_head_test_files_are_parsed_while_git_diffs_and_the_review_uses_them(make_repo, monkeypatch):
    import rules.testcode.testfiles
    from bot.review.engine import review

    agents = "# Rules\n\n- No tautological tests.\n"
    head = {
        "tests/test_a.py": "def test_a():\n    x = 3\n    assert x == 3\n",
        "tests/test_b.py": "def test_b():\n    assert f() == 2\n",
        "tests/test_broken.py": "def test_c(:\n",
        "src/app.py": "def f():\n    return 2\n",
    }
    r = make_repo({"AGENTS.md": agents}, head)
    cs = load_changeset(r.path, base="main", head="pr")
    # Parsed ahead: the checked-out test files that parse; the broken one and the module are left.
    assert set(cs._prepared) == {(cs.head_sha, "tests/test_a.py"), (cs.head_sha, "tests/test_b.py")}
    parsed: list[str] = []
    real = rules.testcode.testfiles.parse_python
    monkeypatch.setattr(
        rules.testcode.testfiles, "parse_python", lambda text, path: parsed.append(path) or real(text, path)
    )
    ahead = review(cs)
    assert parsed == ["tests/test_broken.py"]
    # The same review with nothing parsed ahead.
    again = load_changeset(r.path, base="main", head="pr")
    again._prepared.clear()
    assert _findings(review(again)) == _findings(ahead)
    assert [f.rule for f in ahead.findings] == ["AGT002", "AGT002"]  # test_a, and the broken file's notice


def test_a_test_file_edited_in_the_work_tree_is_parsed_from_its_blob(make_repo):
    from bot.review.engine import review

    agents = "# Rules\n\n- No tautological tests.\n"
    r = make_repo({"AGENTS.md": agents}, {"tests/test_a.py": "def test_a():\n    x = 3\n    assert x == 3\n"})
    (r.path / "tests" / "test_a.py").write_text("def test_a():\n    assert g() == 3\n")  # not committed
    cs = load_changeset(r.path, base="main", head="pr")
    assert not cs._prepared
    (finding,) = review(cs).findings
    assert finding.rule == "AGT002" and "re-checks the literal assigned to `x`" in finding.message


@pytest.mark.skipif(sys.platform != "linux", reason="pipe sizes are set on Linux only")
def test_the_pipe_git_writes_to_is_widened():
    import fcntl

    import bot.git.local

    read_end, write_end = os.pipe()
    try:
        bot.git.local._widen(read_end)
        size = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
        if int(Path("/proc/sys/fs/pipe-max-size").read_text()) >= bot.git.local._PIPE_BYTES:
            assert size == bot.git.local._PIPE_BYTES
        else:  # a smaller system limit: the pipe keeps the size it had
            assert size >= 4096
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_fault_in_reading_tests_ahead_leaves_them_to_the_rules(make_repo, monkeypatch):
    import bot.git.local
    from bot.review.engine import review

    def broken(path, text):
        raise RuntimeError("a bug in collecting")

    r = make_repo(
        {"AGENTS.md": "- Regression tests must name the PR they guard.\n"},
        {"tests/test_a.py": 'def test_a():\n    """Fixes a crash."""\n    assert f() == 1\n'},
    )
    expected = review(load_changeset(r.path, base="main", head="pr"))
    monkeypatch.setattr(bot.git.local, "read_ahead", broken)
    changeset = load_changeset(r.path, base="main", head="pr")
    assert review(changeset).findings == expected.findings and expected.findings


@pytest.mark.parametrize("fork", [True, False])
def test_idle_work_runs_only_while_the_diff_is_not_in_and_its_faults_change_nothing(
    make_repo, monkeypatch, fork
):
    import bot.git.forked
    import bot.git.local
    from bot.review.engine import review, warm_ups

    files = {f"tests/test_m{i}.py": f"def test_{i}():\n    assert f({i}) == {i}\n" for i in range(5)}
    r = make_repo({"AGENTS.md": "# Rules\n\n- No tautological tests.\n"}, files)
    plain = review(load_changeset(r.path, base="main", head="pr"))
    monkeypatch.setattr(bot.git.local, "_FORK_PAST", 0 if fork else 1 << 30)
    ran: list[str] = []

    def broken() -> None:
        ran.append("broken")
        raise RuntimeError("a fault in work done ahead")

    tasks = (broken, *warm_ups(), lambda: ran.append("last"))
    # The diff not in yet: every task runs, and the broken one changes nothing.
    monkeypatch.setattr(bot.git.forked.Pending, "ready", lambda self: False)
    monkeypatch.setattr(bot.git.local._Background, "done", lambda self: False)
    cs = load_changeset(r.path, base="main", head="pr", idle=tasks)
    assert ran == ["broken", "last"]
    assert review(cs).findings == plain.findings
    # The diff in: no task runs.
    ran.clear()
    monkeypatch.setattr(bot.git.forked.Pending, "ready", lambda self: True)
    monkeypatch.setattr(bot.git.local._Background, "done", lambda self: True)
    load_changeset(r.path, base="main", head="pr", idle=tasks)
    assert ran == []


def test_when_git_cannot_say_which_attributes_apply_every_changed_blob_is_sized(make_repo, monkeypatch):
    import bot.git.local
    from rules.core.models import MAX_TEXT_BYTES

    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", "big.txt": big})
    real = bot.git.local._git

    def git(repo, *args, **kw):
        if args[0] == "check-attr":
            return real(repo, "check-attr", "--no-such-option", **kw)
        return real(repo, *args, **kw)

    monkeypatch.setattr(bot.git.local, "_git", git)
    cs = load_changeset(r.path, base="main", head="pr")
    assert [(f.path, f.patch_missing) for f in cs.files] == [("a.py", False), ("big.txt", True)]
    assert cs.reader.processes == 1 and cs.reader.bytes_read < len(big)  # sized first, never read


def test_a_file_over_the_cap_renamed_unchanged_is_listed_as_not_reviewed(make_repo):
    from rules.core.models import MAX_TEXT_BYTES

    # git prints no line of a file renamed unchanged, binary or not: it is sized like a binary one.
    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)
    r = make_repo({"a.py": "a = 1\n", "old.txt": big}, {"a.py": "a = 2\n", "old.txt": None, "new.txt": big})
    cs = load_changeset(r.path, base="main", head="pr")
    assert [(f.path, f.old_path, f.status.value, f.patch_missing) for f in cs.files] == [
        ("a.py", None, "modified", False),
        ("new.txt", "old.txt", "renamed", True),
    ]
    assert cs.reader.bytes_read < len(big)
