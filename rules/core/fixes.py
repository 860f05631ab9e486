"""Mechanical fixes: building a line replacement from head text, and applying fixes to a text (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from rules.core.lines import content, ending, git_lines, git_lines_keepends
from rules.core.models import Fix


def fix_key(rule: str, path: str, *parts: str) -> str:
    """The stable name of a fix: the same finding on a later push gets the same key."""
    return ":".join((rule, path, *parts))


@lru_cache(maxsize=16)
def lines_of(text: str) -> tuple[str, ...]:
    """The lines of a file's text as git numbers them (rules.core.lines), split once however many fixes a
    file gets (a test file may hold thousands of new tests: splitting it for each would be quadratic)."""
    return tuple(git_lines(text))


def replacement(key: str, path: str, text: str, start: int, end: int, lines: Iterable[str]) -> Fix | None:
    """A Fix replacing lines start..end of text, or None when that range is not in the text or nothing
    would change."""
    have = lines_of(text)
    if not 1 <= start <= end <= len(have):
        return None
    new = tuple(lines)
    original = tuple(have[start - 1 : end])
    if new == original:
        return None
    return Fix(key=key, path=path, start_line=start, end_line=end, original=original, lines=new)


@dataclass(frozen=True)
class Applied:
    """What applying the fixes of one file did."""

    text: str
    applied: tuple[Fix, ...] = ()
    already: tuple[Fix, ...] = ()  # the text already held the replacement: nothing to do
    stale: tuple[Fix, ...] = ()  # the lines differ from what the fix was computed from: left alone


def apply(text: str, fixes: Iterable[Fix]) -> Applied:
    """Apply fixes to the text of one file; overlapping or stale fixes are skipped, never half-applied.

    Lines are git's (rules.core.lines), as the fixes number them. Line endings are kept: new lines take
    the ending of the first line they replace, the last one that of the last line replaced (so a file
    without a final newline keeps none).
    """
    lines = git_lines_keepends(text)
    applied: list[Fix] = []
    already: list[Fix] = []
    stale: list[Fix] = []
    taken: set[int] = set()
    # From the bottom up, so that a replacement of another length does not move the lines still to come.
    for fix in sorted(fixes, key=lambda f: (f.start_line, f.end_line), reverse=True):
        span = range(fix.start_line, fix.end_line + 1)
        current = tuple(content(line) for line in lines[fix.start_line - 1 : fix.end_line])
        if fix.end_line > len(lines) or taken.intersection(span):
            stale.append(fix)
            continue
        if current == fix.lines:
            already.append(fix)
            continue
        if current != fix.original:
            stale.append(fix)
            continue
        first, last = lines[fix.start_line - 1], lines[fix.end_line - 1]
        # The last line of a file may have no ending: the one before it says which the file uses.
        before = lines[fix.start_line - 2] if fix.start_line > 1 else ""
        newline = ending(first) or ending(before) or "\n"
        tail = ending(last)
        new = [line + newline for line in fix.lines]
        if new:
            new[-1] = fix.lines[-1] + tail
        lines[fix.start_line - 1 : fix.end_line] = new
        taken.update(span)
        applied.append(fix)
    return Applied("".join(lines), tuple(reversed(applied)), tuple(already), tuple(stale))
