"""Test functions in changed Python test files, found by parsing (never importing) them.

Tests are what pytest and unittest would collect with their default settings. In a test module
(`test_*.py`, `*_test.py`): `test*` functions at module level (also inside module-level `if`/`try`/
`with` blocks), `test*` methods of `Test*` classes without an `__init__` and of `TestCase` subclasses
(also through a base class defined in the same file), and of test classes nested in test classes; sync
or async, parametrized or not. In other `test*.py` modules (`tests.py`, `testing.py`) only `TestCase`
subclasses, which unittest loads. Not tests: `conftest.py` and helper modules under `tests/`, fixtures
(`@pytest.fixture def test_data()`), and functions nested in tests.

A test counts as new only when it did not exist before: a test moved to another file or place, renamed,
or whose `def` line was edited is not new, and a test whose code (its docstring and decorators aside)
is unchanged is not a changed test.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import inspect
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from rules.core.base import Context, Review
from rules.core.lines import git_lines
from rules.core.models import FileChange, FileStatus, Finding, Severity, UnreadableFile
from rules.core.pysyntax import PythonSyntaxError, parse_python, was_lowered
from rules.testcode.runner_config import CONFIG_FILES, collected_by, python_files


class TestFunction(NamedTuple):
    """One test function or method, with where it sits and whether the change touched it.

    A named tuple, not a dataclass: a large PR makes one for each of tens of thousands of tests, and a
    frozen dataclass sets each field through object.__setattr__ (2.6 us a test against 0.4). Two are equal
    when all but their tree node are: the same test, parsed twice.
    """

    name: str
    qualname: str
    line: int  # the `def` line
    end_line: int
    docstring: str | None
    added: bool  # the def line is new in this change
    changed: bool  # any line of the function (decorators included) is new in this change
    start_line: int = 0  # first decorator, or the comment block right above the test
    decorators: tuple[str, ...] = ()  # dotted names of the decorators, e.g. "pytest.mark.parametrize"
    scope_docs: tuple[str, ...] = ()  # docstrings of the enclosing classes, outermost first
    node: ast.FunctionDef | ast.AsyncFunctionDef | None = None

    def covers(self, line: int) -> bool:
        return (self.start_line or self.line) <= line <= self.end_line

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TestFunction):
            return NotImplemented
        return self[:-1] == other[:-1]

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self[:-1])

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in zip(self._fields[:-1], self[:-1], strict=True))
        return f"TestFunction({fields})"


@dataclass(frozen=True)
class TestFile:
    path: str
    tests: tuple[TestFunction, ...]
    error: str | None = None  # why the file could not be parsed
    error_line: int | None = None
    # The error is the bot's view failing (the file could not be read, or was too deep to walk), not a
    # syntax error Python would raise too: its tests went unseen, so the review is not complete.
    unread: bool = False
    text: str = field(default="", compare=False, repr=False)
    docstring: str | None = None  # the module's
    # The parsed module, for rules that follow a test into the helpers it calls.
    module: ast.Module | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def has_hash(self) -> bool:
        """Whether a `#` is anywhere in the text: a file without one holds no comment."""
        return "#" in self.text

    @functools.cached_property
    def lines(self) -> tuple[str, ...]:
        """The text's lines as git numbers them (rules.core.lines), as the tests' lines are, split once:
        rules read the lines of every test of a file."""
        return tuple(git_lines(self.text))

    def test_at(self, line: int) -> TestFunction | None:
        """The test whose lines (decorators and leading comments included) hold line."""
        return next((t for t in self.tests if t.covers(line)), None)


Touched = tuple[TestFile, TestFunction]


# Pure and asked for every changed file by several rules: 3,000 paths cost little only once each.
@functools.lru_cache(maxsize=1 << 16)
def is_test_path(path: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether a file is test code (a test module or a helper under `tests/`), as opposed to product code;
    patterns: the repository's own pytest `python_files`."""
    # git's paths are normalised ("a/b.py": no "//", "." or trailing "/"), so plain string cuts give the
    # name and folders PurePosixPath gives, at a tenth of the cost for 3,000 new paths.
    folders, _, name = path.rpartition("/")
    if not name.endswith(".py") or name == ".py":
        return False
    named = name.startswith("test_") or name.endswith("_test.py") or "tests" in folders.split("/")
    return named or collected_by(path, patterns)


@functools.lru_cache(maxsize=1 << 16)
def collects(path: str, patterns: tuple[str, ...] = ()) -> str | None:
    """What runners collect from a file: "all" (pytest and unittest), "unittest" (TestCase only) or None;
    patterns: the repository's own pytest `python_files`."""
    name = path.rpartition("/")[2]  # as in is_test_path
    if not name.endswith(".py") or name == "conftest.py":
        return None
    if name.startswith("test_") or name.endswith("_test.py") or collected_by(path, patterns):
        return "all"
    return "unittest" if name.startswith("test") else None


def runner_patterns(review: Review) -> tuple[str, ...]:
    """`python_files` of the repository's pytest configuration at base, when it sets them (memoised)."""

    def build() -> tuple[str, ...]:
        # Only a changed .py file that the default names miss can be collected by the repository's own
        # patterns: without one, nothing is read.
        if not any(
            f.path.endswith(".py") and not is_test_path(f.path) and not f.path.endswith("conftest.py")
            for f in review.changeset.files
        ):
            return ()
        present = set(review.changeset.base_paths())
        for path in CONFIG_FILES:
            if path not in present:
                continue
            try:
                text = review.changeset.base_text(path)
            except UnreadableFile:
                continue
            found = python_files(path, text) if text is not None else None
            if found is not None:  # pytest stops at the first file with a pytest section
                return found
        return ()

    return review.memo("tests.python_files", build)


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


def _is_test_class(node: ast.ClassDef, known: set[str], unittest_only: bool = False) -> bool:
    for base in node.bases:
        name = dotted(base).rsplit(".", 1)[-1]
        if name.endswith("TestCase") or name in known:
            return True
    if unittest_only or not node.name.startswith("Test"):
        return False
    # pytest does not collect a Test* class that defines __init__ (it warns instead).
    return not any(isinstance(n, ast.FunctionDef) and n.name == "__init__" for n in node.body)


def _is_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(dotted(d).rsplit(".", 1)[-1] in ("fixture", "yield_fixture") for d in node.decorator_list)


def code_key(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A test's code without its name, position, docstring and decorators: equal keys, same test."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    return "|".join([type(node).__name__, ast.dump(node.args), *(ast.dump(b) for b in body)])


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """ast.get_docstring(node): the same text, without its check against the deprecated ast.Str (a slow
    isinstance through a metaclass, 10,000 times on a large PR)."""
    body = node.body
    if body and isinstance(body[0], ast.Expr):
        value = body[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            doc = value.value
            if doc and "\n" not in doc and "\t" not in doc and not doc[0].isspace():
                return doc  # one line with nothing to strip: what cleandoc returns, without its work
            return inspect.cleandoc(doc)
    return None


def _leading_comments(lines: list[str], first: int) -> int:
    """The first line of the comment block directly above line `first` (1-based), or first itself."""
    start = first
    while start > 1 and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    return start


# A test as collected before the diff is known: TestFunction's fields, its two flags left out, and the
# first line of its decorators (what `changed` is worked out from).
_Raw = tuple[
    str,
    str,
    int,
    int,
    str | None,
    int,
    int,
    tuple[str, ...],
    tuple[str, ...],
    ast.FunctionDef | ast.AsyncFunctionDef,
]


class _Collector:
    def __init__(
        self,
        lines: list[str],
        added: frozenset[int] | None,
        unittest_only: bool = False,
        same: dict[int, TestFunction] | None = None,
    ) -> None:
        self.lines = lines
        # None: the tests are recorded in `raw`, without the flags that need the diff (see read_ahead).
        self.added = added
        self.unittest_only = unittest_only
        self.known: set[str] = set()
        self.found: list[TestFunction] = []
        self.raw: list[_Raw] = []
        # Tests already collected from these very nodes, with these lines and none of them added.
        self.same = same or {}

    def test(self, node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str, docs: tuple[str, ...]) -> None:
        qualname = f"{prefix}{node.name}"
        if self.same:
            known = self.same.get(id(node))
            if known is not None and known.qualname == qualname and known.scope_docs == docs:
                self.found.append(known)
                return
        line = node.lineno
        end = node.end_lineno or line
        decorators = node.decorator_list
        first = min(line, *(d.lineno for d in decorators)) if decorators else line
        raw = (
            node.name,
            qualname,
            line,
            end,
            _docstring(node),
            first,
            _leading_comments(self.lines, first),
            tuple(map(dotted, decorators)) if decorators else (),
            docs,
            node,
        )
        if self.added is None:
            self.raw.append(raw)
        else:
            self.found.append(_flag(raw, self.added))

    def walk(self, body: list[ast.stmt], prefix: str, in_class: bool, docs: tuple[str, ...] = ()) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not node.name.startswith("test") or (node.decorator_list and _is_fixture(node)):
                    continue
                if in_class or not (prefix or self.unittest_only):
                    self.test(node, prefix, docs)
            elif isinstance(node, ast.ClassDef):
                if _is_test_class(node, self.known, self.unittest_only and not in_class):
                    self.known.add(node.name)
                    doc = ast.get_docstring(node)
                    self.walk(node.body, f"{prefix}{node.name}.", True, (*docs, doc) if doc else docs)
            elif not prefix and isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    self.walk(getattr(node, block, []), prefix, in_class)
                for handler in getattr(node, "handlers", []):
                    self.walk(handler.body, prefix, in_class)


@dataclass(frozen=True)
class ReadAhead:
    """A test file parsed and its tests collected before the diff is known (read_ahead)."""

    tree: ast.Module
    collected: str  # what collects() said of the file: "all" or "unittest"
    raw: tuple[_Raw, ...] | None  # None: the walk failed (too deep), and parse_tests says so


def read_ahead(path: str, text: str) -> ReadAhead | None:
    """The tree of a test file (as pytest collects it by default) and its tests without their flags.

    bot.git.local makes it while git diffs, test file after test file: the walk meets each tree while the
    parser has just built it, in the processor's cache. Walked later, the trees of a large PR (a hundred
    megabytes) come back from memory, which doubled the cost of collecting. None for a file no runner
    collects; PythonSyntaxError when it does not parse.
    """
    collected = collects(path)
    if collected is None:
        return None
    tree = parse_python(text, path)
    collector = _Collector(git_lines(text), None, unittest_only=collected == "unittest")
    try:
        collector.walk(tree.body, "", False)
    except RecursionError:
        return ReadAhead(tree, collected, None)
    return ReadAhead(tree, collected, tuple(collector.raw))


def _flag(raw: _Raw, added: frozenset[int]) -> TestFunction:
    """A test collected without the diff, with whether the change added its `def` line and touched any of
    its lines (decorators belong to the test: a new @pytest.mark.parametrize line changes it)."""
    name, qualname, line, end, doc, first, start, decorators, docs, node = raw
    # In field order, not by keyword: matching keywords cost a third of collecting 10,000 tests.
    return TestFunction(
        name,
        qualname,
        line,
        end,
        doc,
        line in added,
        bool(added) and not added.isdisjoint(range(first, end + 1)),
        start,
        decorators,
        docs,
        node,
    )


def parse_tests(
    path: str,
    text: str,
    added: frozenset[int],
    patterns: tuple[str, ...] = (),
    ahead: ReadAhead | None = None,
) -> TestFile:
    """Test functions of one file's text; a file that does not parse gets an error, not an exception.

    ahead: read_ahead(path, text): its tree is used, and its tests when the repository's runner settings
    collect the file the same way.
    """
    collected = collects(path, patterns)
    if collected is None:
        return TestFile(path=path, tests=(), text=text)
    if ahead is not None and ahead.collected == collected and ahead.raw is not None:
        tests = tuple(_flag(raw, added) for raw in ahead.raw)
        tree = ahead.tree
        return TestFile(path=path, tests=tests, text=text, docstring=ast.get_docstring(tree), module=tree)
    try:
        tree = ahead.tree if ahead is not None else parse_python(text, path)
    except PythonSyntaxError as exc:
        return TestFile(path=path, tests=(), error=exc.reason, error_line=exc.line)
    collector = _Collector(git_lines(text), added, unittest_only=collected == "unittest")
    try:
        collector.walk(tree.body, "", False)
    except RecursionError:
        return TestFile(path=path, tests=(), error="file is too deeply nested to analyse", unread=True)
    return TestFile(
        path=path, tests=tuple(collector.found), text=text, docstring=ast.get_docstring(tree), module=tree
    )


def _parse_change(review: Review, f: FileChange) -> TestFile:
    try:
        text = review.changeset.head_text(f.path)
    except UnreadableFile as exc:
        return TestFile(path=f.path, tests=(), error=exc.reason, unread=True)
    if text is None:
        return TestFile(path=f.path, tests=())
    # The loader may have read it already, beside git's work (bot.git.local).
    ahead = review.changeset.prepared(review.changeset.head_sha, f.path, text)
    ahead = ahead if isinstance(ahead, ReadAhead) else None
    return parse_tests(f.path, text, f.added_lines, runner_patterns(review), ahead=ahead)


def changed_test_files(review: Review) -> tuple[TestFile, ...]:
    """Parsed head versions of every added or modified test file (memoised per review)."""

    def build() -> tuple[TestFile, ...]:
        # Binary .py files are read too: decoding names why they cannot be reviewed (NUL bytes...).
        patterns = runner_patterns(review)
        files = [
            f
            for f in review.changeset.files
            if f.status is not FileStatus.REMOVED and is_test_path(f.path, patterns)
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
        except UnreadableFile as exc:
            # Which tests are new or changed, and what a test expected before, cannot be told: touched_tests
            # makes the review not complete where a rule reads the file.
            review.cache[f"tests.base_unread:{base_path}"] = exc.reason
            return None
        return None if text is None else parse_tests(base_path, text, frozenset(), runner_patterns(review))

    return review.memo(f"tests.base:{base_path}", build)


def base_from_head(f: FileChange, head: TestFile, patterns: tuple[str, ...] = ()) -> TestFile | None:
    """The tests of a test file at base, read off its head's tree when the change only adds whole top-level
    statements (and blank or comment lines); None for any other change, which needs the base parsed.

    Taking away lines that are whole statements leaves every other statement's text as it was, and each
    is read alone at the top level, so their trees are the head's; the tests are collected again over
    them (a base class they name may be among the added ones). The tests' line numbers are the head's.
    """
    if f.status is not FileStatus.MODIFIED or f.binary or f.patch_missing or f.symlink or not f.hunks:
        return None
    if head.module is None or head.error or was_lowered(head.module) or any(h.removed for h in f.hunks):
        return None
    text = head.text
    # A lone carriage return puts two of Python's lines on one git line (the positions are git's): such a
    # file is parsed at base. A continued line followed by an added blank line would be joined to the next
    # statement at base.
    if "\r" in text or "\\\n" in text:
        return None
    added = f.added_lines
    # Counted in the sorted added lines (two bisections a statement), not by a set operation over each
    # statement's lines: a large PR's test files hold tens of thousands of top-level statements.
    order = sorted(added)
    kept: list[ast.stmt] = []
    covered: set[int] = set()
    for stmt in head.module.body:
        first = stmt.lineno
        decorators = getattr(stmt, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        last = stmt.end_lineno or stmt.lineno
        at = bisect.bisect_left(order, first)
        inside = bisect.bisect_right(order, last, at) - at  # the statement's lines that are added
        if not inside:
            kept.append(stmt)
        elif inside != last - first + 1:
            return None  # a statement partly added: the base holds another version of it
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            return None  # it may change how the rest of the file is read
        else:
            covered.update(range(first, last + 1))
    lines = text.split("\n")
    for n in added - covered:
        line = lines[n - 1].strip() if 0 < n <= len(lines) else None
        if line is None or (line and not (line.startswith("#") and n > 2)):
            return None  # code outside the statements, or a line that may declare the encoding
    collected = collects(f.path, patterns)
    if collected is None:
        return TestFile(path=f.path, tests=())
    # A kept test is the head's, whose lines no change touched: the head's record of it is the base's.
    same = {id(t.node): t for t in head.tests if t.node is not None and not t.changed}
    collector = _Collector(lines, frozenset(), unittest_only=collected == "unittest", same=same)
    try:
        collector.walk(kept, "", False)
    except RecursionError:
        return None
    return TestFile(path=f.path, tests=tuple(collector.found))


def _base_tests(review: Review) -> dict[str, tuple[str, TestFile]]:
    """Base versions of the changed test files, by base path: (head path or "", parsed base file).

    A file whose change only adds whole statements (new tests at the end, say) is read off its head's
    tree (base_from_head): the base is parsed only where the change may have moved or removed a test.
    """
    out: dict[str, tuple[str, TestFile]] = {}
    patterns = runner_patterns(review)
    heads = {tf.path: tf for tf in changed_test_files(review)}
    files: list[tuple[FileChange, TestFile | None]] = []
    for f in review.changeset.files:
        if f.base_path is None or collects(f.base_path, patterns) is None:
            continue
        head = heads.get(f.path)
        files.append((f, base_from_head(f, head, patterns) if head is not None else None))
    unread = [f.base_path for f, derived in files if derived is None and f.base_path]
    review.changeset.prefetch(review.changeset.base_sha, unread)
    for f, derived in files:
        base_path = f.base_path
        if base_path is None:
            continue
        base = derived if derived is not None else base_test_file(review, f)
        if base is not None and base.tests:
            out[base_path] = ("" if f.status is FileStatus.REMOVED else f.path, base)
    return out


def test_states(review: Review) -> dict[tuple[str, str], str]:
    """For each test the change touched, by (path, qualname): "new", "changed" or "same" (memoised).

    "new": no test of that name was in the file at base, and it is not one that left another place
    (same code, name or file aside). "changed": its code differs from before. "same": only its
    docstring, decorators, name or place changed.
    """

    def build() -> dict[tuple[str, str], str]:
        touched = [(tf, t) for tf in changed_test_files(review) for t in tf.tests if t.changed and t.node]
        if not touched:
            return {}
        bases = _base_tests(review)
        before: dict[tuple[str, str], TestFunction] = {}
        for head_path, base in bases.values():
            for t in base.tests:
                before[(head_path, t.qualname)] = t
        now = {(tf.path, t.qualname) for tf in changed_test_files(review) for t in tf.tests}
        # Tests gone from where they were: the pool a moved or renamed test comes from.
        gone_keys = [
            (where[0], code_key(t.node)) for where, t in before.items() if t.node and where not in now
        ]
        left = Counter(key for _, key in gone_keys)
        # Per file, the tests gone from it: a new test that is one of them renamed and edited is changed.
        gone: dict[str, list[str]] = {}
        for path, key in gone_keys:
            gone.setdefault(path, []).append(key)
        states: dict[tuple[str, str], str] = {}
        for tf, t in touched:
            assert t.node is not None
            old = before.get((tf.path, t.qualname))
            if old is not None and old.node is not None:
                same = code_key(old.node) == code_key(t.node)
                states[(tf.path, t.qualname)] = "same" if same else "changed"
                continue
            key = code_key(t.node) if left else ""
            if left and left[key] > 0:
                left[key] -= 1
                states[(tf.path, t.qualname)] = "same"
            elif t.added and tf.path in gone and _renamed_from(t, gone[tf.path]):
                states[(tf.path, t.qualname)] = "changed"
            else:
                states[(tf.path, t.qualname)] = "new" if t.added else "changed"
        return states

    return review.memo("tests.states", build)


# A renamed test whose code also changed is still that test when most of its code is the same; the
# comparison is bounded so that a file of thousands of removed and added tests stays cheap.
_SIMILAR = 0.8
_MAX_CANDIDATES = 20
_MAX_CODE = 20_000


def _renamed_from(test: TestFunction, gone: list[str]) -> bool:
    """Whether test is one of the tests gone from its file, renamed and edited; the match is used up."""
    if not gone or test.node is None:
        return False
    key = code_key(test.node)
    if len(key) > _MAX_CODE:
        return False
    for i, old in enumerate(gone[:_MAX_CANDIDATES]):
        if len(old) > _MAX_CODE:
            continue
        matcher = difflib.SequenceMatcher(None, old, key, autojunk=False)
        if matcher.real_quick_ratio() >= _SIMILAR and matcher.quick_ratio() >= _SIMILAR:
            if matcher.ratio() >= _SIMILAR:
                del gone[i]
                return True
    return False


def touched_tests(
    ctx: Context, new_only: bool = False, include_same: bool = False
) -> tuple[list[Finding], list[Touched]]:
    """Tests the change added (or, unless new_only, whose code it changed) where the rule applies.

    A test file that cannot be parsed becomes one notice naming the file, the reason and the line. The
    first rule that reaches it reports it, so several rules do not repeat the same syntax error. One the
    bot could not read (see TestFile.unread) also makes the review not complete (Review.incomplete). In the
    tests returned, `added` says whether the test is new (see test_states), not only whether its `def`
    line is.
    """
    reported: set[str] = ctx.review.memo("tests.errors_reported", set)
    errors: list[Finding] = []
    tests: list[Touched] = []
    for tf, touched in touched_by_file(ctx.review):
        if not ctx.applies(tf.path):
            continue
        change = ctx.changeset.file(tf.path)
        base_path = change.base_path if change is not None else None
        unread_base = ctx.review.cache.get(f"tests.base_unread:{base_path}")
        if base_path is not None and unread_base:
            ctx.review.incomplete.setdefault(f"{base_path} at base", unread_base)
        if tf.error:
            if tf.unread:
                ctx.review.incomplete.setdefault(tf.path, tf.error)
            if tf.path not in reported:
                reported.add(tf.path)
                where = f" at line {tf.error_line}" if tf.error_line else ""
                finding = ctx.finding(
                    f"Test file could not be parsed ({tf.error}{where}); its tests were not checked.",
                    path=tf.path,
                    line=tf.error_line,
                )
                # Whatever the rule's severity: the file holds no finding of its own, only unread tests.
                errors.append(finding.model_copy(update={"severity": Severity.NOTICE}))
            continue
        for state, t in touched:
            if state == "new" or (state == "changed" and not new_only) or (state == "same" and include_same):
                tests.append((tf, t))
    return errors, tests


def touched_by_file(review: Review) -> list[tuple[TestFile, list[tuple[str, TestFunction]]]]:
    """Each changed test file with its touched tests and their states (memoised: three rules ask).

    A test's `added` says whether it is new: a copy is made only where that differs from whether its
    `def` line is, so that 10,000 new tests are not copied.
    """

    def build() -> list[tuple[TestFile, list[tuple[str, TestFunction]]]]:
        states = test_states(review)
        out = []
        for tf in changed_test_files(review):
            touched = []
            for t in tf.tests:
                state = states.get((tf.path, t.qualname))
                if state is not None:
                    new = state == "new"
                    touched.append((state, t if t.added == new else t._replace(added=new)))
            out.append((tf, touched))
        return out

    return review.memo("tests.touched", build)
