"""Test functions in changed Python test files, found by parsing (never importing) them.

Tests are what pytest and unittest would collect: `test*` functions at module level (also inside
module-level `if`/`try`/`with` blocks), `test*` methods of `Test*` classes and of `TestCase` subclasses
(also through a base class defined in the same file), and of test classes nested in test classes; sync
or async, parametrized or not.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from bot.models import FileChange, FileStatus, Finding, UnreadableFile
from rules.base import Context, Review


@dataclass(frozen=True)
class TestFunction:
    """One test function or method, with where it sits and whether the change touched it."""

    name: str
    qualname: str
    line: int  # the `def` line
    end_line: int
    docstring: str | None
    added: bool  # the def line is new in this change
    changed: bool  # any line of the function (decorators included) is new in this change
    start_line: int = 0  # first decorator, or the comment block right above the test
    decorators: tuple[str, ...] = ()  # dotted names of the decorators, e.g. "pytest.mark.parametrize"
    node: ast.FunctionDef | ast.AsyncFunctionDef | None = field(default=None, compare=False, repr=False)

    def covers(self, line: int) -> bool:
        return (self.start_line or self.line) <= line <= self.end_line


@dataclass(frozen=True)
class TestFile:
    path: str
    tests: tuple[TestFunction, ...]
    error: str | None = None  # why the file could not be parsed
    error_line: int | None = None
    text: str = field(default="", compare=False, repr=False)

    def test_at(self, line: int) -> TestFunction | None:
        """The test whose lines (decorators and leading comments included) hold line."""
        return next((t for t in self.tests if t.covers(line)), None)


Touched = tuple[TestFile, TestFunction]


def is_test_path(path: str) -> bool:
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return False
    return p.name.startswith("test_") or p.name.endswith("_test.py") or "tests" in p.parts[:-1]


def dotted(node: ast.expr) -> str:
    """`a.b.c` for a name or attribute chain (calls unwrapped), else ""."""
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _is_test_class(node: ast.ClassDef, known: set[str]) -> bool:
    if node.name.startswith("Test"):
        return True
    for base in node.bases:
        name = dotted(base).rsplit(".", 1)[-1]
        if name.endswith("TestCase") or name in known:
            return True
    return False


def _leading_comments(lines: list[str], first: int) -> int:
    """The first line of the comment block directly above line `first` (1-based), or first itself."""
    start = first
    while start > 1 and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    return start


class _Collector:
    def __init__(self, lines: list[str], added: frozenset[int]) -> None:
        self.lines = lines
        self.added = added
        self.known: set[str] = set()
        self.found: list[TestFunction] = []

    def test(self, node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str) -> None:
        end = node.end_lineno or node.lineno
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        self.found.append(
            TestFunction(
                name=node.name,
                qualname=f"{prefix}{node.name}",
                line=node.lineno,
                end_line=end,
                docstring=ast.get_docstring(node),
                added=node.lineno in self.added,
                # Decorators belong to the test: a new @pytest.mark.parametrize line changes it.
                changed=any(n in self.added for n in range(first, end + 1)),
                start_line=_leading_comments(self.lines, first),
                decorators=tuple(dotted(d) for d in node.decorator_list),
                node=node,
            )
        )

    def walk(self, body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("test") and (in_class or not prefix):
                    self.test(node, prefix)
            elif isinstance(node, ast.ClassDef):
                if _is_test_class(node, self.known):
                    self.known.add(node.name)
                    self.walk(node.body, f"{prefix}{node.name}.", True)
            elif not prefix and isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    self.walk(getattr(node, block, []), prefix, in_class)
                for handler in getattr(node, "handlers", []):
                    self.walk(handler.body, prefix, in_class)


def parse_tests(path: str, text: str, added: frozenset[int]) -> TestFile:
    """Test functions of one file's text; a file that does not parse gets an error, not an exception."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return TestFile(path=path, tests=(), error=f"syntax error: {exc.msg}", error_line=exc.lineno)
    except (RecursionError, MemoryError, ValueError):
        return TestFile(path=path, tests=(), error="file is too deeply nested or too large to parse")
    collector = _Collector(text.splitlines(), added)
    try:
        collector.walk(tree.body, "", False)
    except RecursionError:
        return TestFile(path=path, tests=(), error="file is too deeply nested to analyse")
    return TestFile(path=path, tests=tuple(collector.found), text=text)


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
        # Binary .py files are read too: decoding names why they cannot be reviewed (NUL bytes...).
        files = [
            f for f in review.changeset.files if f.status is not FileStatus.REMOVED and is_test_path(f.path)
        ]
        review.changeset.prefetch(review.changeset.head_sha, [f.path for f in files])
        return tuple(_parse_change(review, f) for f in files)

    return review.memo("tests.files", build)


def base_test_file(review: Review, f: FileChange) -> TestFile | None:
    """The parsed base version of a changed test file, or None when it is new or unreadable."""
    base_path = f.base_path
    if base_path is None:
        return None

    def build() -> TestFile | None:
        try:
            text = review.changeset.base_text(base_path)
        except UnreadableFile:
            return None
        return None if text is None else parse_tests(base_path, text, frozenset())

    return review.memo(f"tests.base:{base_path}", build)


def touched_tests(ctx: Context, new_only: bool = False) -> tuple[list[Finding], list[Touched]]:
    """Tests the change added (or, unless new_only, changed) where the rule applies, after parse errors.

    A test file that cannot be parsed becomes one finding naming the file and line. The first rule that
    reaches it reports it, so several rules do not repeat the same syntax error.
    """
    reported: set[str] = ctx.review.memo("tests.errors_reported", set)
    errors: list[Finding] = []
    tests: list[Touched] = []
    for tf in changed_test_files(ctx.review):
        if not ctx.applies(tf.path):
            continue
        if tf.error:
            if tf.path not in reported:
                reported.add(tf.path)
                where = f" at line {tf.error_line}" if tf.error_line else ""
                errors.append(
                    ctx.finding(
                        f"Test file could not be parsed ({tf.error}{where}); its tests were not checked.",
                        path=tf.path,
                        line=tf.error_line,
                    )
                )
            continue
        tests += [(tf, t) for t in tf.tests if (t.added if new_only else t.changed)]
    return errors, tests
