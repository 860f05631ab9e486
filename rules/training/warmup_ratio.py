"""TRN009 warmup-ratio-across-transformers-5: a warmup ratio written for the other side of transformers 5.

## What it does
For every changed Hugging Face/TRL or LLaMA-Factory config it compares the warmup keys with the transformers
release the repository pins at head (a `transformers==` or lower bound in requirements or packaging files,
see [profiles.md](profiles.md)): a `warmup_ratio` on 5.x, where it is deprecated and later removed, and
where it replaces an absolute `warmup_steps` set beside it; and a `warmup_steps` below 1 on 4.x, where it is
an integer count and not a ratio. When the pull request moves the pin across 5.0, every such config in the
repository is read again, changed or not. The warning cites the key's line and the pin.

## Why is this bad?
transformers 5 folds `warmup_ratio` into `warmup_steps`, which became a float read as a ratio below 1
(huggingface/transformers #41326); `warmup_ratio` is accepted with a warning in the early 5.x releases and
gone by 5.25. Libraries had to rewrite their recipes for 5 while keeping `warmup_ratio` for 4.x
(huggingface/peft #2949, unslothai/unsloth #4019). A recipe moved across the change either stops
parsing, or warms up for a different number of updates: 4.x prefers an absolute `warmup_steps` over the
ratio, 5.0 copies the ratio over it.

## Example
```yaml
# requirements.txt: transformers==5.2.0
per_device_train_batch_size: 8
num_train_epochs: 1
warmup_ratio: 0.1
```

## Use instead
```yaml
# requirements.txt: transformers==5.2.0
per_device_train_batch_size: 8
num_train_epochs: 1
warmup_steps: 0.1   # below 1: a ratio of the run's updates in transformers 5
```
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.training import config_keys
from rules.training.pins import is_requirements_file
from rules.training.ports import step_rows

# The formats whose warmup keys are TrainingArguments' own.
_TRAINERS = frozenset({"hf-trainer", "trl-grpo", "llama-factory"})


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _crossed(before: tuple[int, int] | None, after: tuple[int, int]) -> bool:
    return before is not None and (before >= (5, 0)) != (after >= (5, 0))


def check(ctx: Context) -> Iterator[Finding]:
    rows = {
        r.path: r.name for r in step_rows(ctx.review) if r.head is not None and r.head.trainer in _TRAINERS
    }
    pin_changed = any(is_requirements_file(f.path) for f in ctx.changeset.files)
    if not rows and not pin_changed:
        return
    from rules.training.trainers.table import configs_holding, facts  # with a trainer row or a pin only

    version, source = facts(ctx.review, head=True).release()
    if version is None:
        return  # no pin: the release the run gets is unknown, and so is which reading applies
    before, _ = facts(ctx.review, head=False).release()
    moved = ""
    if pin_changed and _crossed(before, version):
        assert before is not None
        moved = f" (transformers {before[0]}.{before[1]} at base)"
        # Every config is read anew under the other release, changed by the pull request or not.
        for path, fmt in configs_holding(ctx.review, ("warmup_ratio", "warmup_steps")):
            if fmt in _TRAINERS:
                rows.setdefault(path, posixpath.basename(path))
    for path, name in sorted(rows.items()):
        yield from _check_config(ctx, path, name, version, f"{source}{moved}")


def _check_config(
    ctx: Context, path: str, name: str, version: tuple[int, int], source: str
) -> Iterator[Finding]:
    ratio = config_keys.find(ctx.review, path, ("warmup_ratio",))
    steps = config_keys.find(ctx.review, path, ("warmup_steps",))
    ratio_value = _number(ratio[1]) if ratio else None
    steps_value = _number(steps[1]) if steps else None
    if version >= (5, 0) and ratio is not None and ratio_value:
        also = ""
        if steps is not None and steps_value is not None and steps_value >= 1:
            also = f"; beside `warmup_steps: {steps[1]}` it replaces that warmup, which transformers 4 used"
        yield ctx.finding(
            f"`{name}`: `warmup_ratio: {ratio[1]}` with {source}: transformers 5 deprecates it "
            f"(removed in later 5.x releases){also}. Write `warmup_steps: {ratio[1]}` (below 1 it is a "
            "ratio in transformers 5).",
            path=path,
            line=ratio[0],
        )
    elif version < (5, 0) and steps is not None and steps_value is not None and 0 < steps_value < 1:
        yield ctx.finding(
            f"`{name}`: `warmup_steps: {steps[1]}` with {source}: transformers 4 counts "
            "warmup_steps in whole updates, only 5 reads a value below 1 as a ratio. "
            f"Write `warmup_ratio: {steps[1]}`.",
            path=path,
            line=steps[0],
        )


RULE = Rule(
    code="TRN009",
    name="warmup-ratio-across-transformers-5",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="A warmup ratio written for the other side of the transformers 4 -> 5 change.",
)
