"""Lists the AGT001 cases the issue-23 sampling rule picks from a repository's history .

    python3 benchmarks/holdout/sample_h23b.py CLONE BASE HEAD --under tests/ [--class-suffix TestCase]

`benchmarks/sample_cases.py`'s sampler (git plumbing only), parametrised by the test folder. The rule, fixed
before any case was read: every first-parent commit of BASE..HEAD whose change against its first parent adds
a test in a Python test file pytest collects (default `python_files`: `test_*.py` or `*_test.py`) under the
folder; per such changed file, the first new test in file order: a module-level `test*` function or a `test*`
method of a test class (`Test*`, plus `*<suffix>` when the repo's `python_classes` adds one; nested classes
too) whose qualified name the file did not have at the first parent (the old path when git pairs a rename).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.sample_cases import sample  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("base")
    parser.add_argument("head")
    parser.add_argument("--under", default="tests/")
    parser.add_argument("--class-suffix", action="append", default=[])
    args = parser.parse_args(argv)
    picks = sample(
        args.clone, args.base, args.head, args.under, only_collected=True, suffixes=tuple(args.class_suffix)
    )
    for sha, path, test in picks:
        print(f"{sha},{path},{test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
