"""Lists the AGT001 cases the second-pytest-stretch rule picks from a repository's recent history.

    python3 benchmarks/holdout/sample_h23a.py CLONE REPO [--under tests/] [--commits 150] [HEAD]

The rule (fixed before any case was read): the most recent N first-parent commits of HEAD (base =
`git rev-list --first-parent HEAD | sed -n (N+1)p`); every such commit whose change against its first
parent adds a test in a file pytest collects under the test folder (default `python_files`: basename
`test_*.py` or `*_test.py`); per changed such file, the first new test in file order (a module-level `test*`
function or a `test*` method of a `Test*` class, nested classes too, whose qualified name the file did not
have at the first parent, the old path when git pairs a rename). Copied from benchmarks/sample_cases.py,
parametrised by folder and file pattern; git plumbing only. Prints CSV rows with the split.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import subprocess
from pathlib import Path, PurePosixPath


def _git(clone: Path, *args: str) -> str:
    proc = subprocess.run(["git", "--no-pager", *args], cwd=clone, capture_output=True, check=True)
    return proc.stdout.decode("utf-8", "replace")


def _show(clone: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def qualified_tests(text: str) -> list[str]:
    found: list[str] = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                found.append(prefix + node.name)
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                walk(node.body, f"{prefix}{node.name}.")

    try:
        walk(ast.parse(text).body, "")
    except SyntaxError:
        return []
    return found


def collected(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def sample(clone: Path, base: str, head: str, under: str) -> list[tuple[str, str, str]]:
    picked: list[tuple[str, str, str]] = []
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
            had = set(qualified_tests(before)) if before else set()
            new_tests = [t for t in qualified_tests(text) if t not in had]
            if new_tests:
                picked.append((sha, new, new_tests[0]))
    return picked


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
    for sha, path, test in sample(args.clone, base, head, args.under):
        print(f"{args.repo},{sha},{path},{test},,AGT001,,,{split(args.repo, sha)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
