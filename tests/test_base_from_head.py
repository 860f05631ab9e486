"""A test file's base read off its head's tree gives the tests a parse of the base gives, or is not used."""

from __future__ import annotations

import difflib
import sys

import pytest

from bot.git.diff import parse_hunks
from rules.core.models import FileChange, FileStatus
from rules.testcode.testfiles import base_from_head, code_key, parse_tests

PATH = "tests/test_mod.py"
BASE = (
    "import pytest\n"
    "\n"
    "\n"
    "def test_a():\n"
    "    assert f() == 1\n"
    "\n"
    "\n"
    "class TestB:\n"
    "    def test_b(self):\n"
    "        assert g() == 2\n"
)
NEW_TEST = "\n\ndef test_new():\n    assert h() == 3\n"


def _change(base: str, head: str) -> FileChange:
    diff = difflib.unified_diff(base.split("\n"), head.split("\n"), lineterm="", n=3)
    patch = "\n".join(list(diff)[2:])
    return FileChange(path=PATH, status=FileStatus.MODIFIED, hunks=parse_hunks(patch, PATH))


def _tests(tf):
    return [(t.qualname, code_key(t.node)) for t in tf.tests]


# (id, base text, head text, path, whether the base is read off the head)
CASES = [
    ("appended-test", BASE, BASE + NEW_TEST, PATH, True),
    ("inserted-test", BASE, BASE.replace("\n\nclass TestB", NEW_TEST + "\n\nclass TestB"), PATH, True),
    ("new-class", BASE, BASE + "\n\nclass TestC:\n    def test_c(self):\n        assert k()\n", PATH, True),
    (
        "comments-and-blanks",
        BASE,
        BASE.replace("\n\nclass", "\n# about B\n\n\nclass") + "\n# end\n",
        PATH,
        True,
    ),
    ("decorated-test", BASE, BASE + "\n\n@pytest.mark.slow\ndef test_slow():\n    assert s()\n", PATH, True),
    # The base is parsed: these change what was there, or may change how it reads.
    ("line-in-a-test", BASE, BASE.replace("== 1\n", "== 1\n    assert f() != 0\n"), PATH, False),
    ("removed-line", BASE, BASE.replace("    assert g() == 2\n", "    pass\n"), PATH, False),
    (
        "init-in-class",
        BASE,
        BASE.replace("class TestB:\n", "class TestB:\n    def __init__(self): pass\n"),
        PATH,
        False,
    ),
    ("decorator-on-old-test", BASE, BASE.replace("def test_a", "@pytest.mark.skip\ndef test_a"), PATH, False),
    ("encoding-line", BASE, "# -*- coding: utf-8 -*-\n" + BASE, PATH, False),
    ("future-import", BASE, "from __future__ import annotations\n" + BASE, PATH, False),
    ("continued-line", "x = 1 + \\\n    2\n" + BASE, "x = 1 + \\\n    2\n" + BASE + NEW_TEST, PATH, False),
    ("carriage-returns", BASE.replace("\n", "\r\n"), (BASE + NEW_TEST).replace("\n", "\r\n"), PATH, False),
    # Read through libcst under Python 3.11: its tree is not what `ast.parse` gives for part of the text.
    (
        "newer-syntax",
        "type X = int\n" + BASE,
        "type X = int\n" + BASE + NEW_TEST,
        PATH,
        sys.version_info >= (3, 12),
    ),
    # unittest-only module: a class is a test class through a TestCase base the change adds before it.
    (
        "added-testcase-base",
        "import unittest\n\n\nclass B(Helper):\n    def test_b(self):\n        self.assertTrue(g())\n",
        "import unittest\n\n\nclass Helper(unittest.TestCase):\n    pass\n\n\n"
        "class B(Helper):\n    def test_b(self):\n        self.assertTrue(g())\n",
        "tests.py",
        True,
    ),
]


@pytest.mark.parametrize(
    ("base", "head", "path", "derived"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_base_from_head_matches_parsing_the_base(base, head, path, derived):
    change = _change(base, head).model_copy(update={"path": path})
    head_file = parse_tests(path, head, change.added_lines)
    assert head_file.error is None
    got = base_from_head(change, head_file)
    assert (got is not None) is derived
    if got is not None:
        assert _tests(got) == _tests(parse_tests(path, base, frozenset()))


def test_the_added_base_class_changes_what_is_collected():
    """The case above is not vacuous: at base, B is no test class, at head it is."""
    case = next(c for c in CASES if c[0] == "added-testcase-base")
    assert [t.qualname for t in parse_tests("tests.py", case[1], frozenset()).tests] == []
    assert [t.qualname for t in parse_tests("tests.py", case[2], frozenset()).tests] == ["B.test_b"]


def test_only_a_modified_file_is_read_off_its_head():
    change = _change(BASE, BASE + NEW_TEST)
    head_file = parse_tests(PATH, BASE + NEW_TEST, change.added_lines)
    for status in (FileStatus.RENAMED, FileStatus.ADDED):
        moved = change.model_copy(update={"status": status, "old_path": "tests/old.py"})
        assert base_from_head(moved, head_file) is None
