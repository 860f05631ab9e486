"""The uncommitted side of a local review: the index (`--staged`) or the working tree as a commit object.

`bot check` reviews what a developer is about to commit, so a fixed docstring counts before it is
committed. The snapshot is built as `git stash create` builds its commits: a tree written from a
temporary copy of the index (the user's own index, refs and files are left as they were), and a commit
object on top of HEAD that no ref points to (git collects it in time). Untracked files that .gitignore
does not ignore are taken in, as `git add -A` would take them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from bot.git.local import _git

# commit-tree needs an identity; the snapshot is never pushed or shown, so a fixed one is enough.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "bot check",
    "GIT_AUTHOR_EMAIL": "bot-check@localhost",
    "GIT_COMMITTER_NAME": "bot check",
    "GIT_COMMITTER_EMAIL": "bot-check@localhost",
}


def _run(top: Path, *args: str, index: Path | None = None) -> str:
    env = {**os.environ, **_IDENTITY, **({"GIT_INDEX_FILE": str(index)} if index else {})}
    return _git(top, *args, env=env, stdin=b"").stdout.decode().strip()


def snapshot(top: Path, staged: bool) -> str | None:
    """A commit of the index (staged) or of the working tree, on top of HEAD; None when it holds nothing
    HEAD does not (then HEAD itself is what there is to review)."""
    if staged:
        tree = _run(top, "write-tree")
    else:
        with tempfile.TemporaryDirectory(prefix="bot-index-") as tmp:
            index = Path(tmp) / "index"
            real = Path(_run(top, "rev-parse", "--path-format=absolute", "--git-path", "index"))
            if real.is_file():
                # copy2 keeps the index's mtime: git trusts a file whose stat matches an entry only when
                # it is older than the index, so a fresh mtime would hide a same-size edit made just now.
                shutil.copy2(real, index)
            _run(top, "add", "-A", "--", ".", index=index)
            tree = _run(top, "write-tree", index=index)
    if tree == _run(top, "rev-parse", "HEAD^{tree}"):
        return None
    return _run(top, "commit-tree", tree, "-p", "HEAD", "-F", "-")  # an empty message: no evidence
