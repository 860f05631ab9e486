"""TRN001 step-math-mismatch: derived step values of changed profiles, and expectations they break.

## What it does
For every changed compat profile it derives `max_steps`, `scheduler.decay_steps`, the effective number of
training examples and the micro steps left unapplied, at base and at head, and shows them in the status
comment. A profile whose `expect` table disagrees with the derivation, a profile file that cannot be parsed,
and a profile whose inputs the training CLI would refuse are errors.

## Why is this bad?
A legacy trainer counted `max_steps` in batch-size-1 micro-batches; Prime-RL counts optimizer steps.
Mapping `max_steps=300` with 8 micro-batches per update as "300 examples" gives `max_steps=38` and
over-exposes the model; the faithful mapping gives 37. Nobody sees that in a diff.

## Example
```toml
name = "env0-mobile300-pr828"
target_examples = 300   # ceil(300 / 8) = 38 optimizer steps
batch_size = 8

[expect]
max_steps = 37
```

## Use instead
```toml
name = "env0-mobile300-pr828"
target_micro_steps = 300   # floor(300 / 8) = 37, 4 micro steps unapplied
batch_size = 8

[expect]
max_steps = 37
```
"""

from __future__ import annotations

from collections.abc import Iterator

from bot.models import Finding, Severity
from rules.base import Context, Rule
from rules.profiles import changed_profile_files, profile_table

_EXPECTED = ("max_steps", "decay_steps", "effective_train_examples", "unapplied_micro_steps")


def check(ctx: Context) -> Iterator[Finding]:
    review = ctx.review
    for pf in changed_profile_files(review):
        if pf.head_error:
            yield ctx.finding(f"Profile file cannot be used: {pf.head_error}", path=pf.path)
    for row in profile_table(review):
        if row.head_error:
            yield ctx.finding(f"Profile `{row.name}`: {row.head_error}", path=row.path)
            continue
        if row.head is None:
            continue
        profile = next(pf.head[row.name] for pf in changed_profile_files(review) if pf.path == row.path)
        for key in _EXPECTED:
            want = getattr(profile.expect, key)
            got = getattr(row.head, key)
            if want is not None and want != got:
                yield ctx.finding(
                    f"Profile `{row.name}` expects {key}={want}, but the step math gives {got}.",
                    path=row.path,
                )


RULE = Rule(
    code="TRN001",
    name="step-math-mismatch",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="Changed profiles' derived step values; expectations or inputs the step math rejects.",
)
