"""Python's cyclic garbage collector paused while a review builds its objects.

A large review holds millions of objects (diff line numbers, the syntax trees of every changed test
file) that form no reference cycles, so reference counting frees them. The collector's full passes
over that growing heap cost more than the parsing itself: on a 3,000-file PR they doubled the time of
`ast.parse` (benchmarks/large_pr.py, docs/performance.md). The collector resumes afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cyclic collector inside the block (nested blocks are fine); restore it after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
