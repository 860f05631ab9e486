"""What `bot check --verify-tests` runs and copies: the new and changed tests, the test files and test support
the base copy takes from head, and the names the change adds (read to tell "new API" from a reproduced bug).

The tests are the ones AGT001 reads (testfiles.touched tests): new, or with changed code; pure.
"""

from __future__ import annotations

import ast
from pathlib import PurePosixPath
from typing import NamedTuple

from rules.core.base import Review
from rules.core.models import FileStatus, UnreadableFile
from rules.core.pysyntax import PythonSyntaxError, parse_python
from rules.testcode.testfiles import is_test_path, runner_patterns, touched_by_file


class Selected(NamedTuple):
    """One test to verify: its file, pytest node id and whether it is new or only changed."""

    path: str
    qualname: str
    node_id: str
    state: str  # "new" or "changed"
    line: int | None = None  # its `def` line at head


def node_id(path: str, qualname: str) -> str:
    """pytest's node id of a test: `tests/test_a.py::TestX::test_y` (every parametrisation of it)."""
    return "::".join((path, *qualname.split(".")))


def tests_to_verify(review: Review) -> tuple[Selected, ...]:
    """The new and changed tests of the change in Python test modules pytest collects, in file order."""
    out: list[Selected] = []
    for tf, touched in touched_by_file(review):
        if tf.error or not tf.path.endswith(".py"):
            continue
        for state, t in touched:
            if state in ("new", "changed"):
                out.append(Selected(tf.path, t.qualname, node_id(tf.path, t.qualname), state, t.line))
    return tuple(out)


def is_test_support(path: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether a file goes with the tests into the base copy: test modules, conftest.py anywhere, and any
    file under a test folder (helpers, fixtures' data)."""
    return PurePosixPath(path).name == "conftest.py" or is_test_path(path, patterns) or _under_tests(path)


def _under_tests(path: str) -> bool:
    return any(part in ("tests", "test", "testing") for part in PurePosixPath(path).parts[:-1])


def test_files(review: Review) -> tuple[tuple[str, str | None], ...]:
    """The test files the base copy takes from head: (path, None) for each one the change adds or edits, to
    copy; (path, "removed") for each one it removes or renames away, to delete."""
    patterns = runner_patterns(review)
    out: list[tuple[str, str | None]] = []
    for f in review.changeset.files:
        if f.status is FileStatus.RENAMED and f.old_path and is_test_support(f.old_path, patterns):
            out.append((f.old_path, "removed"))
        if is_test_support(f.path, patterns):
            out.append((f.path, "removed" if f.status is FileStatus.REMOVED else None))
    return tuple(out)


def _module(path: str) -> str | None:
    """The dotted module a .py file is (`src/` and `lib/` layouts too), or None for another file."""
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return None
    parts = list(p.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    if parts and parts[0] in ("src", "lib"):
        parts.pop(0)
    return ".".join(parts) or None


def _names(tree: ast.Module) -> set[str]:
    """Names a module defines: module-level functions, classes and assignments, and the methods and
    class-level names of its classes (also inside module-level if/try blocks)."""
    names: set[str] = set()

    def walk(body: list[ast.stmt], in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.ClassDef):
                names.add(node.name)
                if not in_class:
                    walk(node.body, True)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and not in_class:
                names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
            elif isinstance(node, (ast.If, ast.Try)) and not in_class:
                for block in ("body", "orelse", "finalbody"):
                    walk(getattr(node, block, []), in_class)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body, in_class)

    walk(tree.body, False)
    return names


def _defined(review: Review, sha_text: str, path: str | None) -> set[str]:
    if path is None:
        return set()
    read = review.changeset.base_text if sha_text == "base" else review.changeset.head_text
    try:
        text = read(path)
        return _names(parse_python(text, path)) if text is not None else set()
    except (UnreadableFile, PythonSyntaxError, RecursionError):
        return set()


def added_names(review: Review) -> frozenset[str]:
    """The names the change adds to the code under test (not to its tests): the module paths of added
    modules, and the names defined at head and not at base in each changed Python module."""
    patterns = runner_patterns(review)
    added: set[str] = set()
    for f in review.changeset.files:
        if f.status is FileStatus.REMOVED or is_test_support(f.path, patterns):
            continue
        module = _module(f.path)
        if module is None:
            continue
        if f.status is FileStatus.ADDED or (f.base_path and _module(f.base_path) != module):
            added.add(module)
        added |= _defined(review, "head", f.path) - _defined(review, "base", f.base_path)
    return frozenset(added)
