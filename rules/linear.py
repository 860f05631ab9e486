"""Pattern matching that stays linear on hostile text: a gate in front of patterns of the form `A.*?B.*C`.

Such a pattern backtracks quadratically where A matches at many places and B never follows ("no no no ...
no" against `no.*?rewrite`): the engine retries the scan to the end from every A. The gate splits the
pattern at its top-level `.*` and `.*?` and looks for each piece once, left to right, from where the
previous one ended: a linear pass that fails exactly where no piece order exists. Only text that passes
the gate meets the full pattern, which then succeeds on its first attempt.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE


def split_top_level(pattern: str) -> list[str]:
    """The pieces of a pattern between its top-level `.*` / `.*?` (not inside groups or classes)."""
    pieces, start, depth, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            # A `]` right after `[` or `[^` is a literal member of the class.
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and pattern.startswith(".*", i):
            pieces.append(pattern[start:i])
            i += 3 if pattern.startswith(".*?", i) else 2
            start = i
            continue
        i += 1
    pieces.append(pattern[start:])
    return [p for p in pieces if p]


class Gated:
    """A pattern behind its linear gate; `search` answers as `re.Pattern.search` does.

    The whole pattern is compiled when text first passes the gate: most never meets text that does, and
    compiling every rule's patterns is a fixed cost of each run.
    """

    __slots__ = ("_compiled", "flags", "pieces", "source")

    def __init__(self, source: str, pieces: tuple[re.Pattern[str], ...], flags: int = _FLAGS) -> None:
        self.source = source
        self.pieces = pieces
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @classmethod
    def compile(cls, source: str, flags: int = _FLAGS) -> Gated:
        pieces = split_top_level(source)
        gate = tuple(re.compile(p, flags) for p in pieces) if len(pieces) > 1 else ()
        return cls(source, gate, flags)

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    @property
    def groupindex(self):  # noqa: ANN201 - the same mapping re.Pattern offers
        return self.pattern.groupindex

    def search(self, text: str) -> re.Match[str] | None:
        pos = 0
        for piece in self.pieces:
            m = piece.search(text, pos)
            if m is None:
                return None
            pos = m.end()
        return self.pattern.search(text)
