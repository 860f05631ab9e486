"""Unified diffs into FileChange models: plain changes in one pass of our own, anything else with unidiff."""

from __future__ import annotations

import bisect
import codecs
import re

import unidiff
from unidiff.errors import UnidiffParseError

from rules.core.models import FileChange, FileStatus, Hunk


class DiffError(Exception):
    """The diff text could not be parsed."""


def _unquote(path: str) -> str:
    # git C-quotes paths with unusual bytes ("a/caf\303\251.py"); unidiff keeps the quotes.
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        raw = codecs.escape_decode(path[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", errors="replace")
    return path


def _strip_prefix(path: str) -> str | None:
    path = _unquote(path.strip())
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def _hunk(h: unidiff.Hunk) -> Hunk:
    return Hunk(
        old_start=h.source_start,
        old_length=h.source_length,
        new_start=h.target_start,
        new_length=h.target_length,
        added=tuple(ln.target_line_no for ln in h if ln.is_added and ln.target_line_no is not None),
        removed=tuple(ln.source_line_no for ln in h if ln.is_removed and ln.source_line_no is not None),
    )


def _status(pf: unidiff.PatchedFile, header: str) -> FileStatus:
    if pf.is_added_file or "\nnew file mode" in header:
        return FileStatus.ADDED
    if pf.is_removed_file or "\ndeleted file mode" in header:
        return FileStatus.REMOVED
    if pf.is_rename:
        return FileStatus.RENAMED
    return FileStatus.MODIFIED


def _is_symlink(header: str) -> bool:
    # Mode 120000 on the new side: "new file mode 120000", "new mode 120000" or "index a..b 120000".
    return any(
        line.startswith(("new file mode 120000", "new mode 120000"))
        or (line.startswith("index ") and line.endswith(" 120000"))
        # git's lines: a path printed as it is (core.quotepath off) may hold U+2028 or U+0085, which
        # str.splitlines would take for a line break, and a file named `x\u2028new mode 120000` for a link.
        for line in header.split("\n")
    )


HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _hunk_numbers(text: str) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    """(old start, new start, added, removed) of every hunk, in order, from one pass over the lines.

    unidiff builds an object per diff line, which on a 200,000-line diff costs seconds; the line numbers
    are all a review needs. Lines are counted as unidiff counts them (an empty line is context).
    """
    out = []
    lines = text.split("\n")
    i, end = 0, len(lines)
    while i < end:
        line = lines[i]
        i += 1
        m = HUNK_HEADER.match(line) if line.startswith("@@ -") else None
        if m is None:
            continue
        old = old_start = int(m[1])
        new = new_start = int(m[3])
        old_end = old + (1 if m[2] is None else int(m[2]))
        new_end = new + (1 if m[4] is None else int(m[4]))
        added: list[int] = []
        removed: list[int] = []
        while (old < old_end or new < new_end) and i < end:
            kind = lines[i][:1]
            i += 1
            if kind == "+":
                added.append(new)
                new += 1
            elif kind == "-":
                removed.append(old)
                old += 1
            elif kind != "\\":
                old += 1
                new += 1
        out.append((old_start, new_start, tuple(added), tuple(removed)))
    return out


def _patch(text: str) -> tuple[unidiff.PatchSet, list[tuple[Hunk, ...]]]:
    """The files of a diff, and each file's hunks with their line numbers."""
    try:
        patch = unidiff.PatchSet(text, metadata_only=True)
        numbers = _hunk_numbers(text)
        hunks: list[tuple[Hunk, ...]] = []
        found = iter(numbers)
        agree = sum(len(pf) for pf in patch) == len(numbers)
        for pf in patch if agree else ():
            mine = []
            for h in pf:
                old, new, added, removed = next(found)
                agree = agree and (old, new) == (h.source_start, h.target_start)
                mine.append(
                    Hunk(
                        old_start=old,
                        old_length=h.source_length,
                        new_start=new,
                        new_length=h.target_length,
                        added=added,
                        removed=removed,
                    )
                )
            hunks.append(tuple(mine))
        if agree:
            return patch, hunks
        # The pass disagrees with unidiff (a diff git would not print): take unidiff's line-by-line answer.
        full = unidiff.PatchSet(text)
    except UnidiffParseError as exc:
        raise DiffError(f"could not parse diff: {exc}") from None
    return full, [tuple(_hunk(h) for h in pf) for pf in full]


_DEV_NULL = "/dev/null"
# Extended header lines of a plain change; a rename or a copy has others.
_PLAIN_HEADER = ("index ", "new file mode ", "deleted file mode ", "old mode ", "new mode ")
_MODE_LINES = ("new file mode ", "deleted file mode ", "old mode ", "new mode ")
# One character per line of the diff: how the line starts, " " for an empty one (context, as unidiff reads
# it). A line inside a hunk is added, removed, context (a CR-only line too) or "\\ No newline at end of
# file"; any other start is a header, which ends the hunk.
_HEADER_KIND = re.compile(r"[^+\- \r\\]")
# Runs of added (or removed) lines on one side of a hunk.
_ADDED_RUN = re.compile(r"\++")
_REMOVED_RUN = re.compile(r"-+")


def _numbered(side: str, start: int, run: re.Pattern[str]) -> tuple[int, ...]:
    """The line numbers of the runs of one kind in one side's kinds, counted from start."""
    out: list[int] = []
    for m in run.finditer(side):
        out.extend(range(start + m.start(), start + m.end()))
    return tuple(out)


def _hunk_end(body: str, old_length: int, new_length: int) -> int | None:
    """How many of body's lines a hunk takes, read as unidiff reads them: up to the line that completes
    both counts; None where one side runs over first (unidiff refuses such a hunk) or never completes."""
    old = new = 0
    for at, kind in enumerate(body):
        if kind == "+":
            new += 1
        elif kind == "-":
            old += 1
        elif kind != "\\":
            old += 1
            new += 1
        if old > old_length or new > new_length:
            return None
        if old == old_length and new == new_length:
            return at + 1
    return None


def _ignored(lines: list[str], kinds: str) -> bool:
    """Whether unidiff takes these lines after a file's last hunk for text between files, and drops them.

    Lines that start with `+`, `-` or a space read as nothing else to it: not `---`/`+++` headers, not
    empty (an empty line joins the hunk), not `\\` (a note joins the hunk).
    """
    return (
        not kinds.strip("+- ")
        and "" not in lines
        and not any(line.startswith(("--- ", "+++ ")) for line in lines)
    )


def _plain_files(text: str) -> tuple[FileChange, ...] | None:
    """The files of a diff that holds only plain changes, read in one pass; None for anything else.

    Plain: each file is `diff --git a/P b/P` with a path free of spaces, tabs and quotes, then mode and
    index lines, then `---`, `+++` and hunks whose lines match their counts, or git's one line saying that
    binary files differ. Renames, copies, files without hunks, and any line out of place go to unidiff,
    as before. What is taken from each file is what unidiff's reading gives (its status rules included:
    one hunk from `-0,0` is an added file).
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files: list[FileChange] = []
    i, end = 0, len(lines)
    # What each line starts with, and where the lines no hunk can hold are (headers; `end` closes): a
    # string, so that a hunk's lines are counted and numbered by str and re methods, not per line in Python.
    kinds = "".join([line[:1] or " " for line in lines])
    bounds = [m.start() for m in _HEADER_KIND.finditer(kinds)]
    bounds.append(end)
    while i < end:
        parts = lines[i].split(" ")
        if (
            len(parts) != 4
            or parts[:2] != ["diff", "--git"]
            or not parts[2].startswith("a/")
            or not parts[3].startswith("b/")
            or parts[2][2:] != parts[3][2:]
            or '"' in lines[i]
            or "\t" in lines[i]
        ):
            return None
        i += 1
        new = gone = False
        # Mode 120000 on the new side: "new file mode 120000", "new mode 120000" or "index a..b 120000".
        symlink = False
        while i < end and lines[i].startswith(_PLAIN_HEADER):
            line = lines[i]
            i += 1
            if line.startswith("index "):
                symlink = symlink or line.endswith(" 120000")
                continue
            kind = next(m for m in _MODE_LINES if line.startswith(m))
            if not line[len(kind) :].isdigit():
                return None
            new = new or kind == "new file mode "
            gone = gone or kind == "deleted file mode "
            symlink = symlink or line.startswith(("new file mode 120000", "new mode 120000"))
        source = _DEV_NULL if new else parts[2]
        target = _DEV_NULL if gone else parts[3]
        if new and gone:
            return None
        # A binary file is named by one line, with no hunks to read.
        binary = i < end and lines[i] == f"Binary files {source} and {target} differ"
        if binary:
            i += 1
        elif i + 1 >= end or lines[i] != f"--- {source}" or lines[i + 1] != f"+++ {target}":
            return None
        else:
            i += 2
        hunks: list[Hunk] = []
        while not binary and i < end and lines[i].startswith("@@ -"):
            m = HUNK_HEADER.match(lines[i])
            if m is None:
                return None
            i += 1
            old_start = int(m[1])
            new_start = int(m[3])
            old_length = 1 if m[2] is None else int(m[2])
            new_length = 1 if m[4] is None else int(m[4])
            if old_length == 0 and new_length == 0:
                return None
            # The hunk's lines run to the next line no hunk holds (a header): counted with str methods
            # and numbered by runs, not one Python step per line (200,000 lines in a big PR).
            stop = bounds[bisect.bisect_left(bounds, i)]
            body = kinds[i:stop]
            plus, minus, notes = body.count("+"), body.count("-"), body.count("\\")
            context = len(body) - plus - minus - notes
            trailing = False
            if context + minus > old_length or context + plus > new_length:
                # More lines than the header says: unidiff ends the hunk where its counts are met and
                # drops the rest as text between files, when nothing but another file follows. Read
                # here, a megabyte of such lines costs no Python step each (1 s in unidiff).
                taken = _hunk_end(body, old_length, new_length)
                if taken is None or not _ignored(lines[i + taken : stop], body[taken:]):
                    return None
                if stop < end and not lines[stop].startswith("diff --git "):
                    return None
                body, trailing = body[:taken], True
                plus, minus, notes = body.count("+"), body.count("-"), body.count("\\")
                context = len(body) - plus - minus - notes
            if context + minus != old_length or context + plus != new_length:
                return None  # more or fewer lines than the header says
            i = stop
            if not (minus or context or notes):
                added: tuple[int, ...] = tuple(range(new_start, new_start + plus))
            elif plus:
                added = _numbered(body.replace("-", "").replace("\\", ""), new_start, _ADDED_RUN)
            else:
                added = ()
            removed: tuple[int, ...] = ()
            if minus:
                removed = _numbered(body.replace("+", "").replace("\\", ""), old_start, _REMOVED_RUN)
            hunks.append(
                Hunk(
                    old_start=old_start,
                    old_length=old_length,
                    new_start=new_start,
                    new_length=new_length,
                    added=added,
                    removed=removed,
                )
            )
            if trailing:
                break  # the dropped lines end the file
        if not (hunks or binary):
            return None
        one = hunks[0] if len(hunks) == 1 else None
        if new or (one and one.old_start == 0 and one.old_length == 0):
            status = FileStatus.ADDED
        elif gone or (one and one.new_start == 0 and one.new_length == 0):
            status = FileStatus.REMOVED
        else:
            status = FileStatus.MODIFIED
        path = _strip_prefix(target if status is not FileStatus.REMOVED else source)
        if path is None:
            continue
        files.append(
            FileChange(
                path=path,
                status=status,
                hunks=tuple(hunks),
                binary=binary,
                symlink=status is not FileStatus.REMOVED and symlink,
            )
        )
    return tuple(files)


class DiffReader:
    """parse_diff() of a diff fed in pieces as git writes it: whole files are read while git works on the
    next ones. finish() gives what parse_diff() of the whole text gives.

    Pieces are cut before a `diff --git ` line, and the one-pass reading holds nothing from one file to
    the next, so reading each piece gives the files reading the whole gives; a piece it refuses sends the
    whole text to parse_diff(). UTF-8 is decoded per piece, cut after a newline, as the whole would be.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._files: list[FileChange] | None = []

    def feed(self, data: bytes) -> None:
        if self._files is None:
            return
        self._pending += data
        cut = self._pending.rfind(b"\ndiff --git ")
        if cut > 0:
            self._read(self._pending[: cut + 1])
            self._pending = self._pending[cut + 1 :]

    def _read(self, piece: bytes) -> None:
        got = _plain_files(piece.decode("utf-8", "replace"))
        if got is None or self._files is None:
            self._files = None
        else:
            self._files.extend(got)

    def finish(self, whole: bytes) -> tuple[FileChange, ...]:
        """The files of the diff; whole: everything fed (the caller holds it anyway: kept once)."""
        if self._files is not None and self._pending.strip():
            self._read(self._pending)
        if self._files is not None:
            return tuple(self._files)
        return parse_diff(whole.decode("utf-8", "replace"))


def parse_diff(text: str) -> tuple[FileChange, ...]:
    """Parse a git unified diff (as `git diff` prints it) into changed files."""
    if not text.strip():
        return ()
    plain = _plain_files(text)
    if plain is not None:
        return plain
    patch, hunks = _patch(text)
    files = []
    for pf, file_hunks in zip(patch, hunks, strict=True):
        header = str(pf.patch_info or "")
        status = _status(pf, header)
        source = _strip_prefix(pf.source_file or "")
        target = _strip_prefix(pf.target_file or "")
        path = target if status is not FileStatus.REMOVED else source
        if path is None:  # pragma: no cover - unidiff always gives one side
            continue
        files.append(
            FileChange(
                path=path,
                status=status,
                old_path=source if status is FileStatus.RENAMED else None,
                hunks=file_hunks,
                binary=pf.is_binary_file,
                symlink=status is not FileStatus.REMOVED and _is_symlink(header),
            )
        )
    return tuple(files)


def parse_hunks(patch: str, path: str = "file") -> tuple[Hunk, ...]:
    """Parse the hunks-only `patch` text GitHub returns for one file of a pull request."""
    if not patch.strip():
        return ()
    wrapped = f"--- a/{path}\n+++ b/{path}\n{patch}"
    if not wrapped.endswith("\n"):
        wrapped += "\n"
    try:
        _, hunks = _patch(wrapped)  # the same fast line-number pass as a whole diff
    except DiffError as exc:
        raise DiffError(
            f"could not parse patch of {path}: {str(exc).removeprefix('could not parse diff: ')}"
        ) from None
    return tuple(h for file_hunks in hunks for h in file_hunks)
