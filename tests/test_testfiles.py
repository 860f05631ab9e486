"""Test discovery by parsing: every test style, touched flags, and files that do not parse."""

import ast

import pytest

from rules.core.pysyntax import PythonSyntaxError
from rules.testcode.testfiles import ReadAhead, is_test_path, parse_tests, read_ahead
from tests.helpers import codes, review_change

AGENTS_ALL = (
    "- Regression tests must name the PR they guard.\n- No tautological tests.\n"
    "- Don't rewrite passing tests to match new behavior.\n"
)

STYLES = [
    ("pytest-function", "def test_a():\n    pass\n", ["test_a"]),
    ("async-function", "async def test_a():\n    pass\n", ["test_a"]),
    ("parametrized", "@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    pass\n", ["test_a"]),
    ("test-class", "class TestA:\n    def test_b(self):\n        pass\n", ["TestA.test_b"]),
    (
        "unittest-case",
        "class Cases(unittest.TestCase):\n    def test_b(self):\n        pass\n"
        "    def helper(self):\n        pass\n",
        ["Cases.test_b"],
    ),
    (
        "nested-classes",
        "class TestA:\n    class TestB:\n        async def test_c(self):\n            pass\n",
        ["TestA.TestB.test_c"],
    ),
    (
        "local-base-class",
        "class Base(TestCase):\n    pass\n\nclass Mine(Base):\n    def test_b(self):\n        pass\n",
        ["Mine.test_b"],
    ),
    ("module-level-if", "if HAVE_GPU:\n    def test_gpu():\n        pass\n", ["test_gpu"]),
    ("nested-function-not-a-test", "def test_a():\n    def test_inner():\n        pass\n", ["test_a"]),
    ("plain-class-not-collected", "class Helper:\n    def test_b(self):\n        pass\n", []),
    ("non-test-function", "def helper_test():\n    pass\n", []),
    (
        "fixture-named-like-a-test",
        "@pytest.fixture\ndef test_config():\n    return {}\n\n\ndef test_a(test_config):\n    pass\n",
        ["test_a"],
    ),
    (
        "class-fixture-and-setup",
        "class TestA:\n    @pytest.fixture(autouse=True)\n    def test_env(self):\n        pass\n\n"
        "    def setup_method(self):\n        pass\n\n    def test_b(self):\n        pass\n",
        ["TestA.test_b"],
    ),
    (
        "test-class-with-init",
        "class TestData:\n    def __init__(self):\n        pass\n    def test_b(self):\n        pass\n",
        [],
    ),
    (
        "hypothesis-and-parametrize-stack",
        "@given(st.integers())\n@settings(max_examples=5)\ndef test_a(x):\n    pass\n\n\n"
        "@pytest.mark.parametrize('a', [1])\n@pytest.mark.parametrize('b', [2])\n"
        "def test_b(a, b):\n    pass\n",
        ["test_a", "test_b"],
    ),
    (
        "unittest-setup",
        "class Cases(unittest.TestCase):\n    def setUp(self):\n        pass\n"
        "    def test_b(self):\n        pass\n",
        ["Cases.test_b"],
    ),
]


# What runners collect depends on the file: pytest takes test_*.py and *_test.py; unittest's default
# pattern also takes tests.py and the like, but only TestCase classes there; conftest.py holds no tests.
COLLECTED = (
    "def test_helper():\n    pass\n\n\nclass TestThing:\n    def test_a(self):\n        pass\n\n\n"
    "class Cases(unittest.TestCase):\n    def test_b(self):\n        pass\n"
)


@pytest.mark.parametrize(
    "path, expected",
    [
        ("tests/test_x.py", ["test_helper", "TestThing.test_a", "Cases.test_b"]),
        ("pkg/x_test.py", ["test_helper", "TestThing.test_a", "Cases.test_b"]),
        ("app/tests.py", ["Cases.test_b"]),
        ("tests/conftest.py", []),
        ("tests/helpers.py", []),
        ("tests/fixtures/factories.py", []),
    ],
)
def test_collection_depends_on_the_file(path, expected):
    tf = parse_tests(path, COLLECTED, frozenset())
    assert [t.qualname for t in tf.tests] == expected


@pytest.mark.parametrize("source, expected", [c[1:] for c in STYLES], ids=[c[0] for c in STYLES])
def test_discovery(source, expected):
    tf = parse_tests("tests/test_x.py", source, frozenset())
    assert tf.error is None
    assert [t.qualname for t in tf.tests] == expected


def test_added_and_changed_flags():
    source = (
        "@pytest.mark.parametrize('x', [1, 2])\ndef test_a(x):\n    assert x\n\n\n"
        "def test_b():\n    assert 1\n"
    )
    tf = parse_tests("tests/test_x.py", source, frozenset({1}))
    a, b = tf.tests
    assert (a.added, a.changed, a.start_line, a.line) == (False, True, 1, 2)
    assert (b.added, b.changed) == (False, False)


# The loader collects test files ahead, before the diff is known (bot.git.local); the rules then set the
# flags. Either way the tests are the same.
@pytest.mark.parametrize(
    "source", [c[1] for c in STYLES] + [COLLECTED], ids=[c[0] for c in STYLES] + ["mixed"]
)
@pytest.mark.parametrize("added", [frozenset(), frozenset({1}), frozenset({2, 3}), frozenset(range(1, 40))])
def test_tests_collected_ahead_are_the_tests_collected_after(source, added):
    ahead = read_ahead("tests/test_x.py", source)
    assert isinstance(ahead, ReadAhead) and ahead.raw is not None
    fresh = parse_tests("tests/test_x.py", source, added)
    again = parse_tests("tests/test_x.py", source, added, ahead=ahead)
    assert again == fresh and again.module is ahead.tree
    nodes = {id(n) for n in ast.walk(ahead.tree)}
    assert all(t.node is not None and id(t.node) in nodes for t in again.tests)  # the tree read ahead


def test_a_file_collected_otherwise_by_the_repository_is_collected_again():
    # `python_files = tests.py` makes pytest collect all of tests/tests.py; by default only unittest
    # would, and only its TestCase classes.
    path = "tests/tests.py"
    ahead = read_ahead(path, COLLECTED)
    assert ahead is not None and ahead.collected == "unittest"
    assert [r[1] for r in ahead.raw or ()] == ["Cases.test_b"]
    with_settings = parse_tests(path, COLLECTED, frozenset(), ("tests.py",), ahead=ahead)
    assert [t.qualname for t in with_settings.tests] == ["test_helper", "TestThing.test_a", "Cases.test_b"]
    assert with_settings.module is ahead.tree  # the tree is used, not parsed again


def test_files_no_runner_collects_are_not_read_ahead_and_broken_ones_are_left_to_the_rules():
    assert read_ahead("tests/conftest.py", COLLECTED) is None
    with pytest.raises(PythonSyntaxError):
        read_ahead("tests/test_broken.py", "def test_a(:\n    pass\n")


@pytest.mark.parametrize(
    "path, is_test",
    [
        ("tests/test_a.py", True),
        ("pkg/a_test.py", True),
        ("test_a.py", True),
        ("tests/helpers.py", True),
        ("src/a.py", False),
        ("tests/data.json", False),
    ],
)
def test_is_test_path(path, is_test):
    assert is_test_path(path) is is_test


def test_syntax_error_is_one_finding_naming_file_and_line(make_repo):
    broken = 'def test_a():\n    """Guards #1."""\n    assert f(\n\n\ndef test_b():\n    pass\n'
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_ALL, "tests/test_ok.py": "def test_z():\n    assert f() == 1\n"},
        {"tests/test_bad.py": broken, "tests/test_ok.py": "def test_z():\n    assert f() == 2\n"},
    )
    bad = [f for f in report.findings if f.path == "tests/test_bad.py"]
    assert len(bad) == 1 and bad[0].severity == "notice"
    assert bad[0].line == 3 and "could not be parsed" in bad[0].message and "never closed" in bad[0].message
    # The other file is still reviewed: its expected value changed in a test-only PR.
    assert ("AGT003", "tests/test_ok.py") in [(f.rule, f.path) for f in report.findings]


def test_unreadable_test_file_is_a_finding_not_a_crash(make_repo):
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_ALL}, {"tests/test_bin.py": b"def test_a():\x00\n"}
    )
    assert codes(report) == ["AGT001"]
    assert "NUL" in report.findings[0].message


def test_deeply_nested_file_is_a_finding(make_repo):
    deep = "def test_a():\n    x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    report = review_change(make_repo, {"AGENTS.md": AGENTS_ALL}, {"tests/test_deep.py": deep})
    assert codes(report) == ["AGT001"] and "could not be parsed" in report.findings[0].message


ALPHA = 'def test_alpha():\n    """Checks alpha."""\n    assert f(1) == 2\n'
SMOKE = "class TestSmoke:\n    def test_runs(self):\n        assert True\n"
OTHER = "".join(
    f'def test_pad{i}():\n    """Guards PR #4."""\n    assert g({i}) == {i}\n\n\n' for i in range(10)
)


# Touched is not new: moving, renaming or re-signing a test adds none, and editing only its docstring or
# decorators does not make a test that could not fail before the author's problem.
@pytest.mark.parametrize(
    "base, head, expected",
    [
        # Moved into another, existing file (git shows a deletion and an addition, not a rename).
        (
            {"tests/test_a.py": ALPHA, "tests/test_b.py": OTHER},
            {"tests/test_a.py": None, "tests/test_b.py": OTHER + ALPHA},
            [],
        ),
        # Renamed file, and moved to a new file next to other content.
        ({"tests/test_a.py": ALPHA}, {"tests/test_a.py": None, "tests/unit/test_a.py": ALPHA}, []),
        (
            {"tests/test_a.py": ALPHA + OTHER},
            {"tests/test_a.py": OTHER, "tests/test_new.py": "import os\n\n\n" + ALPHA},
            [],
        ),
        # Renamed test, same code.
        (
            {"tests/test_a.py": ALPHA},
            {"tests/test_a.py": ALPHA.replace("test_alpha", "test_alpha_doubles")},
            [],
        ),
        # New parameter on the def line: the test existed.
        (
            {"tests/test_a.py": ALPHA},
            {"tests/test_a.py": ALPHA.replace("test_alpha()", "test_alpha(tmp_path)")},
            [],
        ),
        # Docstring or decorator only, on a test that asserted nothing before.
        (
            {"tests/test_a.py": SMOKE},
            {"tests/test_a.py": SMOKE.replace("(self):\n", '(self):\n        """Smoke."""\n')},
            [],
        ),
        (
            {"tests/test_a.py": SMOKE},
            {"tests/test_a.py": SMOKE.replace("    def", "    @pytest.mark.slow\n    def")},
            [],
        ),
        # Helpers that look like tests but are not collected.
        (
            {},
            {
                "tests/conftest.py": "def test_value():\n    return 2\n",
                "tests/helpers.py": "def test_data():\n    return {}\n",
            },
            [],
        ),
        # Still found: a moved test whose code changed, a copy that leaves the original, a new test.
        (
            {"tests/test_a.py": SMOKE},
            {"tests/test_a.py": None, "tests/test_b.py": SMOKE.replace("assert True", "assert 1")},
            ["AGT002"],
        ),
        (
            {"tests/test_a.py": ALPHA},
            {"tests/test_a.py": ALPHA + "\n\n" + ALPHA.replace("test_alpha", "test_copy")},
            ["AGT001"],
        ),
        (
            {"tests/test_a.py": ALPHA},
            {"tests/test_a.py": ALPHA + "\n\ndef test_new():\n    assert f(2) == 3\n"},
            ["AGT001"],
        ),
    ],
)
def test_touched_is_not_new(make_repo, base, head, expected):
    report = review_change(make_repo, {"AGENTS.md": AGENTS_ALL, "src.py": "x = 1\n", **base}, head)
    assert codes(report) == expected


FSTRING_312 = (
    'def test_formats():\n    """Guards PR #7."""\n    assert f"{d["a"]}" == g()\n\n\n'
    'def test_rows():\n    rows = f"""{\n        "\\n".join(r)  # one per line\n    }"""\n'
    "    assert rows == h()\n\n\n"
    "def test_unreferenced():\n    assert k() == 3\n"
)


def test_newer_syntax_is_reviewed_not_reported(make_repo):
    every_new_test = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
    base = {"AGENTS.md": AGENTS_ALL, ".github/bot.yml": every_new_test}
    report = review_change(make_repo, base, {"tests/test_new.py": FSTRING_312})
    # The two tests without a reference are found, at their own `def` lines, after a multi-line f-string.
    assert [(f.rule, f.line) for f in report.findings] == [("AGT001", 6), ("AGT001", 13)]
    assert all("could not be parsed" not in f.message for f in report.findings)


@pytest.mark.parametrize(
    "body, tautological",
    [
        ('    assert f"{d["a"]}" == f"{d["b"]}"\n', False),  # two placeholders are not one value
        ('    assert f"{d["a"]}"\n', False),  # a placeholder is not a constant
        ('    x = f"{d["a"]}"\n    assert True\n', True),  # the rule still sees the rest
    ],
)
def test_agt002_is_not_fooled_by_a_placeholder(make_repo, body, tautological):
    text = 'def test_a():\n    """Guards PR #3."""\n' + body
    report = review_change(make_repo, {"AGENTS.md": AGENTS_ALL}, {"tests/test_p.py": text})
    assert ("AGT002" in codes(report)) is tautological


def test_broken_file_is_one_notice_across_rules_and_others_are_reviewed(make_repo):
    broken = 'def test_a():\n    assert f"{d["a"]}" == 1\n\n\ndef test_b(:\n    pass\n'
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_ALL},
        {"tests/test_broken.py": broken, "tests/test_fine.py": "def test_c():\n    assert 1 == 1\n"},
    )
    bad = [f for f in report.findings if f.path == "tests/test_broken.py"]
    # libcst names the line of the token where it stopped, here the one after `(:`.
    assert len(bad) == 1 and bad[0].severity == "notice" and bad[0].line in (5, 6)
    assert "syntax error" in bad[0].message
    assert {"AGT001", "AGT002"} <= {f.rule for f in report.findings if f.path == "tests/test_fine.py"}


RENAMED_BASE = (
    "def test_return_error():\n    r = run()\n    r.assert_outcomes(failed=1)\n    assert 'error' in r.out\n"
)
RENAMED_HEAD = (
    "@pytest.mark.filterwarnings('default')\n"
    "def test_return_warning():\n    r = run()\n    r.assert_outcomes(passed=1)\n"
    "    assert 'error' in r.out\n"
)


EVERY_NEW_TEST = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"


@pytest.mark.parametrize(
    "head, new",
    [
        (RENAMED_HEAD, False),  # renamed, a mark added, one value changed: that test, changed
        ("def test_other():\n    assert compute(3) == 9\n", True),  # shares little with the one removed
    ],
)
def test_a_renamed_and_edited_test_is_changed_not_new(make_repo, head, new):
    base = {"AGENTS.md": AGENTS_ALL, ".github/bot.yml": EVERY_NEW_TEST, "tests/test_r.py": RENAMED_BASE}
    report = review_change(make_repo, base, {"tests/test_r.py": head})
    assert ("AGT001" in codes(report)) is new


def test_the_same_test_parsed_twice_is_equal_whatever_its_tree():
    source = "def test_a():\n    assert f() == 1\n"
    (one,) = parse_tests("tests/test_x.py", source, frozenset({2})).tests
    (two,) = parse_tests("tests/test_x.py", source, frozenset({2})).tests
    assert one.node is not two.node
    assert one == two and not one != two and hash(one) == hash(two) and len({one, two}) == 1
    moved = one._replace(line=5)
    assert moved != one and not moved == one
    assert "node" not in repr(one) and "qualname='test_a'" in repr(one)
