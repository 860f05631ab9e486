"""TRN004 training-exposure-changed: a change alters how many examples or updates an existing profile gets.

## What it does
When a change alters the effective number of training examples or the number of optimizer steps of a
profile that exists at base and at head, or the unit its length is given in, a notice states the old and
new exposure and the unit, e.g. "now sees 296 examples instead of 304 (max_steps 38 -> 37; its length now
counts micro-batches, not examples)". (A port to another trainer is TRN006's warning.)

## Why is this bad?
It is not bad in itself: it is the number reviewers must agree to, and it is invisible in a diff that
changes `target_examples = 300` into `target_micro_steps = 300`. A run that is meant to reproduce an
earlier one should keep its exposure, or change it on purpose.

## Example
```toml
# base: target_examples = 300, batch_size = 8   -> 38 steps, 304 examples
target_micro_steps = 300
batch_size = 8                                  # -> 37 steps, 296 examples
```

## Use instead
Say in the pull request why the exposure changes (the notice then confirms it), or keep it unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.training.profiles import profile_rows
from rules.training.units import unit


def check(ctx: Context) -> Iterator[Finding]:
    for row in profile_rows(ctx.review):
        if row.base is None or row.head is None:
            continue
        old, new = row.base.values, row.head.values
        if old is None or new is None:
            continue
        # An exposure unknown on one side (no batch size) has not changed, it became known or unknown.
        known = old.effective_train_examples is not None and new.effective_train_examples is not None
        examples_changed = known and old.effective_train_examples != new.effective_train_examples
        # The key the run's length is given in moved to another unit (`target_examples` ->
        # `target_micro_steps`): said even where the numbers come out the same.
        moved = unit(old) != unit(new)
        if not examples_changed and old.max_steps == new.max_steps and not moved:
            continue
        steps = f"`max_steps` {old.max_steps} → {new.max_steps}"
        if moved:
            steps += f"; its length now counts {unit(new)}, not {unit(old)}"
        if known:
            if examples_changed:
                text = (
                    f"now sees {new.effective_train_examples} examples instead of "
                    f"{old.effective_train_examples} ({steps})"
                )
            elif old.max_steps == new.max_steps:
                text = f"keeps {new.effective_train_examples} examples ({steps})"
            else:
                text = (
                    f"sees {new.effective_train_examples} examples in a different number of updates ({steps})"
                )
        else:
            text = f"changes its optimizer steps ({steps})"
        yield ctx.finding(f"Profile `{row.name}` {text}.", path=row.path, line=row.line)


RULE = Rule(
    code="TRN004",
    name="training-exposure-changed",
    severity=Severity.NOTICE,
    check=check,
    doc=__doc__ or "",
    summary="A changed profile's effective examples or optimizer steps differ from base.",
)
