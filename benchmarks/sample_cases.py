"""Lists the AGT001 cases a sampling rule picks from a stretch of history, before anyone judges them.

    python3 benchmarks/sample_cases.py [--clones /work/clones] [--repo pytest-dev/pytest] BASE HEAD

The rule (fixed before any case of the stretch was judged or reviewed by the bot): every first-parent
commit of BASE..HEAD whose change against its first parent adds a test under `testing/`; for each such
commit and each changed Python file there, the first new test in the file's order. A new test is a
module-level `test*` function or a `test*` method of a `Test*` class (nested classes too) whose qualified
name the file did not have at the first parent (the old path, when git pairs a rename). Git plumbing only.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from pathlib import Path, PurePosixPath


def _git(clone: Path, *args: str) -> str:
    proc = subprocess.run(["git", "--no-pager", *args], cwd=clone, capture_output=True, check=True)
    return proc.stdout.decode("utf-8", "replace")


def _show(clone: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def qualified_tests(text: str, suffixes: tuple[str, ...] = ()) -> list[str]:
    """The qualified names of the tests a module defines, in file order ([] when it does not parse).

    A test class is `Test*`, or `*<suffix>` for each suffix a repository's `python_classes` adds.
    """
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
    """Whether pytest's default `python_files` (`test_*.py`, `*_test.py`) collects the file."""
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def sample(
    clone: Path,
    base: str,
    head: str,
    under: str = "testing/",
    *,
    only_collected: bool = False,
    suffixes: tuple[str, ...] = (),
) -> list[tuple[str, str, str]]:
    """(commit, path, test) for each picked case, newest commit first.

    `only_collected`: only files pytest's default `python_files` collects, rather than every `.py` file
    under the folder (pytest's own `testing/` holds its tests in any file name it configures).
    """
    picked: list[tuple[str, str, str]] = []
    for sha in _git(clone, "rev-list", "--first-parent", f"{base}..{head}").split():
        status = _git(clone, "diff", "--name-status", "-M", f"{sha}^1", sha, "--", under)
        for row in status.splitlines():
            kind, *paths = row.split("\t")
            old, new = paths[0], paths[-1]
            if kind.startswith("D") or not (collected(new) if only_collected else new.endswith(".py")):
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
    parser.add_argument("--clones", type=Path, default=Path("/work/clones"))
    parser.add_argument("--repo", default="pytest-dev/pytest")
    parser.add_argument("base")
    parser.add_argument("head")
    args = parser.parse_args(argv)
    clone = args.clones / args.repo.replace("/", "+")
    for sha, path, test in sample(clone, args.base, args.head):
        print(f"{sha},{path},{test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
