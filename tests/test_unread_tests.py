"""A test file the bot cannot read leaves the review not complete, in every mode (issue 22, item 5a).

Python source is decoded as Python decodes it (PEP 263): a valid Latin-1 test file with its coding line is
reviewed like any other. A test file that a rule would read but the bot cannot (undecodable, over the size
cap) is no longer only a notice beside a "ready" verdict: `bot check` exits 1, the JSON Report lists it in
`incomplete`, SARIF says the run did not succeed, the terminal says "not complete", and `bot review`
publishes no `status:ready`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.git.local import load_changeset
from bot.github.waivers import apply_waivers, stamp
from bot.review.engine import review as run_review
from rules.core.config import Config
from rules.core.models import (
    MAX_TEXT_BYTES,
    ChangeSet,
    Coverage,
    Finding,
    Report,
    Severity,
    UnreadableFile,
    Waiver,
    decode_python,
)
from rules.training import profiles
from tests import ghapi
from tests.conftest import GitRepo
from tests.helpers import AGENTS_AGT001
from tests.test_api_faults import NEW_TEST, OLD_TEST, TEST, TEST_PATCH
from tests.test_profiles import CONFIG, PRIME_RL
from tests.test_publish import run as review

AGENTS = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
# A regression test that names its PR: no rule has anything to say about it.
GOOD = 'def test_ok():\n    """Guards PR #7: used to crash."""\n    assert compute() == 3\n'
LATIN1 = "# -*- coding: latin-1 -*-\n"


def _check(tmp_path: Path, capsys, head: dict[str, str | bytes], *extra: str) -> tuple[int, dict, str]:
    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS}, "base")
    r.branch("pr")
    r.commit({"tests/test_ok.py": GOOD, **head}, "head")
    saved = tmp_path / "report.json"
    code = main(["check", "--repo", str(r.path), "--base", "main", "--output", str(saved), *extra])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(saved.read_text(encoding="utf-8")), out


def test_a_latin1_test_file_with_its_coding_line_is_reviewed(tmp_path, capsys):
    # Before: "could not be parsed (not valid UTF-8)", one notice, and the new test went unchecked.
    source = LATIN1 + "def test_caf\u00e9():\n    # used to crash\n    assert name() == 'caf\u00e9'\n"
    code, report, _ = _check(tmp_path, capsys, {"tests/test_latin.py": source.encode("latin-1")})
    (finding,) = [f for f in report["findings"] if f["path"] == "tests/test_latin.py"]
    assert finding["rule"] == "AGT001" and "test_caf\u00e9" in finding["message"] and finding["line"] == 2
    assert report["incomplete"] == [] and code == 1  # the finding fails the check, not the reading


def test_a_documented_latin1_test_file_is_ready(tmp_path, capsys):
    source = LATIN1 + 'def test_x():\n    """Guards PR #9 (caf\u00e9)."""\n    assert f() == 1\n'
    code, report, _ = _check(tmp_path, capsys, {"tests/test_latin.py": source.encode("latin-1")})
    assert (code, report["verdict"], report["findings"], report["incomplete"]) == (0, "ready", [], [])


UNREADABLE = [
    ("not utf-8, no coding line", b"def test_a():\n    assert f() == '\xe9'\n", "not valid UTF-8"),
    ("undecodable in its coding", b"# coding: ascii\ndef test_a():\n    assert f() == '\xe9'\n", "ascii"),
    ("a coding Python refuses", b"# coding: utf-16\ndef test_a():\n    pass\n", "utf-16"),
    (
        "over the size cap",
        ('def test_a():\n    """Guards PR #1."""\n    assert f() == 1\n' + "#\n" * MAX_TEXT_BYTES).encode(),
        "byte limit",
    ),
]


@pytest.mark.parametrize("data, why", [c[1:] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE])
def test_a_test_file_the_bot_cannot_read_makes_the_review_not_complete(tmp_path, capsys, data, why):
    # Before: one notice "its tests were not checked", verdict ready, exit 0.
    code, report, _ = _check(tmp_path, capsys, {"tests/test_bad.py": data})
    assert code == 1 and report["verdict"] == "needs-work"
    (missing,) = report["incomplete"]
    assert missing.startswith("tests/test_bad.py (") and why in missing
    assert any(n.startswith("Review not complete") and "tests/test_bad.py" in n for n in report["notes"])
    # The notice on the file stays: it says there which tests went unchecked.
    assert [f["severity"] for f in report["findings"]] == ["notice"]


def test_not_complete_in_the_terminal_and_in_sarif(tmp_path, capsys):
    bad = {"tests/test_bad.py": b"def test_a():\n    assert f() == '\xe9'\n"}
    code, _, out = _check(tmp_path, capsys, bad, "--format", "text")
    assert code == 1 and out.rstrip().splitlines()[-1].startswith("not complete:")
    code, _, out = _check(tmp_path / "again", capsys, bad, "--format", "sarif")
    (run,) = json.loads(out)["runs"]
    (invocation,) = run["invocations"]
    assert code == 1 and invocation["executionSuccessful"] is False
    assert any(
        n["level"] == "error" and "tests/test_bad.py" in n["message"]["text"]
        for n in invocation["toolExecutionNotifications"]
    )


def test_a_syntax_error_stays_a_notice_python_would_raise_too(tmp_path, capsys):
    # Python cannot run it either, so CI fails on it: the bot has seen all there is to see.
    code, report, _ = _check(tmp_path, capsys, {"tests/test_bad.py": "def test_a(:\n    pass\n"})
    assert report["incomplete"] == [] and report["verdict"] == "ready" and code == 0


@pytest.mark.parametrize(
    "data, text",
    [
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),
        (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n", "x = '\u20ac'\n"),
        (b"x = '\xc3\xa9'\n", "x = '\u00e9'\n"),
    ],
    ids=["utf-8 BOM", "coding on line 2", "utf-8"],
)
def test_python_source_decodes_as_python_decodes_it(data, text):
    assert decode_python("a.py", data).endswith(text) and compile(data, "a.py", "exec")


@pytest.mark.parametrize(
    "data",
    [b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", b"# coding: rot13\nx = 1\n", b"# coding: nonesuch\nx = 1\n"],
    ids=["BOM against coding", "no text encoding", "unknown"],
)
def test_python_source_python_refuses_is_unreadable(data):
    with pytest.raises(SyntaxError):
        compile(data, "a.py", "exec")
    with pytest.raises(UnreadableFile):
        decode_python("a.py", data)


def test_bot_review_publishes_no_ready_for_a_test_file_over_the_cap(gh):
    # Through the API (no checkout): GitHub gives the test's size, over the cap; before, a notice and ready.
    big = NEW_TEST + "#\n" * MAX_TEXT_BYTES
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(TEST, patch=TEST_PATCH, status="modified", changes=5)]
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001, TEST: OLD_TEST}, st.head: {TEST: big}}
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    assert ctx.report.verdict == "needs-work" and "status:ready" not in st.labels
    assert st.statuses[0]["state"] == "failure" and "not complete" in st.statuses[0]["description"]
    assert ctx.report.incomplete == (f"{TEST} (file is {len(big):,} bytes, over the 2,097,152-byte limit)",)


def test_a_comment_waiver_of_every_error_leaves_a_review_that_is_not_complete_not_ready():
    error = Finding(rule="TRN005", name="claims", severity=Severity.ERROR, message="max_steps is not 99")
    report = Report(
        verdict="needs-work",
        labels=("status:needs-work",),
        findings=(error,),
        coverage=Coverage(files_changed=1, files_reviewed=1),
        incomplete=("tests/test_bad.py (not valid UTF-8 (byte 3))",),
    )
    changeset = ChangeSet(base_sha="a" * 40, head_sha="b" * 40, files=())
    waiver = stamp(Waiver(rule="TRN005", reason="known", by="maintainer"), report, changeset)
    applied, lapsed = apply_waivers(report, (waiver,), changeset, Config())
    assert lapsed == () and applied.findings == ()
    assert applied.verdict == "needs-work" and applied.labels == ("status:needs-work",)


@pytest.mark.parametrize("cookie", [True, False], ids=["with its coding line", "without"])
def test_bot_review_reads_the_bytes_of_a_latin1_test_file(gh, cookie):
    # GitHub's patch and GraphQL text are Unicode: for Latin-1 bytes, U+FFFD stand-ins. The bytes are read
    # (contents API) and decoded as Python decodes them; before, the review judged the stand-ins.
    path = "tests/test_latin.py"
    source = (LATIN1 if cookie else "") + "def test_caf\u00e9():\n    # used to crash\n    assert f() == 1\n"
    data = source.encode("latin-1")
    shown = data.decode("utf-8", "replace").rstrip("\n").split("\n")
    patch = f"@@ -0,0 +1,{len(shown)} @@\n" + "\n".join("+" + line for line in shown)
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(path, patch=patch, status="added", changes=len(shown))]
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001}, st.head: {path: data}}
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    assert ("GET", f"/repos/octo/repo/contents/{path}") in gh.calls()
    if cookie:
        (finding,) = ctx.report.findings
        assert (
            finding.rule == "AGT001" and "`test_caf\u00e9`" in finding.message and ctx.report.incomplete == ()
        )
    else:  # not valid UTF-8 and no coding line: Python cannot read it either, and neither can the bot
        assert ctx.report.incomplete == (f"{path} (not valid UTF-8 (byte 12))",)
    assert ctx.report.verdict == "needs-work" and "status:ready" not in st.labels


def test_more_profiles_than_the_scan_reads_leave_the_review_not_complete(make_repo, monkeypatch):
    # Profiles past the cap that point at the changed config would move with it: unseen, not complete.
    monkeypatch.setattr(profiles, "MAX_DEPENDENT_SCAN", 1)
    pointing = f'name = "m{{0}}"\nconfig = "{CONFIG}"\ntarget_micro_steps = 300\n'
    base = {
        CONFIG: PRIME_RL.format(max_steps=100, batch=8),
        "training/compat_profiles/a.toml": pointing.format("a"),
        "training/compat_profiles/b.toml": pointing.format("b"),
    }
    r = make_repo(base, {CONFIG: PRIME_RL.format(max_steps=100, batch=16)})
    report = run_review(load_changeset(r.path, base="main", head="pr"))
    assert report.incomplete == (
        "profiles that may point at a changed Prime-RL config (over 1 profile files; the first were read)",
    )
    assert report.verdict == "needs-work"


def _modified(tmp_path: Path, capsys, base: str | bytes, head: str) -> tuple[int, dict]:
    r = GitRepo(tmp_path / "repo")
    r.commit({"AGENTS.md": AGENTS, "tests/test_a.py": base}, "base")
    r.branch("pr")
    r.commit({"tests/test_a.py": head}, "head")
    saved = tmp_path / "report.json"
    code = main(["check", "--repo", str(r.path), "--base", "main", "--output", str(saved)])
    capsys.readouterr()
    return code, json.loads(saved.read_text(encoding="utf-8"))


DOCUMENTED = 'def test_a():\n    """Guards PR #4."""\n    assert f() == 1\n'


def test_a_base_test_file_the_bot_cannot_read_leaves_the_review_not_complete(tmp_path, capsys):
    # Which tests are new, and what a test expected before (AGT003), cannot be told from an unread base.
    # Before: every test counted as new; these are documented, so: ready.
    base = (DOCUMENTED + "# caf\u00e9\n").encode("latin-1")  # no coding line: no Python reads it
    code, report = _modified(tmp_path, capsys, base, DOCUMENTED.replace("== 1", "== 2"))
    assert report["incomplete"] == ["tests/test_a.py at base (not valid UTF-8 (byte 63))"]
    assert code == 1 and report["verdict"] == "needs-work"


def test_a_test_file_without_a_diff_to_read_leaves_bot_check_not_complete(tmp_path, capsys):
    # One side over the cap: git prints no diff for it, the file is not reviewed. Before: "0 of 1 changed
    # file reviewed", ready, exit 0 (`bot review` without a checkout already withheld ready).
    code, report = _modified(
        tmp_path, capsys, DOCUMENTED + "#\n" * MAX_TEXT_BYTES, DOCUMENTED.replace("== 1", "== 2")
    )
    assert report["incomplete"] == ["tests/test_a.py (no reviewable diff)"]
    assert report["coverage"]["not_reviewed"] == ["tests/test_a.py"]
    assert code == 1 and report["verdict"] == "needs-work"
