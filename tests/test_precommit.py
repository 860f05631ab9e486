"""The pre-commit hook (.pre-commit-hooks.yaml) run through pre-commit itself on a temporary repository."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import GIT_ENV, GitRepo
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
UNNAMED = "def test_crash_regression():\n    assert f()\n"
NAMED = 'def test_crash_regression():\n    """Guards PR #7."""\n    assert f()\n'


def _local_config(repo: GitRepo) -> None:
    """Our manifest's hooks as `repo: local` hooks run by this interpreter.

    pre-commit would build the hook's own environment with pip from the package index; the suite makes no
    network request, so the same entry, arguments and settings run with the interpreter that has the bot.
    `BOT_TEST_NETWORK=1` runs test_the_hook_installs_from_this_repository, which lets pre-commit build it.
    """
    hooks = []
    for hook in HOOKS:
        entry = shlex.split(hook["entry"])
        assert entry[0] == "bot"
        hooks.append(
            {
                **{k: hook[k] for k in ("id", "name", "pass_filenames", "require_serial", "stages")},
                "entry": shlex.join([sys.executable, "-m", "bot", *entry[1:]]),
                "language": "system",
            }
        )
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    repo.write({".pre-commit-config.yaml": yaml.safe_dump(config)})
    repo.git("add", ".pre-commit-config.yaml")


def _pre_commit(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(repo.path.parent / "pre-commit-home"),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=repo.path, env=env, capture_output=True, text=True
    )


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS_AGT001}, "base")
    r.branch("fix")
    _local_config(r)
    return r


def test_the_hook_reviews_the_staged_change_and_blocks_the_commit(repo):
    repo.write({"tests/test_a.py": UNNAMED})
    repo.git("add", "tests/test_a.py")
    proc = _pre_commit(repo, "run")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "tests/test_a.py:1: AGT001" in proc.stdout
    assert "(HEAD...the staged changes)" in proc.stdout


def test_a_clean_default_branch_passes_with_all_files(tmp_path):
    """Nothing staged is nothing to review: the hook passes, as a linter with no files does (it used to
    fail with "main and HEAD are the same commit")."""
    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS_AGT001, "tests/test_a.py": UNNAMED}, "base")
    _local_config(r)
    r.git("commit", "-q", "-m", "hooks")
    proc = _pre_commit(r, "run", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout and "AGT001" not in proc.stdout


def test_the_first_commit_of_a_new_repository_passes(tmp_path):
    r = GitRepo(tmp_path / "repo")
    r.write({"AGENTS.md": AGENTS_AGT001, "tests/test_a.py": UNNAMED})
    _local_config(r)
    r.git("add", "-A")
    proc = _pre_commit(r, "run")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_finding_already_on_the_branch_does_not_block_a_readme_commit(repo):
    """The hook reviews HEAD -> index: what this commit adds, not the branch it lands on."""
    repo.commit({"tests/test_a.py": UNNAMED}, "a test that names no PR")
    repo.write({"README.md": "docs\n"})
    repo.git("add", "README.md")
    proc = _pre_commit(repo, "run")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_pre_push_hook_reviews_the_pushed_commits(repo):
    start = repo.head()
    end = repo.commit({"tests/test_a.py": UNNAMED}, "a test that names no PR")
    proc = _pre_commit(repo, "run", "--hook-stage", "pre-push", "--from-ref", start, "--to-ref", end)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "tests/test_a.py:1: AGT001" in proc.stdout
    later = repo.commit({"README.md": "docs\n"}, "docs only")
    proc = _pre_commit(repo, "run", "--hook-stage", "pre-push", "--from-ref", end, "--to-ref", later)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_pre_push_hook_without_refs_reviews_the_branch_and_passes_when_it_is_empty(repo):
    repo.commit(message="hooks")
    proc = _pre_commit(repo, "run", "--hook-stage", "pre-push", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # fix holds nothing main does not
    repo.commit({"tests/test_a.py": UNNAMED}, "a test that names no PR")
    proc = _pre_commit(repo, "run", "--hook-stage", "pre-push", "--all-files")
    assert proc.returncode == 1 and "(main...HEAD)" in proc.stdout, proc.stdout + proc.stderr


def test_only_the_staged_side_counts(repo):
    """The fix is staged; an unstaged edit bringing the problem back is not what will be committed."""
    repo.write({"tests/test_a.py": NAMED})
    repo.git("add", "tests/test_a.py")
    repo.write({"tests/test_a.py": UNNAMED})
    proc = _pre_commit(repo, "run")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "AGT001" not in proc.stdout


@pytest.mark.network
def test_the_hook_installs_from_this_repository(tmp_path):
    """`pre-commit try-repo` builds the hook's environment from this checkout with pip (needs the index)."""
    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS_AGT001}, "base")
    r.branch("fix")
    r.write({"tests/test_a.py": UNNAMED})
    r.git("add", "tests/test_a.py")
    proc = _pre_commit(r, "try-repo", str(ROOT), "bot")
    assert proc.returncode == 1 and "AGT001" in proc.stdout, proc.stdout + proc.stderr


def test_a_real_push_runs_the_pre_push_hook_on_the_pushed_commits(repo, tmp_path):
    """`pre-commit install --hook-type pre-push`, then `git push` to a local remote: pre-commit computes the
    refs itself (a new branch: its commits since the remote's), and the hook blocks only a push that adds a
    finding."""
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.commit(message="hooks")
    repo.git("push", "-q", "origin", "main")
    proc = _pre_commit(repo, "install", "--hook-type", "pre-push")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(repo.path.parent / "pre-commit-home")}
    env["PYTHONPATH"] = str(ROOT)

    def push() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "push", "origin", "fix"], cwd=repo.path, env=env, capture_output=True, text=True
        )

    repo.commit({"README.md": "docs\n"}, "docs only")
    assert push().returncode == 0
    repo.commit({"tests/test_a.py": UNNAMED}, "a test that names no PR")
    blocked = push()
    assert blocked.returncode != 0 and "tests/test_a.py:1: AGT001" in blocked.stdout + blocked.stderr
