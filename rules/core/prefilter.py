"""Cheap literal prechecks: a case-insensitive pattern need not scan a text that lacks every word its
matches must contain.

A pattern that opens with `\\b` or a lookbehind under re.IGNORECASE has no literal prefix for re to skip
to, so it is tried at every position: a few tens of nanoseconds each, which over a megabyte docstring of
tabs (expanded eight-fold by `inspect.cleandoc`) and a dozen passes is seconds. `str.lower` and `in` cost
a few milliseconds there.
"""

from __future__ import annotations

from functools import lru_cache


# Each text is asked about by several patterns in a row; a few entries are enough, and a few folded
# copies of a 16 MB docstring are all the memory the cache may hold.
@lru_cache(maxsize=4)
def folded(text: str) -> str:
    """text lowered so that every ASCII word a re.IGNORECASE pattern matches in it is a substring.

    Besides the ASCII letters, re's IGNORECASE takes exactly four characters for ASCII letters: `İ` (i),
    `ı` (i), `ſ` (s) and the Kelvin sign (k). `str.lower` turns the Kelvin sign into `k` and `İ` into
    `i` and a combining dot, which is dropped here; `ı` and `ſ` it leaves, so they are replaced.
    """
    low = text.lower()
    if low.isascii():
        return low
    return low.replace("i\u0307", "i").replace("\u0131", "i").replace("\u017f", "s")


def may_hold(text: str, words: tuple[str, ...]) -> bool:
    """Whether text holds any of words (lowercase ASCII), case-insensitively as re reads case."""
    low = folded(text)
    return any(word in low for word in words)
