"""Lists the AGT001 cases the issue-23 sampling rule picks from a repository's history (helper h23b).

    python3 benchmarks/holdout/sample_h23b.py CLONE BASE HEAD --under tests/ [--class-suffix TestCase]

Copied from benchmarks/sample_cases.py (git plumbing only), parametrised by the test folder. The rule, fixed
before any case was read: every first-parent commit of BASE..HEAD whose change against its first parent adds
a test in a Python test file pytest collects (default `python_files`: `test_*.py` or `*_test.py`) under the
folder; per such changed file, the first new test in file order: a module-level `test*` function or a `test*`
method of a test class (`Test*`, plus `*<suffix>` when the repo's `python_classes` adds one; nested classes
too) whose qualified name the file did not have at the first parent (the old path when git pairs a rename).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import posixpath
import subprocess
from pathlib import Path


def _git(clone: Path, *args: str) -> str:
    proc = subprocess.run(["git", "--no-pager", *args], cwd=clone, capture_output=True, check=True)
    return proc.stdout.decode("utf-8", "replace")


def _show(clone: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def qualified_tests(text: str, suffixes: tuple[str, ...]) -> list[str]:
    found: list[str] = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                found.append(prefix + node.name)
            elif isinstance(node, ast.ClassDef) and (
                node.name.startswith("Test") or any(node.name.endswith(s) for s in suffixes)
            ):
                walk(node.body, f"{prefix}{node.name}.")

    try:
        walk(ast.parse(text).body, "")
    except SyntaxError:
        return []
    return found


def collected(path: str) -> bool:
    name = posixpath.basename(path)
    return fnmatch.fnmatch(name, "test_*.py") or fnmatch.fnmatch(name, "*_test.py")


def sample(clone: Path, base: str, head: str, under: str, suffixes: tuple[str, ...]):
    picked = []
    for sha in _git(clone, "rev-list", "--first-parent", f"{base}..{head}").split():
        status = _git(clone, "diff", "--name-status", "-M", f"{sha}^1", sha, "--", under)
        for row in status.splitlines():
            kind, *paths = row.split("\t")
            old, new = paths[0], paths[-1]
            if kind.startswith("D") or not collected(new):
                continue
            text = _show(clone, sha, new)
            if text is None:
                continue
            before = None if kind.startswith("A") else _show(clone, f"{sha}^1", old)
            had = set(qualified_tests(before, suffixes)) if before else set()
            new_tests = [t for t in qualified_tests(text, suffixes) if t not in had]
            if new_tests:
                picked.append((sha, new, new_tests[0]))
    return picked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("base")
    parser.add_argument("head")
    parser.add_argument("--under", default="tests/")
    parser.add_argument("--class-suffix", action="append", default=[])
    args = parser.parse_args(argv)
    for sha, path, test in sample(args.clone, args.base, args.head, args.under, tuple(args.class_suffix)):
        print(f"{sha},{path},{test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
