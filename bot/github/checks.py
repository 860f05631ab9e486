"""Reads what `ready.checks` gates on: the base branch's required checks and the head commit's checks.

The decision is rules.core.readiness's; this module only asks GitHub, in as few requests as it can:
nothing for `none`; for `required`, the rulesets and the classic protection of the base branch, and the
commit's checks only when something is required; for `all` or a list, the commit's check runs and statuses.
"""

from __future__ import annotations

import logging

from bot.github.api import Client, GitHubError
from bot.github.publish import CHECK_NAME, STATUS_CONTEXT
from rules.core.config import Config
from rules.core.readiness import CheckState, Gate, gate

log = logging.getLogger(__name__)

# The names the bot reports under: never a gate on itself (its status follows the review).
OWN = frozenset({STATUS_CONTEXT, CHECK_NAME})


def required_checks(client: Client, branch: str) -> tuple[str, ...]:
    """The checks the base branch requires: its rulesets', and its classic protection's where readable."""
    names = list(client.branch_rules_checks(branch))
    classic = client.protection_checks(branch)
    if classic is None:
        log.debug("branch protection of %s not readable: the rulesets alone say what is required", branch)
    return tuple(dict.fromkeys([*names, *(classic or ())]))


def observed(client: Client, sha: str) -> tuple[CheckState, ...]:
    """Every check run and commit status on the commit (the bot's own among them)."""
    return client.check_runs(sha) + client.statuses(sha)


def own_verdict(states: tuple[CheckState, ...]) -> str | None:
    """The review verdict the bot last published on a commit, from its own status or check run."""
    mine = [s for s in states if s.name in OWN]
    if not mine:
        return None
    if any(s.outcome == "failure" for s in mine):
        return "needs-work"
    return "ready" if all(s.outcome == "success" for s in mine) else None


def read_gate(
    client: Client, config: Config, branch: str | None, sha: str, seen: tuple[CheckState, ...] | None = None
) -> Gate | None:
    """The gating checks of the head commit sha; None when `ready.checks` is `none` or nothing gates.

    A read that fails leaves the checks unknown: the gate then waits (never ready on checks not seen).
    """
    setting = config.ready.checks
    if setting == "none":
        return None
    try:
        required: tuple[str, ...] = ()
        if setting == "required":
            required = required_checks(client, branch) if branch else ()
            if not required:
                return None
        states = seen if seen is not None else observed(client, sha)
    except GitHubError as exc:
        if exc.fatal_for_writes and exc.kind != "read-only":
            raise
        return Gate(unread=str(exc))
    found = gate(setting, required, states, OWN)
    return found if found.checks else None
