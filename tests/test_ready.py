"""`status:ready` waits for the gating checks, follows them as they finish, and merge queues get a status.

End to end through the fake GitHub: every mocked body is validated against the OpenAPI subset (rulesets,
branch protection, check runs and combined status of a ref, compare), and every delivery is one of octokit's
example payloads with the named fields changed, validated against its schema.
"""

from __future__ import annotations

import json

import pytest

from bot.github.events import parse_event
from bot.github.handlers import Context, dispatch, review_pull
from bot.github.queue import queued_pull
from rules.core.readiness import CheckState, Gate, GateCheck, gate, readiness, run_outcome, status_outcome
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_publish import READY, mine

CLEAN = ({"a.py": "1\n"}, {"a.py": "2\n"})
BAD_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
PENDING = ["status:checks-pending"]
NEEDS_WORK = ["status:needs-work"]


def build(gh, make_repo, config: str | None = None, base=None, head=None):
    base = dict(CLEAN[0] if base is None else base)
    head = dict(CLEAN[1] if head is None else head)
    if config is not None:
        base[".github/bot.yml"] = config
    r, st = ghapi.fake_pull(gh, make_repo, base, head)
    # What the API gives without a checkout (events about checks and merge queues run with none).
    st.trees[st.base] = dict(base)
    st.trees[st.head] = {**base, **head}
    return r, st


def review(gh, r) -> Context:
    ctx = Context(client=github_client(gh), checkout=r.path, echo=lambda s: None)
    review_pull(ctx, 7)
    return ctx


def deliver(gh, name: str, data: dict) -> tuple[Context, list[tuple[str, str]]]:
    """One delivery handled as in Actions (no checkout); the requests it made."""
    before = len(gh.calls())
    ctx = Context(client=github_client(gh), checkout=None, echo=lambda s: None)
    assert dispatch(ctx, parse_event(name, json.dumps(data).encode()))
    return ctx, gh.calls()[before:]


def writes(calls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(m, p) for m, p in calls if m in ghapi.WRITE_METHODS and not p.endswith("/graphql")]


def body(st) -> str:
    return mine(st)[0]["body"]


# --- deliveries: octokit's examples with this pull request's numbers, validated against their schemas -------


def workflow_run(st, conclusion: str = "success", with_pull: bool = True) -> dict:
    name = "completed.with-pull-requests.payload.json" if with_pull else "completed.payload.json"
    p = ghapi.payload("workflow_run", name)
    run = p["workflow_run"]
    run.update(head_sha=st.head, conclusion=conclusion, name="CI", event="pull_request")
    run["head_repository"]["full_name"] = "octo/repo"
    if with_pull:
        run["pull_requests"][0]["number"] = st.number
        run["pull_requests"][0]["head"]["sha"] = st.head
    else:
        run["head_branch"] = "no-pull-request"
    ghapi.validate_payload("workflow_run", "completed", p)
    return p


def check_run_event(st, name: str, conclusion: str) -> dict:
    p = ghapi.payload("check_run", "completed.payload.json")
    p["check_run"].update(name=name, head_sha=st.head, conclusion=conclusion)
    p["check_run"]["pull_requests"][0]["number"] = st.number
    p["check_run"]["pull_requests"][0]["head"]["sha"] = st.head
    ghapi.validate_payload("check_run", "completed", p)
    return p


def status_event(st, context: str, state: str) -> dict:
    p = ghapi.payload("status", "payload.json")
    p.update(sha=st.head, context=context, state=state, target_url="https://ci.example.com/1")
    p["repository"]["full_name"] = "octo/repo"
    p["branches"] = [{**p["branches"][0], "name": "feature"}]
    ghapi.validate_payload("status", "event", p)
    return p


def merge_group_event(st, number: int = 7) -> dict:
    p = ghapi.payload("merge_group", "checks_requested.payload.json")
    group = p["merge_group"]
    group.update(head_sha=st.head, base_sha=st.base)
    group["head_ref"] = f"refs/heads/gh-readonly-queue/main/pr-{number}-{st.base}"
    ghapi.validate_payload("merge_group", "checks_requested", p)
    return p


def run_state(rid: int, name: str, st, status: str = "completed", conclusion: str | None = "success") -> dict:
    return ghapi.check_run(rid, name, st.head, status, conclusion)


# --- the pure decision -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "conclusion", "outcome"),
    [
        ("completed", "success", "success"),
        ("completed", "neutral", "success"),
        ("completed", "skipped", "success"),
        ("completed", "failure", "failure"),
        ("completed", "timed_out", "failure"),
        ("completed", "cancelled", "failure"),
        ("completed", "action_required", "failure"),
        ("in_progress", None, "pending"),
        ("queued", None, "pending"),
    ],
)
def test_a_check_run_passes_on_success_neutral_or_skipped(status, conclusion, outcome):
    assert run_outcome(status, conclusion) == outcome


@pytest.mark.parametrize(
    ("state", "outcome"),
    [("success", "success"), ("failure", "failure"), ("error", "failure"), ("pending", "pending")],
)
def test_a_commit_status_fails_on_failure_or_error(state, outcome):
    assert status_outcome(state) == outcome


def _s(name: str, outcome: str, kind: str = "check-run") -> CheckState:
    return CheckState(name=name, kind=kind, outcome=outcome)  # type: ignore[arg-type]


OWN = frozenset({"bot/review", "bot review"})


@pytest.mark.parametrize(
    ("setting", "required", "observed", "expected"),
    [
        ("none", ("test",), (_s("test", "failure"),), ()),
        ("required", ("test",), (), (("test", "pending", False),)),
        ("required", ("test",), (_s("test", "success"), _s("lint", "failure")), (("test", "success", True),)),
        (
            "all",
            (),
            (_s("b", "failure"), _s("a", "success")),
            (("a", "success", True), ("b", "failure", True)),
        ),
        ("all", (), (_s("bot/review", "failure", "status"), _s("a", "success")), (("a", "success", True),)),
        ("required", ("bot/review",), (_s("bot/review", "failure", "status"),), ()),
        (("ci/*",), (), (_s("ci/x", "success", "status"), _s("cd", "failure")), (("ci/x", "success", True),)),
        (("lint",), (), (), (("lint", "pending", False),)),
        (
            ("test",),
            (),
            (_s("test", "success"), _s("test", "failure", "status")),
            (("test", "failure", True),),
        ),
    ],
    ids=[
        "none",
        "required-missing",
        "required-only",
        "all-sorted",
        "all-not-own",
        "own-never",
        "glob",
        "plain-name-awaited",
        "same-name-any-failure",
    ],  # fmt: skip
)
def test_which_checks_gate(setting, required, observed, expected):
    got = gate(setting, required, observed, OWN)
    assert tuple((c.name, c.outcome, c.reported) for c in got.checks) == expected


@pytest.mark.parametrize(
    ("verdict", "outcomes", "expected"),
    [
        ("ready", None, "ready"),
        ("ready", ("success",), "ready"),
        ("ready", ("success", "pending"), "checks-pending"),
        ("ready", ("pending", "failure"), "needs-work"),
        ("needs-work", ("success",), "needs-work"),
        ("needs-work", ("pending",), "needs-work"),
    ],
)
def test_the_verdict_combines_review_and_checks(verdict, outcomes, expected):
    g = (
        None
        if outcomes is None
        else Gate(checks=tuple(GateCheck(name=f"c{i}", outcome=o) for i, o in enumerate(outcomes)))
    )
    assert readiness(verdict, g) == expected


def test_checks_that_could_not_be_read_are_never_ready():
    assert readiness("ready", Gate(unread="GitHub answered 502")) == "checks-pending"


@pytest.mark.parametrize(
    ("ref", "number"),
    [
        ("refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64", 104),
        ("gh-readonly-queue/release/v2/pr-7-" + "a" * 40, 7),
        ("refs/heads/feature/pr-7-" + "a" * 40, None),
        ("refs/heads/gh-readonly-queue/main/pr-7", None),
    ],
)
def test_the_queued_pull_request_is_read_from_the_queue_branch(ref, number):
    assert queued_pull(ref) == number


def test_the_fixture_payloads_validate_against_their_schemas():
    for event, action, name in [
        ("check_run", "completed", "completed.payload.json"),
        ("check_suite", "completed", "completed.payload.json"),
        ("status", "event", "payload.json"),
        ("workflow_run", "completed", "completed.payload.json"),
        ("workflow_run", "completed", "completed.with-pull-requests.payload.json"),
        ("merge_group", "checks_requested", "checks_requested.payload.json"),
    ]:
        ghapi.validate_payload(event, action, ghapi.payload(event, name))


# --- end to end --------------------------------------------------------------------------------------------


def test_required_check_pending_then_failing_then_green_via_workflow_run(gh, make_repo):
    r, st = build(gh, make_repo)
    st.rules = [ghapi.required_rule("test")]
    st.ci_runs = [run_state(501, "test", st, "in_progress", None)]
    ctx = review(gh, r)
    assert ctx.report.verdict == "ready" and st.labels == PENDING
    assert "### ⏳ bot: waiting for checks" in body(st) and "waiting for: test" in body(st)
    assert "checks: ⏳ test" in body(st)
    # The bot's own status follows its review alone: success, so a ruleset requiring it is not held up.
    assert [s["state"] for s in st.statuses] == ["success"]

    st.ci_runs = [run_state(501, "test", st, conclusion="failure")]
    _, calls = deliver(gh, "workflow_run", workflow_run(st, "failure"))
    assert st.labels == NEEDS_WORK
    assert "### ❌ bot: needs work" in body(st)
    assert "failed: [test](https://github.com/octo/repo/runs/501)" in body(st)
    # pull, config, check runs, statuses, rulesets, protection, viewer, comments; then the label writes
    # (repository labels, add, remove) and the comment's edit. No review, no new status.
    assert len(calls) == 8 + 4 and writes(calls) == [
        ("POST", "/repos/octo/repo/issues/7/labels"),
        ("DELETE", "/repos/octo/repo/issues/7/labels/status%3Achecks-pending"),
        ("PATCH", f"/repos/octo/repo/issues/comments/{mine(st)[0]['id']}"),
    ]
    assert len(st.statuses) == 1 and not any("/files" in p for _, p in calls)

    st.ci_runs = [run_state(502, "test", st, "in_progress", None)]  # re-run
    deliver(gh, "workflow_run", workflow_run(st, "success"))
    assert st.labels == PENDING

    st.ci_runs = [run_state(502, "test", st)]
    _, calls = deliver(gh, "workflow_run", workflow_run(st, "success"))
    assert st.labels == READY
    assert "### ✅ bot: ready for review" in body(st) and "checks: ✅ test" in body(st)
    assert "waiting for" not in body(st) and "failed:" not in body(st)
    # ready: the reviews are read too (the review label follows approval)
    assert ("GET", "/repos/octo/repo/pulls/7/reviews") in calls

    # The same delivery again: the labels and the comment already say it, nothing is written.
    _, calls = deliver(gh, "workflow_run", workflow_run(st, "success"))
    assert writes(calls) == [] and len(calls) == 9


def test_all_with_a_failing_third_party_check(gh, make_repo):
    r, st = build(gh, make_repo, "ready:\n  checks: all\n")
    st.ci_runs = [run_state(601, "lint", st), run_state(602, "codecov/patch", st, conclusion="failure")]
    ctx = review(gh, r)
    assert ctx.report.verdict == "ready" and st.labels == NEEDS_WORK
    assert "checks: ❌ codecov/patch · ✅ lint" in body(st)
    assert "failed: [codecov/patch](https://github.com/octo/repo/runs/602)" in body(st)
    # `all` reads the commit's checks only: no rulesets or protection
    assert not any("/rules/" in p or "/protection/" in p for _, p in gh.calls())


def test_a_list_with_a_glob(gh, make_repo):
    r, st = build(gh, make_repo, 'ready:\n  checks: ["ci/*", lint]\n')
    st.ci_statuses = [
        ghapi.commit_status(1, "ci/build", "success"),
        ghapi.commit_status(2, "ci/test", "pending"),
    ]
    st.ci_runs = [run_state(701, "lint", st), run_state(702, "docs", st, conclusion="failure")]
    review(gh, r)
    assert st.labels == PENDING
    assert "checks: ✅ ci/build · ⏳ ci/test · ✅ lint" in body(st) and "waiting for: ci/test" in body(st)
    assert "docs" not in body(st)  # not named by the list: its failure does not gate


def test_a_listed_check_not_reported_yet_is_awaited(gh, make_repo):
    r, st = build(gh, make_repo, "ready:\n  checks: [rollout-smoke]\n")
    review(gh, r)
    assert st.labels == PENDING and "waiting for: rollout-smoke" in body(st)


def test_none_is_the_review_alone(gh, make_repo):
    r, st = build(gh, make_repo, "ready:\n  checks: none\n")
    st.rules = [ghapi.required_rule("test")]
    st.ci_runs = [run_state(801, "test", st, conclusion="failure")]
    review(gh, r)
    assert st.labels == READY and "checks:" not in body(st)
    assert not any("/commits/" in p or "/rules/" in p or "/protection/" in p for _, p in gh.calls())
    # and the events about checks do nothing more than read the pull request and its config
    _, calls = deliver(gh, "workflow_run", workflow_run(st, "failure"))
    assert writes(calls) == [] and len(calls) == 2 and st.labels == READY


def test_a_status_context_from_an_external_ci(gh, make_repo):
    r, st = build(gh, make_repo)
    st.protection = ["ci/jenkins"]  # classic branch protection, readable by this token
    st.ci_statuses = [ghapi.commit_status(1, "ci/jenkins", "pending", "https://ci.example.com/1")]
    review(gh, r)
    assert st.labels == PENDING and "waiting for: ci/jenkins" in body(st)

    st.ci_statuses = [ghapi.commit_status(1, "ci/jenkins", "error", "https://ci.example.com/1")]
    _, calls = deliver(gh, "status", status_event(st, "ci/jenkins", "error"))
    assert st.labels == NEEDS_WORK and "failed: [ci/jenkins](https://ci.example.com/1)" in body(st)
    # the status names no pull request: its branch is looked up (one request)
    assert calls[0] == ("GET", "/repos/octo/repo/pulls")

    st.ci_statuses = [ghapi.commit_status(1, "ci/jenkins", "success", "https://ci.example.com/1")]
    deliver(gh, "status", status_event(st, "ci/jenkins", "success"))
    assert st.labels == READY and "checks: ✅ ci/jenkins" in body(st)


def test_protection_refused_to_the_token_is_not_an_error(gh, make_repo):
    r, st = build(gh, make_repo)
    st.protection_status = 403
    st.rules = [ghapi.required_rule("test")]
    st.ci_runs = [run_state(901, "test", st)]
    ctx = review(gh, r)
    assert ctx.messages == [] and st.labels == READY and "checks: ✅ test" in body(st)


def test_a_check_rerun_turning_red_after_ready(gh, make_repo):
    r, st = build(gh, make_repo)
    st.rules = [ghapi.required_rule("test")]
    st.ci_runs = [run_state(1001, "test", st)]
    review(gh, r)
    assert st.labels == READY
    st.ci_runs = [run_state(1002, "test", st, conclusion="failure")]
    _, calls = deliver(gh, "check_run", check_run_event(st, "test", "failure"))
    assert st.labels == NEEDS_WORK and "failed: [test](https://github.com/octo/repo/runs/1002)" in body(st)
    # ready and review:pending go, needs-work comes; no review reads, no status
    assert ("DELETE", "/repos/octo/repo/issues/7/labels/review%3Apending") in writes(calls)
    assert not any("/statuses/" in p or "/files" in p for _, p in calls)


def test_the_bots_own_check_never_counts(gh, make_repo):
    r, st = build(gh, make_repo, "ready:\n  checks: all\n")
    st.ci_runs = [run_state(1101, "lint", st)]
    review(gh, r)
    assert st.labels == READY and [s["context"] for s in st.statuses] == ["bot/review"]
    # Reviewed again: its own status is now on the head, and still not a gating check of its own.
    st.ci_runs.append(run_state(1102, "bot review", st, conclusion="failure"))
    review(gh, r)
    assert st.labels == READY and "bot/review" not in body(st).split("checks:")[1].split("\n")[0]
    assert "bot review" not in body(st).split("checks:")[1].split("\n")[0]
    # An event about the bot's own check run or status costs nothing.
    _, calls = deliver(gh, "check_run", check_run_event(st, "bot review", "failure"))
    assert calls == []
    _, calls = deliver(gh, "status", status_event(st, "bot/review", "failure"))
    assert calls == []


def test_a_needs_work_review_ignores_the_checks(gh, make_repo):
    r, st = build(gh, make_repo, base={"AGENTS.md": AGENTS_AGT001}, head={"tests/test_a.py": BAD_TEST})
    st.rules = [ghapi.required_rule("test")]
    review(gh, r)
    assert st.labels == NEEDS_WORK and "checks:" not in body(st)
    st.ci_runs = [run_state(1201, "test", st)]
    _, calls = deliver(gh, "workflow_run", workflow_run(st))
    # pull, config, check runs, statuses: its own failed status says the review needs work; nothing written
    assert writes(calls) == [] and len(calls) == 4 and st.labels == NEEDS_WORK


def test_a_workflow_run_whose_head_has_no_pull_request_costs_one_request(gh, make_repo):
    r, st = build(gh, make_repo)
    _, calls = deliver(gh, "workflow_run", workflow_run(st, with_pull=False))
    assert calls == [("GET", "/repos/octo/repo/pulls")]


def test_a_check_suite_of_another_app_relabels(gh, make_repo):
    r, st = build(gh, make_repo)
    st.rules = [ghapi.required_rule("Octocoders-linter")]
    review(gh, r)
    assert st.labels == PENDING
    st.ci_runs = [run_state(1301, "Octocoders-linter", st)]
    p = ghapi.payload("check_suite", "completed.payload.json")
    p["check_suite"]["head_sha"] = st.head
    p["check_suite"]["pull_requests"][0]["number"] = st.number
    ghapi.validate_payload("check_suite", "completed", p)
    deliver(gh, "check_suite", p)
    assert st.labels == READY


def test_a_review_event_keeps_checks_pending(gh, make_repo):
    r, st = build(gh, make_repo)
    st.rules = [ghapi.required_rule("test")]
    review(gh, r)
    assert st.labels == PENDING
    ctx = Context(client=github_client(gh), checkout=r.path, echo=lambda s: None)
    dispatch(
        ctx,
        parse_event(
            "pull_request_review", json.dumps(ghapi.review_event("submitted", st, "bob", "approved")).encode()
        ),
    )
    assert st.labels == PENDING


@pytest.mark.parametrize("event", ["check_run", "check_suite", "status", "workflow_run"])
def test_the_events_about_checks_never_run_pull_request_tests(event):
    from bot.github.entry import verify_refusal

    assert "never runs in a" in (verify_refusal({"GITHUB_EVENT_NAME": event}) or "")


def test_merge_group_clean(gh, make_repo):
    r, st = build(gh, make_repo)
    ctx, calls = deliver(gh, "merge_group", merge_group_event(st))
    assert ctx.report.verdict == "ready"
    assert st.statuses == [
        {
            "sha": st.head,
            "state": "success",
            "context": "bot/review",
            "description": "ready for review: 0 errors, 0 warnings, 0 notices",
        }
    ]
    # the status is the only write: no label, no comment
    assert writes(calls) == [("POST", f"/repos/octo/repo/statuses/{st.head}")]
    assert st.labels == [] and st.comments == []
    assert ("GET", f"/repos/octo/repo/compare/{st.base}...{st.head}") in calls
    # the queued pull request, compare, config, base tree, viewer, comments (waivers), 2 blob queries, status
    assert len(calls) == 7 + 2


def test_merge_group_with_an_error_finding(gh, make_repo):
    r, st = build(gh, make_repo, base={"AGENTS.md": AGENTS_AGT001}, head={"tests/test_a.py": BAD_TEST})
    st.files = [
        ghapi.pr_file(
            "tests/test_a.py",
            "@@ -0,0 +1,3 @@\n" + "".join(f"+{x}\n" for x in BAD_TEST.splitlines()),
            "added",
            3,
        )
    ]
    ctx, calls = deliver(gh, "merge_group", merge_group_event(st))
    assert ctx.report.verdict == "needs-work"
    assert [(f.rule, f.severity.value) for f in ctx.report.findings] == [("AGT001", "error")]
    assert [s["state"] for s in st.statuses] == ["failure"] and st.statuses[0]["context"] == "bot/review"
    assert writes(calls) == [("POST", f"/repos/octo/repo/statuses/{st.head}")] and st.comments == []


def test_merge_group_posts_a_check_run_under_the_same_name(gh, make_repo):
    r, st = build(gh, make_repo)
    ctx = Context(client=github_client(gh), checkout=None, echo=lambda s: None, check_run=True)
    dispatch(ctx, parse_event("merge_group", json.dumps(merge_group_event(st)).encode()))
    assert [(c["name"], c["head_sha"], c["conclusion"]) for c in st.check_runs] == [
        ("bot review", st.head, "success")
    ]


@pytest.mark.parametrize(
    ("url", "linked"),
    [
        ("https://github.com/octo/repo/runs/5", True),
        ("https://ci.example.com:8443/job/1?x=1#L2", True),
        ("http://ci.example.com/1", False),
        ("javascript:alert(1)", False),
        ("https://ci.example.com/a b", False),
        ("https://ci.example.com/a)(b", False),
        (None, False),
    ],
)
def test_a_check_is_linked_only_to_a_plain_https_address(url, linked):
    from rules.core.sanitize import link

    shown = link("ci/[x]", url)
    assert shown.startswith("[ci/\\[x\\]](") is linked and "ci/\\[x\\]" in shown


def test_a_hostile_check_name_stays_inert_in_the_comment(gh, make_repo):
    r, st = build(gh, make_repo, "ready:\n  checks: all\n")
    st.ci_runs = [run_state(1401, "@admins <img src=x> #1 [a](https://evil)", st, conclusion="failure")]
    review(gh, r)
    top = body(st).split("No findings")[0]
    assert "<img" not in top and "@admins" not in top and "](https://evil)" not in top
    assert "failed: [" in top and "](https://github.com/octo/repo/runs/1401)" in top


@pytest.mark.parametrize(
    ("text", "checks"),
    [
        ("", "required"),
        ("ready:\n  checks: all\n", "all"),
        ("ready:\n  checks: none\n", "none"),
        ("ready:\n  checks: test\n", ("test",)),
        ('ready:\n  checks: [test, "ci/*"]\n', ("test", "ci/*")),
    ],
)
def test_ready_checks_in_the_config(text, checks):
    from rules.catalog import REGISTRY
    from rules.core.config import parse_config

    assert parse_config(text, REGISTRY.values()).ready.checks == checks


@pytest.mark.parametrize("value", ["5", "[test, 3]", '[""]', "{a: b}"])
def test_a_wrong_ready_checks_names_its_key_and_line(value):
    from rules.catalog import REGISTRY
    from rules.core.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as err:
        parse_config(f"handle: bot\nready:\n  checks: {value}\n", REGISTRY.values())
    assert "`ready.checks" in str(err.value) and "line 3" in str(err.value)


def test_required_checks_are_those_of_the_rulesets_and_the_protection_together(gh, make_repo):
    r, st = build(gh, make_repo)
    st.rules = [ghapi.required_rule("test", "lint")]
    st.protection = ["lint", "ci/jenkins"]
    st.ci_runs = [run_state(1501, "test", st), run_state(1502, "lint", st)]
    review(gh, r)
    assert st.labels == PENDING and "checks: ✅ test · ✅ lint · ⏳ ci/jenkins" in body(st)
