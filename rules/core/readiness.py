"""Readiness: which checks gate `status:ready`, and what their states say (`ready.checks` in the config).

The bot's labels say "ready" only when its own review is clean and every gating check of the head commit
succeeded. This module is the pure decision: GitHub's check runs and commit statuses come in as CheckState
values (bot.github.checks reads them), the verdict goes out. Nothing here reads GitHub.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal

from pydantic import BaseModel, ConfigDict

Outcome = Literal["success", "failure", "pending"]
# What `status:ready` waits on: the review's verdict combined with the gating checks.
Readiness = Literal["ready", "needs-work", "checks-pending"]
# GitHub's words for a check run that finished without blocking a merge (branch protection counts them as
# passed): https://docs.github.com/rest/checks/runs ("conclusion").
PASSING_CONCLUSIONS = frozenset({"success", "neutral", "skipped"})


class _Frozen(BaseModel):
    # rules.core.models builds its Report on these, so this module cannot import that one's base.
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckState(_Frozen):
    """One check run or commit status on a commit, reduced to what readiness needs."""

    name: str  # a check run's name, or a commit status's context
    kind: Literal["check-run", "status"]
    outcome: Outcome
    url: str | None = None


class GateCheck(_Frozen):
    """One gating check as the comment shows it; `reported`: False for a required check not on the commit."""

    name: str
    outcome: Outcome
    url: str | None = None
    reported: bool = True


class Gate(_Frozen):
    """The gating checks of a head commit, in the order the comment shows them."""

    checks: tuple[GateCheck, ...] = ()
    # Why the checks could not be read (a refused token, GitHub failing): nothing is known, so nothing passes.
    unread: str | None = None

    @property
    def failed(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if c.outcome == "failure")

    @property
    def waiting(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if c.outcome == "pending")

    @property
    def outcome(self) -> Outcome:
        if self.failed:
            return "failure"
        return "pending" if self.waiting or self.unread else "success"


def run_outcome(status: str, conclusion: str | None) -> Outcome:
    """A check run's state: pending until completed; then passing (success, neutral, skipped) or failed."""
    if status != "completed":
        return "pending"
    return "success" if conclusion in PASSING_CONCLUSIONS else "failure"


def status_outcome(state: str) -> Outcome:
    """A commit status's state: `error` fails like `failure`; anything unknown waits."""
    if state == "success":
        return "success"
    return "failure" if state in ("failure", "error") else "pending"


def _merge(name: str, states: list[CheckState]) -> GateCheck:
    """Several reports of one name (a check run and a status, or two apps) gate as one: any failure fails."""
    for outcome in ("failure", "pending", "success"):
        found = next((s for s in states if s.outcome == outcome), None)
        if found is not None:
            return GateCheck(name=name, outcome=found.outcome, url=found.url)
    raise ValueError("no states")  # pragma: no cover - callers pass at least one


def gate(
    setting: str | tuple[str, ...],
    required: tuple[str, ...],
    observed: tuple[CheckState, ...],
    own: frozenset[str],
) -> Gate:
    """The gating checks of a commit for a `ready.checks` setting.

    `required`: the base branch's required status checks (rulesets and classic protection); `observed`: the
    check runs and statuses on the commit; `own`: the names the bot itself reports under, never gating (its
    status follows the review, which the verdict already holds). A required check not reported yet waits.
    """
    if setting == "none":
        return Gate()
    by_name: dict[str, list[CheckState]] = {}
    for s in observed:
        if s.name not in own:
            by_name.setdefault(s.name, []).append(s)
    if setting == "all":
        names = sorted(by_name)
    elif setting == "required":
        names = list(dict.fromkeys(n for n in required if n not in own))
    else:
        patterns = tuple(setting)
        seen = sorted(n for n in by_name if any(fnmatchcase(n, p) for p in patterns))
        # A name without a wildcard is awaited even before it reports, as a required check is.
        awaited = [p for p in patterns if not any(c in p for c in "*?[") and p not in own]
        names = list(dict.fromkeys([*seen, *awaited]))
    checks = tuple(
        _merge(n, by_name[n]) if n in by_name else GateCheck(name=n, outcome="pending", reported=False)
        for n in names
    )
    return Gate(checks=checks)


def readiness(verdict: str, gate: Gate | None) -> Readiness:
    """The review's verdict with the gating checks: a clean review waits for them, a failed one blocks it."""
    if verdict != "ready":
        return "needs-work"
    if gate is None:
        return "ready"
    outcome = gate.outcome
    if outcome == "failure":
        return "needs-work"
    return "checks-pending" if outcome == "pending" else "ready"
