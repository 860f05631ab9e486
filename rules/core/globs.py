"""Path globs with `**` (any number of folders), `*` and `?` (within one folder)."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    # DOTALL: a path may hold a newline (git allows it), and `**` must still match across it.
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def match(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """Whether path matches any of the globs."""
    return any(_compile(p).match(path) for p in patterns)
