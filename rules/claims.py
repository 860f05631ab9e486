"""TRN005 pr-claim-contradicts-step-math: numbers the PR description claims that the step math does not give.

## What it does
It reads the pull request description for step numbers, written as assignments
(`max_steps=37`, `scheduler.decay_steps: 37`, `effective_train_examples=296`, `unapplied_micro_steps=4`)
or in prose ("max_steps 37", "max_steps from 38 to 37"), and compares each with the derivation for the
changed profiles at head. A claim that no changed profile bears out is a warning quoting the claim.
A claim in a sentence about the legacy trainer ("custom trainer", "legacy", "micro-batches") may also
match the profile's count in legacy micro-step semantics.

## Why is this bad?
Reviewers read the description, not the arithmetic. A description that says 37 steps over a profile
that derives 38 makes them approve a run that is not the one described.

## Example
```markdown
Updates env0-mobile300-pr828, producing max_steps=36 and effective_train_examples=288.
```
(the profile derives 37 steps and 296 examples)

## Use instead
```markdown
Updates env0-mobile300-pr828, producing max_steps=37 and effective_train_examples=296.
```
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bot.models import Finding, Severity, StepValues
from rules.base import Context, Rule
from rules.profiles import profile_rows

# Claimable keys and the StepValues field each one names.
KEYS = {
    "max_steps": "max_steps",
    "scheduler.decay_steps": "decay_steps",
    "decay_steps": "decay_steps",
    "effective_train_examples": "effective_train_examples",
    "unapplied_micro_steps": "unapplied_micro_steps",
}
_NUMBER = r"\d[\d,_]*"
_CLAIM = re.compile(
    r"(?<![\w.])(?P<key>scheduler\.decay_steps|max_steps|decay_steps|effective_train_examples"
    r"|unapplied_micro_steps)`?\s*(?:=|:|is|of|to|becomes)?\s*`?\s*"
    rf"(?:(?:from\s+)?{_NUMBER}\s*(?:->|→|to)\s*)?(?P<value>{_NUMBER})(?!\w|\.\d)",
    re.IGNORECASE,
)
_LEGACY = re.compile(r"legacy|custom trainer|custom peft|historical|old trainer|micro-batch", re.IGNORECASE)
MAX_BODY = 65_536
MAX_DIGITS = 19


@dataclass(frozen=True)
class Claim:
    key: str  # StepValues field
    value: int
    text: str  # the claim as written
    legacy: bool  # said of the legacy trainer


def _sentences(body: str) -> Iterator[str]:
    for block in re.split(r"\n\s*\n|(?<=[.!?])\s+(?=[A-Z])|\n\s*[-*] ", body):
        if block.strip():
            yield block


def claims(body: str) -> list[Claim]:
    """Step numbers a PR description claims, in order."""
    out = []
    for sentence in _sentences(body[:MAX_BODY]):
        legacy = bool(_LEGACY.search(sentence))
        for m in _CLAIM.finditer(sentence):
            digits = m.group("value").replace(",", "").replace("_", "")
            if len(digits) > MAX_DIGITS:  # no step count is that long; int() would refuse past 4,300 digits
                continue
            value = int(digits)
            out.append(Claim(KEYS[m.group("key").lower()], value, " ".join(m.group(0).split()), legacy))
    return out


def _legacy_value(values: StepValues, key: str) -> int | None:
    """The value in the legacy trainer's own terms: its max_steps counted micro-batches."""
    if key == "max_steps" and values.semantics == "legacy-micro":
        return values.target_micro_steps
    return None


def check(ctx: Context) -> Iterator[Finding]:
    body = ctx.changeset.pr.body
    if not body:
        return
    heads = [(row, row.head.values) for row in profile_rows(ctx.review) if row.head and row.head.values]
    if not heads:
        return
    seen = set()
    for claim in claims(body):
        if (claim.key, claim.value) in seen:
            continue
        seen.add((claim.key, claim.value))
        ok = any(
            getattr(v, claim.key) == claim.value
            or (claim.legacy and _legacy_value(v, claim.key) == claim.value)
            for _, v in heads
        )
        if ok:
            continue
        derived = ", ".join(f"{getattr(v, claim.key)} for `{row.name}`" for row, v in heads[:3])
        yield ctx.finding(
            f"The PR description claims “{claim.text}”, but the step math gives {derived}.",
            path=None,
        )


RULE = Rule(
    code="TRN005",
    name="pr-claim-contradicts-step-math",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="Step numbers in the PR description that the changed profiles do not derive.",
)
