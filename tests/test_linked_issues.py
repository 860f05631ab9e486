"""AGT001's evidence from the issues a pull request closes: their labels and issue type, read on GitHub
one request each.

The rules-level cases give the PullRequest its linked issues directly (as bot/github/linked.py does); the
GitHub cases run the real client against the schema-checked fake, whose issues and 404s validate against
GitHub's `issues/get` operation and `issue` schema (tests/fixtures/github/api.github.com.supplement.json).
"""

from __future__ import annotations

import re
import time

import pytest

from bot.github.linked import wants_linked
from rules.core.closing_refs import closing_issues
from rules.core.config import Config
from rules.core.models import ChangeSet, FileChange, FileStatus, LinkedIssue, PullRequest
from tests import ghapi
from tests.helpers import AGENTS_AGT001
from tests.test_publish import run as review
from tests.test_regression_evidence import ERROR, FIX_CODE, IMPORTS, NOTICE, T, _graded, _review, _test

REPO = "octo/repo"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Fixes #12", (12,)),
        ("closes #12.\nRESOLVED: #13", (12, 13)),
        ("Fixes: #12 and fixes octo/repo#14", (12, 14)),
        ("Resolves Octo/Repo#15", (15,)),  # GitHub compares the repository's name without case
        ("Closes https://github.com/octo/repo/issues/16", (16,)),
        ("Fixes other/repo#12, fixes https://github.com/other/repo/issues/13", ()),  # another repository's
        ("Fixes #12, #13", (12,)),  # each reference needs its own keyword, as on GitHub
        ("Fixes #12. Fixes #12 again.", (12,)),
        ("See #12; it prefixes #13 and refixes #14", ()),  # no closing keyword
        ("Fixes #7", ()),  # the pull request's own number
        ("Fixes #0", ()),
        ("", ()),
    ],
)
def test_closing_references_as_github_links_them(body, expected):
    assert closing_issues(body, REPO, own=7) == expected


def test_at_most_the_first_five_closing_references_are_taken():
    body = "\n".join(f"Fixes #{n}" for n in range(20, 30))
    assert closing_issues(body, REPO) == (20, 21, 22, 23, 24)
    assert closing_issues(body, REPO, limit=2) == (20, 21)


# --- the evidence, on a real repository ------------------------------------------------------------------

HEAD = {**FIX_CODE, T: IMPORTS + _test("test_area")}


def _pr(body: str, *labels: str, number: int = 12, kind: str | None = None) -> PullRequest:
    linked = (LinkedIssue(number=number, labels=labels, type=kind),) if labels or kind else ()
    return PullRequest(number=7, title="Zero areas", body=body, linked_issues=linked)


@pytest.mark.parametrize("label", ["bug", "Type: Bug", "kind/bug", "bugfix", "REGRESSION", " bug "])
def test_a_bug_label_on_a_closed_issue_makes_a_fix_pr(tmp_path, label):
    # "Closes #12" alone closes feature requests as often as bug reports: no evidence (the notice).
    assert _graded(_review(tmp_path / "plain", HEAD, _pr("Closes #12."))) == NOTICE
    report = _review(tmp_path / "bug", HEAD, _pr("Closes #12.", label))
    assert _graded(report) == ERROR
    (finding,) = [f for f in report.findings if f.rule == "AGT001"]
    assert f'a label of issue #12, which the PR closes, says "{label.strip().lower()}"' in finding.message


@pytest.mark.parametrize("label", ["enhancement", "feature", "type: feature", "Feature request"])
def test_a_feature_label_on_the_closed_issue_is_no_fix(tmp_path, label):
    # Without the label "Fixes #12" in the description makes a fix PR; the label says the issue asked for a
    # feature, as a feature title would.
    assert _graded(_review(tmp_path / "plain", HEAD, _pr("Fixes #12."))) == ERROR
    assert _graded(_review(tmp_path / "feature", HEAD, _pr("Fixes #12.", label))) == NOTICE


@pytest.mark.parametrize(
    ("body", "kind", "expected"),
    [
        ("Closes #12.", "Bug", ERROR),
        ("Fixes #12.", "Feature", NOTICE),
        ("Closes #12.", "Task", NOTICE),
        ("Fixes #12.", "Task", ERROR),  # a task says nothing: "Fixes #12" counts as it always did
    ],
)
def test_the_issue_type_counts_as_a_label_does(tmp_path, body, kind, expected):
    report = _review(tmp_path, HEAD, _pr(body, kind=kind))
    assert _graded(report) == expected
    if kind == "Bug":
        assert 'the type of issue #12, which the PR closes, says "bug"' in report.findings[0].message


@pytest.mark.parametrize("label", ["question", "bugs-and-features", "not a bug", "documentation"])
def test_other_labels_say_nothing(tmp_path, label):
    assert _graded(_review(tmp_path / "other", HEAD, _pr("Closes #12.", label))) == NOTICE


def test_a_bug_label_makes_a_small_fix_pr_whose_lone_test_sits_anywhere(tmp_path):
    # The test neither imports nor is named after what the PR changes: only a small fix PR (the whole
    # change says it is a fix) takes it for the regression test. A bug-labelled issue speaks for the whole
    # change, as the PR's own label does; "Fixes #12" in the description does not.
    head = {**FIX_CODE, T: _test("test_lengths").replace("area(2)", "len('ab')")}
    assert _graded(_review(tmp_path / "fixes", head, _pr("Fixes #12."))) == NOTICE
    assert _graded(_review(tmp_path / "bug", head, _pr("Closes #12.", "bug"))) == ERROR


# --- on GitHub: one request per linked issue, failures give no evidence ----------------------------------

SOURCE = "def parse(text):\n    return text.split() if text else []\n"
NEW_TEST = "from parser import parse\n\n\ndef test_empty_input():\n    assert parse('') == []\n"
TEST_PATH = "tests/test_parser.py"


def _added(text: str) -> str:
    lines = text.split("\n")[:-1]
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + ln for ln in lines)


def _pull(gh, body: str, issues: dict[int, dict], title: str = "Update the parser") -> ghapi.PullState:
    """PR #7 adds parser.py and a test of it that names nothing; reviewed through the API (no checkout)."""
    st = ghapi.PullState()
    st.title, st.body, st.issues = title, body, issues
    st.repo_labels = list(ghapi.BOT_LABELS)
    head = {"parser.py": SOURCE, TEST_PATH: NEW_TEST}
    st.files = [
        ghapi.pr_file(p, patch=_added(t), status="added", changes=t.count("\n")) for p, t in head.items()
    ]
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001}, st.head: {"AGENTS.md": AGENTS_AGT001, **head}}
    ghapi.serve(gh, st)
    return st


def _agt001(ctx) -> list[tuple[str, str | None]]:
    return [(f.severity.value, f.path) for f in ctx.report.findings if f.rule == "AGT001"]


def _issue_reads(gh) -> list[str]:
    """The numbers of the issues read (GET .../issues/{n}), in order."""
    return [p.rsplit("/", 1)[-1] for m, p in gh.calls() if m == "GET" and re.search(r"/issues/\d+$", p)]


def test_a_linked_bug_issue_turns_a_pr_whose_title_says_nothing_into_a_fix_pr(gh):
    _pull(gh, "Closes #12", {12: ghapi.issue(12, ("bug",))})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("error", TEST_PATH)] and ctx.report.verdict == "needs-work"
    assert ctx.report.incomplete == () and _issue_reads(gh) == ["12"]


def test_the_issue_type_bug_alone_makes_a_fix_pr(gh):
    _pull(gh, "Closes #12", {12: ghapi.issue(12, (), kind="Bug")})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("error", TEST_PATH)] and _issue_reads(gh) == ["12"]


def test_a_closed_number_that_is_a_pull_request_gives_no_evidence(gh):
    # GitHub's issues API answers for pull requests too; closing keywords do not close pull requests.
    _pull(gh, "Closes #12", {12: ghapi.issue(12, ("bug",), pull=True)})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("notice", TEST_PATH)] and _issue_reads(gh) == ["12"]


def test_without_the_label_the_same_pr_gets_only_the_notice(gh):
    _pull(gh, "Closes #12", {12: ghapi.issue(12, ("question",))})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("notice", TEST_PATH)] and ctx.report.verdict == "ready"


def test_a_linked_enhancement_issue_keeps_fixes_n_from_making_a_fix_pr(gh):
    _pull(gh, "Fixes #12", {12: ghapi.issue(12, ("enhancement",))})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("notice", TEST_PATH)] and _issue_reads(gh) == ["12"]


def test_an_issue_that_cannot_be_read_gives_no_evidence_and_the_review_is_complete(gh):
    # #12 answers 404 (deleted, or a number that is a discussion): "Fixes #12" still counts as it always did.
    _pull(gh, "Fixes #12", {})
    ctx = review(gh, None)
    assert _agt001(ctx) == [("error", TEST_PATH)]
    assert ctx.report.incomplete == () and ctx.messages == [] and _issue_reads(gh) == ["12"]


def test_a_rate_limit_stops_the_linked_reads_without_failing_the_review(gh):
    st = _pull(gh, "Closes #12\nCloses #13", {12: ghapi.issue(12, ("bug",)), 13: ghapi.issue(13, ("bug",))})
    reset = str(int(time.time()) + 3600)
    limited = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    st.fail[("GET", "/repos/{owner}/{repo}/issues/{issue_number}")] = [
        (403, ghapi.error("API rate limit exceeded for installation ID 1."), limited)
    ]
    ctx = review(gh, None)
    # #13 is not asked: its read would meet the same limit.
    assert _issue_reads(gh) == ["12"] and ctx.report.incomplete == ()
    assert _agt001(ctx) == [("notice", TEST_PATH)] and st.statuses[0]["state"] == "success"


def test_one_request_per_linked_issue_and_at_most_five(gh):
    body = "\n".join(f"Fixes #{n}" for n in range(20, 28))
    _pull(gh, body, {n: ghapi.issue(n, ("enhancement",)) for n in range(20, 28)})
    review(gh, None)
    assert _issue_reads(gh) == ["20", "21", "22", "23", "24"]


def test_other_repositories_issues_and_a_change_without_python_files_cost_nothing(gh):
    _pull(gh, "Fixes other/repo#12", {12: ghapi.issue(12, ("bug",))})
    review(gh, None)
    assert _issue_reads(gh) == []
    gh.rsps.reset()
    st = ghapi.PullState()
    st.body, st.issues = "Fixes #12", {12: ghapi.issue(12, ("bug",))}
    st.repo_labels = list(ghapi.BOT_LABELS)
    st.files = [ghapi.pr_file("README.md", patch="@@ -0,0 +1 @@\n+hi", status="added", changes=1)]
    st.trees = {st.base: {}, st.head: {"README.md": "hi\n"}}
    ghapi.serve(gh, st)
    review(gh, None)
    assert _issue_reads(gh) == []


def test_a_token_without_issues_read_gives_no_evidence_and_the_log_names_the_permission(gh, caplog):
    # A workflow that grants only `contents: read` and `pull-requests: read`: GitHub refuses the issue.
    st = _pull(gh, "Closes #12\nCloses #13", {12: ghapi.issue(12, ("bug",)), 13: ghapi.issue(13, ("bug",))})
    refused = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("GET", "/repos/{owner}/{repo}/issues/{issue_number}")] = [refused]
    with caplog.at_level("INFO", logger="bot.github.linked"):
        ctx = review(gh, None)
    assert _issue_reads(gh) == ["12"] and ctx.report.incomplete == () and ctx.messages == []
    assert _agt001(ctx) == [("notice", TEST_PATH)]
    assert "issue #12 was not read" in caplog.text and "`issues: read`" in caplog.text


@pytest.mark.parametrize(
    ("rules", "wanted"),
    [
        ({}, True),
        ({"AGT001": {"options": {"regression": "fix-prs"}}}, True),
        ({"AGT001": {"enabled": False}}, False),
        ({"regression-test-without-reference": {"enabled": False}}, False),
        ({"AGT001": {"options": {"regression": "all-new-tests"}}}, False),
        ({"AGT001": {"options": {"regression": "marked"}}}, False),
    ],
)
def test_no_linked_issue_is_read_where_the_config_leaves_agt001_no_use_for_it(rules, wanted):
    """Labels matter only to AGT001 in the modes that weigh a PR's words; a config that turns it off or
    decides without words saves the requests."""
    changes = ChangeSet(
        base_sha="a" * 40,
        head_sha="b" * 40,
        files=(FileChange(path="tests/test_a.py", status=FileStatus.ADDED),),
        pr=_pr("Fixes #3"),
    )
    assert wants_linked(changes, Config.model_validate({"rules": rules})) is wanted
