"""TRN002 scheduler-refused-by-prime-rl: a learning-rate scheduler that Prime-RL rejects at config time.

## What it does
For every changed profile whose scheduler is known (from the Prime-RL config it points at, its own
`[scheduler]` table with a `type`, or a changed Prime-RL config itself) it checks the scheduler against
`max_steps` as Prime-RL validates it: a linear scheduler with `warmup_steps + decay_steps > max_steps` or
with both zero, a cosine scheduler with `warmup_steps >= max_steps`, warmup/decay keys on a scheduler
without `type` (the constant scheduler takes none), and a decay synced to `max_steps` that leaves no room
for warmup. The message says what Prime-RL would do and how to fix it.

## Why is this bad?
Prime-RL refuses such a config when the run starts, after the job was queued and the GPUs allocated.
`sync_scheduler_to_max_steps` makes it easy to write one without noticing: it sets
`decay_steps = max_steps`, so any warmup pushes the sum over `max_steps`.

## Example
```toml
# configs/sft/mobile300.toml: [scheduler] type = "linear", warmup_steps = 5
config = "configs/sft/mobile300.toml"
target_micro_steps = 300   # max_steps 37, decay synced to 37: 5 + 37 > 37
batch_size = 8
```

## Use instead
```toml
config = "configs/sft/mobile300.toml"
target_micro_steps = 300
batch_size = 8
sync_scheduler_to_max_steps = false

[scheduler]
decay_steps = 32   # warmup 5 + decay 32 = max_steps 37
```
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.training.profiles import UNBOUNDED, profile_rows


def check(ctx: Context) -> Iterator[Finding]:
    for row in profile_rows(ctx.review):
        from rules.training.stepmath import scheduler_problems  # with a profile row only

        head = row.head
        if head is None or head.scheduler is None:
            continue  # unknown scheduler
        if head.values is None:
            if head.error_kind == UNBOUNDED:  # a Prime-RL config without max_steps
                for problem in scheduler_problems(head.scheduler, None):
                    yield ctx.finding(f"Profile `{row.name}`: {problem}", path=row.path, line=row.line)
            continue  # otherwise inputs TRN001 already rejects
        sched = head.scheduler
        if head.synced:
            sched = replace(sched, decay_steps=head.values.decay_steps)
        for problem in scheduler_problems(sched, head.values.max_steps, synced=head.synced):
            yield ctx.finding(f"Profile `{row.name}`: {problem}", path=row.path, line=row.line)


RULE = Rule(
    code="TRN002",
    name="scheduler-refused-by-prime-rl",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="A changed profile's scheduler that Prime-RL would refuse for its max_steps.",
)
