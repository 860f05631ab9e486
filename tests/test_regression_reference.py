"""AGT001 regression-test-without-reference: reference forms, modes, messages, the bundled example."""

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.examples import materialize
from bot.review.engine import review
from rules.core.models import PullRequest
from rules.testcode.regression_reference import _names_issue, accepts_issues, is_fix_pr, names_reference
from tests.helpers import AGENTS_AGT001, codes, review_change

ALL_NEW_TESTS = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "docstring",
    [
        "Guards #828.",
        "Guards PR #828 against a regression.",
        "Guards PR 828.",
        "Guards pr#828.",
        "Guards pull request 828.",
        "Guards GH-828.",
        "Guards gh-828.",
        "Guards https://github.com/acme/trainer/pull/828.",
        "See https://github.example.com/acme/trainer/pull/828/files for the fix.",
        "Guards https://github.com/acme/trainer/commit/1a2b3c4d5e6f.",
        "Guards https://github.com/acme/trainer/commit/" + "1a2b3c4d5e" * 4 + ".",
        "Guards 1a2b3c4.",
        "Guards commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b.",
        "Guards commit 1234567 (all digits, so it says commit).",
        "Guards acme/trainer#828.",
        "Guards the fix from PR #198 against the regression introduced by PR #193.",
        "Multi-line docstring.\n\n    Regression from (#828).",
    ],
)
def test_accepted_reference_forms(docstring):
    assert names_reference(docstring)


@pytest.mark.parametrize(
    "docstring",
    [
        None,
        "",
        "Micro-step targets round down.",
        "Guards # 828 with a space.",
        "Guards PR.",
        "Guards PR #.",
        "Guards GH828.",
        "Guards issue 828.",
        "See https://github.com/acme/trainer/issues/828.",
        "See https://github.com/acme/trainer/pull/abc.",
        "See https://github.com/acme/trainer/commit/abc12.",
        "See https://github.com/acme/trainer/commit/" + "1a2b3c4d5e" * 4 + "f.",
        "Guards abc123 (6 hex digits).",
        "Guards 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1 (41 hex digits).",
        "Guards deadbeefcafe (no digit: a word, not a commit).",
        "Runs 1000000 iterations (a number, not a commit).",
        "Parses &#828; as an HTML entity.",
        "Uses uuid 123e4567-e89b-12d3-a456-426614174000.",
        "Reads 0x1a2b3c4d as a hex literal.",
        "Guards trainer#828 (no owner).",
    ],
)
def test_rejected_reference_forms(docstring):
    assert not names_reference(docstring)


# The single alternation names_reference used before it was split into four patterns; the split must
# accept exactly what it accepted.
_ONE_PATTERN = re.compile(
    r"""
      https?://[^\s/]+/[^\s/]+/[^\s/]+/pull/\d+\b
    | https?://[^\s/]+/[^\s/]+/[^\s/]+/commit/[0-9a-f]{7,40}\b
    | \b(?:PR|pull\ request)\s*[#-]?\s*\d+\b
    | \bGH-\d+\b
    | (?<![\w/.-])[\w.-]+/[\w.-]+\#\d+\b
    | (?<![\w&/\#-])\#\d+\b
    | \bcommit\s+[0-9a-f]{7,40}\b
    | (?<![\w/-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])
    """,
    re.IGNORECASE | re.VERBOSE,
)
_PIECES = st.sampled_from(
    [
        "PR",
        "pr",
        "pull request",
        "GH-",
        "gh",
        "commit",
        "COMMIT",
        "#",
        "&",
        "/",
        ".",
        "-",
        "_",
        " ",
        "\n",
        "https://",
        "http://",
        "github.com/",
        "o/r/",
        "pull/",
        "commit/",
        "issues/",
        "8",
        "828",
        "1a2b3c4",
        "deadbeef",
        "abcdef1",
        "0" * 41,
        "x",
        "acme",
        "ſ",
        "K",
        "é",
        "(",
        ")",
        ":",
    ]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_the_four_patterns_accept_what_the_one_alternation_accepted(text):
    assert names_reference(text) == (_ONE_PATTERN.search(text) is not None)


# The single pattern issue references were found with before issue_url; the two-part search must accept
# exactly what it accepted.
_ONE_ISSUE_PATTERN = re.compile(r"https?://[^\s/]+/\S+?/issues/\d+\b|\bissue\s*#?\s*\d+\b", re.IGNORECASE)
_ISSUE_PIECES = st.sampled_from(
    ["http://", "https://", "HTTP://", "h", "x", "/", "//", "issues/", "/issues/", "/ISSUES/", "issue", "#"]
    + ["1", "12", "a", " ", "\n", "\t", "-", ".", "ſ", "://"]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_ISSUE_PIECES, max_size=16).map("".join))
def test_the_two_part_issue_search_accepts_what_the_one_pattern_accepted(text):
    assert _names_issue(text) == (_ONE_ISSUE_PATTERN.search(text) is not None)


UNREFERENCED = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
REFERENCED = (
    'def test_new():\n    """Guards PR #12: checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
)
OLD_TESTS = 'def test_old():\n    """No reference here."""\n    assert 1\n'

F312 = 'X = f"{d["a"]}"\n'
CASES = [
    # (id, base files, head files, PR, expected codes)
    ("fires-on-new-test", {}, {"tests/test_a.py": UNREFERENCED}, None, ["AGT001"]),
    ("silent-with-reference", {}, {"tests/test_a.py": REFERENCED}, None, []),
    ("silent-on-untouched-test", {"tests/test_a.py": OLD_TESTS}, {"src/a.py": "x = 1\n"}, None, []),
    (
        "silent-on-untouched-test-in-changed-file",
        {"tests/test_a.py": OLD_TESTS},
        {"tests/test_a.py": OLD_TESTS + "\n\n" + REFERENCED},
        None,
        [],
    ),
    (
        "edited-old-test-is-not-new",
        {"tests/test_a.py": OLD_TESTS},
        {"tests/test_a.py": OLD_TESTS.replace("assert 1", "assert 2")},
        None,
        [],
    ),
    ("non-test-file-ignored", {}, {"src/test_util_helpers.txt": UNREFERENCED}, None, []),
    ("helper-function-ignored", {}, {"tests/test_a.py": "def helper():\n    pass\n"}, None, []),
    # Syntax newer than the interpreter running the bot (3.12 f-strings, 3.14 t-strings) is still read.
    ("fires-after-3.12-fstring", {}, {"tests/test_a.py": F312 + UNREFERENCED}, None, ["AGT001"]),
    ("silent-in-3.14-file", {}, {"tests/test_a.py": 'X = t"{a}"\n' + REFERENCED}, None, []),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_agt001_table(make_repo, case):
    _, base, head, pr, expected = case
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001, **base}, head, pr)
    assert codes(report) == expected
    for f in report.findings:
        assert f.source == "AGENTS.md:3"
        assert f.source_text.startswith("Regression tests must name")


TEST_STYLES = """\
import unittest

import pytest


def test_plain():
    assert f() == 1


async def test_async():
    assert await g() == 1


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(n):
    assert f(n) == n


class TestGroup:
    def test_method(self):
        assert f() == 1

    class TestNested:
        async def test_nested_async(self):
            assert f() == 1

    def helper(self):
        pass


class Cases(unittest.TestCase):
    def test_case(self):
        self.assertEqual(f(), 1)

    def setUp(self):
        pass


class MoreCases(Cases):
    def test_inherited_base(self):
        self.assertEqual(f(), 1)


class Helper:
    def test_not_collected(self):
        pass
"""


def test_every_test_style_is_found(make_repo):
    base = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW_TESTS}
    report = review_change(make_repo, base, {"tests/test_styles.py": TEST_STYLES})
    found = sorted(f.message.split("`")[1] for f in report.findings)
    assert found == [
        "Cases.test_case",
        "MoreCases.test_inherited_base",
        "TestGroup.TestNested.test_nested_async",
        "TestGroup.test_method",
        "test_async",
        "test_parametrized",
        "test_plain",
    ]


def test_message_proposes_docstring_with_pr_number(make_repo):
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": UNREFERENCED}, PullRequest(number=828)
    )
    (f,) = report.findings
    assert '`"""Checks a thing no longer overflows. Guards PR #828."""`' in f.message
    assert 'it looks like a regression test (its docstring says "no longer")' in f.message
    assert (f.path, f.line) == ("tests/test_a.py", 1)


def test_message_without_pr_number_and_docstring(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_AGT001},
        {"tests/test_a.py": "def test_x_regression():\n    assert f()\n"},
    )
    (f,) = report.findings
    assert "`test_x_regression` has no docstring" in f.message and "PR #<number>" in f.message


def _config(mode: str) -> str:
    return f"rules:\n  AGT001:\n    options:\n      regression: {mode}\n"


MARKED = (
    'def test_plain():\n    """Checks."""\n    assert f()\n\n\n'
    'def test_regression_overflow():\n    """Checks."""\n    assert f()\n\n\n'
    'def test_other():\n    """Guards against the tokenizer bug."""\n    assert f()\n\n\n'
    '@pytest.mark.regression\ndef test_marked():\n    """Checks."""\n    assert f()\n'
)


@pytest.mark.parametrize(
    "mode, pr, expected",
    [
        ("all-new-tests", None, 4),
        ("evidence", None, 3),  # test_plain says nothing: the one notice, not an error
        ("marked", None, 3),
        ("fix-prs", PullRequest(title="Add tokenizer"), 0),
        ("fix-prs", PullRequest(title="Fix tokenizer overflow"), 4),
        ("fix-prs", PullRequest(title="Tokenizer", body="Fixes #12."), 4),
        ("fix-prs", PullRequest(title="Tokenizer", labels=("type: bug",)), 4),
    ],
)
def test_regression_modes(make_repo, mode, pr, expected):
    base = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": _config(mode)}
    report = review_change(make_repo, base, {"tests/test_a.py": MARKED}, pr)
    errors = [f for f in report.findings if f.severity == "error"]
    assert codes(report) == ["AGT001"] * (expected + (mode == "evidence"))
    assert len(errors) == expected


def test_unknown_mode_is_reported_and_default_used(make_repo):
    """The config check knows the modes: a BOT001 at the option's line, and AGT001 runs with its defaults."""
    base = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": _config("sometimes")}
    report = review_change(make_repo, base, {"tests/test_a.py": UNREFERENCED})
    assert codes(report) == ["BOT001", "AGT001"]
    bad = report.findings[0]
    assert "`sometimes`" in bad.message and (bad.path, bad.line) == (".github/bot.yml", 4)


@pytest.mark.parametrize(
    "pr, fix",
    [
        (PullRequest(title="fix: overflow"), True),
        (PullRequest(title="Prefix the logger"), False),
        (PullRequest(body="This reverts the tokenizer change."), False),
        (PullRequest(labels=("regression",)), True),
        (PullRequest(), False),
        (PullRequest(commits=("Add a thing", "fix: overflow")), True),
    ],
)
def test_fix_pr_detection(pr, fix):
    assert is_fix_pr(pr) is fix


def test_bundled_example_fires_then_stops_once_docstring_names_pr(tmp_path):
    report = review(materialize(ROOT / "examples/mobile300", tmp_path / "before"))
    (f,) = [f for f in report.findings if f.rule == "AGT001"]
    assert f.path == "tests/test_train_cli.py" and f.line == 9
    assert f.source == "AGENTS.md:6" and "Regression tests must name the PR/commit" in f.source_text
    assert 'per update give 37 updates. Guards PR #828."""`' in f.message
    # The same example, with the docstring the message proposes.
    fixed = tmp_path / "example"
    shutil.copytree(ROOT / "examples/mobile300", fixed)
    test = fixed / "head/tests/test_train_cli.py"
    test.write_text(test.read_text().replace('37 updates."""', '37 updates. Guards PR #828."""'))
    after = review(materialize(fixed, tmp_path / "after"))
    assert [f for f in after.findings if f.rule == "AGT001"] == []
    # The base test (PR #812) was untouched and never produced a finding either way.
    assert all(f.line != 4 for f in report.findings)


REGRESSION = "def test_zero_regression(self):\n        assert f(0) == 0\n"
NESTED = REGRESSION.replace("    ", "        ")
COVERAGE = [
    # (id, test file, expected AGT001 error lines)
    (
        "module-docstring-covers",
        '"""Guards the feature shipped in PR #1021."""\n\n\ndef test_regression():\n    f()\n',
        [],
    ),
    ("class-docstring-covers", f'class TestZero:\n    """Guards PR #12."""\n\n    {REGRESSION}', []),
    (
        "outer-class-covers-nested",
        f'class TestOuter:\n    """Guards 1a2b3c4."""\n\n    class TestInner:\n        {NESTED}',
        [],
    ),
    (
        "edge-class-does-not-cover-its-neighbour",
        f'class TestZero:\n    """Guards PR #12."""\n\n    {REGRESSION}\n\n'
        + "def test_one_regression():\n    f()\n",
        [8],
    ),
    (
        "edge-module-docstring-without-reference",
        '"""Area tests."""\n\n\ndef test_regression():\n    f()\n',
        [4],
    ),
]


@pytest.mark.parametrize("case", COVERAGE, ids=[c[0] for c in COVERAGE])
def test_module_and_class_docstrings_cover_their_tests(make_repo, case):
    _, source, lines = case
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": source})
    assert [f.line for f in report.findings if f.severity == "error"] == lines


AGENTS_ISSUES = "# Rules\n\n- Regression tests must link the issue or PR they cover in the docstring.\n"
ISSUE_DOCS = [
    ("Guards https://github.com/acme/trainer/issues/5.", True),
    ("Guards issue 5.", True),
    ("Guards issue #5.", True),
    ("Guards https://gitlab.com/acme/trainer/-/issues/5.", True),
    ("Guards GH-5.", True),
    ("Guards the issue.", False),
]


@pytest.mark.parametrize("agents", [AGENTS_AGT001, AGENTS_ISSUES], ids=["prs-only", "issues-accepted"])
@pytest.mark.parametrize("doc, issue_ref", ISSUE_DOCS)
def test_issue_references_where_agents_md_accepts_issues(make_repo, agents, doc, issue_ref):
    source = f'def test_zero_regression():\n    """{doc}"""\n    f()\n'
    report = review_change(make_repo, {"AGENTS.md": agents}, {"tests/test_a.py": source})
    # "#5" and "GH-5" name a PR anyway; an issue URL or "issue 5" counts only where issues are accepted.
    always = "#5" in doc or "GH-5" in doc
    covered = always or (issue_ref and agents == AGENTS_ISSUES)
    assert codes(report) == ([] if covered else ["AGT001"])
    if not covered:
        assert ("the issue, PR or commit" in report.findings[0].message) is (agents == AGENTS_ISSUES)


@pytest.mark.parametrize(
    "sentence, accepted",
    [
        ("Regression tests must link the issue or PR they cover.", True),
        ("Reference the issue or PR in each regression test's docstring.", True),
        ("Regression tests must name the PR/commit they guard.", False),
        (None, False),
    ],
)
def test_accepts_issues(sentence, accepted):
    assert accepts_issues(sentence) is accepted


@pytest.mark.parametrize(
    "doc, proposal",
    [
        (None, '`"""Guards PR #828: what it protects."""`'),
        ("Checks that zero stays zero.", '`"""Checks that zero stays zero. Guards PR #828."""`'),
        ("URL parsing keeps the port.", '`"""URL parsing keeps the port. Guards PR #828."""`'),
        # No sentence end to follow, more than one line or too long to repeat: never cut, the line to add.
        (
            "guards https://github.com/acme/trainer/issues/5",
            "the line `See PR #828.` at the end of its docstring",
        ),
        ("Guards against the overflow.", '`"""Guards against the overflow. See PR #828."""`'),
        ("Prevents a double step.\n\n    More.", "the line `See PR #828.` at the end of its docstring"),
        ("Zero " + "and zero " * 20 + "is zero.", "the line `Guards PR #828.` at the end of its docstring"),
    ],
)
def test_proposed_docstring_reads_naturally(make_repo, doc, proposal):
    docline = f'    """{doc}"""\n' if doc else ""
    source = f"def test_zero_regression():\n{docline}    f()\n"
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": source}, PullRequest(number=828)
    )
    (f,) = report.findings
    assert f.message.endswith(f"e.g. {proposal}.")


ISSUE_ONLY = 'def test_zero_regression():\n    """Guards issue 5."""\n    f()\n'


@pytest.mark.parametrize(
    "agents, options, accepted",
    [
        (AGENTS_AGT001, "", False),  # the sentence names PRs and commits only
        (AGENTS_ISSUES, "", True),
        (AGENTS_AGT001, "      issues: yes\n", True),
        (AGENTS_ISSUES, "      issues: no\n", False),
        ("# Rules\n", "", True),  # turned on by the config alone: nothing says issues are not enough
        ("# Rules\n", "      issues: no\n", False),
    ],
)
def test_issues_option(make_repo, agents, options, accepted):
    config = "rules:\n  AGT001:\n    enabled: true\n" + (f"    options:\n{options}" if options else "")
    base = {"AGENTS.md": agents, ".github/bot.yml": config}
    report = review_change(make_repo, base, {"tests/test_a.py": ISSUE_ONLY})
    assert codes(report) == ([] if accepted else ["AGT001"])
