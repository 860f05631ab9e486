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
    """Pause the cyclic collector inside the block (nested blocks are fine); restore it after.

    What the block built and kept (a change set's parsed test files, read while git diffs) is moved to
    the oldest generation as the pause ends: the collections of young objects that follow would each
    walk all of it (seconds for millions of tree nodes) only to find nothing to free. It is still freed
    by reference counting, and cycles in it by the next full collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:  # someone else's frozen objects must stay frozen
                gc.freeze()  # every tracked object to the permanent generation, in one step
                gc.unfreeze()  # and from there to the oldest one
            gc.enable()
