"""Events end to end: each event, each command with each permission outcome, waivers across runs."""

from __future__ import annotations

import json

import pytest

from bot.github.events import parse_event
from bot.github.handlers import REPLY_MARKER, Context, dispatch, review_pull
from bot.github.publish import decode_state
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_publish import NEEDS_WORK_READS, READY, mine

NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
COMMENT_ID = 492700400  # the id in GitHub's example delivery
PERMISSION = ("GET", "/repos/octo/repo/collaborators/{}/permission")


def thread_builder(gh, make_repo):
    """Builds a commented pull request: a checkout, the fake GitHub and collaborators bob/rita/adam."""

    def build(base=None, head=None):
        base = {"AGENTS.md": AGENTS_AGT001} if base is None else base
        head = {"tests/test_a.py": NEW_TEST} if head is None else head
        permissions = {"bob": "write", "rita": "read", "adam": "admin"}
        return ghapi.fake_pull(gh, make_repo, base, head, permissions=permissions)

    return build


@pytest.fixture
def setup(gh, make_repo):
    return thread_builder(gh, make_repo)


def deliver(gh, r, name: str, data: dict) -> Context:
    ctx = Context(client=github_client(gh), checkout=r.path if r else None, echo=lambda s: None)
    dispatch(ctx, parse_event(name, json.dumps(data).encode()))
    return ctx


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review"])
def test_pull_request_events_review_and_publish(gh, setup, action):
    r, st = setup()
    ctx = deliver(gh, r, "pull_request", ghapi.pr_event(action, st))
    assert ctx.report.verdict == "needs-work" and st.labels == ["status:needs-work"] and len(mine(st)) == 1


@pytest.mark.parametrize(
    "changes, reviewed", [({"title": {"from": "x"}}, True), ({"body": {"from": ""}}, True), ({}, False)]
)
def test_edited_reviews_only_on_title_body_or_base(gh, setup, changes, reviewed):
    r, st = setup()
    ctx = deliver(gh, r, "pull_request", ghapi.pr_event("edited", st, changes))
    assert (ctx.report is not None) is reviewed
    if not reviewed:
        assert gh.calls() == []


def comment(gh, r, st, body: str, login: str, **kw) -> Context:
    return deliver(gh, r, "issue_comment", ghapi.comment_event(body, login, st, **kw))


def replies(st) -> list[str]:
    return [c["body"] for c in st.comments if REPLY_MARKER in c["body"]]


@pytest.mark.parametrize(
    "login, permission_asked, runs",
    [
        ("alice", False, True),
        ("bob", True, True),
        ("adam", True, True),
        ("rita", True, False),
        ("nobody", True, False),
    ],
)
def test_review_command_permissions(gh, setup, login, permission_asked, runs):
    r, st = setup()
    ctx = comment(gh, r, st, "@bot review", login)
    asked = (PERMISSION[0], PERMISSION[1].format(login)) in gh.calls()
    assert asked is permission_asked
    assert (ctx.report is not None) is runs
    if runs:
        assert st.reactions == [(COMMENT_ID, "+1")]
        assert replies(st) == [] and len(mine(st)) == 1
    else:
        assert st.reactions == [] and len(replies(st)) == 1 and "was not run" in replies(st)[0]
        assert mine(st) == [] and st.labels == []
    if login == "rita":  # the reply as posted: who, which command, why
        assert replies(st)[0] == (
            f"{REPLY_MARKER}\n@rita `@bot review` was not run: only the pull request's author or someone "
            "with write access can run it."
        )


def test_review_by_the_author_costs_these_requests(gh, setup):
    r, st = setup()
    comment(gh, r, st, "@bot review", "alice")
    calls = gh.calls()
    # pull + reaction, then the review (its first pull is reused): files, viewer, comments, pull (needs work:
    # no reviews) + repo labels, add label, status, comment, re-list
    assert calls[:2] == [
        ("GET", "/repos/octo/repo/pulls/7"),
        ("POST", f"/repos/octo/repo/issues/comments/{COMMENT_ID}/reactions"),
    ]
    assert len(calls) == 2 + (NEEDS_WORK_READS - 1) + 5 == 11


@pytest.mark.parametrize("status", [404, 403, 500])
def test_permission_lookup_failure_denies(gh, setup, status):
    r, st = setup()
    template = "/repos/{owner}/{repo}/collaborators/{username}/permission"
    st.fail[("GET", template)] = [(status, ghapi.error("nope"), {})] * 3
    ctx = comment(gh, r, st, "@bot review", "bob")
    assert ctx.report is None and mine(st) == [] and "could not be checked" in replies(st)[0]


@pytest.mark.parametrize(
    "login, allowed, reason",
    [
        ("bob", True, ""),
        ("adam", True, ""),
        ("alice", False, "author cannot waive"),
        ("rita", False, "needs write access"),
        ("nobody", False, "could not be checked"),  # no collaborator entry: 404
    ],
)
def test_waive_command_permissions(gh, setup, login, allowed, reason):
    r, st = setup()
    first_review(gh, r)
    ctx = comment(gh, r, st, "@bot waive AGT001 fixture data, not a regression test", login)
    if allowed:
        assert ctx.report.findings == () and ctx.report.verdict == "ready"
        (w,) = decode_state(mine(st)[0]["body"]).waivers
        assert (w.rule, w.by, w.reason) == ("AGT001", login, "fixture data, not a regression test")
        assert w.at == "2026-03-01T00:00:00Z" and w.fingerprint and w.keys == ("AGT001:tests/test_a.py",)
        assert "Waived" in mine(st)[0]["body"] and st.labels == READY and replies(st) == []
    else:
        assert reason in replies(st)[0] and decode_state(mine(st)[0]["body"]).waivers == ()
    if login == "alice":
        assert (PERMISSION[0], PERMISSION[1].format("alice")) not in gh.calls()


@pytest.mark.parametrize("login, allowed", [("alice", True), ("bob", True), ("rita", False)])
def test_help_command(gh, setup, login, allowed):
    r, st = setup()
    ctx = comment(gh, r, st, "@bot help", login)
    assert ctx.report is None
    if allowed:
        assert len(st.reactions) == 1 and "@bot waive RULE reason" in replies(st)[0]
    else:
        assert st.reactions == [] and "was not run" in replies(st)[0]


@pytest.mark.parametrize(
    "body, login, kw",
    [
        ("@bot review", "alice", {"on_pr": False}),  # a plain issue
        ("@bot review", "dependabot[bot]", {"kind": "Bot"}),  # a bot
        ("nothing to see", "alice", {}),  # no command at all
        ("> @bot review", "alice", {}),  # quoted
    ],
)
def test_ignored_comments_make_no_request(gh, setup, body, login, kw):
    r, st = setup()
    ctx = comment(gh, r, st, body, login, **kw)
    assert ctx.report is None and gh.calls() == []


def test_command_without_checkout_reads_each_file_once(gh, setup):
    r, st = setup()
    head = {"AGENTS.md": AGENTS_AGT001, "tests/test_a.py": NEW_TEST}
    st.trees = {st.base: {"AGENTS.md": AGENTS_AGT001}, st.head: head}
    ctx = comment(gh, None, st, "@bot review", "alice")
    assert [f.rule for f in ctx.report.findings] == ["AGT001"]
    reads = [p for m, p in gh.calls() if "/contents/" in p]
    # the config is read for the handle, then reused by the review; AGENTS.md at base and the test at head
    # come in one GraphQL query: every file once
    assert reads == ["/repos/octo/repo/contents/.github/bot.yml"]
    assert gh.graphql().count("blobs:2") == 1 and [q for q in gh.graphql() if q.startswith("blobs")] == [
        "blobs:2"
    ]


def test_comment_for_another_handle_stops_after_reading_config(gh, setup):
    r, st = setup(base={"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": "handle: reviewer\n"})
    comment(gh, r, st, "@bot review", "alice")
    assert gh.calls() == [("GET", "/repos/octo/repo/pulls/7")]  # config came from the checkout
    comment(gh, r, st, "@reviewer review", "alice")
    assert len(mine(st)) == 1


def first_review(gh, r) -> None:
    """The review a pull request gets when opened: the status comment a waive command's writer reads."""
    review_pull(Context(client=github_client(gh), checkout=r.path, echo=lambda s: None), 7)


def test_waiver_survives_later_runs_until_the_code_changes(gh, setup):
    r, st = setup()
    first_review(gh, r)
    comment(gh, r, st, "@bot waive AGT001 intended", "bob")
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    assert ctx.report.findings == () and len(decode_state(mine(st)[0]["body"]).waivers) == 1
    # a new push changes the waived test file: the waiver lapses and the finding is back
    st.head = r.commit({"tests/test_a.py": NEW_TEST + "\n\ndef test_more():\n    assert True\n"}, "push")
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    assert [f.rule for f in ctx.report.findings] == ["AGT001"]
    body = mine(st)[0]["body"]
    assert "lapsed" in body and decode_state(body).waivers == () and st.labels == ["status:needs-work"]


def test_waiver_text_is_sanitised_in_the_comment(gh, setup):
    r, st = setup()
    first_review(gh, r)
    comment(gh, r, st, "@bot waive AGT001 see @org/team and #12 <img src=x>", "bob")
    body = mine(st)[0]["body"]
    assert "<img" not in body and "@org/team" not in body and "#12" not in body


@pytest.mark.parametrize(
    "reviewer, state, expected",
    [("bob", "approved", "review:approved"), ("alice", "approved", "review:pending")],
)
def test_review_submitted_recomputes_the_review_label_only(gh, setup, reviewer, state, expected):
    r, st = setup(base={"a.py": "1\n"}, head={"a.py": "2\n"})
    st.labels = list(READY)
    st.reviews = [ghapi.review(1, reviewer, state.upper(), st.head)]
    deliver(gh, r, "pull_request_review", ghapi.review_event("submitted", st, reviewer, state))
    assert st.labels == ["status:ready", expected]
    changed = expected != "review:pending"
    # pull + reviews (config from the checkout); then repo labels + add + remove when the label changes
    assert len(gh.calls()) == 2 + (3 if changed else 0)
    assert all("comments" not in p for _, p in gh.writes())


def test_review_dismissed_returns_to_pending(gh, setup):
    r, st = setup(base={"a.py": "1\n"}, head={"a.py": "2\n"})
    st.labels = ["status:ready", "review:approved"]
    st.reviews = [ghapi.review(1, "bob", "APPROVED", st.head), ghapi.review(2, "bob", "DISMISSED", st.head)]
    deliver(gh, r, "pull_request_review", ghapi.review_event("dismissed", st, "bob", "dismissed"))
    assert st.labels == ["status:ready", "review:pending"]


def test_review_event_without_checkout_reads_config_from_the_api(gh, setup):
    r, st = setup(base={"a.py": "1\n"}, head={"a.py": "2\n"})
    st.labels = ["status:needs-work"]
    deliver(gh, None, "pull_request_review", ghapi.review_event("submitted", st, "bob", "approved"))
    assert st.labels == ["status:needs-work"]  # no review label without ready
    # config (contents) + pull; not ready, so the reviews are not even read
    assert gh.calls() == [
        ("GET", "/repos/octo/repo/contents/.github/bot.yml"),
        ("GET", "/repos/octo/repo/pulls/7"),
    ]


def test_comment_waivers_and_in_code_waivers_coexist(gh, setup):
    waived = "def test_regression():  # bot: ignore[AGT001] exercised by the nightly job\n    assert True\n"
    r, st = setup(head={"tests/test_a.py": NEW_TEST, "tests/test_b.py": waived})
    first_review(gh, r)
    comment(gh, r, st, "@bot waive AGT001 intended", "bob")
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    state = decode_state(mine(st)[0]["body"])
    assert [w.by for w in state.waivers] == ["bob"]  # the state keeps comment waivers only
    assert "lapsed" not in mine(st)[0]["body"] and ctx.report.findings == ()
    assert {w.path for w in ctx.report.waivers} >= {"tests/test_b.py"}


def test_many_denied_commands_get_one_reply(gh, setup):
    """Five commands from a read-only user: one reply naming each once, one ping, nothing run."""
    r, st = setup()
    body = "\n".join(
        ["@bot waive AGT001 one", "@bot waive AGT002 two", "@bot review", "@bot help", "@bot review"]
    )
    ctx = comment(gh, r, st, body, "rita")
    assert ctx.report is None and st.reactions == [] and mine(st) == []
    (reply,) = replies(st)
    assert reply.count("@rita") == 1
    assert reply.count("`@bot waive` was not run") == 1 and reply.count("`@bot review` was not run") == 1
    assert reply.count("`@bot help` was not run") == 1


def test_denied_and_allowed_commands_share_one_reply(gh, setup):
    r, st = setup()
    ctx = comment(gh, r, st, "@bot help\n@bot waive AGT001 mine", "alice")
    assert ctx.report is None
    (reply,) = replies(st)
    assert "`@bot waive` was not run" in reply and "@bot waive RULE reason" in reply


OTHER_TEST = 'def test_other():\n    """Checks another thing no longer overflows."""\n    assert 2 + 2 == 4\n'


def _push_other_test(r, st) -> None:
    st.head = r.commit({"tests/test_b.py": OTHER_TEST}, "push a second unreferenced test")
    st.files.append(ghapi.pr_file("tests/test_b.py", status="added"))


def test_waiver_does_not_cover_a_finding_pushed_after_it_was_written(gh, setup):
    """Break 4: the comment showed tests/test_a.py; a push adds tests/test_b.py before the command runs."""
    r, st = setup()
    first_review(gh, r)
    assert decode_state(mine(st)[0]["body"]).shown == ("AGT001:tests/test_a.py",)
    _push_other_test(r, st)
    ctx = comment(gh, r, st, "@bot waive AGT001 fixture data", "bob")
    assert [(f.rule, f.path) for f in ctx.report.findings] == [("AGT001", "tests/test_b.py")]
    assert ctx.report.verdict == "needs-work" and st.labels == ["status:needs-work"]
    (w,) = decode_state(mine(st)[0]["body"]).waivers
    assert w.keys == ("AGT001:tests/test_a.py",)
    (reply,) = replies(st)
    assert "@bob" in reply and "does not cover tests/test_b.py" in reply and "test_a.py" not in reply
    # Later runs keep waiving test_a.py alone.
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    assert [f.path for f in ctx.report.findings] == ["tests/test_b.py"]


def test_waiver_written_before_the_status_comment_changed_binds_what_its_writer_saw(gh, setup):
    """The push's review edits the status comment after the command was written, before it is processed."""
    r, st = setup()
    first_review(gh, r)
    written = mine(st)[0]["updated_at"]  # the writer read the first version
    _push_other_test(r, st)
    first_review(gh, r)  # the push's run: the comment now shows test_a.py and test_b.py
    state = decode_state(mine(st)[0]["body"])
    assert state.shown == ("AGT001:tests/test_a.py", "AGT001:tests/test_b.py")
    assert state.earlier == ("AGT001:tests/test_a.py",) and state.earlier_at == written
    assert mine(st)[0]["updated_at"] > written
    ctx = deliver(
        gh, r, "issue_comment", ghapi.comment_event("@bot waive AGT001 x", "bob", st, created=written)
    )
    assert [f.path for f in ctx.report.findings] == ["tests/test_b.py"]
    assert "does not cover tests/test_b.py" in replies(st)[0]


def test_waiver_older_than_the_comments_last_two_versions_waives_nothing(gh, setup):
    r, st = setup()
    ctx = deliver(
        gh,
        r,
        "issue_comment",
        ghapi.comment_event("@bot waive AGT001 x", "bob", st, created="2026-01-01T00:00:00Z"),
    )
    # No status comment existed when it was written: nothing was shown, nothing is waived.
    assert [f.path for f in ctx.report.findings] == ["tests/test_a.py"]
    assert "waived nothing" in replies(st)[0] and decode_state(mine(st)[0]["body"]).waivers == ()
    first_review(gh, r)
    _push_other_test(r, st)
    first_review(gh, r)  # the comment was written (1), replaced at the push (2): the command predates both
    ctx = deliver(
        gh,
        r,
        "issue_comment",
        ghapi.comment_event("@bot waive AGT001 x", "bob", st, created="2026-01-01T00:00:00Z"),
    )
    assert len(ctx.report.findings) == 2 and "waived nothing" in replies(st)[-1]


def test_waiver_of_a_rule_the_comment_did_not_show_waives_nothing(gh, setup):
    r, st = setup()
    first_review(gh, r)
    ctx = comment(gh, r, st, "@bot waive AGT002 not shown", "bob")
    assert [f.rule for f in ctx.report.findings] == ["AGT001"]
    assert "showed no AGT002 finding" in replies(st)[0] and decode_state(mine(st)[0]["body"]).waivers == ()


def test_waiver_without_keys_still_covers_its_whole_rule(gh, setup):
    """A waiver recorded before keys existed (keys null) keeps covering every finding of its rule."""
    from bot.github.publish import encode_state

    r, st = setup(head={"tests/test_a.py": NEW_TEST, "tests/test_b.py": OTHER_TEST})
    first_review(gh, r)
    comment(gh, r, st, "@bot waive AGT001 both shown", "bob")
    status = mine(st)[0]
    state = decode_state(status["body"])
    (w,) = state.waivers
    old = state.model_copy(update={"waivers": (w.model_copy(update={"keys": None}),), "shown": None})
    status["body"] = status["body"].split("<!-- bot-review:state ")[0] + encode_state(old) + "\n"
    ctx = Context(client=github_client(gh), checkout=r.path)
    review_pull(ctx, 7)
    assert ctx.report.findings == () and decode_state(mine(st)[0]["body"]).waivers[0].keys is None
