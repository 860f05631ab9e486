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

    Each piece of the gate, and the whole pattern, is compiled when a search first needs it: most
    pieces after the first, and most whole patterns, never meet text that gets that far, and compiling
    every rule's patterns up front is a fixed cost of each run.
    """

    __slots__ = ("_compiled", "_pieces", "flags", "piece_sources", "source")

    def __init__(self, source: str, piece_sources: tuple[str, ...], flags: int = _FLAGS) -> None:
        self.source = source
        self.piece_sources = piece_sources
        self.flags = flags
        self._pieces: list[re.Pattern[str] | None] = [None] * len(piece_sources)
        self._compiled: re.Pattern[str] | None = None

    @classmethod
    def compile(cls, source: str, flags: int = _FLAGS) -> Gated:
        pieces = split_top_level(source)
        return cls(source, tuple(pieces) if len(pieces) > 1 else (), flags)

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def _piece(self, i: int) -> re.Pattern[str]:
        piece = self._pieces[i]
        if piece is None:
            piece = self._pieces[i] = re.compile(self.piece_sources[i], self.flags)
        return piece

    @property
    def groupindex(self):  # noqa: ANN201 - the same mapping re.Pattern offers
        return self.pattern.groupindex

    def first(self) -> re.Pattern[str]:
        """The pattern every search compiles: the gate's first piece, or the whole pattern."""
        return self._piece(0) if self.piece_sources else self.pattern

    def search(self, text: str) -> re.Match[str] | None:
        pos = 0
        for i in range(len(self.piece_sources)):
            m = self._piece(i).search(text, pos)
            if m is None:
                return None
            pos = m.end()
        return self.pattern.search(text)
