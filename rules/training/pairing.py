"""Which base file each changed file is compared with: by path, and by git's rename guess only for a move.

Git pairs a deleted and an added file by the similarity of their text. For training configs that guess
can be wrong: two runs moved together (`sft/start.toml`, `sft/resume.toml` -> `new/start.toml`,
`new/resume.toml`) whose step counts both change are paired crosswise when each old file is closer to the
other's new text. A run is identified by its path, so:

- a path that exists at both sides is compared with itself, whatever git says;
- a pure rename (old path gone at head, new path absent at base) keeps git's pairing, except that renames
  from one directory into another that only permute the file names are paired by file name (a directory
  move keeps its files' names);
- an old path that is gone at head and is no longer anyone's base is a removal.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from rules.core.models import ChangeSet, FileChange, FileStatus, UnreadableFile


@dataclass(frozen=True)
class Pair:
    """One file base -> head: None on the side where it does not exist."""

    base: str | None
    head: str | None

    @property
    def path(self) -> str:
        """The path shown for the pair: head's, else base's."""
        return self.head or self.base or ""


def _exists(read: Callable[[str], str | None], path: str) -> bool:
    try:
        return read(path) is not None
    except UnreadableFile:
        return True  # there, though unreadable: the reader of the pair reports why


def file_pairs(changeset: ChangeSet, files: tuple[FileChange, ...]) -> tuple[Pair, ...]:
    """Base -> head pairs of the given changed files (a subset of the change set's)."""
    changed = {f.path for f in changeset.files}
    pairs: list[Pair] = []
    moves: list[tuple[str, str]] = []
    for f in files:
        if f.status is FileStatus.REMOVED:
            pairs.append(Pair(f.path, None))
        elif f.status is FileStatus.ADDED:
            pairs.append(Pair(None, f.path))
        elif f.status is not FileStatus.RENAMED or not f.old_path or f.old_path == f.path:
            pairs.append(Pair(f.base_path, f.path))
        elif _exists(changeset.base_text, f.path):
            pairs.append(Pair(f.path, f.path))
            if f.old_path not in changed and not _exists(changeset.head_text, f.old_path):
                pairs.append(Pair(f.old_path, None))
        elif _exists(changeset.head_text, f.old_path):
            pairs.append(Pair(None, f.path))  # a copy: the old file lives on, unchanged or changed itself
        else:
            moves.append((f.old_path, f.path))
    return tuple(pairs) + _pair_moves(moves)


def _pair_moves(moves: list[tuple[str, str]]) -> tuple[Pair, ...]:
    by_dirs: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for old, new in moves:
        by_dirs[(posixpath.dirname(old), posixpath.dirname(new))].append((old, new))
    out: list[Pair] = []
    for (old_dir, new_dir), group in by_dirs.items():
        olds = sorted(posixpath.basename(o) for o, _ in group)
        news = sorted(posixpath.basename(n) for _, n in group)
        if olds == news and len(set(olds)) == len(olds):
            out.extend(Pair(posixpath.join(old_dir, n), posixpath.join(new_dir, n)) for n in olds)
        else:
            out.extend(Pair(o, n) for o, n in group)
    return tuple(out)
