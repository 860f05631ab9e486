"""In-code waivers (`# bot: ignore[CODE] reason`) and BOT002 invalid-waiver."""

import pytest

from bot.review.render import render_comment
from tests.helpers import codes, review_change

AGENTS = (
    "# Tests\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
    "- No tautological tests.\n"
)
BODY = '    """Smoke: run() no longer hangs."""\n    assert True\n'

CASES = [
    # (id, test source, expected codes, waived codes)
    ("no-waiver", f"def test_x():\n{BODY}", ["AGT001", "AGT002"], []),
    (
        "waiver-on-def-line",
        f"def test_x():  # bot: ignore[AGT002] smoke test\n{BODY}",
        ["AGT001"],
        ["AGT002"],
    ),
    (
        "two-codes",
        f"def test_x():  # bot: ignore[AGT001, AGT002] smoke test, no PR\n{BODY}",
        [],
        ["AGT001", "AGT002"],
    ),
    ("comment-above", f"# bot: ignore[AGT002] smoke test\ndef test_x():\n{BODY}", ["AGT001"], ["AGT002"]),
    (
        "on-decorator",
        f"@pytest.mark.slow  # bot: ignore[AGT002] smoke test\ndef test_x():\n{BODY}",
        ["AGT001"],
        ["AGT002"],
    ),
    (
        "inside-body",
        'def test_x():\n    """Smoke."""\n    # bot: ignore[AGT002] smoke test\n    assert True\n',
        ["AGT001"],
        ["AGT002"],
    ),
    ("lowercase-code", f"def test_x():  # bot: ignore[agt002] smoke test\n{BODY}", ["AGT001"], ["AGT002"]),
    ("without-reason", f"def test_x():  # bot: ignore[AGT002]\n{BODY}", ["AGT001", "AGT002", "BOT002"], []),
    ("no-code", f"def test_x():  # bot: ignore smoke test\n{BODY}", ["AGT001", "AGT002", "BOT002"], []),
    (
        "unknown-code",
        f"def test_x():  # bot: ignore[AGT999] smoke\n{BODY}",
        ["AGT001", "AGT002", "BOT002"],
        [],
    ),
    (
        "not-on-a-test",
        f"X = 1  # bot: ignore[AGT002] nothing here\n\n\ndef test_x():\n{BODY}",
        ["BOT002", "AGT001", "AGT002"],
        [],
    ),
    (
        "marker-in-a-string-is-no-waiver",
        'def test_x():\n    """Smoke. # bot: ignore[AGT002] reason"""\n    assert True\n',
        ["AGT001", "AGT002"],
        [],
    ),
    (
        "only-that-test",
        f"def test_x():  # bot: ignore[AGT002] smoke test\n{BODY}\n\ndef test_y():\n{BODY}",
        ["AGT001", "AGT001", "AGT002"],
        ["AGT002"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_waiver_table(make_repo, case):
    _, source, expected, waived = case
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": source})
    assert codes(report) == expected
    assert sorted(w.rule for w in report.waivers) == waived
    assert all(w.reason and w.path == "tests/test_a.py" for w in report.waivers)


def test_waivers_are_listed_in_the_comment_with_their_reason(make_repo):
    src = f"def test_x():  # bot: ignore[AGT002] smoke test: <b>@team</b>\n{BODY}"
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": src})
    (waiver,) = report.waivers
    assert (waiver.rule, waiver.line) == ("AGT002", 1)
    comment = render_comment(report)
    assert "#### Waived" in comment
    line = next(x for x in comment.splitlines() if x.startswith("- **AGT002**"))
    assert "smoke test" in line and "<b>" not in line and "@team" not in line


def test_reasonless_waiver_finding_names_file_and_line(make_repo):
    src = f"def test_x():  # bot: ignore[AGT002]\n{BODY}"
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": src})
    (bad,) = [f for f in report.findings if f.rule == "BOT002"]
    assert (bad.path, bad.line) == ("tests/test_a.py", 1) and "no reason" in bad.message


def test_untouched_reasonless_waiver_is_not_reported(make_repo):
    old = f"def test_old():  # bot: ignore[AGT002]\n{BODY}"
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS, "tests/test_a.py": old},
        {"tests/test_a.py": old + '\n\ndef test_new():\n    """Guards #2."""\n    assert f()\n'},
    )
    assert codes(report) == []


def test_markers_up_to_the_last_bot_line_are_all_read():
    """Tokenizing stops after the last line holding "bot:" in any case (a million blank lines after the
    one marker took 0.9 s): a marker on the last line, in capitals, or after a string is still read, and
    a marker inside a string is still none."""
    from rules.testcode.testfiles import parse_tests
    from rules.testcode.waivers import markers_in

    text = (
        'S = """\n# bot: ignore[AGT001] inside a string\n"""\n'
        "def test_a():  # bot: ignore[AGT001] first reason\n    pass\n"
        + "\n" * 1000
        + "def test_b():\n    pass  # BOT: IGNORE[AGT002] shouting"
    )
    tf = parse_tests("tests/test_x.py", text, frozenset())
    got = [(m.line, m.codes, m.reason) for m in markers_in(tf)]
    assert got == [(4, ("AGT001",), "first reason"), (1007, ("AGT002",), "shouting")]
