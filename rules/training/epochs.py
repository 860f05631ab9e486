"""TRN008 max-steps-overrides-epochs: a config sets both `max_steps` and the epochs; the epochs do nothing.

## What it does
When a changed Hugging Face/TRL, LLaMA-Factory or axolotl config sets `max_steps` above 0 beside
`num_train_epochs` (axolotl: `num_epochs`), and the pull request introduces the pair or changes either
number, a warning says that the run stops after `max_steps` updates whatever the epochs say, and how many
epochs those updates amount to: from the dataset's size where `training.datasets` gives it, else as a
formula in the training examples N.

## Why is this bad?
The Trainer takes `max_steps > 0` as the run's length and uses `num_train_epochs` only when `max_steps` is
-1, without a word: users set 20 epochs and get the 10 steps they had left in from a notebook
(unslothai/unsloth #594), expect one count per epoch (neulab/awesome-align #18), or find the epochs
ignored in NeMo's fine-tuning (NVIDIA-NeMo/Speech #8973). A pull request that raises the epochs of such a
config changes nothing, and one that grows the dataset trains on less of it.

## Example
```yaml
per_device_train_batch_size: 2
gradient_accumulation_steps: 4
num_train_epochs: 3     # ignored
max_steps: 60           # 60 updates of 8 examples: 0.48 epochs of 1000 examples
```

## Use instead
```yaml
per_device_train_batch_size: 2
gradient_accumulation_steps: 4
num_train_epochs: 3
max_steps: -1           # or drop num_train_epochs and keep max_steps, on purpose
```
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity, StepValues
from rules.training import config_keys
from rules.training.ports import step_rows

# The trainers whose `max_steps` replaces the epochs (the HF Trainer's loop, which the others hand it to),
# and the key each names its epochs with.
_EPOCH_KEYS = {
    "hf-trainer": ("num_train_epochs",),
    "trl-grpo": ("num_train_epochs",),
    "llama-factory": ("num_train_epochs",),
    "axolotl": ("num_epochs",),
}


def _pair(ctx: Context, path: str, epoch_keys: tuple[str, ...], head: bool) -> tuple[int, Any] | None:
    """(max_steps, epochs) where the config at one side sets both, max_steps above 0."""
    has_steps, steps = config_keys.value(ctx.review, path, ("max_steps",), head=head)
    has_epochs, epochs = config_keys.value(ctx.review, path, epoch_keys, head=head)
    if not has_steps or not has_epochs or not isinstance(steps, int) or isinstance(steps, bool) or steps <= 0:
        return None
    return steps, epochs


def _amounts(values: StepValues, steps: int) -> str:
    if values.train_examples is not None and values.epochs is not None:
        return f"{values.epochs:g} epochs of {values.train_examples} examples"
    batch = values.batch_size
    if batch:
        return f"about {steps} × {batch} / N epochs of N training examples"
    return "an unknown share of the dataset"


def check(ctx: Context) -> Iterator[Finding]:
    for row in step_rows(ctx.review):
        new = row.head
        if new is None or new.trainer not in _EPOCH_KEYS:
            continue
        keys = _EPOCH_KEYS[new.trainer]
        found = _pair(ctx, row.path, keys, head=True)
        if found is None:
            continue
        steps, epochs = found
        if row.base is not None and row.ported_from is None:
            before = _pair(ctx, row.path, keys, head=False)
            if before is not None and before == found:
                continue  # the pair was there before and neither number moved
        # Where the key sits is looked up only for a finding: most configs leave the pair alone.
        where = config_keys.find(ctx.review, row.path, ("max_steps",), head=True)
        yield ctx.finding(
            f"`{row.name}`: `max_steps: {steps}` overrides `{keys[0]}: {epochs}`; the run stops after "
            f"{steps} updates, {_amounts(new, steps)}.",
            path=row.path,
            line=where[0] if where else None,
        )


RULE = Rule(
    code="TRN008",
    name="max-steps-overrides-epochs",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="A config sets max_steps above 0 beside its epochs, which it then ignores.",
)
