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
(HOOK,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
UNNAMED = "def test_crash_regression():\n    assert f()\n"
NAMED = 'def test_crash_regression():\n    """Guards PR #7."""\n    assert f()\n'


def _local_config(repo: GitRepo) -> None:
    """Our manifest's hook as a `repo: local` hook run by this interpreter.

    pre-commit would build the hook's own environment with pip from the package index; the suite makes no
    network request, so the same entry, arguments and settings run with the interpreter that has the bot.
    `BOT_TEST_NETWORK=1` runs test_the_hook_installs_from_this_repository, which lets pre-commit build it.
    """
    entry = shlex.split(HOOK["entry"])
    assert entry[0] == "bot"
    hook = {
        **{k: HOOK[k] for k in ("id", "name", "pass_filenames", "require_serial", "stages")},
        "entry": shlex.join([sys.executable, "-m", "bot", *entry[1:]]),
        "language": "system",
    }
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
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
    assert "(main...the staged changes)" in proc.stdout


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
