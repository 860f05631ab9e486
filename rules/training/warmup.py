"""TRN007 warmup-fraction-moved: the batch changes while an absolute warmup (or decay) stays the same.

## What it does
When a changed run's batch (`gradient_accumulation_steps`, the per-device or micro batch, the world size)
differs between base and head while the config keeps an absolute `warmup_steps` (or `num_warmup_steps`,
`lr_warmup_steps`, `decay_steps`) at the same number, a warning names the share of the run that warmup (or
decay) now takes, e.g. "warmup stays 10 updates while gradient_accumulation_steps 4 -> 8: 10 of 75 updates
(13.3%) -> 10 of 38 (26.3%)". Where the run's updates are unknown (no dataset size), it says how many
examples the unchanged warmup now covers instead.

## Why is this bad?
A warmup counted in updates is tuned for one run length. Doubling the accumulation halves the updates of an
epoch-based run, so the same `warmup_steps` now takes twice the share of the run and the peak learning rate
comes later: axolotl moved its examples from `warmup_steps: 100` to `warmup_ratio` because a hard-coded warmup
"can lead to too much warmup depending on the dataset" (axolotl-ai-cloud/axolotl #2897), and users find their
learning rate peaking far from where they set it once accumulation is involved (huggingface/transformers
#18436, bmaltais/kohya_ss #735).

## Example
```yaml
per_device_train_batch_size: 4
gradient_accumulation_steps: 8   # was 4: 75 updates -> 38 on 1200 examples
num_train_epochs: 1
warmup_steps: 10                 # 13% of the run before, 26% now
```

## Use instead
```yaml
per_device_train_batch_size: 4
gradient_accumulation_steps: 8
num_train_epochs: 1
warmup_steps: 5                  # or a ratio: warmup_ratio 0.13 (transformers 4), warmup_steps 0.13 (5)
```
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity, StepValues
from rules.training import config_keys
from rules.training.ports import step_rows

# The batch's parts as the row shows them, and the names users know them by.
_BATCH = (
    ("grad_accum", "gradient_accumulation_steps"),
    ("micro_batch_size", "per-device batch"),
    ("world_size", "world size"),
    ("batch_size", "batch"),
)
# The keys that fix a warmup or a decay in updates, per quantity, in every format this bot reads.
_KEYS = {
    "warmup": ("warmup_steps", "num_warmup_steps", "lr_warmup_steps", "warmup_num_steps"),
    "decay": ("decay_steps", "lr_decay_steps"),
}


def _batch_changes(old: StepValues, new: StepValues) -> list[str]:
    changes = []
    for field, shown in _BATCH:
        a, b = getattr(old, field), getattr(new, field)
        if a is not None and b is not None and a != b:
            changes.append(f"{shown} {a} → {b}")
    # The total batch follows from its parts: name it only when no part says why it moved.
    return changes if len(changes) == 1 else [c for c in changes if not c.startswith("batch ")]


def _share(part: int, steps: int | None) -> str | None:
    return None if not steps else f"{part} of {steps} updates ({100 * part / steps:.1f}%)"


def _absolute(value: object) -> bool:
    """A key's value is a count of updates: a number of at least 1 (below 1, transformers 5 reads a ratio)."""
    try:
        return float(str(value)) >= 1
    except ValueError:
        return False


def check(ctx: Context) -> Iterator[Finding]:
    for row in step_rows(ctx.review):
        old, new = row.base, row.head
        if old is None or new is None or row.ported_from is not None:
            continue  # a port is TRN006's: the whole run changes meaning
        changes = _batch_changes(old, new)
        if not changes:
            continue
        for what, names in _KEYS.items():
            steps = getattr(old, f"{what}_steps"), getattr(new, f"{what}_steps")
            if not steps[0] or steps[0] != steps[1] or (what == "warmup" and new.warmup_ratio is not None):
                continue
            found = config_keys.find(ctx.review, row.path, names)
            before = config_keys.find(ctx.review, row.path, names, head=False)
            if found is None or before is None or not _absolute(found[1]) or str(found[1]) != str(before[1]):
                continue  # a warmup the trainer derives from the run length moves with it
            count = steps[1]
            was, now = _share(count, old.optimizer_steps), _share(count, new.optimizer_steps)
            if was is not None and now is not None:
                if was == now:
                    continue
                moved = f"{was} → {now}"
            elif old.batch_size and new.batch_size:
                moved = (
                    f"it now covers {count * new.batch_size} examples instead of {count * old.batch_size} "
                    "(the run's updates are unknown: add its dataset to `training.datasets`)"
                )
            else:
                continue
            yield ctx.finding(
                f"`{row.name}`: {what} stays {count} updates while {', '.join(changes)}: {moved}.",
                path=row.path,
                line=found[0],
            )


RULE = Rule(
    code="TRN007",
    name="warmup-fraction-moved",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="The batch changes while an absolute warmup or decay stays: its share of the run moves.",
)
