"""What a PR says of a fix: a wider vocabulary, housekeeping subjects, Conventional-Commits types."""

from __future__ import annotations

import pytest

from rules.core.models import PullRequest
from rules.testcode.changelog import FIX, OTHER, Entry
from rules.testcode.regression_evidence import conventional_kind, entry_kinds, pr_cues, title_kinds


def _fix(title: str = "", commits: tuple[str, ...] = (), body: str = "") -> bool:
    return bool(pr_cues(PullRequest(title=title, commits=commits, body=body)))


@pytest.mark.parametrize(
    "title",
    [
        "Do not trigger a reload on focus",
        "Reading a closed socket no longer hangs",
        "Crash when the config is empty",
        "Garbage output for wide characters",
        "Incorrectly rounded widths",
        "Wrong line numbers in f-strings",
        "Prevent the cache from growing without bound",
        "Avoid infinite loop in read_chunked when amt=0",
        "Ignore empty cache files instead of raising",
        "Fix formatting cells with magic methods",  # a formatter's bug, not housekeeping
        # Round four: "Handle empty X" says X used to fail (read as a feature before; httpx's "Handle empty
        # zstd responses" fixed a decoder that raised on an empty body).
        "Handle empty shapes",
        "Don't compress server-sent events",
        "Reject tab characters in bare keys",
        # Round five: a behaviour named as what it replaces, when that was losing data.
        "Raise on a malformed array element instead of dropping it",
        "Warn instead of silently ignoring unknown keys",
        "The converter now properly handles dates",
        "Properly close the socket on timeout",
        "Preserve whitespace when replacing super tables",
        "Relative paths stopped working after the refactor",
        "Restore the ability to pass self as an argument",
        "Preserve function defaults through the retry decorator",
        "Honor sort_keys for parsed documents",
    ],
)
def test_a_title_says_a_fix_without_the_word(title):
    assert _fix(title)


@pytest.mark.parametrize(
    "title",
    [
        "fix ci",
        "Fix lint",
        "typing fix",
        "Fix typo in the README",
        "fix tests",
        "Fix docs",
        "fix mypy",
        "Fix pre-commit",
        "Fix formatting",
        "CI fixes",
        "Add a pointer rule",
        "Handle shapes in the new renderer",
        "Don't run the slow tests on PyPy",
        "Expose the shape registry",
        # Housekeeping named after a preposition.
        "fix for digest testcase",
        "Fixes in the test suite",
        "Bug in CI config",
        "Use a list instead of a tuple",
        "Preserve the old API",
        "Keep a cache of shapes",
        "Keep the logs on disk",
        # Round five: a standard adopted, performance work, a linter's fixes, a revert.
        "Honor the NO_COLOR environment variable",
        "Fix quadratic complexity in fragments_join",
        "Fix slow startup with many plugins",
        'Enable the "RET" linting rule of Ruff and fix newly reported errors',
        'Revert "Fix crash when the queue is full"',
        # Round six: the project's own build files.
        "Fix tox.ini break by tox-ini-fmt",
    ],
)
def test_housekeeping_and_features_say_no_fix(title):
    assert not _fix(title)


def test_prose_counts_in_the_title_not_in_the_commits_inside_the_pr():
    """ "broken test after rebase" inside a feature branch says nothing of the change."""
    assert not _fix(commits=("Add the pointer rule", "Broken test after rebase"))
    assert _fix(commits=("Stop the pointer rule from crashing",))
    assert _fix(commits=("Pointer rule no longer hangs",))


@pytest.mark.parametrize(
    "subject, kind",
    [
        ("fix: area of empty shapes", "bugfix"),
        ("fix(shapes)!: area of empty shapes", "bugfix"),
        ("fix(ci): pin the runner", "changed"),  # a housekeeping scope
        # gitmoji: the emoji or its shortcode opening the subject.
        ("\U0001f41b Empty shapes have zero area", "bugfix"),
        (":bug: Empty shapes have zero area", "bugfix"),
        ("\U0001f691\ufe0f Stop the crash on start", "bugfix"),
        ("\u2728 Add the pointer rule", "feature"),
        ("\u267b\ufe0f Split the reader", "changed"),
        ("\U0001f49a Fix the CI build", "changed"),  # a CI fix is no bug fix
        ("\U0001f9ea Fix fuzzing test failures", None),  # "add a failing test": the words decide
        ("\U0001f44c Improve the parser", None),  # not a gitmoji kind
        ("feat: pointer rule", "feature"),
        ("feat(css): pointer rule (fixes #12)", "feature"),
        ("deprecate: Field.foo", "deprecation"),
        ("refactor: split the parser", "changed"),
        ("test: cover the parser", "changed"),
        ("docs: the parser", "changed"),
        ("chore: bump deps", "changed"),
        ("perf: faster parse", "changed"),
        ("ci: cache pip", "changed"),
        ("Fix: Improve Error Message", "bugfix"),
        ("Note: this is prose", None),
        ("Fix area of zero", None),
    ],
)
def test_conventional_kind(subject, kind):
    assert conventional_kind(subject) == kind


@pytest.mark.parametrize(
    "title, fix",
    [
        ("fix(shapes): area of zero", True),
        ("feat: fix #12 by adding an option", False),
        ("test: fix flaky area test", False),
        ("chore: fix lint", False),
        ("refactor(parser): crash-proof rewrite", False),
    ],
)
def test_a_conventional_type_decides_over_the_words(title, fix):
    assert _fix(title) is fix


@pytest.mark.parametrize(
    "title, kinds",
    [
        ("Detailed error message on hook registration conflict", {"improvement"}),
        ("Make error messages of invalid nesting more helpful", {"improvement"}),
        ("Improve the warning message for unknown keys", {"improvement"}),
        # A message that was wrong is a fix of what the code says.
        ("Fix the wrong error message for missing keys", set()),
        ("Raise an error message on empty input", set()),
    ],
)
def test_a_clearer_message_is_an_improvement(title, kinds):
    assert title_kinds(PullRequest(title=title)) == kinds


def test_an_improved_messages_inner_fix_commits_make_no_fix_pr():
    pr = PullRequest(title="Detailed error message on hook conflict", body="* fix the message\n* fix lint")
    assert not pr_cues(pr)


@pytest.mark.parametrize(
    "title, body",
    [
        ("Add the --strict option (fixes #12)", ""),
        ("Deprecate Field.foo", "Fixes #40"),
        ("feat: the --strict option", "Fixes #12"),
        ("deprecate: Field.foo", "Closes #40. Fixes #41"),
    ],
)
def test_a_feature_or_deprecation_closing_an_issue_is_no_fix_pr(title, body):
    pr = PullRequest(title=title, body=body)
    assert title_kinds(pr) & {"feature", "deprecation"}
    assert not pr_cues(pr)


@pytest.mark.parametrize(
    "title",
    [
        "Add a guard against the crash on empty input",
        "Add missing null check (fixes #12)",
        "Allow empty names again (fixes #12)",
    ],
)
def test_a_feature_verb_that_tells_a_fix_leaves_the_closing_reference_its_weight(title):
    assert title_kinds(PullRequest(title=title)) == frozenset()
    assert pr_cues(PullRequest(title=title, body="Fixes #12"))


@pytest.mark.parametrize(
    "entry, kinds",
    [
        (Entry("Anything at all.", "Fixed", FIX), {"bugfix"}),
        (Entry("A pointer rule.", "Added", OTHER), {"feature"}),
        (Entry("Speed.", "Changed", OTHER), {"changed"}),
        (Entry("Fix empty file streaming when testing.", "Version 2.3.7", ""), {"bugfix"}),
        (Entry("Use flit_core as the build backend.", "Version 2.3.7", ""), set()),
        # A rule tightened, a support dropped: "no longer" of a change, not of a failure.
        (Entry("An empty host is no longer allowed.", "Version 3.1.4", ""), set()),
        (Entry("Python 3.8 is no longer supported.", "Unreleased", ""), set()),
        (Entry("Reading an empty body no longer hangs.", "Unreleased", ""), {"bugfix"}),
    ],
)
def test_entry_kinds(entry, kinds):
    assert entry_kinds([entry]) == kinds


@pytest.mark.parametrize(
    "title, kinds",
    [
        ("strutils: add ellipsize for word-aware truncation", {"feature"}),
        ("TODO: add other entries in the release PR", set()),
    ],
)
def test_a_feature_verb_behind_the_module_it_is_about(title, kinds):
    assert title_kinds(PullRequest(title=title)) == kinds
