"""Verified regression tests: what a new or changed test did at head and on the base code, and what that says.

`bot check --verify-tests` runs each such test twice: in the checkout (head) and in a copy of the base
with the pull request's tests (bot.verify). This module holds the outcome model and the pure decision;
running anything is bot's business.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Frozen(BaseModel):
    # rules.core.models builds its Report on these, so this module cannot import that one's base.
    model_config = ConfigDict(frozen=True, extra="forbid")


class Outcome(StrEnum):
    """What running a test at head and on the base code says about it."""

    REPRODUCES = "reproduces"  # fails on the base code, passes at head: it guards the change
    DOES_NOT_REPRODUCE = "does-not-reproduce"  # passes on both: it would not have caught the bug
    BROKEN = "broken"  # fails at head
    NEW_API = "new-api"  # fails on the base code only because a name the change adds is not there
    NOT_RUN = "not-run"  # timed out, could not be collected, skipped, or never reached


# passed / failed (an assertion or an exception in the test) / error (in a fixture) / skipped (or xfail) /
# uncollected (its file failed to import) / timeout / missing (pytest did not report it at all).
Status = Literal["passed", "failed", "error", "skipped", "uncollected", "timeout", "missing"]


class Run(_Frozen):
    """One test at one side: its status, and the exception line or reason pytest gave (capped)."""

    status: Status
    detail: str = ""


class Verification(_Frozen):
    """One new or changed test, run at head and on the base code, and the outcome with its reason."""

    path: str
    node_id: str  # pytest's id: `tests/test_a.py::TestX::test_y`
    state: Literal["new", "changed"]
    outcome: Outcome
    reason: str
    head: Run
    base: Run | None = None  # None: not run at base (it was not run or failed at head)
    line: int | None = None  # the test's `def` line at head, where annotations place the outcome
    # True for outcomes read from a saved Report (the fork-safe pair's artifact): the pull request's own job
    # ran them, so they are shown as reported by it and never reach a rule or the verdict.
    reported: bool = False

    @property
    def qualname(self) -> str:
        """The test's dotted name in its file: `TestX.test_y` for `path::TestX::test_y`."""
        return ".".join(self.node_id.split("::")[1:])


# How each outcome reads in one line of plain text (annotations, rdjson).
_LABELS = {
    Outcome.REPRODUCES: "reproduces",
    Outcome.DOES_NOT_REPRODUCE: "does not reproduce",
    Outcome.BROKEN: "broken",
    Outcome.NEW_API: "new API",
    Outcome.NOT_RUN: "not run",
}
REPORTED = "reported by the pull request's own job"


def outcome_label(v: Verification) -> str:
    """`Verified test reproduces`, and who says so where it is not this run."""
    said = f"Verified test {_LABELS[v.outcome]}"
    return f"{said} ({REPORTED})" if v.reported else said


def trusted(verifications: tuple[Verification, ...]) -> tuple[Verification, ...]:
    """The outcomes this run measured itself: what rules and the verdict may rely on."""
    return tuple(v for v in verifications if not v.reported)


def blocking(verifications: tuple[Verification, ...]) -> tuple[Verification, ...]:
    """The tests this run found failing at head: a change whose own tests fail is not ready."""
    return tuple(v for v in trusted(verifications) if v.outcome is Outcome.BROKEN)


# The exception lines a failure at base may end with when the test uses a name the base code lacks. Each
# is a literal and one run of name characters: linear on any output a test prints.
_MISSING_NAME = (
    re.compile(r"\bImportError: cannot import name '([\w.]+)'"),
    re.compile(r"\bModuleNotFoundError: No module named '([\w.]+)'"),
    re.compile(r"\bNameError: name '(\w+)' is not defined"),
)
# Read only on a line that names an AttributeError (no `.*` between the two: linear).
_NO_ATTRIBUTE = re.compile(r"has no attribute '(\w+)'")


def missing_name(detail: str) -> str | None:
    """The name an ImportError, ModuleNotFoundError, AttributeError or NameError in detail says is missing,
    or None when detail holds none of them (the last such line counts: the one the test died of)."""
    found = None
    for line in detail.splitlines():
        patterns = (*_MISSING_NAME, _NO_ATTRIBUTE) if "AttributeError: " in line else _MISSING_NAME
        for pattern in patterns:
            m = pattern.search(line)
            if m:
                found = m.group(1)
    return found


def _added(name: str, added: frozenset[str]) -> bool:
    # A module path (`pkg.newmod`) counts when the change adds that module or one above it it holds.
    parts = name.split(".")
    return any(".".join(parts[: i + 1]) in added for i in range(len(parts))) or parts[-1] in added


def _said(run: Run, room: int = 200) -> str:
    text = " ".join(run.detail.split())
    return f": {text[:room]}{'...' if len(text) > room else ''}" if text else ""


def classify(head: Run, base: Run | None, added: frozenset[str]) -> tuple[Outcome, str]:
    """The outcome of a test from its two runs, and the reason in one sentence.

    added: the names the change adds (functions, classes, module-level names, attributes and modules, as
    `name` or `dotted.module`). A failure at base is "new API" only when its last exception line is an
    ImportError, ModuleNotFoundError, AttributeError or NameError about one of them: the test cannot run
    on the base code, so it says nothing about the bug.
    """
    if head.status == "timeout":
        return Outcome.NOT_RUN, f"timed out at head{_said(head)}"
    if head.status == "uncollected":
        return Outcome.NOT_RUN, f"could not be collected at head{_said(head)}"
    if head.status == "skipped":
        return Outcome.NOT_RUN, f"skipped at head{_said(head)}"
    if head.status == "missing":
        return Outcome.NOT_RUN, f"pytest did not report it at head{_said(head)}"
    if head.status in ("failed", "error"):
        return Outcome.BROKEN, f"fails at head{_said(head)}"
    if base is None:
        return Outcome.NOT_RUN, "not run on the base code"
    if base.status == "passed":
        return Outcome.DOES_NOT_REPRODUCE, "passes on the base code too: it does not reproduce the bug"
    name = missing_name(base.detail) if base.status in ("failed", "error", "uncollected") else None
    if name is not None and _added(name, added):
        return (
            Outcome.NEW_API,
            f"fails on the base code only because `{name}`, which the change adds, is not there",
        )
    if base.status in ("failed", "error"):
        return Outcome.REPRODUCES, f"fails on the base code and passes at head{_said(base)}"
    what = {
        "uncollected": "could not be collected on the base code",
        "timeout": "timed out on the base code",
        "skipped": "skipped on the base code",
        "missing": "pytest did not report it on the base code",
    }[base.status]
    return Outcome.NOT_RUN, f"{what}{_said(base)}"
