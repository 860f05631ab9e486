"""`bot check` reviews the working tree by default, the index with --staged, a commit with --head."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess

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
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--format", "text", "--staged"])
    out = capsys.readouterr()
    assert (code, out.out, out.err) == (0, "", "bot: nothing is staged: nothing to review\n")
    repo.git("add", "tests/test_a.py")
    main(["check", "--repo", str(repo.path), "--base", "main", "--format", "text", "--staged"])
    assert "(main...the staged changes)" in capsys.readouterr().out  # --base: the branch and the index


def test_staged_without_base_reviews_what_the_commit_adds_to_head(repo, capsys):
    repo.git("checkout", "-q", "pr")  # its commit adds a test that names no PR
    repo.write({"README.md": "docs\n"})
    repo.git("add", "README.md")
    code = main(["check", "--repo", str(repo.path), "--format", "text", "--staged"])
    out = capsys.readouterr().out
    assert code == 0 and "AGT001" not in out and "(HEAD...the staged changes)" in out


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


def _objects(repo) -> set[str]:  # type: ignore[no-untyped-def]
    """Every loose object and pack file of the repository."""
    root = repo.path / ".git" / "objects"
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("staged", [False, True])
def test_a_snapshot_review_writes_no_object_into_the_repository(repo, capsys, staged):
    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_a.py": NAMED, "tests/test_b.py": UNNAMED.replace("crash", "hang")})
    if staged:
        repo.git("add", "-A")  # the user's own `git add` writes its blobs; the review then adds nothing
    before = _objects(repo)
    code, rules, _ = _check(repo, capsys, *(["--staged"] if staged else []))
    assert (code, rules) == (1, ["AGT001"])  # test_b.py was reviewed: the snapshot was readable
    assert _objects(repo) == before


def test_an_untracked_file_over_the_cap_is_never_hashed_and_is_listed_as_not_reviewed(
    repo, capsys, monkeypatch
):
    from bot.git import worktree
    from rules.core.models import MAX_TEXT_BYTES

    repo.git("checkout", "-q", "pr")
    repo.write({"tests/test_b.py": UNNAMED.replace("crash", "hang")})
    with open(repo.path / "checkpoint.bin", "wb") as f:  # sparse: the size a checkpoint has, no disk
        f.truncate(MAX_TEXT_BYTES + 1)
    big_sha = repo.git("hash-object", "checkpoint.bin").strip()  # computed, not written (-w)
    small_sha = repo.git("hash-object", "tests/test_b.py").strip()
    seen: list[tuple[bool, ...]] = []
    real = worktree.snapshot

    def exists(sha: str) -> bool:  # with this process's environment, as the review's git commands run
        return (
            subprocess.run(["git", "cat-file", "-e", sha], cwd=repo.path, capture_output=True).returncode == 0
        )

    @contextlib.contextmanager
    def snapshot(top, staged):  # type: ignore[no-untyped-def]
        with real(top, staged) as snap:
            seen.append((exists(big_sha), exists(small_sha)))
            yield snap

    monkeypatch.setattr(worktree, "snapshot", snapshot)
    before = _objects(repo)
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and [f["path"] for f in report["findings"]] == ["tests/test_a.py", "tests/test_b.py"]
    assert report["coverage"]["not_reviewed"] == ["checkpoint.bin"]
    # During the review the small file's blob was readable, the big one's never made.
    assert seen == [(False, True)]
    assert _objects(repo) == before
    assert "GIT_ALTERNATE_OBJECT_DIRECTORIES" not in os.environ  # removed with its objects
