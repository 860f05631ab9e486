"""Lists the AGT001 cases the second-pytest-stretch rule picks from a repository's recent history.

    python3 benchmarks/holdout/sample_h23a.py CLONE REPO [--under tests/] [--commits 150] [HEAD]

The rule (fixed before any case was read): the most recent N first-parent commits of HEAD (base =
`git rev-list --first-parent HEAD | sed -n (N+1)p`); every such commit whose change against its first
parent adds a test in a file pytest collects under the test folder (default `python_files`: basename
`test_*.py` or `*_test.py`); per changed such file, the first new test in file order (a module-level `test*`
function or a `test*` method of a `Test*` class, nested classes too, whose qualified name the file did not
have at the first parent, the old path when git pairs a rename). `benchmarks/sample_cases.py`'s sampler,
parametrised by folder and file pattern; git plumbing only. Prints CSV rows with the split.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.sample_cases import _git, sample  # noqa: E402


def split(repo: str, commit: str) -> str:
    return "holdout" if int(hashlib.sha256(f"{repo}:{commit}".encode()).hexdigest(), 16) % 2 == 0 else "tune"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("repo")
    parser.add_argument("head", nargs="?", default="HEAD")
    parser.add_argument("--under", default="tests/")
    parser.add_argument("--commits", type=int, default=150)
    args = parser.parse_args(argv)
    head = _git(args.clone, "rev-parse", args.head).strip()
    base = _git(args.clone, "rev-list", "--first-parent", head).split()[args.commits]
    print(f"# head {head} base {base}")
    for sha, path, test in sample(args.clone, base, head, args.under, only_collected=True):
        print(f"{args.repo},{sha},{path},{test},,AGT001,,,{split(args.repo, sha)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
