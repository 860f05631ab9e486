"""AGENTS.md discovery: sentences, recognisers, nested scopes, CLAUDE.md, PR edits, no AGENTS.md."""

import pytest

from bot.review.render import render_comment
from rules.agents_md.reader import Recogniser, folders, read_file, sentences
from rules.catalog import REGISTRY
from rules.core.models import PolicyChange
from tests.helpers import AGENTS_AGT001, codes, review_change

NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert f() == 2\n'
RECOGNISER = Recogniser.of(REGISTRY.values())


def test_sentences_follow_markdown():
    text = (
        "# Title\n\n"
        "Intro line one\ncontinues here. Second sentence (e.g. like this) ends.\n\n"
        "- A bullet that wraps\n  onto a second line.\n"
        "* Another bullet.\n\n"
        "```\n- Regression tests must name the PR they guard.\n```\n"
        "<!-- No tautological tests. -->\n"
        "| Rule | Why |\n|---|---|\n| No tautological tests | noise |\n"
        "> Quoted rule.\n"
    )
    assert list(sentences(text)) == [
        (1, "Title", True),
        (3, "Intro line one continues here.", False),
        (4, "Second sentence (e.g. like this) ends.", False),
        (6, "A bullet that wraps onto a second line.", False),
        (8, "Another bullet.", False),
        (14, "Rule Why", False),
        (16, "No tautological tests noise", False),
        (17, "Quoted rule.", False),
    ]


def test_blank_lines_end_blocks_as_before_in_fences_and_comments():
    """Blank and whitespace-only lines are taken before any other check (a megabyte of them took 0.9 s):
    they still end a paragraph, and inside a fence or an open comment change nothing."""
    text = (
        "First line\n \t \nSecond line.\n"
        "```\n\n- Inside a fence.\n   \n```\n"
        "<!-- open\n\n  \nstill a comment -->\n"
        "- A bullet\n\n  after a blank.\n"
        "Lone\r\rbreaks.\n"
    )
    assert list(sentences(text)) == [
        (1, "First line", False),
        (3, "Second line.", False),
        (13, "A bullet", False),
        (15, "after a blank.", False),
        (16, "Lone", False),
        (16, "breaks.", False),
    ]


@pytest.mark.parametrize(
    "code, phrase",
    [(rule.code, phrase) for rule in REGISTRY.values() for phrase in rule.phrases],
)
def test_every_documented_phrase_is_recognised(code, phrase):
    reading = RECOGNISER.read(1, phrase)
    assert reading.on == (code,), reading


@pytest.mark.parametrize(
    "sentence, on, off",
    [
        ("**Regression tests** must name the `PR` they guard.", ("AGT001",), ()),
        ("Commit messages must reference the issue.", (), ()),
        ("PR descriptions must name the tests they add.", (), ()),
        ("Use plain assert in tests.", (), ()),
        ("Tests should use plain assert statements.", (), ()),
        ("Human review before main.", (), ()),
        ("Self-approval doesn't count.", (), ()),
        ("Keep tests fast.", (), ()),
        ("Regression tests here need not name the PR they guard.", (), ("AGT001",)),
        ("Tautological tests are fine in this folder.", (), ("AGT002",)),
        ("AGT002 does not apply here.", (), ("AGT002",)),
        ("The tautological-test rule is off in this folder.", (), ("AGT002",)),
        ("AGT003 applies here.", ("AGT003",), ()),
        ("See AGT001 for details.", (), ()),
        ("Regression tests must name the PR they guard; unit tests are exempt.", ("AGT001",), ()),
    ],
)
def test_recognisers_are_tolerant_but_not_loose(sentence, on, off):
    reading = RECOGNISER.read(1, sentence)
    assert (reading.on, reading.off) == (on, off)


# Conventions phrased the way busy repositories phrase them (our own paraphrases). Noise is the worst
# failure, so most rows are sentences that mention tests, PRs or main and must turn nothing on.
@pytest.mark.parametrize(
    "sentence, on, off",
    [
        # AGT001: the test names the PR or commit it guards.
        ("Each regression test should say which PR it guards.", ("AGT001",), ()),
        ("When adding a regression test, cite the PR it protects in the docstring.", ("AGT001",), ()),
        ("Docstrings of regression tests must link to the fixing PR.", ("AGT001",), ()),
        ("In the docstring of every regression test, name the commit it guards.", ("AGT001",), ()),
        ("If the PR is unknown, regression tests must name the commit they guard.", ("AGT001",), ()),
        ("Regression tests that do not cite the PR they guard will be rejected.", ("AGT001",), ()),
        ("We do not require regression tests to name a PR.", (), ("AGT001",)),
        ("Regression tests, however, need not cite a PR.", (), ("AGT001",)),
        ("Do not mention PRs in test docstrings; the commit message is enough.", (), ()),
        ("Link the PR in the description and make sure regression tests pass.", (), ()),
        ("Commit messages should reference the PR, and bug fixes need a regression test.", (), ()),
        ("Regression tests must pass before a PR is merged, and commit messages must name the PR.", (), ()),
        ("Each regression test should reference the ticket that introduced it.", (), ()),
        ("Tests must refer to config constants by name, never hardcode the values.", (), ()),
        ("Should regression tests name the PR they guard?", (), ()),
        ("Regression tests must name the PR they guard, but typo fixes are exempt.", ("AGT001",), ()),
        ("Regression tests must reference the issue they fix.", ("AGT001",), ()),
        ("Regression tests must run through the public Agent API.", (), ()),
        ("Never reference line numbers in test docstrings or comments.", (), ()),
        # AGT002: tests that cannot fail.
        ("Never write tautological unit tests.", ("AGT002",), ()),
        ("Tests must not be tautological.", ("AGT002",), ()),
        ("Tautological assertions will be rejected.", ("AGT002",), ()),
        ("A test that cannot fail is worthless.", ("AGT002",), ()),
        ("Every test must be able to fail.", ("AGT002",), ()),
        ("Each test needs at least one assertion.", ("AGT002",), ()),
        ("Tautological checks are not a problem in smoke tests.", (), ("AGT002",)),
        ("Make sure all tests always pass before you push.", (), ()),
        ("Tests should never fail on main.", (), ()),
        ("Run the real test suite to verify your change.", (), ()),
        ("Use realistic data to verify tests.", (), ()),
        ("PRs that add tests must have at least one approval.", (), ()),
        ("Avoid tautological comparisons in production code.", (), ()),
        ("Re-asserting the parse is near-tautological (it tests the library, not our code).", (), ()),
        ("Skip tautological tests (simple mappings, copies of the code); test invariants.", ("AGT002",), ()),
        ('Skip slow tests locally with -m "not slow".', (), ()),
        ("Tests without assertions are not allowed.", ("AGT002",), ()),
        ("Tests without network access run in CI.", (), ()),
        # AGT003: tests rewritten to agree with the code.
        ("Never alter test assertions so they agree with a broken implementation.", ("AGT003",), ()),
        ("Never change test assertions, expected values, or fixtures.", ("AGT003",), ()),
        ("Do not hack tests until they pass; fix the root cause.", ("AGT003",), ()),
        ("Hard-coding expected values to force a green run is unacceptable.", ("AGT003",), ()),
        ("Updating expected values is fine in this folder.", (), ("AGT003",)),
        ("Don't change the public API just to make tests pass.", (), ()),
        ("Never edit generated code to make the tests pass.", (), ()),
        ("Do not push until all tests pass and your changes are reviewed.", (), ()),
        ("Don't modify the test harness to make flaky tests pass.", (), ()),
        ("Don't update snapshot tests by hand; regenerate them.", (), ()),
        ("When asked to fix tests, only change tests, not the code under test.", (), ()),
        ("If the change is intended, update the expected values, but never delete the test.", (), ()),
        ("Never delete failing tests.", ("AGT003",), ()),
        ("Don't skip tests in CI.", (), ()),
        ("Golden files must never be modified unless you are asked to.", ("AGT003",), ()),
        ("Never edit snapshot files or inline snapshot bodies manually.", (), ()),
        ("Generated files must not be modified by hand.", (), ()),
        ("Fixtures should not be modified by tests.", (), ()),
        ("Editing existing tests is fine, but new test files should be the exception.", (), ("AGT003",)),
        # AGT004: the trunk.
        ("The base branch is always main.", ("AGT004",), ()),
        ("After each feature, open a PR targeting main.", ("AGT004",), ()),
        ("We are not trunk-based; use release branches.", (), ()),
        ("Don't open PRs against main; target develop.", (), ()),
        ("Never merge PRs to main without review.", (), ()),
        ("Hotfix PRs target main.", (), ()),
        ("Never push directly to main; open a PR instead.", (), ()),
        ("Use PRs for main; direct pushes are blocked.", ("AGT004",), ()),
        ("Default flow is feature -> dev.", ("AGT004",), ()),
        ("Promotion path: feature -> develop -> main.", (), ()),
        ("Merge dev into main only when releasing.", (), ()),
        ("Keep CI green on PRs to dev and main.", (), ()),
        ("Codex PRs should never target develop or main directly.", (), ()),
    ],
)
def test_realistic_wording(sentence, on, off):
    reading = RECOGNISER.read(1, sentence)
    assert (reading.on, reading.off) == (on, off)


@pytest.mark.parametrize(
    "text, expected",
    [
        # A heading that names a topic states no rule; one that states a rule does.
        ("## Tautological tests\n\nKeep tests fast.\n", {}),
        ("## Trunk-based development\n\nKeep tests fast.\n", {}),
        ("## No tautological tests\n", {"AGT002": "on"}),
        # Items under a "Don't" heading are prohibitions.
        (
            "### Don't\n\n- Write tautological tests.\n- Rewrite passing tests to match new behaviour.\n",
            {"AGT002": "on", "AGT003": "on"},
        ),
        # ... and under a "Don't" heading, naming PRs in docstrings is not asked for.
        ("### Never\n\n- Name the PR a regression test guards in its docstring.\n", {}),
        # A later heading ends the "Don't" section.
        (
            "### Avoid\n\n- Slow tests.\n\n### Do\n\n- Name the PR a regression test guards in its docstring",
            {"AGT001": "on"},
        ),
    ],
)
def test_headings_and_dont_sections(text, expected):
    readings = read_file("AGENTS.md", text, RECOGNISER)
    found = {c: "on" for r in readings for c in r.on} | {c: "off" for r in readings for c in r.off}
    assert found == expected


NESTED_OFF = "# Scratch\n\nAGT001 does not apply in this folder.\n"
NESTED_ON = "# Library\n\n- Regression tests must reference the PR they guard.\n"


def test_nested_agents_md_turns_rule_off_for_its_folder(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_AGT001, "scratch/AGENTS.md": NESTED_OFF},
        {"tests/test_a.py": NEW_TEST, "scratch/tests/test_b.py": NEW_TEST},
    )
    assert [(f.rule, f.path) for f in report.findings] == [("AGT001", "tests/test_a.py")]
    assert report.policy_files == ("AGENTS.md", "scratch/AGENTS.md")


@pytest.mark.parametrize(
    "sentence",
    ["AGT001 does not apply to scratch/.", "AGT001 is off in `scratch/`."],
)
def test_root_opt_out_naming_a_folder_applies_to_that_folder_only(make_repo, sentence):
    agents = AGENTS_AGT001 + f"- {sentence}\n"
    report = review_change(
        make_repo,
        {"AGENTS.md": agents},
        {"tests/test_a.py": NEW_TEST, "scratch/tests/test_b.py": NEW_TEST},
    )
    assert [(f.rule, f.path) for f in report.findings] == [("AGT001", "tests/test_a.py")]


def test_nearest_agents_md_is_cited(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_AGT001, "lib/AGENTS.md": NESTED_ON},
        {"tests/test_a.py": NEW_TEST, "lib/tests/test_b.py": NEW_TEST},
    )
    assert [(f.path, f.source) for f in report.findings] == [
        ("lib/tests/test_b.py", "lib/AGENTS.md:3"),
        ("tests/test_a.py", "AGENTS.md:3"),
    ]


def test_nested_only_scope_does_not_leak_to_the_root(make_repo):
    report = review_change(
        make_repo,
        {"lib/AGENTS.md": NESTED_ON, "README.md": "x\n"},
        {"tests/test_a.py": NEW_TEST, "lib/tests/test_b.py": NEW_TEST, "library/tests/test_c.py": NEW_TEST},
    )
    assert [(f.path, f.source) for f in report.findings] == [("lib/tests/test_b.py", "lib/AGENTS.md:3")]


def test_config_enables_at_root_but_nested_opt_out_holds(make_repo):
    report = review_change(
        make_repo,
        {".github/bot.yml": "rules:\n  AGT001:\n    enabled: true\n", "scratch/AGENTS.md": NESTED_OFF},
        {"tests/test_a.py": NEW_TEST, "scratch/test_b.py": NEW_TEST},
    )
    assert [(f.path, f.source) for f in report.findings] == [("tests/test_a.py", None)]


@pytest.mark.parametrize(
    "claude, expected_source",
    [
        ("Read @docs/AGENTS.md before you start.\n", "docs/AGENTS.md:3"),
        ("See [the rules](./docs/AGENTS.md).\n", "docs/AGENTS.md:3"),
        ("Follow AGENTS.md.\n\n- No tautological tests.\n", None),  # defers, but no AGENTS.md governs tests/
        # Does not defer, and no AGENTS.md governs the root: the CLAUDE.md is the root's agent guide.
        ("- Regression tests must name the PR they guard.\n", "CLAUDE.md:1"),
    ],
)
def test_claude_md_that_defers(make_repo, claude, expected_source):
    report = review_change(
        make_repo,
        {"CLAUDE.md": claude, "docs/AGENTS.md": NESTED_ON},
        {"tests/test_a.py": 'def test_new():\n    """Checks."""\n    assert True\n'},
    )
    agt001 = [f.source for f in report.findings if f.rule == "AGT001"]
    assert agt001 == ([expected_source] if expected_source else [])
    if "tautological" in claude:
        assert [(f.rule, f.source) for f in report.findings] == [("AGT002", "CLAUDE.md:3")]


def test_agents_md_edited_in_the_pr_is_judged_by_base(make_repo):
    head_agents = "# Rules\n\n- No tautological tests.\n"
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_AGT001},
        {"AGENTS.md": head_agents, "tests/test_a.py": 'def test_new():\n    """Checks."""\n    f()\n'},
    )
    # The base asks for AGT001 and not AGT002: the edit does not count before merge.
    assert codes(report) == ["AGT001"]
    assert report.policy_changes == (PolicyChange(path="AGENTS.md", added=("AGT002",), removed=("AGT001",)),)
    (note,) = [n for n in report.notes if "After merge" in n]
    assert "turns on AGT002" in note and "turns off AGT001" in note
    assert "turns on AGT002" in render_comment(report)


def test_agents_md_added_in_the_pr(make_repo):
    report = review_change(
        make_repo, {"README.md": "x\n"}, {"lib/AGENTS.md": NESTED_ON, "lib/tests/test_b.py": NEW_TEST}
    )
    assert codes(report) == []
    assert report.policy_changes == (PolicyChange(path="lib/AGENTS.md", added=("AGT001",)),)


def test_repository_without_agents_md_says_so(make_repo):
    report = review_change(make_repo, {"README.md": "x\n"}, {"tests/test_a.py": "def test_a():\n    f()\n"})
    assert report.findings == () and report.policy_files == ()
    assert any("No AGENTS.md at the base revision" in n for n in report.notes)
    assert "No AGENTS.md at the base revision" in render_comment(report)


def test_unreadable_agents_md_is_named_and_review_goes_on(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": b"- No tautological tests.\x00\n", "lib/AGENTS.md": NESTED_ON},
        {"lib/tests/test_b.py": NEW_TEST},
    )
    assert codes(report) == ["AGT001"]
    assert any("`AGENTS.md` could not be read" in n and "NUL" in n for n in report.notes)


def test_agents_md_removed_in_the_pr(make_repo):
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001}, {"AGENTS.md": None, "tests/test_a.py": NEW_TEST}
    )
    assert codes(report) == ["AGT001"]
    assert report.policy_changes == (PolicyChange(path="AGENTS.md", removed=("AGT001",)),)


@pytest.mark.parametrize(
    "sentence, inside, outside",
    [
        ("Tests must not be tautological, except in the `legacy/` folder.", (), ("legacy",)),
        ("Unit tests under `tests/unit` must assert something.", ("tests/unit",), ()),
        ("No tautological tests in the `legacy` folder.", ("legacy",), ()),
        (
            "No tautological tests in `lib/` and `app/`, except in `lib/vendor/` or `lib/gen/`.",
            ("lib", "app"),
            ("lib/vendor", "lib/gen"),
        ),
        # Files, URLs and folders named in passing, or in another clause, narrow nothing.
        ("Regression tests must name the PR they guard in `tests/test_api.py`.", (), ()),
        ("No tautological tests (see https://example.org/docs/tests/ for why).", (), ()),
        ("Regression tests must name the PR they guard; helpers live in `tests/helpers/`.", (), ()),
    ],
)
def test_folders_a_sentence_is_about(sentence, inside, outside):
    reading = RECOGNISER.read(1, sentence)
    found = reading.folders_of(reading.on[0])
    assert (found.inside, found.outside) == (inside, outside)
    assert set(found.inside + found.outside) <= set(folders(sentence).named)


TAUTOLOGICAL = 'def test_new():\n    """Checks."""\n    assert True\n'


@pytest.mark.parametrize(
    "agents, flagged",
    [
        # The exception narrows the rule: legacy/ is left out, everything else is in.
        (
            "- Tests must not be tautological, except in the `legacy/` folder.\n",
            ["lib/tests/test_b.py", "tests/unit/test_a.py"],
        ),
        # The scope narrows it to one folder.
        ("- Unit tests under `tests/unit` must not be tautological.\n", ["tests/unit/test_a.py"]),
        # Both: on under tests/, except tests/unit/.
        ("- Tests under `tests/` must not be tautological, except in `tests/unit/`.\n", []),
        ("- No tautological tests.\n", ["legacy/test_c.py", "lib/tests/test_b.py", "tests/unit/test_a.py"]),
    ],
)
def test_scopes_and_exceptions_narrow_a_rule(make_repo, agents, flagged):
    report = review_change(
        make_repo,
        {"AGENTS.md": "# Tests\n\n" + agents},
        {
            "tests/unit/test_a.py": TAUTOLOGICAL,
            "lib/tests/test_b.py": TAUTOLOGICAL,
            "legacy/test_c.py": TAUTOLOGICAL,
        },
    )
    assert sorted(f.path for f in report.findings if f.rule == "AGT002") == flagged


REWRITTEN_BASE = "def test_a():\n    assert f() == 38\n"
REWRITTEN_HEAD = "def test_a():\n    assert f() == 37\n"
PROHIBITION = "- Never rewrite passing tests to match new behaviour.\n"
PERMISSION = "- Editing existing tests is fine, but new test files should be the exception.\n"


def test_a_permission_does_not_outweigh_a_prohibition(make_repo):
    agents = "# Tests\n\n" + PROHIBITION + PERMISSION
    base = {"AGENTS.md": agents, "tests/test_a.py": REWRITTEN_BASE}
    report = review_change(make_repo, base, {"tests/test_a.py": REWRITTEN_HEAD})
    assert codes(report) == ["AGT003"]
    (note,) = [n for n in report.notes if "relaxes AGT003" in n]
    assert "`AGENTS.md:4` relaxes AGT003" in note and "`AGENTS.md:3` asks for it" in note
    assert "the prohibition wins" in note
    assert "the prohibition wins" in render_comment(report)


def test_a_permission_alone_turns_the_rule_off_with_a_note(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": "# Tests\n\n" + PERMISSION, "tests/test_a.py": REWRITTEN_BASE},
        {"tests/test_a.py": REWRITTEN_HEAD},
    )
    assert codes(report) == []
    assert any(n.startswith("`AGENTS.md:3` turns AGT003 off in the whole repository") for n in report.notes)


def test_a_nested_permission_is_an_opt_out_not_a_conflict(make_repo):
    report = review_change(
        make_repo,
        {
            "AGENTS.md": "# Tests\n\n" + PROHIBITION,
            "scratch/AGENTS.md": "# Scratch\n\n" + PERMISSION,
            "tests/test_a.py": REWRITTEN_BASE,
            "scratch/test_b.py": REWRITTEN_BASE,
        },
        {"tests/test_a.py": REWRITTEN_HEAD, "scratch/test_b.py": REWRITTEN_HEAD},
    )
    assert [(f.rule, f.path) for f in report.findings] == [("AGT003", "tests/test_a.py")]
    assert not any("relaxes" in n for n in report.notes)
    assert any(n.startswith("`scratch/AGENTS.md:3` turns AGT003 off in `scratch/`") for n in report.notes)
