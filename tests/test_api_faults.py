"""GitHub failing under a review: files it cannot give, answers it garbles, a listing that fails after a POST.

A review that could not read a file the pull request lists is "not complete" (never ready, never a success
status, the comment names the file and why, no finding blames the file); a malformed answer ends the run with
one line naming the request and exit 2, before anything is written.

Most mocked answers here are deliberately NOT what GitHub documents (that is the fault under test); they are
registered raw, outside the schema-checked helpers, and each says which documented shape it breaks.
"""

from __future__ import annotations

import json

import pytest
import responses

from bot.github.api import GitHubError, PullFile
from bot.github.app import guarded, run
from bot.github.client import BoundedRetry
from bot.github.pull import _GONE as GONE
from bot.github.pull import ApiReader, to_file_change, whole_text
from rules.core.models import ReadFault
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_app import TOKEN, args
from tests.test_publish import mine
from tests.test_publish import run as review

OLD_TEST = 'def test_old():\n    """Checks the old thing."""\n    assert 1 + 1 == 2\n'
NEW_TEST = OLD_TEST + '\n\ndef test_new():\n    """Guards PR #7: no overflow."""\n    assert 2 + 2 == 4\n'
TEST_PATCH = (
    '@@ -3,0 +4,5 @@ def test_old():\n+\n+\n+def test_new():\n+    """Guards PR #7: no overflow."""\n'
    "+    assert 2 + 2 == 4"
)
TEST = "tests/test_calc.py"


def no_wait() -> BoundedRetry:
    """Two retries, as in the suite, without urllib3's back-off sleeps."""
    return BoundedRetry(total=2, backoff_factor=0)


def _modified_test_pull(gh) -> ghapi.PullState:
    """A pull request that modifies one test file, reviewed without a checkout (all reads through the API)."""
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(TEST, patch=TEST_PATCH, status="modified", changes=5)]
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001, TEST: OLD_TEST}, st.head: {TEST: NEW_TEST}}
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    return st


def test_the_pull_request_reviewed_through_the_api_is_ready_when_github_answers(gh):
    # The baseline the fault cases below differ from by one answer.
    st = _modified_test_pull(gh)
    ctx = review(gh, None)
    assert ctx.report.verdict == "ready" and st.statuses[0]["state"] == "success"
    # One request: AGENTS.md at base and the test at head; the test's base is its head, patch taken back.
    assert [q for q in gh.graphql() if q.startswith("blobs")] == ["blobs:2"]


HTML = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"
READ_FAULTS = {
    # GraphQL's answer for "nothing at this path": the analogue of the contents API's 404.
    "listed file not found": ([], "GitHub found no file at a path the pull request's files list names"),
    "5xx after retries": ([(502, json.dumps(ghapi.error("Server Error")))] * 3, "after retries"),
    "truncated body": (
        [(200, '{"data": {"repository": {"f0": {"byteSize": 4')],
        "not what its API documents",
    ),
    "HTML proxy page": ([(200, HTML)], "not what its API documents"),
    "null": ([(200, "null")], "not what its API documents"),
}


@pytest.mark.parametrize("fault", READ_FAULTS, ids=list(READ_FAULTS))
def test_a_file_github_cannot_give_makes_the_review_not_complete(gh, fault):
    st = _modified_test_pull(gh)
    replies, why = READ_FAULTS[fault]
    st.graphql_replies = list(replies)
    if not replies:
        del st.trees[st.head][TEST]
    ctx = review(gh, None, retry=no_wait())
    report = ctx.report
    assert report.verdict == "needs-work" and st.labels == ["status:needs-work"]
    assert [s["state"] for s in st.statuses] == ["failure"]
    assert st.statuses[0]["description"].startswith("not complete (files unseen): ")
    # Nothing is blamed on the file (no "could not be reviewed", no "Rule failed with an internal error").
    assert report.findings == ()
    note = next(n for n in report.notes if n.startswith("Review not complete"))
    assert TEST in note and why in note
    assert TEST in report.coverage.not_reviewed
    assert "Review not complete" in mine(st)[0]["body"]


def test_an_agents_md_the_base_tree_lists_but_github_cannot_give_makes_the_review_not_complete(gh):
    st = _modified_test_pull(gh)
    # One query: the test at head, then AGENTS.md at base, which GitHub answers as "nothing there".
    found = {"byteSize": len(NEW_TEST), "isTruncated": False, "text": NEW_TEST}
    body = {"data": {"repository": {"f0": found, "f1": None}}}
    ghapi.validate_blobs(body)
    st.graphql_replies = [(200, json.dumps(body))]
    ctx = review(gh, None)
    assert gh.graphql().count("blobs:2") == 1
    assert ctx.report.verdict == "needs-work" and ctx.report.incomplete == (f"AGENTS.md ({GONE})",)


def test_a_truncated_contents_answer_is_a_read_fault_not_five_internal_errors(gh):
    # GraphQL says the blob's text is truncated (a large file), so it is read through the contents API,
    # which answers 200 with a cut JSON body.
    st = _modified_test_pull(gh)
    answer = ghapi.blobs_answer
    cut = json.dumps(ghapi.content(TEST, NEW_TEST))[:120]

    def truncating(sent, trees, repo):
        body = answer(sent, trees, repo)
        for key, expression in sent["variables"].items():
            if expression == f"{st.head}:{TEST}":
                body["data"]["repository"]["f" + key[1:]]["isTruncated"] = True
        ghapi.validate_blobs(body)
        return body

    url = gh.url("/repos/{owner}/{repo}/contents/{path}", path=TEST).replace("%2F", "/")
    gh.rsps.add(responses.GET, url, body=cut, status=200)  # registered first: answers the first read
    ghapi.blobs_answer = truncating
    try:
        ctx = review(gh, None)
    finally:
        ghapi.blobs_answer = answer
    assert ("GET", f"/repos/octo/repo/contents/{TEST}") in gh.calls()
    assert ctx.report.verdict == "needs-work" and ctx.report.findings == ()
    assert any(TEST in n and "not what its API documents" in n for n in ctx.report.notes)


def test_a_404_from_the_contents_api_for_a_listed_file_is_a_fault_and_for_another_path_absence(gh):
    # The contents API path (reads not fetched ahead): the fake answers GitHub's documented 404 for both.
    st = _modified_test_pull(gh)
    del st.trees[st.head][TEST]
    reader = ApiReader(github_client(gh))
    listed = to_file_change(PullFile(path=TEST, status="modified", patch=TEST_PATCH, changes=5))
    reader.expect(st.base, st.head, [listed], {})
    with pytest.raises(ReadFault, match="404"):
        reader.read(st.head, TEST)
    assert reader.read(st.head, "tests/conftest.py") is None  # not listed: simply not there
    assert list(reader.faults) == [TEST]
    assert gh.calls().count(("GET", f"/repos/octo/repo/contents/{TEST}")) == 1


def test_files_beyond_the_3000_file_list_make_the_review_not_complete(gh):
    st = _modified_test_pull(gh)
    st.changed_files = 3001
    ctx = review(gh, None)
    assert ctx.report.verdict == "needs-work" and [s["state"] for s in st.statuses] == ["failure"]
    assert any("3,000-file list" in n for n in ctx.report.notes)


def test_the_config_github_cannot_give_ends_the_run_before_any_write(gh):
    st = _modified_test_pull(gh)
    st.files.append(ghapi.pr_file(".github/bot.yml", status="modified"))
    st.fail[("GET", "/repos/{owner}/{repo}/contents/{path}")] = [(502, ghapi.error("Server Error"), {})] * 3
    with pytest.raises(GitHubError, match="the config .github/bot.yml"):
        review(gh, None, retry=no_wait())
    assert gh.writes() == []


# --- whole files from patches --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "patch, added, text",
    [
        ("@@ -0,0 +1,2 @@\n+a\n+b", True, b"a\nb\n"),
        ("@@ -0,0 +1 @@\n+only", True, b"only\n"),
        ("@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file", True, b"a\nb"),
        ("@@ -0,0 +1,2 @@\n+a\r\n+b\r", True, b"a\r\nb\r\n"),
        ("@@ -1,2 +0,0 @@\n-a\n-b", False, b"a\nb\n"),
        ("", True, b""),
        ("@@ -0,0 +1,3 @@\n+a\n+b", True, None),  # cut: fewer lines than the header says
        ("@@ -1,2 +1,2 @@\n-a\n+b", True, None),  # not an added file's patch
        ("@@ -0,0 +1,2 @@\n+a\n b", True, None),
    ],
)
def test_whole_text_from_a_patch_only_when_it_is_all_of_the_file(patch, added, text):
    assert whole_text(patch, added) == text


# --- malformed answers: one line naming the request, exit 2, nothing written ------------------------------


def _pull_body(**changes) -> dict:
    body = ghapi.pull(7)
    body.update(changes)
    return body


def _without(body: dict, key: str) -> dict:
    return {k: v for k, v in body.items() if k != key}


FILE = ghapi.pr_file("a.py")
COMMENT = ghapi.comment(5, "hello")
# (request as the log line names it, URL template, {shape: raw body})
MALFORMED = {
    "pull": (
        "GET /repos/octo/repo/pulls/7",
        "/repos/{owner}/{repo}/pulls/7",
        {
            "truncated JSON": json.dumps(ghapi.pull(7))[:200],
            "HTML page": HTML,
            "null": "null",
            "wrong types": json.dumps(_pull_body(head="h" * 40)),  # head is an object with a sha
            "missing fields": json.dumps(_without(ghapi.pull(7), "base")),
        },
    ),
    "files": (
        "GET /repos/octo/repo/pulls/7/files",
        "/repos/{owner}/{repo}/pulls/7/files",
        {
            "truncated JSON": json.dumps([FILE])[:100],
            "HTML page": HTML,
            "null": "null",
            "wrong types": json.dumps([{**FILE, "filename": 7}]),
            "missing fields": json.dumps([_without(FILE, "filename")]),
        },
    ),
    "comments": (
        "GET /repos/octo/repo/issues/7/comments",
        "/repos/{owner}/{repo}/issues/7/comments",
        {
            "truncated JSON": json.dumps([COMMENT])[:100],
            "HTML page": HTML,
            "null": "null",
            "wrong types": json.dumps([{**COMMENT, "id": "five"}]),
            "missing fields": json.dumps([_without(_without(COMMENT, "id"), "url")]),
        },
    ),
    "viewer": (
        "POST /graphql (viewer)",
        None,
        {
            "truncated JSON": '{"data": {"viewer": {"lo',
            "HTML page": HTML,
            "null": "null",
            "wrong types": json.dumps({"data": {"viewer": {"login": 7}}}),
            "missing fields": json.dumps({"data": {}}),
        },
    ),
}
CASES = [(req, shape) for req, (_, _, shapes) in MALFORMED.items() for shape in shapes]


@pytest.mark.parametrize("request_name, shape", CASES, ids=[f"{r}-{s}" for r, s in CASES])
def test_malformed_answer_is_one_line_naming_the_request_and_exit_2(
    gh, monkeypatch, capsys, request_name, shape
):
    named, template, shapes = MALFORMED[request_name]
    if template is None:  # only the identity query, not the blob reads before it
        viewer = responses.matchers.json_params_matcher(
            {"query": "query { viewer { login } }"}, strict_match=False
        )
        gh.rsps.add("POST", gh.graphql_url, body=shapes[shape], status=200, match=[viewer])
    else:
        gh.rsps.add(
            "GET", gh.url(template), body=shapes[shape], status=200
        )  # registered first: answers first
    st = _modified_test_pull(gh)
    st.comments = [ghapi.comment(5, "hello")]
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    client = github_client(gh)
    code = guarded(lambda a, e: run(a, e, client), args(repo="octo/repo", pr=7))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith(f"bot: {named}") and "not what its API documents" in err[0]
    assert "Traceback" not in err[0] and gh.writes() == []


def test_malformed_answer_to_a_write_stops_writing_and_exits_2(gh, monkeypatch, capsys):
    url = gh.url("/repos/{owner}/{repo}/statuses/{sha}", sha=ghapi.PullState().head)
    gh.rsps.add("POST", url, body=HTML, status=201)  # the status was set; its answer is a proxy's page
    st = _modified_test_pull(gh)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    client = github_client(gh)
    code = guarded(lambda a, e: run(a, e, client), args(repo="octo/repo", pr=7))
    err = capsys.readouterr().err
    assert code == 2 and "POST /repos/octo/repo/statuses/" in err and "Traceback" not in err
    assert mine(st) == []  # the comment, which records what was published, is not written after it


# --- a duplicate status comment left by a retried POST and a failed listing -------------------------------

COMMENTS = ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments")
FAILED_LISTING = [(502, ghapi.error("Server Error"), {})] * 3  # the first try and BoundedRetry(total=2)'s two


def test_duplicate_left_by_a_failed_listing_is_removed_when_the_next_listing_succeeds(gh):
    st = _modified_test_pull(gh)
    st.lost_posts = 1  # the POST went through but was answered 502; the retry posts a second comment
    st.fail_after_post = {COMMENTS: list(FAILED_LISTING)}
    ctx = review(gh, None, retry=no_wait())
    assert len(mine(st)) == 1 and ctx.messages == [] and not ctx.failed


def test_duplicate_that_cannot_be_checked_is_said_and_the_run_exits_non_zero(gh, monkeypatch, capsys):
    st = _modified_test_pull(gh)
    st.lost_posts = 1
    st.fail_after_post = {COMMENTS: list(FAILED_LISTING) * 2}
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    client = github_client(gh, no_wait())
    code = guarded(lambda a, e: run(a, e, client), args(repo="octo/repo", pr=7))
    err = capsys.readouterr().err
    assert code == 2 and len(mine(st)) == 2
    assert "could not be listed again to remove a duplicate" in err and "Traceback" not in err


def test_a_waiver_is_kept_through_a_review_that_could_not_read_its_file(gh, make_repo):
    from bot.github.handlers import Context, review_pull
    from bot.github.publish import decode_state
    from tests.test_handlers import comment, first_review, thread_builder

    r, st = thread_builder(gh, make_repo)()
    first_review(gh, r)
    comment(gh, r, st, "@bot waive AGT001 intended", "bob")
    assert len(decode_state(mine(st)[0]["body"]).waivers) == 1
    # Without a checkout, GitHub cannot give the waived test file: its code cannot be compared.
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001}, st.head: {"AGENTS.md": AGENTS_AGT001}}
    ctx = Context(client=github_client(gh), checkout=None)
    review_pull(ctx, 7)
    body = mine(st)[0]["body"]
    assert ctx.report.verdict == "needs-work" and "lapsed" not in body
    assert len(decode_state(body).waivers) == 1
    # The next complete review still honours it.
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    assert ctx.report.findings == () and ctx.report.verdict == "ready"


@pytest.mark.parametrize(
    "base, head, patch, changes",
    [
        ("a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c", 2),
        ("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\nx\n4\n5\n6\n7\n9\n", "@@ -1,3 +1,4 @@\n 1\n 2\n 3\n+x\n"
         "@@ -6,4 +7,3 @@\n 6\n 7\n-8\n 9", 2),
        ("a\nb\n", "b\n", "@@ -1 +0,0 @@\n-a", 1),
        ("a\n", "a\nb\n", "@@ -1,0 +2 @@\n+b", 1),
        (OLD_TEST, NEW_TEST, TEST_PATCH, 5),
    ],
)  # fmt: skip
def test_a_modified_files_base_is_its_head_with_the_patch_taken_back(base, head, patch, changes):
    from bot.github.pull import base_from_head

    assert base_from_head(head.encode(), patch, changes) == base.encode()


@pytest.mark.parametrize(
    "head, patch, changes",
    [
        ("a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+X\n c", 2),  # the patch is not of this head
        (
            "a\nB\nc\n",
            "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c",
            4,
        ),  # GitHub counted other changes: a hunk is missing
        ("a\nB", "@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file", 2),  # no final newline
        ("a\n", "not a patch", 0),
    ],
)
def test_a_base_is_not_rebuilt_when_the_patch_does_not_prove_it(head, patch, changes):
    from bot.github.pull import base_from_head

    assert base_from_head(head.encode(), patch, changes) is None


BASE_CALC = (
    "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n\n\n"
    "def test_sub():\n    assert add(2, -1) == 1\n"
)
HEAD_CALC = (
    "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 3\n\n\n"
    "def test_sub():\n    assert add(2, -1) == 1\n\n\ndef test_new():\n    assert add(0, 0) == 0\n"
)


def test_the_api_review_with_rebuilt_base_texts_equals_the_checkout_review(gh, make_repo):
    # Real patches from git: the review without a checkout (base texts rebuilt from head and patch, added
    # files from their patch) finds exactly what the review of the checkout finds.
    base = {"AGENTS.md": AGENTS_AGT001, "tests/test_calc.py": BASE_CALC, "src/gone.py": "x = 1\n"}
    head = {"tests/test_calc.py": HEAD_CALC, "tests/test_more.py": "def test_more():\n    assert True\n"}
    r, st = ghapi.fake_pull(gh, make_repo, base, {**head, "src/gone.py": None})
    st.files = []
    for path in ("tests/test_calc.py", "tests/test_more.py", "src/gone.py"):
        diff = r.git("diff", "-U3", st.base, st.head, "--", path)
        patch = diff[diff.index("@@") :].rstrip("\n")
        changes = sum(1 for line in patch.split("\n") if line[:1] in "+-" and not line.startswith("@@"))
        status = "modified" if path in base and path in head else ("added" if path in head else "removed")
        st.files.append(ghapi.pr_file(path, patch=patch, status=status, changes=changes))
    st.trees = {st.base: dict(base), st.head: {"AGENTS.md": AGENTS_AGT001, **head}}
    with_checkout = review(gh, r.path).report
    without = review(gh, None).report
    found = [(f.rule, f.path, f.line) for f in without.findings]
    assert found == [(f.rule, f.path, f.line) for f in with_checkout.findings] and found
    assert without.verdict == with_checkout.verdict and without.incomplete == ()
    # Only the head of the modified test and AGENTS.md were read; the rest came from the patches.
    assert [q for q in gh.graphql() if q.startswith("blobs")] == ["blobs:2"]


def test_a_rate_limit_on_a_file_read_ends_the_run_and_is_no_finding(gh, monkeypatch, capsys):
    # GraphQL says the test's text is truncated, so a rule reads it through the contents API, which is
    # rate-limited until an hour from now: the run stops (exit 2) instead of blaming the PR with findings.
    import time

    st = _modified_test_pull(gh)
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)}
    st.fail[("GET", "/repos/{owner}/{repo}/contents/{path}")] = [
        (403, ghapi.error("API rate limit exceeded"), reset)
    ]
    answer = ghapi.blobs_answer

    def truncating(sent, trees, repo):
        body = answer(sent, trees, repo)
        for key, expression in sent["variables"].items():
            if expression == f"{st.head}:{TEST}":
                body["data"]["repository"]["f" + key[1:]]["isTruncated"] = True
        return body

    monkeypatch.setattr(ghapi, "blobs_answer", truncating)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    client = github_client(gh, no_wait())
    code = guarded(lambda a, e: run(a, e, client), args(repo="octo/repo", pr=7))
    err = capsys.readouterr().err
    assert code == 2 and "rate limit" in err and "internal error" not in err
    assert gh.writes() == []
