"""A temporary checkout of a commit beside the repository (`git worktree`), always removed afterwards."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bot.git.local import _git

# The repository's own hooks (a post-checkout hook) do not run for a checkout the bot makes.
_NO_HOOKS = (f"core.hooksPath={os.devnull}",)


@contextmanager
def worktree(top: Path, sha: str, env: Mapping[str, str]) -> Iterator[Path]:
    """A checkout of sha in a temporary folder, sharing top's object store (nothing is copied or fetched);
    removed with its administrative files when the block ends, by an error or Ctrl-C too. Each git command
    has the reader's time limit, so a stuck checkout (a smudge filter) cannot hang the review."""
    with tempfile.TemporaryDirectory(prefix="bot-verify-", ignore_cleanup_errors=True) as tmp:
        tree = Path(tmp, "tree")
        git_env = dict(env)
        try:
            _git(top, "worktree", "add", "--detach", "--quiet", str(tree), sha, env=git_env, config=_NO_HOOKS)
            yield tree
        finally:
            _git(top, "worktree", "remove", "--force", str(tree), check=False, env=git_env, config=_NO_HOOKS)
            _git(top, "worktree", "prune", check=False, env=git_env, config=_NO_HOOKS)
