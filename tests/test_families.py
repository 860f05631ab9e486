"""The phrasing families of rules/agents_md/families.py: common ways guides state what AGT002-AGT004 check.

The sentences are written for these tests, in the words guides commonly use; each family has sentences it
must read, and near misses it must not.
"""

import pytest

from rules.agents_md.reader import Recogniser, read_file
from rules.agents_md.trunk import trunk_named
from rules.catalog import REGISTRY

RECOGNISER = Recogniser.of(REGISTRY.values())


def _read(sentence: str, prohibited: bool = False):
    reading = RECOGNISER.read(1, sentence, prohibited=prohibited)
    return reading.on, reading.off, reading.known


@pytest.mark.parametrize(
    "sentence, trunk",
    [
        ("The default branch is `master`, not `main`.", "master"),
        ("Always target `develop`.", "develop"),
        ("target `master`", "master"),
        ("Always use `dev` as the base branch.", "dev"),
        ("The main branch of this repository is `develop`.", "develop"),
        ("Base branch: `main`", "main"),
        ("**Default branch**: `develop`", "develop"),
        ("Open the pull request against `master` and fill in the checklist.", "master"),
        ("Open PRs against `main`, from a branch of your fork.", "main"),
        ("Treat `upstream/main` as the only mainline branch.", "upstream/main"),
        ("`next` is our integration branch.", "next"),
        # Issue 23, round three (phrasings of the tune3 sentences, written anew):
        ("Open a pull request (PR) against the `main` branch.", "main"),
        ("Work happens on topic branches that are merged into `main` via pull requests.", "main"),
        ("Base branch and release branch for new PRs: `develop`.", "develop"),
        ("Unless told otherwise, assume `dev` as the base.", "dev"),
        ("Send every fix PR to base branch `dev-next` unless asked otherwise.", "dev-next"),
    ],
)
def test_trunk_family_turns_agt004_on_and_names_the_branch(sentence, trunk):
    assert _read(sentence)[0] == ("AGT004",)
    assert trunk_named(sentence) == trunk


@pytest.mark.parametrize(
    "sentence",
    [
        "Do not open PRs against `main`.",
        "Never open pull requests against the `release` branch.",
        "The release bot opens a PR against `main` every week.",
        "When asked to cut a release, open a version-bump PR against `main`.",
        "If a PR sits long enough for `main` to move, rebase it.",
        "The base branch is behind, so rebase first.",
        "Target audience: contributors.",
        "Keep CI green on PRs to `dev` and `main`.",
        # A quotation of what a user may say asks nothing of the agent.
        '"open a PR to master"',
        "Branches are merged into `main` nightly.",
    ],
)
def test_trunk_family_near_misses_turn_nothing_on(sentence):
    assert "AGT004" not in _read(sentence)[0]


@pytest.mark.parametrize(
    "sentence, code",
    [
        ("Never weaken tests; fix the root cause.", "AGT003"),
        ("Do not relax assertions to get the build green.", "AGT003"),
        ("Don't loosen expectations in a test you did not write.", "AGT003"),
        ("Do not delete existing tests.", "AGT003"),
        ("Never skip failing tests.", "AGT003"),
        ("Don't disable a test because it is slow to fix.", "AGT003"),
        ("No weakened assertions.", "AGT003"),
        ("If the code disagrees with a test, the code is wrong, not the test.", "AGT003"),
        ("Fix the implementation, not the tests.", "AGT003"),
        ("Record the gap in the manifest instead of weakening the test.", "AGT003"),
        ("Keep the assertions exact.", "AGT003"),
        ("If a test was already broken, repair it; do not silently skip it.", "AGT003"),
        ("NEVER write tests that mock everything and therefore will never fail.", "AGT002"),
        ("Don't add tests that pass regardless of what the code returns.", "AGT002"),
        ("Tests should check outcomes rather than restating the implementation.", "AGT002"),
        ("Do not add placeholder tests.", "AGT002"),
        ("Check that the new test would fail if the new code were removed.", "AGT002"),
        ('Do not "fix" a failing test by reducing what it checks.', "AGT003"),
        ("Never merge changes that cause the suite to silently skip tests.", "AGT003"),
        ("Do not make edits that let tests be quietly ignored on CI.", "AGT003"),
    ],
)
def test_test_strength_family_turns_its_rule_on(sentence, code):
    assert code in _read(sentence)[0]


@pytest.mark.parametrize(
    "sentence",
    [
        # Housekeeping, not weakening: deleting a test for no stated motive.
        "If the change is intended, update the expected values, but never delete the test.",
        "Do not weaken the public API's guarantees.",
        "Do not fix flaky tests by raising timeouts alone.",
        "Skip the slow tests locally and let CI run them.",
        "Restrict the requirement rather than skipping the test.",
        "Weak tests are a smell.",
    ],
)
def test_test_strength_near_misses_turn_nothing_on(sentence):
    on = _read(sentence)[0]
    assert "AGT002" not in on and "AGT003" not in on


@pytest.mark.parametrize(
    "sentence",
    [
        "Confirm the new test fails before the fix.",
        "Your test is NOT VALID if it passes with the old build.",
        "Every bug fix needs a regression test that fails without the fix.",
        "Write a failing test first, then fix the bug.",
        "Start by writing the test and watch it fail.",
        "Add a test that fails before and passes after the change.",
        "Make sure the test FAILS on the unpatched code.",
        "Use test-driven development for behaviour changes and bug fixes.",
        "Never write implementation code without a failing test.",
        "Write focused tests that reproduce the bug.",
    ],
)
def test_fail_without_fix_turns_on_agt005(sentence):
    on, off, known = _read(sentence)
    assert on == ("AGT005",) and off == () and known == ()
    assert RECOGNISER.read(1, sentence).understood


@pytest.mark.parametrize(
    "sentence",
    [
        "Tests must pass before you push.",
        "If a test fails, read its output.",
        "CI fails on lint errors.",
        "This project follows test-driven development.",  # a description, not an ask
        "Since you followed TDD, the tests exist.",
    ],
)
def test_failing_in_general_is_not_the_fail_without_fix_family(sentence):
    assert "AGT005" not in _read(sentence)[0]


@pytest.mark.parametrize(
    "sentence",
    [
        "If a row does not apply (e.g. a CI-only change with no tests), write `N/A`.",
        "Documentation-only changes are exempt.",
        "It does not apply to contributors with write access.",
        "You may skip the changelog for internal changes.",
        "If this section does not apply, never rewrite tests to make them pass.",
    ],
)
def test_a_generic_relaxation_turns_no_rule_off(sentence):
    assert _read(sentence)[1] == ()


@pytest.mark.parametrize(
    "sentence, code",
    [
        ("AGT003 does not apply to `docs/`.", "AGT003"),
        ("Tautological tests are exempt in `legacy/`.", "AGT002"),
        ("You may skip updating tests in `scratch/`.", "AGT003"),
        ("The non-trunk-base rule does not apply here.", "AGT004"),
    ],
)
def test_a_relaxation_with_its_rule_subject_turns_that_rule_off(sentence, code):
    assert _read(sentence)[1] == (code,)


@pytest.mark.parametrize(
    "item",
    [
        "Removing a test function or test file.",
        "Downgrading an assertion to a weaker one.",
        "Commenting out the body of a test.",
        "Adding `@pytest.mark.skip` or any conditional skip that was not there before.",
        "Loosening a numeric tolerance in an expectation.",
    ],
)
def test_under_a_heading_that_forbids_weakening_tests_its_ways_turn_agt003_on(item):
    guide = f"# Tests are load-bearing: never weaken them\n\nThis includes:\n\n- {item}\n"
    readings = read_file("AGENTS.md", guide, RECOGNISER)
    assert [r.on for r in readings if r.text.startswith(item[:12])] == [("AGT003",)]
    # The same item under a heading about something else states nothing.
    other = read_file("AGENTS.md", f"# Housekeeping\n\n- {item}\n", RECOGNISER)
    assert all("AGT003" not in r.on for r in other)


@pytest.mark.parametrize(
    "item",
    [
        "Adding new tests for the feature you changed.",
        "Renaming a test so its name says what it checks.",
        "Removing dead code is fine.",
        "Run the whole suite before pushing.",
    ],
)
def test_under_that_heading_other_items_state_nothing(item):
    guide = f"# Never weaken tests\n\n- {item}\n"
    readings = read_file("AGENTS.md", guide, RECOGNISER)
    assert all(r.on == () for r in readings if not r.heading)


def test_a_must_not_heading_makes_its_items_prohibitions():
    assert "AGT003" in _read("Weaken or remove existing tests to make them pass", prohibited=True)[0]


@pytest.mark.parametrize(
    "sentence",
    [
        "Builds must target node-18.",
        "Code should target 3.11.",
        "Target Python 3.10 and newer.",
        "The `main` branch is protected.",
        "Our release branch is `release/2.x`.",
        "Tests should assert the implementation's outputs.",
        "Don't relax the type checks.",
    ],
)
def test_versions_and_other_subjects_are_not_read_as_rules(sentence):
    on = _read(sentence)[0]
    assert "AGT004" not in on and "AGT002" not in on and "AGT003" not in on


@pytest.mark.parametrize(
    "sentence, effect",
    [
        ("The repository uses `main` as its default branch.", ("AGT004",)),
        ("Pull requests should be based on `dev`.", ("AGT004",)),
        ("Do not mark failing tests as skipped to get CI green.", ("AGT003",)),
        ("Tests are the specification; don't change them to match your code.", ("AGT003",)),
        ("Tests must fail when the behavior they cover breaks.", ("AGT002",)),
        ("Test files should copy the implementation layout.", ()),
        ("Mark slow tests with `@pytest.mark.slow`.", ()),
        ("Run the tests before you push.", ()),
    ],
)
def test_more_common_phrasings(sentence, effect):
    assert _read(sentence)[0] == effect


@pytest.mark.parametrize(
    "sentence",
    [
        "Reproduce the bug in a test before fixing it.",
        "Write a test that reproduces the issue first.",
        "Make sure the test goes red before you fix the bug.",
    ],
)
def test_more_fail_without_fix_phrasings(sentence):
    assert _read(sentence)[0] == ("AGT005",)


# Issue 23, round four: the spent hold-outs' missed phrasings, written anew, and their near misses.
@pytest.mark.parametrize(
    "sentence, effect",
    [
        ("Keep strict equality checks rather than weakening them to `>=`.", ("AGT003",)),
        ("Keep the `logSpy`/`errSpy` assertions instead of dropping them.", ("AGT003",)),
        ("Do not modify unrelated tests.", ("AGT003",)),
        ("Never change existing unit tests to fit a refactor.", ("AGT003",)),
        ("Make sure every test passes without weakening any assertions.", ("AGT003",)),
        ("A test is only valuable if it would fail when the feature breaks.", ("AGT002",)),
        ("An assertion that can never fail proves nothing.", ("AGT002",)),
        ("Use `--base develop` for all PRs.", ("AGT004",)),
        ("Create the PR with `gh pr create --base main --fill`.", ("AGT004",)),
        ("Development branch: `dev`", ("AGT004",)),
        ("Regression tests live in `tests/bugs/`, named after the issue number.", ("AGT001",)),
        ("Regression tests: add a comment with the issue URL above the test.", ("AGT001",)),
        ("Does every test still pass without relaxing any assertions?", ("AGT003",)),  # a checklist item
        ("Never remove or loosen latency, retry or auth tests to get the build green.", ("AGT003",)),
        ("Don't use `@skip` to hide a missing service; let the test fail.", ("AGT003",)),
        ("Avoid tests that pass but never actually check the result.", ("AGT002",)),
        ("Do not test only that the parser runs without raising.", ("AGT002",)),
        # Near misses.
        ("Skip the GPU tests on machines without a GPU.", ()),
        ("Tests that pass locally but fail in CI need a look.", ()),
        ("Could we keep the test without relaxing it?", ()),  # a question, not a checklist item
        ("Keep tests short rather than exhaustive.", ()),
        ("Pick the channel from the target branch: `main` -> `stable`, anything else -> `nightly`.", ()),
        ("Regression tests are welcome.", ()),
        ("Name regression test files after the module they cover.", ()),
        ("Do not change the public API.", ()),
        ("Use `--base` only when stacking PRs.", ()),
    ],
)
def test_round_four_phrasings(sentence, effect):
    assert _read(sentence)[0] == effect


@pytest.mark.parametrize(
    "sentence",
    [
        "Every bug fix must include a failing test first.",
        "Commit a failing (red) test that pins the bug before touching the code.",
        "A fix ships with a regression test that reproduces the reported bug.",
        "Never merge a fix ahead of its failing test.",
        "Each regression test must fail on the unfixed code it guards.",
        "A regression test should fail against the original bug.",
    ],
)
def test_round_four_fail_without_fix_phrasings(sentence):
    assert _read(sentence)[0] == ("AGT005",)


def test_a_command_list_that_mentions_a_known_failing_test_asks_for_nothing():
    sentence = "`make test` (unit), `make test-all` (includes integration); known failing test: `TestX`."
    assert "AGT005" not in _read(sentence)[0]


# Issue 23, round five: the spent s5 hold-out's missed phrasings, written anew, and their near misses.
@pytest.mark.parametrize(
    "sentence, effect",
    [
        ("Never disable tests in CI.", ("AGT003",)),
        ("Do not comment out failing tests.", ("AGT003",)),
        ("`it.skip` and `test.todo` are forbidden in this test suite.", ("AGT003",)),
        ("Agents must not loosen acceptance thresholds to make a component pass its tests.", ("AGT003",)),
        ('Do not "fix" a failing test by relaxing its tolerance.', ("AGT003",)),
        ('Leave the fixtures alone, certainly not to "fix" a test failure.', ("AGT003",)),
        ("Open the pull request from your fork against the upstream `main`.", ("AGT004",)),
        # Near misses: when to run tests, writing tests, CI triggers, where a reference is written.
        ("Don't disable tests when running locally; run the whole suite.", ()),
        ("Do not skip tests for behaviour changes; add the closest focused test.", ()),
        ("Never edit generated code to make the tests pass.", ()),
        ("CI runs on every PR against `main` on three platforms.", ()),
        ("The release workflow is triggered by pull requests into `main`.", ()),
        ("Say in the commit body which regression test would have caught the bug.", ()),
    ],
)
def test_round_five_phrasings(sentence, effect):
    assert _read(sentence)[0] == effect


@pytest.mark.parametrize(
    "sentence",
    [
        "Write the test first (red): it should fail.",
        "Bug fixes ship a regression test first.",
        "Both cases fail against an unfixed build.",
    ],
)
def test_round_five_fail_without_fix_phrasings(sentence):
    assert _read(sentence)[0] == ("AGT005",)


# Issue 23, round six: the spent s6 set's missed phrasings, written anew, and their near misses.
@pytest.mark.parametrize(
    "sentence, effect",
    [
        ("Never remove, skip, weaken or rewrite a test to hide a defect.", ("AGT003",)),
        ("Do not edit or delete existing tests without explicit maintainer approval.", ("AGT003",)),
        ("Do not delete the golden files to make the tests pass.", ("AGT003",)),
        ("Do not remove tests when refactoring the parser.", ("AGT003",)),
        ("Do not weaken boundary checks.", ("AGT003",)),
        ("Never skip or disable the security tests.", ("AGT003",)),
        ("No tests may be skipped or deleted.", ("AGT003",)),
        ("A failing test is information: never hide it.", ("AGT003",)),
        ("No @pytest.skip in this folder.", ("AGT003",)),
        ("You should never use pytest.skip unless a maintainer asks for it.", ("AGT003",)),
        ("Never modify the files in tests/expected/.", ("AGT003",)),
        ("Tests must fail when the parser is wrong.", ("AGT002",)),
        ("Tests should catch regressions in the scheduler.", ("AGT002",)),
        ("Avoid writing tests that pass regardless of the result.", ("AGT002",)),
        # Near misses: what runs the tests, checks of another kind, tests not written, where tests run.
        ("Don't modify the test harness to make flaky tests pass.", ()),
        ("Don't relax the type checks.", ()),
        ("Do not skip tests for behaviour changes; add the closest focused one.", ()),
        ("Don't skip tests in CI.", ()),
        ("The pipeline runs automatically on PRs targeting `main`.", ()),
    ],
)
def test_round_six_phrasings(sentence, effect):
    assert _read(sentence)[0] == effect


@pytest.mark.parametrize(
    "sentence",
    [
        "Follow red-green-refactor for every behaviour change.",
        "Run the focused test and observe the red result before writing the code.",
    ],
)
def test_round_six_fail_without_fix_phrasings(sentence):
    assert _read(sentence)[0] == ("AGT005",)
