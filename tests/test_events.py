"""Webhook payloads: the fixtures match their schemas, parse into models once, and route by table."""

from __future__ import annotations

import json

import pytest

from bot.github.events import EventError, parse_event
from bot.github.handlers import ROUTES, Context, dispatch
from tests import ghapi

EXAMPLES = [
    ("pull_request", "opened", "opened.payload.json"),
    ("pull_request", "opened", "opened.with-null-body.json"),
    ("pull_request", "synchronize", "synchronize.payload.json"),
    ("pull_request", "reopened", "reopened.payload.json"),
    ("pull_request", "ready_for_review", "ready_for_review.payload.json"),
    ("pull_request", "closed", "closed.payload.json"),
    ("issue_comment", "created", "created.payload.json"),
    ("issue_comment", "edited", "edited.payload.json"),
    ("pull_request_review", "submitted", "submitted.payload.json"),
]


@pytest.mark.parametrize("event, action, name", EXAMPLES)
def test_fixture_payloads_match_their_schemas(event, action, name):
    data = ghapi.payload(event, name)
    ghapi.validate_payload(event, action, data)
    parsed = parse_event(event, json.dumps(data).encode())
    assert parsed.key == (event, action)


def test_pull_request_fields():
    ev = parse_event(
        "pull_request", json.dumps(ghapi.payload("pull_request", "opened.with-null-body.json")).encode()
    )
    pr = ev.pull_request
    assert pr.number == 2 and pr.body is None and pr.user.login == "Codertocat" and len(pr.head.sha) == 40
    assert ev.number == 2


def test_comment_on_plain_issue_has_no_pull_request():
    ev = parse_event(
        "issue_comment", json.dumps(ghapi.payload("issue_comment", "created.payload.json")).encode()
    )
    assert ev.issue is not None and not ev.issue.is_pull_request and ev.number is None


def test_comment_on_pull_request():
    ev = parse_event("issue_comment", json.dumps(ghapi.comment_event("@bot review")).encode())
    assert ev.issue.is_pull_request and ev.number == 7 and ev.comment.body == "@bot review"


@pytest.mark.parametrize(
    "data, message",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"action": "opened", "pull_request": {"number": "x"}}', "pull_request"),
        (b"[" * 100_000, "not valid JSON"),
    ],
)
def test_bad_payload_is_one_clear_error(data, message):
    with pytest.raises(EventError, match=message):
        parse_event("pull_request", data)


def test_routing_table_is_explicit():
    assert set(ROUTES) >= {
        ("pull_request", "opened"),
        ("pull_request", "synchronize"),
        ("pull_request", "reopened"),
        ("pull_request", "ready_for_review"),
        ("pull_request", "edited"),
        ("issue_comment", "created"),
        ("pull_request_review", "submitted"),
        ("pull_request_review", "dismissed"),
    }
    assert ("issue_comment", "edited") not in ROUTES and ("pull_request", "closed") not in ROUTES


@pytest.mark.parametrize(
    "event, name",
    [
        ("pull_request", "closed.payload.json"),
        ("pull_request", "labeled.payload.json"),
        ("issue_comment", "edited.payload.json"),
    ],
)
def test_unknown_pairs_make_no_request(gh, event, name):
    folder = ghapi.FIXTURES / "webhooks" / event
    data = (
        (folder / name).read_bytes()
        if (folder / name).exists()
        else json.dumps(
            {**ghapi.payload("pull_request", "opened.payload.json"), "action": "labeled"}
        ).encode()
    )
    ctx = Context(client=None)  # type: ignore[arg-type]
    assert dispatch(ctx, parse_event(event, data)) is False
    assert gh.calls() == []
