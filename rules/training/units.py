"""TRN006 step-unit-changed: a run moves to a trainer or a step unit whose numbers mean something else.

## What it does
When a pull request ports a run (removes one config and adds another for it, see
[profiles.md](profiles.md#ports)) or rewrites a config into another trainer's format, and the trainer or the
unit its run length counts in differs between base and head, a warning names both and the optimizer updates
and examples each side gives, e.g. "`sft` moves from axolotl (optimizer steps) to torchtune (optimizer
steps): optimizer updates 38 -> 37, examples 300 -> 296".

## Why is this bad?
The same words count different things in different trainers: verl's training step is one rollout of
`data.train_batch_size` prompts, not an optimizer update ("The `training_step` in verl means one `rollout
generation`", volcengine/verl #399); OpenRLHF users ask how many steps an episode is (OpenRLHF #780); the
legacy custom trainer counted micro-batches; and trainers differ in what an epoch's last partial
accumulation window does (torchtune PR #2745: 63 batches with GA 8 gave 15 updates at the epoch boundary).
A port that copies the numbers across silently changes how many updates and examples the model gets.

## Example
```yaml
# removed: configs/sft.yml (axolotl), micro_batch_size 1, gradient_accumulation_steps 8, 300 examples
# added:   configs/sft.yaml (torchtune), batch_size 1, gradient_accumulation_steps 8
#          -> 37 updates instead of 38: torchtune never steps the epoch's last 4 micro-batches
```

## Use instead
Convert the run's length on purpose (the row shows both sides' updates and examples) and say in the pull
request what the new trainer will do; or keep the run on its trainer.
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity, StepValues
from rules.training.ports import step_rows
from rules.training.semantics import EXAMPLES, LEGACY_MICRO

# What a run's own length key counts, where it is not optimizer updates.
_UNITS = {LEGACY_MICRO: "micro-batches", EXAMPLES: "examples"}
_TRAINER_UNITS = {"verl": "rollouts", "nemo": "global batches"}


def unit(values: StepValues) -> str:
    """The unit a run's length key counts in."""
    return _TRAINER_UNITS.get(values.trainer or "", _UNITS.get(values.semantics, "optimizer steps"))


def _count(value: int | None) -> str:
    return "unknown" if value is None else str(value)


def check(ctx: Context) -> Iterator[Finding]:
    for row in step_rows(ctx.review):
        old, new = row.base, row.head
        if old is None or new is None:
            continue
        if old.trainer == new.trainer and (row.ported_from is None or unit(old) == unit(new)):
            continue  # the same trainer in place: a key moving unit there is TRN004's notice
        source = f" (ported from `{row.ported_from}`)" if row.ported_from else ""
        yield ctx.finding(
            f"`{row.name}`{source} moves from {old.trainer} ({unit(old)}) to {new.trainer} ({unit(new)}): "
            f"optimizer updates {_count(old.optimizer_steps)} → {_count(new.optimizer_steps)}, examples "
            f"{_count(old.effective_train_examples)} → {_count(new.effective_train_examples)}.",
            path=row.path,
            line=row.line,
        )


RULE = Rule(
    code="TRN006",
    name="step-unit-changed",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="A ported run's trainer or step unit differs between base and head.",
)
