"""AGT001's default mode `evidence`: which new tests are regression tests, from what they and the PR say."""

from __future__ import annotations

import pytest

from bot.git.local import MAX_COMMIT_TEXT, commit_messages, load_changeset
from bot.review.engine import review
from rules.core.models import PullRequest, Report
from rules.testcode.regression_evidence import _marks, comments, own_cues
from rules.testcode.testfiles import parse_tests
from tests.conftest import GitRepo
from tests.helpers import AGENTS_AGT001

BASE = {"AGENTS.md": AGENTS_AGT001, "src/shapes.py": "def area(x):\n    return x\n"}
FIX_CODE = {"src/shapes.py": "def area(x):\n    return x or 0\n"}
IMPORTS = "from src.shapes import area\n\n\n"


def _review(tmp_path, head: dict, pr: PullRequest | None = None, message: str = "head", base=None) -> Report:
    r = GitRepo(tmp_path / "repo")
    r.commit(base or BASE, "base")
    r.branch("pr")
    r.commit(head, message)
    return review(load_changeset(r.path, base="main", head="pr", pr=pr))


def _graded(report: Report) -> list[tuple[str, str | None]]:
    """AGT001 findings as (severity, path)."""
    return [(f.severity.value, f.path) for f in report.findings if f.rule == "AGT001"]


def _test(name: str, doc: str | None = None, above: str = "", inside: str = "") -> str:
    docline = f'    """{doc}"""\n' if doc else ""
    return f"{above}def {name}():\n{docline}{inside}    assert area(2) == 2\n"


T = "tests/test_geometry.py"
CLASS_DOC = (
    'class TestArea:\n    """Regression tests for zero areas."""\n\n    def test_zero(self):\n        f()\n'
)
ERROR = [("error", T)]
NOTICE = [("notice", T)]  # a lone unexplained test: the notice sits on its line

# (id, head files, PR (None: local mode, commit message "head"), expected AGT001 findings)
CASES = [
    # The test's name.
    ("name-fires", {T: _test("test_overflow_regression")}, None, ERROR),
    ("name-silent", {T: _test("test_area_of_square")}, None, NOTICE),
    ("name-edge-linear-regression", {T: _test("test_linear_regression_fit")}, None, NOTICE),
    ("name-edge-fixture-is-no-fix", {T: _test("test_fixture_loading")}, None, NOTICE),
    ("name-edge-fixed-seed", {T: _test("test_fixed_seed_is_deterministic")}, None, NOTICE),
    ("name-edge-camel-case", {T: _test("testCrashOnEmpty")}, None, ERROR),
    # The docstring.
    ("docstring-fires", {T: _test("test_area", "The last row is no longer dropped.")}, None, ERROR),
    ("docstring-issue-number", {T: _test("test_area", "Reported in issue 41.")}, None, ERROR),
    ("docstring-silent", {T: _test("test_area", "Areas of squares.")}, None, NOTICE),
    ("docstring-edge-reproducible", {T: _test("test_area", "Sampling is reproducible.")}, None, NOTICE),
    (
        "docstring-edge-crash-recovery",
        {T: _test("test_area", "Crash recovery replays the log.")},
        None,
        NOTICE,
    ),
    # Pytest marks, with their arguments; parametrize data is not a statement about the test.
    ("mark-fires", {T: _test("test_area", above="@pytest.mark.regression\n")}, None, ERROR),
    ("mark-argument", {T: _test("test_area", above='@pytest.mark.xfail(reason="bug 12")\n')}, None, ERROR),
    ("mark-silent", {T: _test("test_area", above="@pytest.mark.slow\n")}, None, NOTICE),
    (
        "mark-edge-parametrize",
        {T: _test("test_area", above='@pytest.mark.parametrize("x", ["bug"])\n')},
        None,
        NOTICE,
    ),
    # Comments above the test and inside it.
    ("comment-above", {T: _test("test_area", above="# Guards the empty-input path.\n")}, None, ERROR),
    ("comment-inside", {T: _test("test_area", inside="    # this used to crash\n")}, None, ERROR),
    ("comment-silent", {T: _test("test_area", inside="    # square\n")}, None, NOTICE),
    # "Previously, ... raised" tells the bug in one sentence; "previously failed tests" is an adjective.
    (
        "comment-previously-raised",
        {T: _test("test_area", inside="    # Previously, an empty list\n    # raised an error.\n")},
        None,
        ERROR,
    ),
    (
        "comment-edge-previously-failed-tests",
        {T: _test("test_area", inside="    # previously failed tests run first\n")},
        None,
        NOTICE,
    ),
    (
        "comment-edge-fix-the-seed",
        {T: _test("test_area", inside="    # fix the random seed\n")},
        None,
        NOTICE,
    ),
    ("comment-edge-in-a-string", {T: _test("test_area", inside='    x = "# bug"\n')}, None, NOTICE),
    # Weak words count only in a fix PR.
    ("weak-word-alone", {T: _test("test_area", "Returns the value instead of None.")}, None, NOTICE),
    (
        "weak-word-in-fix-pr",
        {T: _test("test_area", "Returns the value instead of None.")},
        PullRequest(title="Fix the shape of areas"),
        ERROR,
    ),
    # The PR title: a fix PR's few tests where the fix is.
    (
        "title-fires",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(title="Fix area of zero"),
        ERROR,
    ),
    (
        "title-silent",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(title="Support zero"),
        NOTICE,
    ),
    (
        "title-edge-trivial-fix",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(title="Fix typo"),
        NOTICE,
    ),
    (
        "title-edge-test-named-after-the-fix",
        {"tests/test_other.py": _test("test_empty_input")},
        PullRequest(title="Fix crash when input is empty"),
        [("error", "tests/test_other.py")],
    ),
    # A small fix PR's lone new test is its regression test, wherever it sits and whatever its name says...
    (
        "title-small-fix-elsewhere",
        {"tests/test_other.py": _test("test_perimeter")},
        PullRequest(title="Fix crash when input is empty"),
        [("error", "tests/test_other.py")],
    ),
    # ... unless the title says nothing of a fix, or the PR says it adds coverage.
    (
        "title-edge-no-fix-elsewhere",
        {"tests/test_other.py": _test("test_perimeter")},
        PullRequest(title="Describe empty input"),
        [("notice", "tests/test_other.py")],
    ),
    (
        "title-says-regression-tests",
        {"tests/test_other.py": _test("test_perimeter") + "\n\n" + _test("test_volume")},
        PullRequest(title="Add regression tests for shapes"),
        [("error", "tests/test_other.py")] * 2,
    ),
    # The description, with template noise left out.
    ("body-fires", {**FIX_CODE, T: IMPORTS + _test("test_area")}, PullRequest(body="Fixes #12."), ERROR),
    (
        "body-edge-unticked-box",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(body="- [ ] Bug fix\n- [x] New feature\n<!-- say if it fixes a bug -->"),
        NOTICE,
    ),
    # Labels and the branch name.
    ("label-fires", {**FIX_CODE, T: IMPORTS + _test("test_area")}, PullRequest(labels=("type: bug",)), ERROR),
    (
        "label-silent",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(labels=("enhancement",)),
        NOTICE,
    ),
    (
        "branch-fires",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(head_ref="fix/zero-area"),
        ERROR,
    ),
    (
        "branch-edge-fixture",
        {**FIX_CODE, T: IMPORTS + _test("test_area")},
        PullRequest(head_ref="feature/fixture-loader"),
        NOTICE,
    ),
    # The class and module docstrings cover with a reference, but their words say nothing of each test.
    ("edge-class-docstring", {T: CLASS_DOC}, None, NOTICE),
    ("edge-module-docstring", {T: '"""Bugs in areas."""\n\n' + _test("test_area")}, None, NOTICE),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_evidence_table(tmp_path, case):
    _, head, pr, expected = case
    assert _graded(_review(tmp_path, head, pr)) == expected


def _many(n: int, doc: str = "Areas of shapes.") -> str:
    return "".join(_test(f"test_shape_{i}", doc) + "\n\n" for i in range(n))


def test_feature_pr_with_88_new_tests_gets_one_notice(tmp_path):
    head = {"src/backend.py": "X = 1\n", "tests/test_backend.py": _many(88)}
    report = _review(tmp_path, head, PullRequest(number=900, title="Add the new backend"))
    (f,) = [f for f in report.findings if f.rule == "AGT001"]
    assert (f.severity.value, f.path, f.line) == ("notice", None, None)
    assert f.message.startswith("88 new tests (`test_shape_0`, `test_shape_1`, `test_shape_2` and 85 more)")
    assert '"""Areas of shapes. Guards PR #900."""' in f.message and f.source == "AGENTS.md:3"
    assert report.verdict == "ready"


@pytest.mark.parametrize(
    "title, tests, expected",
    [
        (
            "Fix typo in docs",
            30,
            [("notice", None)],
        ),  # a fix PR, but not one of code: nothing points at a test
        ("Fix area of zero", 30, [("notice", None)]),  # too many tests for "the fix's tests"
        ("Fix area of zero", 3, [("error", T)] * 3),  # few, beside the fix
        ("Fix area of zero", 4, [("error", T)] * 4),  # a small fix PR: its few tests are its regression tests
        ("Fix area of zero", 5, [("notice", None)]),
        ("fix(shapes): area of zero", 4, [("error", T)] * 4),
        ("feat(shapes): area of zero", 4, [("notice", None)]),
    ],
)
def test_fix_prs_many_tests_are_not_each_an_error(tmp_path, title, tests, expected):
    head = {**FIX_CODE, T: IMPORTS + _many(tests)}
    assert _graded(_review(tmp_path, head, PullRequest(title=title))) == expected


def test_fix_pr_with_one_test_where_the_fix_is_is_an_error(tmp_path):
    """The seed scenario: "Fix crash when X is empty" adds `test_empty_x` and names nothing."""
    head = {
        "src/x.py": "def x(v):\n    return v or []\n",
        "tests/test_x.py": "def test_empty_x():\n    assert x([]) == []\n",
    }
    report = _review(tmp_path, head, PullRequest(number=5, title="Fix crash when X is empty"))
    (f,) = report.findings
    assert (f.rule, f.severity.value, f.path, f.line) == ("AGT001", "error", "tests/test_x.py", 1)
    assert 'the PR title says "fix"' in f.message


def test_errors_and_one_notice_side_by_side(tmp_path):
    head = {T: _test("test_overflow_regression") + "\n\n" + _many(5)}
    report = _review(tmp_path, head)
    assert sorted(_graded(report), key=str) == [("error", T), ("notice", None)]
    (notice,) = [f for f in report.findings if f.path is None]
    assert notice.message.startswith("5 new tests (")


def test_waived_test_is_left_out_of_the_notice(tmp_path):
    waived = "def test_b():  # bot: ignore[AGT001] a smoke test, guards nothing\n    assert area(1) == 1\n"
    report = _review(tmp_path, {T: _test("test_a") + "\n\n" + waived})
    (f,) = [f for f in report.findings if f.rule == "AGT001"]
    assert f.severity.value == "notice" and "`test_a`" in f.message and "test_b" not in f.message


@pytest.mark.parametrize(
    "message, pr, expected",
    [
        ("Fix crash when area is zero\n\nThe old code raised.", None, "error"),
        ("Add zero areas", None, "notice"),
        # A title given: the commits are not read (`bot review` has no commit messages either).
        ("Fix crash when area is zero", PullRequest(title="Add zero areas"), "notice"),
        ("fix lint", None, "notice"),
        # GitHub's subject for a security advisory's private fork merged: a security fix.
        ("Merge commit from fork\n\n* Limit the size of each part", None, "error"),
        ("Merge branch 'fork'", None, "notice"),
    ],
)
def test_local_commit_messages_are_evidence(tmp_path, message, pr, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, pr, message=message)) == [(expected, T)]


def test_commit_messages_are_read_newest_first_and_capped(tmp_path):
    r = GitRepo(tmp_path / "repo")
    base = r.commit({"a": "1"}, "base")
    r.commit({"a": "2"}, "x" * (MAX_COMMIT_TEXT + 10))
    r.commit({"a": "3"}, "Fix one\n\nwith a body")
    head = r.commit({"a": "4"}, "Second")
    messages = commit_messages(r.path, base, head)
    assert messages[:2] == ("Second", "Fix one\n\nwith a body") and set(messages[2]) == {"x"}
    assert sum(map(len, messages)) == MAX_COMMIT_TEXT
    assert load_changeset(r.path, base=base, head=head).pr.commits == messages
    assert load_changeset(r.path, base=base, head=head, pr=PullRequest(title="T")).pr.commits == ()
    assert commit_messages(r.path, head, base) == ()


@pytest.mark.parametrize(
    "message, expected",
    [
        # GitHub's merge commit: the PR title is the body's first line, the branch follows "from".
        ("Merge pull request #7 from ann/zero-area\n\nFix crash on zero area", "error"),
        ("Merge pull request #7 from ann/zero-area\n\nSupport zero areas", "notice"),
        ("Merge pull request #7 from ann/fix-zero-area\n\nZero areas", "error"),
        ("Merge branch 'main' into feature", "notice"),
    ],
)
def test_merge_commits_read_as_their_pr(tmp_path, message, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, message=message)) == [(expected, T)]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("Fixes #12.", "error"),
        ("This fixes the overflow reported in #12.", "error"),
        ("Closes #12.", "notice"),  # closes feature requests as often as bug reports
        # A line that opens with the fix verb is the PR saying what it does, read like a title.
        ("Fixes the area of zero-sized shapes.\n\nMore prose.", "error"),
        ("Summary:\n- Fixed a crash in area().", "error"),
        ("Fix typo in the docstring.", "notice"),
        ("We could fix the crash later; this adds zero areas.", "notice"),
        ("Adds one regression test per issue, as AGENTS.md asks.", "notice"),  # prose about bugs is no fix
        ("A crash in the old release made us want this feature.", "notice"),
    ],
)
def test_only_a_fixing_reference_in_the_description_makes_a_fix_pr(tmp_path, body, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, PullRequest(title="Zero areas", body=body))) == [(expected, T)]


def test_a_commit_body_counts_as_a_description(tmp_path):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, message="Zero areas\n\nFixes #3.")) == ERROR
    assert _graded(_review(tmp_path / "b", head, message="Zero areas\n\nA crash, a bug.")) == NOTICE


def test_a_named_test_beside_it_means_the_fix_has_its_regression_test(tmp_path):
    """In a fix PR the test that names the PR is the regression test; its unnamed neighbours are not."""
    named = _test("test_area_zero", "Guards PR #4: zero areas.")
    head = {**FIX_CODE, T: IMPORTS + named + "\n\n" + _test("test_area_one")}
    assert _graded(_review(tmp_path, head, PullRequest(title="Fix area of zero"))) == NOTICE
    # In another file, nothing stands beside it: it is judged on its own.
    other = {**FIX_CODE, T: IMPORTS + named, "tests/test_shapes.py": IMPORTS + _test("test_area_one")}
    graded = _graded(_review(tmp_path / "b", other, PullRequest(title="Fix area of zero")))
    assert graded == [("error", "tests/test_shapes.py")]


def test_a_named_test_elsewhere_leaves_only_the_title_to_tie_a_test_to_the_fix(tmp_path):
    """A fix PR whose named regression test is in another file: an unnamed test there is the fix's only
    if its name shares a word with the title; that it tests a module the PR changes is not enough (the
    PR's other commits change modules too)."""
    named = _test("test_area_zero", "Guards PR #4: zero areas.")
    other = {**FIX_CODE, T: IMPORTS + named, "tests/test_shapes.py": IMPORTS + _test("test_perimeter_one")}
    assert _graded(_review(tmp_path, other, PullRequest(title="Fix area of zero"))) == [
        ("notice", "tests/test_shapes.py")
    ]
    # Without the named test, testing the changed module is enough, as before.
    alone = {**FIX_CODE, "tests/test_shapes.py": IMPORTS + _test("test_perimeter_one")}
    assert _graded(_review(tmp_path / "b", alone, PullRequest(title="Fix area of zero"))) == [
        ("error", "tests/test_shapes.py")
    ]


@pytest.mark.parametrize(
    "message, pr, expected",
    [
        ("Stop caching areas and add integration tests\n\nFix #10", None, "notice"),
        ("Stop caching areas\n\nFix #10", None, "error"),
        ("Fix zero areas and add tests", None, "error"),  # the title itself says fix
        ("head", PullRequest(title="tests: cover zero areas", body="Fixes #10"), "notice"),
        ("head", PullRequest(title="Improve test coverage of areas", body="Fixes #10"), "notice"),
        ("Improve shapes code coverage (#13)\n\n* fix coverage of a branch", None, "notice"),
        ("head", PullRequest(title="Add regression tests for areas"), "error"),
    ],
)
def test_a_title_that_says_it_adds_other_tests(tmp_path, message, pr, expected):
    """ "Add integration tests" in the title says what the new tests are; "Fix #10" in the description
    closes the issue that asked for them."""
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, pr, message=message)) == [(expected, T)]


def test_few_counts_the_tests_that_name_nothing(tmp_path):
    """Ten named tests and two unnamed ones: the two are "few", so they can be the fix's tests (named
    after the title, as the named tests are elsewhere)."""
    named = "".join(_test(f"test_named_{i}", f"Guards PR #{i}.") + "\n\n" for i in range(10))
    head = {**FIX_CODE, T: IMPORTS + named, "tests/test_shapes.py": IMPORTS + _many(2)}
    graded = _graded(_review(tmp_path, head, PullRequest(title="Fix the shape of zero areas")))
    assert graded == [("error", "tests/test_shapes.py")] * 2


def test_a_squash_merges_listed_subjects_count_as_subjects(tmp_path):
    """GitHub's squash merge lists each squashed commit as "* subject": one says it adds regression tests."""
    named = _test("test_area_zero", "Guards PR #4: zero areas.")
    head = {**FIX_CODE, T: IMPORTS + named + "\n\n" + _test("test_area_one")}
    squash = "Fix area of zero (#4)\n\n* Fix area of zero\n\n* Add regression tests for zero areas\n"
    assert _graded(_review(tmp_path, head, message=squash)) == ERROR
    plain = (
        "Fix area of zero (#4)\n\nAdd regression tests for zero areas, as asked.\n"  # prose, not a subject
    )
    assert _graded(_review(tmp_path / "b", head, message=plain)) == NOTICE


@pytest.mark.parametrize(
    "fragment, body, expected",
    [
        ("changelog/12.bugfix.rst", "", "error"),  # the maintainers' own word: a bug fix
        ("newsfragments/12.fix.md", "", "error"),
        ("changelog/12.feature.rst", "Fix #12.", "notice"),  # "Fix #12" closes a feature request here
        ("changelog/12.deprecation.rst", "Fixes the docs of area().", "notice"),
        ("docs/12.feature.rst", "Fix #12.", "error"),  # not a changelog folder: no fragment
    ],
)
def test_changelog_fragments_say_what_kind_of_change_it_is(tmp_path, fragment, body, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area"), fragment: "Something.\n"}
    message = "Zero areas" + (f"\n\n{body}" if body else "")
    assert _graded(_review(tmp_path, head, message=message)) == [(expected, T)]


def test_a_feature_fragment_leaves_the_commits_inside_the_pr_out(tmp_path):
    """A feature branch's "fix tests" commit is no fix; the PR title still speaks for the whole change."""
    r = GitRepo(tmp_path / "repo")
    r.commit(BASE, "base")
    r.branch("pr")
    r.commit({**FIX_CODE, "changelog/7.feature.rst": "Zero areas.\n"}, "Support zero areas")
    r.commit({T: IMPORTS + _test("test_area")}, "fix tests")
    r.commit({"README.md": "x\n"}, "Merge pull request #7 from ann/zero-areas\n\nSupport zero areas")
    assert _graded(review(load_changeset(r.path, base="main", head="pr"))) == NOTICE
    title = PullRequest(title="Fix area of zero")
    assert _graded(review(load_changeset(r.path, base="main", head="pr", pr=title))) == ERROR


def test_a_bots_commits_say_nothing_of_the_change(tmp_path):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    squash = "Zero areas (#4)\n\n* Zero areas\n\n* [pre-commit.ci] auto fixes from pre-commit.com hooks\n"
    assert _graded(_review(tmp_path, head, message=squash)) == NOTICE
    bot = "[pre-commit.ci] auto fixes from pre-commit.com hooks"
    assert _graded(_review(tmp_path / "b", head, message=bot)) == NOTICE


def test_shared_words_match_up_to_inflection(tmp_path):
    head = {"tests/test_other.py": _test("test_annotations_deferred")}
    pr = PullRequest(title="Fix: defer annotation evaluation")
    assert _graded(_review(tmp_path, head, pr)) == [("error", "tests/test_other.py")]


def _named_after(words: str, n: int) -> str:
    return "".join(_test(f"test_{words}_{i}") + "\n\n" for i in range(n))


@pytest.mark.parametrize(
    "title, fragment, expected",
    [
        # Many new tests in a fix PR: those whose names say what the title says are the fix's tests.
        ("Fix zero area of empty shapes", None, [("error", "tests/test_other.py")] * 5),
        # The change is also a feature by its own fragment: its title names the feature.
        ("Fix zero area of empty shapes", "changelog/3.feature.rst", [("notice", None)]),
        # One word in common is not enough with this many tests.
        ("Fix area of empty shapes", None, [("notice", None)]),
    ],
)
def test_a_fix_prs_many_tests_named_after_the_title(tmp_path, title, fragment, expected):
    head = {"tests/test_other.py": _named_after("zero_area", 5), **({fragment: "x\n"} if fragment else {})}
    assert _graded(_review(tmp_path, head, PullRequest(title=title))) == expected


@pytest.mark.parametrize(
    "branch, fragment, expected",
    [
        ("fix-12-zero-area", "changelog/12.feature.rst", "notice"),  # closes the feature request #12
        ("fix-12-zero-area", "changelog/12.improvement.rst", "error"),
        ("fix-zero-area", "changelog/12.feature.rst", "error"),  # a fix word of its own
    ],
)
def test_fix_hash_n_in_a_features_branch_closes_an_issue(tmp_path, branch, fragment, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area"), fragment: "x\n"}
    assert _graded(_review(tmp_path, head, PullRequest(head_ref=branch))) == [(expected, T)]


EVIDENCE_SOURCE = '''import pytest


# Regression: crashed on empty input before the fix.
@pytest.mark.xfail(reason="bug 12")
def test_empty_input_no_longer_crashes():
    """Previously an empty list raised an error; it now returns zero."""
    assert total([]) == 0  # used to raise


def test_sum_of_two():
    """Adds two numbers."""
    assert total([1, 2]) == 3


def test_fix_seed_for_regression_model():
    """A linear regression with a fixed seed."""
    assert fit(seed=1).slope == 2
'''


def test_own_cues_without_weak_ones_are_the_strong_ones_in_order():
    tf = parse_tests("tests/test_e.py", EVIDENCE_SOURCE, frozenset())
    assert len(tf.tests) == 3
    for test in tf.tests:
        every = own_cues(tf, test)
        assert own_cues(tf, test, weak=False) == [c for c in every if c.strong]
    assert any(own_cues(tf, tf.tests[0], weak=False))


def test_a_file_without_a_hash_has_no_comments_and_marks_need_no_lines():
    text = "".join(
        line.split("  #")[0].rstrip() + "\n"
        for line in EVIDENCE_SOURCE.splitlines()
        if not line.startswith(("#", "@"))
    )
    tf = parse_tests("tests/test_e.py", text, frozenset())
    assert tf.error is None and len(tf.tests) == 3 and not tf.has_hash
    assert all(comments(tf, t) == [] and _marks(tf, t) == "" for t in tf.tests)
    assert [str(c) for c in own_cues(tf, tf.tests[0])] == [
        'its name says "no longer"',
        'its name says "crashes"',
        'its docstring says "previously ... raised"',
    ]
    assert "lines" not in tf.__dict__  # never split: nothing needed them
    with_hash = parse_tests("tests/test_e.py", EVIDENCE_SOURCE, frozenset())
    first = with_hash.tests[0]
    assert comments(with_hash, first) == [
        "Regression: crashed on empty input before the fix.",
        "used to raise",
    ]
    assert _marks(with_hash, first) == 'xfail @pytest.mark.xfail(reason="bug 12")'


def test_a_small_fix_pr_that_rewrites_the_files_tests_takes_no_test_by_its_size(tmp_path):
    """New tests beside rewritten old ones may be split from them: only their own words or place count."""
    base = {**BASE, "tests/test_other.py": _test("test_old", inside="    x = 1\n")}
    head = {"tests/test_other.py": _test("test_old") + "\n\n" + _test("test_perimeter")}
    report = _review(tmp_path, head, PullRequest(title="Fix crash when input is empty"), base=base)
    assert _graded(report) == [("notice", "tests/test_other.py")]
    report = _review(
        tmp_path / "2",
        head
        | {"tests/test_other.py": _test("test_old", inside="    x = 1\n") + "\n\n" + _test("test_perimeter")},
        PullRequest(title="Fix crash when input is empty"),
        base=base,
    )
    assert _graded(report) == [("error", "tests/test_other.py")]


def test_a_pr_that_validates_and_fixes_does_not_call_its_validation_tests_regression_tests(tmp_path):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area_of_none") + "\n\n" + _test("test_area_invalid_type")}
    report = _review(tmp_path, head, PullRequest(title="Validate shapes and fix the area of None"))
    found = {f.message.split("`")[1]: f.severity.value for f in report.findings if f.rule == "AGT001"}
    assert found == {"test_area_of_none": "error", "test_area_invalid_type": "notice"}


@pytest.mark.parametrize(
    "title, expected",
    [
        # Issue 23, round four: titles that tell a fix without the word (written anew).
        ("Don't round areas twice", "error"),
        ("Do not drop the last vertex", "error"),
        ("Compute the area correctly for open shapes", "error"),
        ("Use the correct sign for clockwise shapes", "error"),
        ("Catch ValueError in area()", "error"),
        ("Tolerate bad vertex entries", "error"),
        ("Handle empty shapes in area()", "error"),
        ("Honor the precision option for areas", "error"),
        ("Make sure area() works as expected for None", "error"),
        ("reject negative radii instead of returning nan", "error"),
        ("Expose area() helpers for shapes", "notice"),
        # Near misses: housekeeping, and verbs that say an addition.
        ("Don't run the slow tests on PyPy", "notice"),
        ("Handle shapes in the new renderer", "notice"),
        ("Use a faster area algorithm", "notice"),
    ],
)
def test_titles_that_tell_a_fix_in_prose(tmp_path, title, expected):
    head = {**FIX_CODE, T: IMPORTS + _test("test_area")}
    assert _graded(_review(tmp_path, head, PullRequest(title=title))) == [(expected, T)]


OLD_TEST = "import os\n\n\ndef test_old():\n    assert area(1) == 1\n"


@pytest.mark.parametrize(
    "old, expected",
    [
        # Only an import line of the file changes: the lone new test is still the small fix PR's own.
        ("import os, sys\n\n\ndef test_old():\n    assert area(1) == 1\n", "error"),
        # An existing test's body changes too: the new test may be a piece of it split off.
        ("import os\n\n\ndef test_old():\n    assert area(1) == 1 or True\n", "notice"),
    ],
)
def test_only_lines_inside_existing_tests_count_as_rewriting_them(tmp_path, old, expected):
    base = {**BASE, "tests/test_other.py": OLD_TEST}
    head = {"tests/test_other.py": old + "\n\n" + _test("test_perimeter")}
    report = _review(tmp_path, head, PullRequest(title="Fix crash when input is empty"), base=base)
    assert _graded(report) == [(expected, "tests/test_other.py")]


@pytest.mark.parametrize(
    "title, expected",
    [
        ("Add new test to check the auth leak", "error"),
        ("Add tests for the deadlock on close", "error"),
        ("Add new tests for shapes", "notice"),
    ],
)
def test_a_title_that_names_the_fault_its_tests_catch(tmp_path, title, expected):
    head = {"tests/test_other.py": _test("test_perimeter")}
    assert _graded(_review(tmp_path, head, PullRequest(title=title))) == [(expected, "tests/test_other.py")]


def test_a_docs_page_named_like_the_test_file_is_not_the_module_it_tests(tmp_path):
    # Only the description says a fix, so a lone test counts where it sits: in test_geometry.py, beside
    # a change to docs/geometry.md, the page about geometry, which is not the code under test.
    base = {**BASE, "docs/geometry.md": "# Geometry\n"}
    head = {"docs/geometry.md": "# Geometry\n\nAreas.\n", T: _test("test_perimeter")}
    pr = PullRequest(title="Describe the page", body="Fixes #12")
    assert _graded(_review(tmp_path, head, pr, base=base)) == [("notice", T)]
    # The module itself, `geometry.py`, is what it tests.
    base = {**BASE, "src/geometry.py": "X = 1\n"}
    head = {"src/geometry.py": "X = 2\n", T: _test("test_perimeter")}
    assert _graded(_review(tmp_path / "2", head, pr, base=base)) == [("error", T)]


def test_fixed_before_a_noun_in_a_test_name_is_an_adjective(tmp_path):
    head = {"tests/test_other.py": _test("test_site_dir_fixed_path")}
    assert _graded(_review(tmp_path, head, PullRequest(title="Describe directories"))) == [
        ("notice", "tests/test_other.py")
    ]


def test_a_gitmoji_bug_subject_makes_a_small_fix_pr(tmp_path):
    head = {"tests/test_other.py": _test("test_perimeter")}
    report = _review(tmp_path, head, message="\U0001f41b Empty shapes have a zero area")
    assert _graded(report) == [("error", "tests/test_other.py")]
    report = _review(tmp_path / "2", head, message="\u2728 Areas of triangles")
    assert _graded(report) == [("notice", "tests/test_other.py")]
