"""Benchmark: the cost of computing fixes, for a pull request adding thousands of unnamed regression tests.

Reviews, in memory (no git), one added test file of N tests under `regression: all-new-tests` with PR #828
known, so every test gets an AGT001 finding with a docstring fix; then the same with the fix builder switched
off. Prints both medians; a fix must cost a small fraction of the review, never grow with N squared.

    python3 benchmarks/fixes.py [--tests 2000] [--repeat 3] [--docstrings]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rules.testcode.regression_reference as agt001  # noqa: E402
from bot.review.engine import review  # noqa: E402
from rules.core.models import ChangeSet, FileChange, FileStatus, Hunk, PullRequest  # noqa: E402

AGENTS = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
CONFIG = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"


class Memory:
    def __init__(self, revs: dict[str, dict[str, str]]) -> None:
        self.revs = revs

    def read(self, rev: str, path: str) -> bytes | None:
        text = self.revs[rev].get(path)
        return None if text is None else text.encode()

    def list_paths(self, rev: str) -> tuple[str, ...]:
        return tuple(self.revs[rev])


def _once(source: str) -> tuple[float, int]:
    n = len(source.splitlines())
    base = {"AGENTS.md": AGENTS, ".github/bot.yml": CONFIG}
    changeset = ChangeSet(
        base_sha="base",
        head_sha="head",
        files=(
            FileChange(
                path="tests/test_many.py",
                status=FileStatus.ADDED,
                hunks=(
                    Hunk(old_start=0, old_length=0, new_start=1, new_length=n, added=tuple(range(1, n + 1))),
                ),
            ),
        ),
        pr=PullRequest(number=828),
        reader=Memory({"base": base, "head": {**base, "tests/test_many.py": source}}),
    )
    start = time.perf_counter()
    report = review(changeset)
    return time.perf_counter() - start, sum(f.fix is not None for f in report.findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--docstrings", action="store_true", help="tests with a docstring (rewritten, not inserted)"
    )
    args = parser.parse_args()
    doc = '    """Checks case {i} rounds down."""\n' if args.docstrings else ""
    source = "".join(
        f"def test_case_{i}():\n{doc.format(i=i)}    assert {i}\n\n\n" for i in range(args.tests)
    )
    _once(source)  # warm-up: imports and caches
    with_fixes = [_once(source) for _ in range(args.repeat)]
    real = agt001.docstring_fix
    agt001.docstring_fix = lambda *a: None  # type: ignore[assignment]
    without = [_once(source) for _ in range(args.repeat)]
    agt001.docstring_fix = real
    a, b = statistics.median(t for t, _ in with_fixes), statistics.median(t for t, _ in without)
    print(
        f"{args.tests:,} new tests ({'docstrings rewritten' if args.docstrings else 'docstrings inserted'}), "
        f"{with_fixes[0][1]:,} fixes"
    )
    print(f"review with fixes: median {a:.3f} s; without: {b:.3f} s; fixes cost {a - b:.3f} s ({a / b:.2f}x)")


if __name__ == "__main__":
    main()
