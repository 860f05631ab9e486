"""AGT003 rewritten-test-expectation: expected values changed in a PR that changes no code."""

import pytest

from rules.core.models import Severity
from rules.testcode.rewritten_expectation import expectations
from tests.helpers import codes, review_change

AGENTS = "# Tests\n\n- Don't rewrite passing tests to match new behavior.\n"
OLD = (
    "import pytest\n\n\n"
    'def test_round_up():\n    """Guards PR #812."""\n    assert max_steps(300, 8) == 38\n\n\n'
    'def test_other():\n    """Guards PR #1."""\n    assert other() == "a"\n'
)

CASES = [
    # (id, extra head files, new test-file text, expected codes)
    ("fires-test-only-pr", {}, OLD.replace("== 38", "== 37"), ["AGT003"]),
    ("fires-with-docs-change", {"README.md": "new docs\n"}, OLD.replace("== 38", "== 37"), ["AGT003"]),
    ("silent-when-code-changes", {"src/steps.py": "x = 1\n"}, OLD.replace("== 38", "== 37"), []),
    ("silent-when-input-not-expectation-changes", {}, OLD.replace("(300, 8)", "(304, 8)"), []),
    (
        "silent-when-assertion-added",
        {},
        OLD.replace("== 38\n", "== 38\n    assert max_steps(8, 8) == 1\n"),
        [],
    ),
    ("silent-renamed-test", {}, OLD.replace("test_round_up", "test_round").replace("== 38", "== 37"), []),
    ("fires-approx", {}, OLD.replace("== 38", "== pytest.approx(38.0)"), ["AGT003"]),
]

TABLE = (
    "import pytest\n\n\n"
    '@pytest.mark.parametrize("micro, batch, expected", [(300, 8, 38), (8, 8, 1)])\n'
    'def test_table(micro, batch, expected):\n    """Guards PR #812."""\n'
    "    assert max_steps(micro, batch) == expected\n"
)
UNNAMED = TABLE.replace("expected", "steps")
LISTED = TABLE.replace('"micro, batch, expected"', '["micro", "batch", "want"]').replace("expected", "want")
TABLE_CASES = [
    # (id, base test file, head test file, expected codes): only the decorator changes in each.
    ("fires-expected-column-changed", TABLE, TABLE.replace("(300, 8, 38)", "(300, 8, 37)"), ["AGT003"]),
    ("silent-case-column-changed", TABLE, TABLE.replace("(300, 8, 38)", "(304, 8, 38)"), []),
    ("silent-row-added", TABLE, TABLE.replace("(8, 8, 1)]", "(8, 8, 1), (16, 8, 2)]"), []),
    ("silent-without-expected-column", UNNAMED, UNNAMED.replace("(300, 8, 38)", "(300, 8, 37)"), []),
    ("fires-list-argnames", LISTED, LISTED.replace("(300, 8, 38)", "(300, 8, 37)"), ["AGT003"]),
]


@pytest.mark.parametrize("case", TABLE_CASES, ids=[c[0] for c in TABLE_CASES])
def test_agt003_parametrize_tables(make_repo, case):
    _, old, new, expected = case
    base = {"AGENTS.md": AGENTS, "tests/test_table.py": old}
    report = review_change(make_repo, base, {"tests/test_table.py": new})
    assert codes(report) == expected


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_agt003_table(make_repo, case):
    _, extra, new, expected = case
    base = {"AGENTS.md": AGENTS, "tests/test_steps.py": OLD, "src/steps.py": "x = 0\n"}
    report = review_change(make_repo, base, {"tests/test_steps.py": new, **extra})
    assert codes(report) == expected


def test_finding_points_at_the_changed_assertion_as_warning(make_repo):
    base = {"AGENTS.md": AGENTS, "tests/test_steps.py": OLD}
    report = review_change(make_repo, base, {"tests/test_steps.py": OLD.replace("== 38", "== 37")})
    (f,) = report.findings
    assert (f.path, f.line, f.severity) == ("tests/test_steps.py", 6, Severity.WARNING)
    assert "no longer expects `38` and now expects `37`" in f.message
    assert report.verdict == "ready"


def test_option_always_also_looks_at_code_prs(make_repo):
    cfg = "rules:\n  AGT003:\n    options:\n      when: always\n"
    base = {"AGENTS.md": AGENTS, ".github/bot.yml": cfg, "tests/test_steps.py": OLD}
    head = {"tests/test_steps.py": OLD.replace("== 38", "== 37"), "src/steps.py": "x = 1\n"}
    assert codes(review_change(make_repo, base, head)) == ["AGT003"]


def test_renamed_test_file_compared_with_its_base_path(make_repo):
    base = {"AGENTS.md": AGENTS, "tests/test_steps.py": OLD}
    head = {"tests/test_steps.py": None, "tests/test_step_math.py": OLD.replace("== 38", "== 37")}
    assert codes(review_change(make_repo, base, head)) == ["AGT003"]


@pytest.mark.parametrize(
    "source, expected",
    [
        ("assert f() == 38", ["38"]),
        ("assert f() in (1, 2)", ["(1, 2)"]),
        ("assert f() == -1.5", ["-1.5"]),
        ("assert f() is None", []),
        ("assert f() == g()", []),
        ("self.assertEqual(f(), {'a': 1})", ["{'a': 1}"]),
        ("m.assert_called_once_with('x', n=3)", ["'x'", "3"]),
        ("self.assertEqual(f(), 2, msg='why')", ["2"]),
    ],
)
def test_expectations(source, expected):
    import ast

    assert [v for _, v in expectations(ast.parse(source))] == expected
