"""Comment commands: parsing (pure) and who may run what."""

from __future__ import annotations

import pytest

from bot.github.commands import Command, addressed, authorize, needs_permission, parse_commands


def names(body: str, handle: str = "bot") -> list[tuple]:
    return [(c.name, c.rule, c.reason) for c in parse_commands(body, handle)]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("@bot review", [("review", None, None)]),
        ("@Bot REVIEW", [("review", None, None)]),
        ("   @bot review", [("review", None, None)]),
        ("@bot help", [("help", None, None)]),
        ("@bot waive AGT001 the test is a fixture", [("waive", "AGT001", "the test is a fixture")]),
        ("@bot waive agt001 lower case code", [("waive", "AGT001", "lower case code")]),
        ("thanks!\n@bot review\nmore text", [("review", None, None)]),
        ("@bot review\n@bot waive TRN001 ok", [("review", None, None), ("waive", "TRN001", "ok")]),
    ],
)
def test_commands_found(body, expected):
    assert names(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "please @bot review",  # not at the start of a line
        "> @bot review",  # quoted
        "```\n@bot review\n```",  # fenced code
        "~~~\n@bot review\n~~~",
        "    @bot review",  # indented code
        "@bots review",  # look-alike handles
        "@bot-x review",
        "@bot's review",
        "@bot, review",
        "@b\u043et review",  # Cyrillic o
        "@bot review now please",  # too many arguments
        "@bot help me",
        "@bot waive AGT001",  # no reason
        "@bot waive because I say so",  # no rule code
        "@bot deploy",  # unknown command
        "@bot",
        "",
    ],
)
def test_commands_ignored(body):
    assert names(body) == []


def test_fence_closes_only_with_its_own_kind():
    body = "```\n~~~\n@bot review\n```\n@bot help"
    assert names(body) == [("help", None, None)]


def test_configured_handle():
    assert names("@reviewer review", handle="reviewer") == [("review", None, None)]
    assert names("@bot review", handle="reviewer") == []


def test_reason_is_capped():
    (cmd,) = parse_commands("@bot waive AGT001 " + "x" * 1000, "bot")
    assert len(cmd.reason) == 300


def test_addressed_is_a_cheap_prefilter():
    assert addressed("@someone hello") and not addressed("no mention here") and not addressed("> @bot review")


REVIEW = Command(name="review", line=1)
HELP = Command(name="help", line=1)
WAIVE = Command(name="waive", rule="AGT001", reason="r", line=1)


@pytest.mark.parametrize(
    "cmd, actor, permission, allowed",
    [
        (REVIEW, "alice", None, True),  # the author needs no look-up
        (REVIEW, "bob", "write", True),
        (REVIEW, "bob", "admin", True),
        (REVIEW, "bob", "maintain", True),
        (REVIEW, "bob", "read", False),
        (REVIEW, "bob", "none", False),
        (REVIEW, "bob", None, False),  # look-up failed: fail closed
        (HELP, "alice", None, True),
        (HELP, "bob", "write", True),
        (HELP, "bob", "read", False),
        (HELP, "bob", None, False),
        (WAIVE, "alice", "admin", False),  # the author cannot waive, whatever their access
        (WAIVE, "bob", "write", True),
        (WAIVE, "bob", "admin", True),
        (WAIVE, "bob", "read", False),
        (WAIVE, "bob", "none", False),
        (WAIVE, "bob", None, False),
    ],
)
def test_permissions(cmd, actor, permission, allowed):
    decision = authorize(cmd, actor, "alice", permission)
    assert decision.allowed is allowed
    assert bool(decision.reason) is (not allowed)


def test_needs_permission_only_for_others():
    assert not needs_permission(REVIEW, "Alice", "alice")
    assert needs_permission(REVIEW, "bob", "alice")
    assert not needs_permission(WAIVE, "alice", "alice")
    assert needs_permission(WAIVE, "bob", "alice")
