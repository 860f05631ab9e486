"""Publishing a review on a pull request: one status comment, the bot's labels, the status; request counts.

Every scenario runs the real client (PyGithub) against schema-checked mocks and counts the requests it makes;
the counts are the ones documented in docs/github.md.
"""

from __future__ import annotations

import pytest

from bot.github.handlers import Context, review_pull
from bot.github.publish import ANNOTATION_BATCH, Publisher, StatusPlan, decode_state
from bot.review.render import MARKER
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001

NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
READY = ["status:ready", "review:pending"]

# Requests of a review of a one-page PR with a checkout: pull, files, viewer, comments, the base branch's
# rulesets and classic protection (`ready.checks: required`, none required here: no checks read), reviews,
# pull again.
REVIEW_READS = 8
# The same when the result is not ready (or the PR is a draft): no label depends on approval or on the checks,
# so neither the reviews nor the required checks are read.
NEEDS_WORK_READS = REVIEW_READS - 3


def pull_builder(gh, make_repo):
    """Builds pull request #7 whose commits exist in a local checkout, served by a stateful fake GitHub."""

    def build(base=None, head=None, identity="github-actions[bot]", fake=None):
        base = {"a.py": "1\n"} if base is None else base
        head = {"a.py": "2\n"} if head is None else head
        return ghapi.fake_pull(fake or gh, make_repo, base, head, identity)

    return build


@pytest.fixture
def pr(gh, make_repo):
    return pull_builder(gh, make_repo)


def run(fake, checkout, **kw) -> Context:
    out: list[str] = []
    ctx = Context(client=github_client(fake, kw.pop("retry", None)), checkout=checkout, echo=out.append, **kw)
    review_pull(ctx, 7)
    ctx.output = "".join(out)  # type: ignore[attr-defined]
    return ctx


def mine(st: ghapi.PullState) -> list[dict]:
    return [c for c in st.comments if MARKER in c["body"] and c["user"]["login"] == "github-actions[bot]"]


def test_first_run_creates_labels_comment_and_status(gh, pr):
    r, st = pr()
    st.repo_labels = ["bug"]
    ctx = run(gh, r.path)
    assert ctx.messages == []
    assert len(mine(st)) == 1 and st.labels == READY
    assert st.statuses == [
        {
            "sha": st.head,
            "state": "success",
            "description": "ready for review: 0 errors, 0 warnings, 0 notices",
            "context": "bot/review",
        }
    ]
    # reads + repo labels + 2 label creations + add labels + status + comment + re-list for duplicates
    assert len(gh.calls()) == REVIEW_READS + 1 + 2 + 1 + 1 + 1 + 1 == 15
    assert [w[0] for w in gh.writes()] == ["POST"] * 5
    assert set(st.repo_labels) >= set(READY)


def test_first_run_with_labels_present(gh, pr):
    r, st = pr()
    run(gh, r.path)
    # reads + repo labels + add labels + status + comment + re-list for duplicates
    assert len(gh.calls()) == REVIEW_READS + 5 == 13 and len(gh.writes()) == 3


def test_label_creation_sets_colour_and_description(gh, pr):
    r, st = pr()
    st.repo_labels = []
    sent = []
    run(gh, r.path)
    for call in gh.rsps.calls:
        if call.request.method == "POST" and call.request.url.endswith("/repos/octo/repo/labels"):
            sent.append(ghapi.json.loads(call.request.body))
    expected = [("status:ready", "0e8a16"), ("review:pending", "fbca04")]
    assert [(b["name"], b["color"]) for b in sent] == expected
    assert all(b["description"].startswith("bot: ") for b in sent)


def test_unchanged_rerun_makes_no_write(gh, pr):
    r, st = pr()
    run(gh, r.path)
    before = len(gh.calls())
    ctx = run(gh, r.path)
    again = gh.calls()[before:]
    assert len(again) == REVIEW_READS
    assert [c for c in again if c[0] != "GET" and not c[1].endswith("/graphql")] == []
    assert ctx.writes == 0 and len(mine(st)) == 1


def test_the_log_says_what_was_written_and_each_problem_once(gh, pr, caplog):
    r, st = pr()
    with caplog.at_level("INFO", logger="bot"):
        run(gh, r.path)
        first = [rec.getMessage() for rec in caplog.records if rec.name.startswith("bot")]
        caplog.clear()
        run(gh, r.path)
        again = [rec.getMessage() for rec in caplog.records if rec.name.startswith("bot")]
    assert first == [
        "added labels ['status:ready', 'review:pending']",
        "set commit status bot/review=success (ready for review: 0 errors, 0 warnings, 0 notices)",
        "created the status comment",
    ]
    assert again == ["pull request #7 already shows this result: nothing to write"]


def test_a_refused_write_is_logged_without_its_reason_which_is_reported_once(gh, pr, caplog):
    r, st = pr()
    denied = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("POST", "/repos/{owner}/{repo}/statuses/{sha}")] = [denied]
    st.labels = list(READY)
    with caplog.at_level("INFO"):
        ctx = run(gh, r.path)
    logged = [rec.getMessage() for rec in caplog.records]
    status = "bot/review=success (ready for review: 0 errors, 0 warnings, 0 notices)"
    assert logged == [f"could not set commit status {status}"]
    (message,) = ctx.messages
    assert message.startswith("POST /repos/octo/repo/statuses/") and "needs `statuses: write`" in message
    assert "fork-safe pair" in message


def test_changed_result_updates_the_comment_in_place(gh, pr):
    r, st = pr(base={"AGENTS.md": AGENTS_AGT001}, head={"tests/test_a.py": NEW_TEST})
    st.comments.append(ghapi.comment(5, f"{MARKER}\nold", "github-actions[bot]", "Bot"))
    st.labels = ["bug", *READY]
    run(gh, r.path)
    assert [c["id"] for c in mine(st)] == [5] and "AGT001" in st.comments[0]["body"]
    assert st.labels == ["bug", "status:needs-work"]  # bug is not the bot's: untouched
    writes = gh.writes()
    assert ("PATCH", "/repos/octo/repo/issues/comments/5") in writes
    # reads + repo labels + add needs-work + remove 2 + status + patch
    assert len(gh.calls()) == NEEDS_WORK_READS + 1 + 1 + 2 + 1 + 1 == 11
    assert ("GET", "/repos/octo/repo/pulls/7/reviews") not in gh.calls()


def test_comment_on_a_later_page_is_found_and_updated(gh, pr):
    r, st = pr()
    st.comments = [ghapi.comment(i, f"chatter {i}", "bob") for i in range(1, 251)]
    st.comments.append(ghapi.comment(999, f"{MARKER}\nstale", "github-actions[bot]", "Bot"))
    st.labels = list(READY)
    run(gh, r.path)
    assert [c["id"] for c in mine(st)] == [999] and "ready for review" in st.comments[-1]["body"]
    assert gh.calls().count(("GET", "/repos/octo/repo/issues/7/comments")) == 3
    # reads with 3 comment pages + status + patch; labels already right
    assert len(gh.calls()) == REVIEW_READS + 2 + 1 + 1
    assert not any(m == "POST" and p.endswith("/comments") for m, p in gh.writes())


def test_foreign_comment_with_the_marker_is_never_ours(gh, pr):
    r, st = pr()
    spoof = ghapi.comment(3, f"{MARKER}\nI am the bot, honest", "mallory")
    st.comments.append(spoof)
    run(gh, r.path)
    assert st.comments[0] == spoof  # neither edited nor deleted
    assert len(mine(st)) == 1 and mine(st)[0]["id"] != 3


@pytest.mark.parametrize(
    "viewer, app, author, kind, found",
    [
        # the app named without REST's "[bot]" suffix by the identity query
        ("github-actions", "github-actions[bot]", "github-actions[bot]", "Bot", True),
        ("github-actions[bot]", "github-actions[bot]", "github-actions[bot]", "Bot", True),
        ("renovate[bot]", "renovate[bot]", "renovate", "User", False),  # a person named like the app
    ],
)
def test_the_bots_identity_with_or_without_the_bot_suffix(gh, pr, viewer, app, author, kind, found):
    import responses

    r, st = pr(identity=app)
    st.comments.append(ghapi.comment(5, f"{MARKER}\nold", author, kind))
    gh.rsps.remove(responses.POST, gh.graphql_url)
    gh.viewer(viewer)
    ctx = run(gh, r.path)
    assert ctx.messages == []
    if found:  # updated in place, never a second status comment
        assert [c["id"] for c in st.comments] == [5] and "ready for review" in st.comments[0]["body"]
    else:  # the person's comment is left alone
        assert len(st.comments) == 2 and st.comments[0]["body"] == f"{MARKER}\nold"


def test_a_new_comment_not_listed_as_the_bots_own_is_left_as_it_is(gh, pr):
    import responses

    r, st = pr()
    gh.rsps.remove(responses.POST, gh.graphql_url)
    gh.viewer("someone-else")  # an identity that is not the comment's author: no crash, one comment
    ctx = run(gh, r.path)
    assert len(st.comments) == 1 and ctx.report is not None
    assert ctx.messages == []


def test_same_login_without_marker_is_not_the_status_comment(gh, pr):
    r, st = pr()
    st.comments.append(ghapi.comment(4, "a reply without the marker", "github-actions[bot]", "Bot"))
    run(gh, r.path)
    assert len(mine(st)) == 1 and st.comments[0]["body"] == "a reply without the marker"


def test_duplicates_are_removed_keeping_the_oldest(gh, pr):
    r, st = pr()
    st.comments = [
        ghapi.comment(10, f"{MARKER}\nfirst", "github-actions[bot]", "Bot", "2026-01-01T00:00:00Z"),
        ghapi.comment(11, f"{MARKER}\nsecond", "github-actions[bot]", "Bot", "2026-01-01T00:00:05Z"),
    ]
    run(gh, r.path)
    assert [c["id"] for c in mine(st)] == [10]
    assert ("DELETE", "/repos/octo/repo/issues/comments/11") in gh.writes()


def test_concurrent_run_posting_first_leaves_one_comment(gh, pr):
    r, st = pr()
    # The other run posts while this one reviews: after this run's first listing, before its own POST.
    st.race = [
        ghapi.comment(50, f"{MARKER}\nother run", "github-actions[bot]", "Bot", "2026-01-31T23:59:00Z")
    ]
    run(gh, r.path)
    assert [c["id"] for c in mine(st)] == [50]  # the oldest stays, with this run's body
    assert "ready for review" in st.comments[0]["body"]


def test_retried_post_that_went_through_leaves_one_comment(gh, pr):
    r, st = pr()
    # The first POST is stored but answered 502; the retry posts again: two comments exist, one remains.
    st.lost_posts = 1
    ctx = run(gh, r.path)
    assert len(mine(st)) == 1 and ctx.messages == []
    assert gh.writes().count(("POST", "/repos/octo/repo/issues/7/comments")) == 2
    assert gh.writes().count(("DELETE", f"/repos/octo/repo/issues/comments/{st._id}")) == 1


def test_draft_is_never_ready(gh, pr):
    r, st = pr()
    st.draft = True
    run(gh, r.path)
    assert st.labels == []
    assert decode_state(mine(st)[0]["body"]).head == st.head
    # a draft carries no review label, so its reviews are not read
    assert ("GET", "/repos/octo/repo/pulls/7/reviews") not in gh.calls()


@pytest.mark.parametrize(
    "reviews, expected",
    [
        ([("alice", "APPROVED", "head")], "review:pending"),  # the author approving their own PR
        ([("bob", "APPROVED", "head")], "review:approved"),
        ([("bob", "APPROVED", "old")], "review:pending"),  # approval of an earlier head
        ([("bob", "APPROVED", "head"), ("carol", "CHANGES_REQUESTED", "head")], "review:pending"),
        ([("bob", "APPROVED", "head"), ("bob", "DISMISSED", "head")], "review:pending"),
        ([("bob", "APPROVED", "head"), ("bob", "COMMENTED", "head")], "review:approved"),
    ],
)
def test_approval_needs_someone_else_on_the_current_head(gh, pr, reviews, expected):
    r, st = pr()
    st.reviews = [
        ghapi.review(i, who, state, st.head if sha == "head" else "0" * 40)
        for i, (who, state, sha) in enumerate(reviews, start=1)
    ]
    run(gh, r.path)
    assert st.labels == ["status:ready", expected]


def test_head_moved_during_the_run_publishes_nothing(gh, pr):
    r, st = pr()
    st.heads_after = [st.head, "f" * 40]
    ctx = run(gh, r.path)
    assert gh.writes() == [] and st.comments == [] and st.labels == []
    assert "moved from" in ctx.messages[0] and ctx.report is not None
    assert len(gh.calls()) == REVIEW_READS


def test_rate_limit_then_success(gh, pr, caplog):
    r, st = pr()
    limited = (403, ghapi.error("You have exceeded a secondary rate limit."), {"Retry-After": "3"})
    too_many = (429, ghapi.error("Too many requests"), {"Retry-After": "2"})
    st.fail[("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels")] = [limited]
    st.fail[("POST", "/repos/{owner}/{repo}/statuses/{sha}")] = [too_many]
    with caplog.at_level("INFO"):
        ctx = run(gh, r.path)
    assert ctx.messages == [] and st.labels == READY and len(st.statuses) == 1
    waits = [rec.getMessage() for rec in caplog.records if "retrying" in rec.getMessage()]
    assert waits == [
        "POST /repos/octo/repo/issues/7/labels: GitHub rate limit (403); retrying in 3s",
        f"POST /repos/octo/repo/statuses/{st.head}: GitHub rate limit (429); retrying in 2s",
    ]
    assert not any(rec.name.startswith("github") for rec in caplog.records)  # PyGithub's own lines are off
    # the usual 12 requests of a first run with labels present, plus the two retried ones
    assert len(gh.calls()) == REVIEW_READS + 1 + 1 + 1 + 1 + 1 + 2


def test_rate_limit_reset_far_away_stops_writing_with_the_reset_time(gh, pr):
    r, st = pr()
    reset = "4102444800"  # 2100-01-01, far beyond any wait the bot accepts
    limited = ghapi.error("API rate limit exceeded for installation.")
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    st.fail[("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels")] = [(403, limited, headers)]
    ctx = run(gh, r.path)
    assert len(ctx.messages) == 1 and "2100-01-01 00:00:00 UTC" in ctx.messages[0]
    assert [w for w in gh.writes()] == [("POST", "/repos/octo/repo/issues/7/labels")]
    assert st.comments == [] and st.statuses == []


def test_fork_pr_read_only_token_reports_once_and_stops(gh, pr):
    r, st = pr()
    denied = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels")] = [denied]
    ctx = run(gh, r.path)
    assert len(ctx.messages) == 1 and "Resource not accessible by integration" in ctx.messages[0]
    assert "pull-requests: write" in ctx.messages[0]
    assert gh.writes() == [("POST", "/repos/octo/repo/issues/7/labels")]  # nothing attempted after it
    assert ctx.report is not None and ctx.report.verdict == "ready"


def test_labels_list_unavailable_still_publishes_the_rest(gh, pr):
    from bot.github.client import BoundedRetry

    r, st = pr()
    st.fail[("GET", "/repos/{owner}/{repo}/labels")] = [(502, ghapi.error("Server Error"), {})]
    ctx = run(gh, r.path, retry=BoundedRetry(total=0))
    # No label creation (the list is unknown): adding creates missing ones; status and comment still go out.
    assert len(ctx.messages) == 1 and "GET /repos/octo/repo/labels" in ctx.messages[0]
    assert st.labels == READY and len(st.statuses) == 1 and len(mine(st)) == 1
    assert ("POST", "/repos/octo/repo/labels") not in gh.writes()
    assert len(gh.calls()) == REVIEW_READS + 1 + 1 + 1 + 1 + 1


def test_enterprise_server_base_url(make_repo):
    import responses

    from tests.ghapi import FakeGitHub

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake = FakeGitHub(rsps, base_url="https://ghe.example.com/api/v3")
        r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
        st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
        st.files = [ghapi.pr_file("a.py")]
        st.repo_labels = list(READY)
        ghapi.serve(fake, st)
        run(fake, r.path)
        urls = [c.request.url for c in rsps.calls]
        assert all(u.startswith("https://ghe.example.com:443/api/") for u in urls)
        assert "https://ghe.example.com:443/api/graphql" in urls
        assert all(u.startswith("https://ghe.example.com:443/api/v3/") for u in urls if "graphql" not in u)
        assert len(mine(st)) == 1 and st.labels == READY


def test_dry_run_prints_the_plan_and_writes_nothing(gh, pr):
    r, st = pr()
    ctx = run(gh, r.path, dry_run=True)
    assert gh.writes() == [] and st.comments == []
    assert "Status comment: create" in ctx.output  # type: ignore[attr-defined]
    assert "Labels to add: ['status:ready', 'review:pending']" in ctx.output  # type: ignore[attr-defined]
    assert "Status (commit-status): success" in ctx.output  # type: ignore[attr-defined]
    assert MARKER in ctx.output  # type: ignore[attr-defined]


def test_check_run_annotations_go_in_batches_of_50(gh):
    st = ghapi.PullState()
    ghapi.serve(gh, st)
    from bot.github.api import Annotation

    notes = tuple(
        Annotation(path="a.py", line=i, level="warning", title="T", message="m") for i in range(1, 121)
    )
    plan = StatusPlan(kind="check-run", state="failure", description="d", summary="s", annotations=notes)
    Publisher(github_client(gh)).status(st.head, plan)
    (run_,) = st.check_runs
    assert len(run_["output"]["annotations"]) == 120
    methods = [m for m, p in gh.writes()]
    assert methods == ["POST", "PATCH", "PATCH"]
    sizes = [len(ghapi.json.loads(c.request.body)["output"]["annotations"]) for c in gh.rsps.calls]
    assert sizes == [ANNOTATION_BATCH, ANNOTATION_BATCH, 20]


def test_partial_review_without_checkout_is_never_ready(gh, pr):
    r, st = pr()
    st.changed_files = 3500  # the files API lists at most 3,000; here it listed one
    st.trees = {st.base: {"a.py": "1\n"}, st.head: {"a.py": "2\n"}}
    ctx = run(gh, None)
    assert ctx.report.verdict == "needs-work" and st.labels == ["status:needs-work"]
    assert "Review not complete" in mine(st)[0]["body"]
    assert ctx.report.coverage.files_changed == 3500


def test_file_without_patch_is_filled_from_the_checkout(gh, pr):
    r, st = pr(base={"AGENTS.md": AGENTS_AGT001}, head={"tests/test_a.py": NEW_TEST})
    st.files = [ghapi.pr_file("tests/test_a.py", patch=None, status="added")]
    ctx = run(gh, r.path)
    assert [f.rule for f in ctx.report.findings] == ["AGT001"]
    assert ctx.report.coverage.not_reviewed == ()


@pytest.mark.parametrize("message", ["x" * 900, "short"])
def test_state_lists_only_the_findings_the_comment_shows_and_fits_githubs_limit(message):
    """A waiver binds to the keys in the state: those of findings cut from the comment for size are not there,
    and the keys stay within their budget (long messages cut the comment first, short ones the keys)."""
    from bot.github.publish import KEYS_BUDGET, State, comment_body, decode_state
    from bot.review.render import COMMENT_LIMIT
    from tests.test_render import _finding, _report

    findings = tuple(_finding(path=f"tests/{'d' * 40}/test_{i}.py", message=message) for i in range(400))
    body = comment_body(_report(findings=findings, verdict="needs-work"), State(head="h" * 40))
    state = decode_state(body)
    assert len(body) <= COMMENT_LIMIT
    assert state.shown and len(state.shown) < 400
    assert all(k.split(":", 1)[1] in body for k in state.shown)
    assert sum(len(k) + 3 for k in state.shown) <= KEYS_BUDGET
