"""`bot check` reviews the working tree by default, the index with --staged, a commit with --head."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main
from tests.helpers import AGENTS_AGT001

UNNAMED = "def test_crash_regression():\n    assert f()\n"
NAMED = 'def test_crash_regression():\n    """Guards PR #7."""\n    assert f()\n'


@pytest.fixture
def repo(make_repo):
    return make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": UNNAMED})


def _check(repo, capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--format", "json", *args])
    out = capsys.readouterr()
    report = json.loads(out.out) if out.out.strip() else {"findings": []}
    return code, [f["rule"] for f in report["findings"]], out.err


def test_an_uncommitted_fix_counts(repo, capsys):
    repo.git("checkout", "-q", "pr")
    assert _check(repo, capsys)[:2] == (1, ["AGT001"])
    repo.write({"tests/test_a.py": NAMED})  # fixed, not committed
    assert _check(repo, capsys)[:2] == (0, [])
    assert _check(repo, capsys, "--head", "HEAD")[:2] == (1, ["AGT001"])  # the commit still has it


def test_untracked_files_count_unless_ignored(repo, capsys):
    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_b.py": UNNAMED.replace("crash", "hang"), ".gitignore": "tests/test_c.py\n"})
    repo.write({"tests/test_c.py": UNNAMED.replace("crash", "leak")})
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--format", "json"])
    paths = sorted(f["path"] for f in json.loads(capsys.readouterr().out)["findings"])
    assert code == 1 and paths == ["tests/test_a.py", "tests/test_b.py"]


def test_staged_reviews_only_the_index(repo, capsys):
    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_a.py": NAMED})
    repo.git("add", "tests/test_a.py")
    repo.write({"tests/test_a.py": UNNAMED})  # unstaged: not what will be committed
    assert _check(repo, capsys, "--staged")[:2] == (0, [])
    assert _check(repo, capsys)[:2] == (1, ["AGT001"])


def test_the_users_index_and_files_are_left_as_they_were(repo, capsys):
    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_a.py": NAMED, "notes.txt": "x\n"})
    repo.git("add", "notes.txt")
    before = (repo.git("status", "--porcelain"), repo.git("rev-parse", "HEAD"), repo.git("stash", "list"))
    _check(repo, capsys)
    _check(repo, capsys, "--staged")
    after = (repo.git("status", "--porcelain"), repo.git("rev-parse", "HEAD"), repo.git("stash", "list"))
    assert after == before


def test_the_summary_says_what_was_reviewed(repo, capsys):
    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_a.py": NAMED})
    main(["check", "--repo", str(repo.path), "--base", "main", "--format", "text"])
    assert "(main...the working tree)" in capsys.readouterr().out
    main(["check", "--repo", str(repo.path), "--base", "main", "--format", "text", "--staged"])
    assert "(main...HEAD)" in capsys.readouterr().out  # nothing staged: HEAD is what there is


def test_staged_and_head_together_is_a_usage_error(repo, capsys):
    code, _, err = _check(repo, capsys, "--staged", "--head", "pr")
    assert code == 2 and "give one of them" in err


def test_a_master_repository_needs_no_base(tmp_path, capsys):
    from tests.conftest import GitRepo

    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS_AGT001}, "base")
    r.git("branch", "-m", "master")
    r.git("checkout", "-q", "-b", "fix")
    r.write({"tests/test_a.py": UNNAMED})
    code = main(["check", "--repo", str(r.path), "--format", "json"])
    assert code == 1 and "AGT001" in capsys.readouterr().out


def test_an_unknown_base_names_the_branches_there_are(repo, capsys):
    code, _, err = _check(repo, capsys, "--base", "trunk")
    assert code == 2
    assert err.strip() == "bot: unknown ref: trunk; branches here: main, pr. Name the base with --base BRANCH"


def test_a_shallow_clone_says_how_to_fetch_the_history(tmp_path, repo, capsys):
    import subprocess

    shallow = tmp_path / "shallow"
    url = f"file://{repo.path}"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "-b", "pr", url, str(shallow)], check=True)
    subprocess.run(
        ["git", "-C", str(shallow), "fetch", "-q", "--depth", "1", "origin", "main:main"], check=True
    )
    code = main(["check", "--repo", str(shallow), "--base", "main", "--head", "HEAD"])
    err = capsys.readouterr().err
    assert code == 2 and "shallow clone" in err and "fetch-depth: 0" in err
