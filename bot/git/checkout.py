"""A temporary checkout of a commit beside the repository (`git worktree`), always removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bot.git.local import SourceError

# The repository's own hooks (a post-checkout hook) do not run for a checkout the bot makes.
_NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")


def _git(top: Path, env: Mapping[str, str], *args: str, check: bool = True) -> None:
    proc = subprocess.run(
        ["git", *_NO_HOOKS, *args], cwd=top, env=dict(env), stdin=subprocess.DEVNULL, capture_output=True
    )
    if check and proc.returncode:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(
            f"git {args[0]} {args[1]} failed: {said[-1] if said else 'exit ' + str(proc.returncode)}"
        )


@contextmanager
def worktree(top: Path, sha: str, env: Mapping[str, str]) -> Iterator[Path]:
    """A checkout of sha in a temporary folder, sharing top's object store (nothing is copied or fetched);
    removed with its administrative files when the block ends, by an error or Ctrl-C too."""
    tmp = Path(tempfile.mkdtemp(prefix="bot-verify-"))
    tree = tmp / "tree"
    try:
        _git(top, env, "worktree", "add", "--detach", "--quiet", str(tree), sha)
        yield tree
    finally:
        _git(top, env, "worktree", "remove", "--force", str(tree), check=False)
        shutil.rmtree(tmp, ignore_errors=True)
        _git(top, env, "worktree", "prune", check=False)


def worktrees(top: Path, env: Mapping[str, str]) -> tuple[str, ...]:
    """The paths of top's work trees, as `git worktree list` gives them (the main one first)."""
    proc = subprocess.run(
        ["git", "worktree", "list", "--porcelain", "-z"],
        cwd=top,
        env=dict(env),
        capture_output=True,
        check=True,
    )
    fields = proc.stdout.decode("utf-8", "replace").split("\0")
    return tuple(f.removeprefix("worktree ") for f in fields if f.startswith("worktree "))
