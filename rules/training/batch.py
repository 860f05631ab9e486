"""TRN003 batch-arithmetic-broken: batch sizes that do not divide, or a target with no optimizer step.

## What it does
For every changed profile it checks the batch arithmetic of the run: `batch_size` must be divisible by
`micro_batch_size`, and `batch_size * cp` by `world_size * micro_batch_size` (where a world size is given),
so that gradient accumulation is a whole number; with context parallelism (`cp` > 1), micro-batches of
one row and a `seq_len` that `cp` divides; and a `target_micro_steps` smaller than the batch size would
apply no optimizer step at all. The world size is the profile's, else that of the Prime-RL config's
`[deployment]`.

## Why is this bad?
Prime-RL refuses a batch size its micro-batches do not divide, and the training CLI refuses a micro-step
target that rounds down to zero optimizer steps. Both only show up when the job starts.

## Example
```toml
target_micro_steps = 300
batch_size = 12
micro_batch_size = 8   # 12 is not a multiple of 8
```

## Use instead
```toml
target_micro_steps = 300
batch_size = 16
micro_batch_size = 8   # 2 micro-batches per optimizer step
```
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.training.profiles import profile_rows


def check(ctx: Context) -> Iterator[Finding]:
    for row in profile_rows(ctx.review):
        from rules.training.stepmath import batch_problems  # with a profile row only

        head = row.head
        if head is None or head.inputs is None:
            continue
        for problem in batch_problems(head.inputs):
            yield ctx.finding(f"Profile `{row.name}`: {problem}.", path=row.path, line=row.line)


RULE = Rule(
    code="TRN003",
    name="batch-arithmetic-broken",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="Batch sizes that do not divide into micro-batches, or a micro-step target with no update.",
)
