"""The uncommitted side of a local review: the index (`--staged`) or the working tree as a commit object.

`bot check` reviews what a developer is about to commit, so a fixed docstring counts before it is
committed. The snapshot is built as `git stash create` builds its commits: a tree written from a
temporary copy of the index (the user's own index, refs and files are left as they were), and a commit
object on top of HEAD that no ref points to. Untracked files that .gitignore does not ignore are taken
in, as `git add -A` would take them, except those over the size cap: they are listed as not reviewed,
like a committed file over the cap, and never hashed.

Nothing is written into the repository: the snapshot's objects (blobs of edited and untracked files,
trees, the commit) go to a temporary object directory, which the repository's own objects back as an
alternate; while the review runs, every git command of this process sees it as an alternate of the
repository (GIT_ALTERNATE_OBJECT_DIRECTORIES), and it is removed afterwards. Before, `git add -A` stored
every untracked file in `.git/objects`: a 256 MiB checkpoint left `.git` 256 MiB larger (issue 22).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from bot.git.local import _git
from rules.core.models import MAX_TEXT_BYTES

# commit-tree needs an identity; the snapshot is never pushed or shown, so a fixed one is enough.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "bot check",
    "GIT_AUTHOR_EMAIL": "bot-check@localhost",
    "GIT_COMMITTER_NAME": "bot check",
    "GIT_COMMITTER_EMAIL": "bot-check@localhost",
}
_ALTERNATES = "GIT_ALTERNATE_OBJECT_DIRECTORIES"


class Snapshot(NamedTuple):
    """The snapshot commit, and the untracked files left out of it for their size (not reviewed)."""

    commit: str
    left_out: tuple[str, ...] = ()


def _run(top: Path, *args: str, env: dict[str, str], stdin: bytes = b"") -> str:
    return _git(top, *args, env=env, stdin=stdin).stdout.decode().strip()


def _with_alternate(directory: str, current: str | None) -> str:
    # git reads the list with the platform's path separator (':' here, ';' on Windows).
    return directory if not current else f"{directory}{os.pathsep}{current}"


def _over_cap(top: Path, env: dict[str, str], limit: int) -> list[str]:
    """The untracked files `git add -A` would take that are regular files over limit bytes, sized with
    lstat (nothing is read or hashed)."""
    out = _git(top, "ls-files", "-z", "--others", "--exclude-standard", env=env).stdout
    big = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        try:
            st = os.lstat(top / path)
        except OSError:
            continue  # gone since git listed it: git add will not find it either
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            big.append(path)
    return big


@contextmanager
def snapshot(top: Path, staged: bool, limit: int = MAX_TEXT_BYTES) -> Iterator[Snapshot | None]:
    """A commit of the index (staged) or of the working tree, on top of HEAD, readable by the git commands
    run inside the block and gone after it; None when it holds nothing HEAD does not (then HEAD itself is
    what there is to review)."""
    with tempfile.TemporaryDirectory(prefix="bot-snapshot-") as tmp:
        objects = Path(tmp, "objects")
        objects.mkdir()
        base = {**os.environ, **_IDENTITY}
        # One process for the three answers: the object directory, the index file and HEAD's tree.
        real, real_index, head_tree = _run(
            top, "rev-parse", "--path-format=absolute", "--git-path", "objects", "--git-path", "index",
            "HEAD^{tree}", env=base,
        ).split("\n")  # fmt: skip
        # Written to the temporary directory; everything already stored is found in the real one.
        env = {
            **base,
            "GIT_OBJECT_DIRECTORY": str(objects),
            _ALTERNATES: _with_alternate(real, os.environ.get(_ALTERNATES)),
        }
        left_out: list[str] = []
        if staged:
            tree = _run(top, "write-tree", env=env)
        else:
            index = Path(tmp, "index")
            env["GIT_INDEX_FILE"] = str(index)
            if Path(real_index).is_file():
                # copy2 keeps the index's mtime: git trusts a file whose stat matches an entry only when
                # it is older than the index, so a fresh mtime would hide a same-size edit made just now.
                shutil.copy2(real_index, index)
            left_out = _over_cap(top, env, limit)
            pathspecs = [".", *(f":(top,exclude,literal){p}" for p in left_out)]
            stdin = "\0".join(pathspecs).encode("utf-8", "surrogateescape") + b"\0"
            _run(top, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", env=env, stdin=stdin)
            tree = _run(top, "write-tree", env=env)
        if tree == head_tree and not left_out:
            yield None
            return
        commit = _run(top, "commit-tree", tree, "-p", "HEAD", "-F", "-", env=env)  # an empty message
        was = os.environ.get(_ALTERNATES)
        os.environ[_ALTERNATES] = _with_alternate(str(objects), was)
        try:
            yield Snapshot(commit, tuple(left_out))
        finally:
            if was is None:
                os.environ.pop(_ALTERNATES, None)
            else:
                os.environ[_ALTERNATES] = was
