"""Test functions in changed Python test files, found by parsing (never importing) them."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import PurePosixPath

from bot.models import FileChange, FileStatus, UnreadableFile
from rules.base import Review


@dataclass(frozen=True)
class TestFunction:
    """One test function or method, with where it sits and whether the change touched it."""

    name: str
    qualname: str
    line: int  # the `def` line
    end_line: int
    docstring: str | None
    added: bool  # the def line is new in this change
    changed: bool  # any line of the function is new in this change


@dataclass(frozen=True)
class TestFile:
    path: str
    tests: tuple[TestFunction, ...]
    error: str | None = None  # why the file could not be parsed
    error_line: int | None = None


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return False
    return p.name.startswith("test_") or p.name.endswith("_test.py") or "tests" in p.parts[:-1]


def _is_test_class(node: ast.ClassDef) -> bool:
    if node.name.startswith("Test"):
        return True
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, added: frozenset[int]) -> list[TestFunction]:
    out = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if prefix and not in_class:
                continue
            end = node.end_lineno or node.lineno
            # Decorators belong to the test: a new @pytest.mark.parametrize line changes it.
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out.append(
                TestFunction(
                    name=node.name,
                    qualname=f"{prefix}{node.name}",
                    line=node.lineno,
                    end_line=end,
                    docstring=ast.get_docstring(node),
                    added=node.lineno in added,
                    changed=any(n in added for n in range(start, end + 1)),
                )
            )
        elif isinstance(node, ast.ClassDef) and _is_test_class(node):
            out.extend(_walk(node.body, f"{prefix}{node.name}.", True, added))
    return out


def parse_tests(path: str, text: str, added: frozenset[int]) -> TestFile:
    """Test functions of one file's text; a file that does not parse gets an error, not an exception."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return TestFile(path=path, tests=(), error=f"syntax error: {exc.msg}", error_line=exc.lineno)
    except (RecursionError, MemoryError, ValueError):
        return TestFile(path=path, tests=(), error="file is too deeply nested or too large to parse")
    return TestFile(path=path, tests=tuple(_walk(tree.body, "", False, added)))


def _parse_change(review: Review, f: FileChange) -> TestFile:
    try:
        text = review.changeset.head_text(f.path)
    except UnreadableFile as exc:
        return TestFile(path=f.path, tests=(), error=exc.reason)
    if text is None:
        return TestFile(path=f.path, tests=())
    return parse_tests(f.path, text, f.added_lines)


def changed_test_files(review: Review) -> tuple[TestFile, ...]:
    """Parsed head versions of every added or modified test file (memoised per review)."""

    def build() -> tuple[TestFile, ...]:
        return tuple(
            _parse_change(review, f)
            for f in review.changeset.files
            if f.status is not FileStatus.REMOVED and not f.binary and is_test_path(f.path)
        )

    return review.memo("tests.files", build)
