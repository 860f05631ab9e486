"""DeepSpeed JSON configs: read beside the HF arguments file that names it (`deepspeed: ds_config.json`), or
on their own when a script drives the engine itself.

The HF integration fills each `"auto"` value from the arguments and refuses a number that differs from
them (transformers 4.57.1 `integrations/deepspeed.py` `fill_match`, L105-129 and L133-157): the micro-batch,
the gradient accumulation, `train_batch_size` = world size * micro-batch * accumulation, and the scheduler's
`total_num_steps` and `warmup_num_steps`. A `train_batch_size` number therefore fixes the world size, and a
`scheduler` block replaces the arguments' `lr_scheduler_type`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.core.models import StepValues
from rules.training.lr_schedule import shape_of
from rules.training.semantics import OPTIMIZER
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError

NAME = "deepspeed"
WORDS = ("train_micro_batch_size_per_gpu", "train_batch_size")
# Keys only a DeepSpeed config has beside its batch keys: a JSON with `train_batch_size` and none of them is
# some other program's settings.
_ENGINE_KEYS = (
    "zero_optimization", "optimizer", "scheduler", "fp16", "bf16", "gradient_accumulation_steps",
    "gradient_clipping", "zero_allow_untested_optimizer", "wall_clock_breakdown", "steps_per_print",
)  # fmt: skip


@dataclass(frozen=True)
class Pinned:
    """What a DeepSpeed config adds to the HF arguments: a world size, a scheduler, its warmup."""

    world_size: int | None = None
    scheduler: str | None = None
    warmup_steps: int | None = None
    total_steps: int | None = None


def _number(node: Mapping[str, Any], key: str) -> int | None:
    value = node.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pinned(ds: Mapping[str, Any], path: str, per_device: int, grad_accum: int) -> Pinned:
    """What the DeepSpeed config at path fixes; raises TrainerConfigError for a mismatch HF refuses."""
    for key, hf_key, hf_value in (
        ("train_micro_batch_size_per_gpu", "per_device_train_batch_size", per_device),
        ("gradient_accumulation_steps", "gradient_accumulation_steps", grad_accum),
    ):
        value = _number(ds, key)
        if value is not None and value != hf_value:
            raise TrainerConfigError(
                f"`{key}` is {value} in the DeepSpeed config {path} but `{hf_key}` is {hf_value}: "
                "transformers refuses the mismatch"
            )
    world = None
    total = _number(ds, "train_batch_size")
    if total is not None:
        if total % (per_device * grad_accum):
            raise TrainerConfigError(
                f"`train_batch_size` {total} in the DeepSpeed config {path} is not a multiple of "
                f"per_device_train_batch_size × gradient_accumulation_steps = {per_device * grad_accum}"
            )
        world = total // (per_device * grad_accum)
    sched = ds.get("scheduler")
    if not isinstance(sched, Mapping):
        return Pinned(world_size=world)
    kind, warmup, total = _scheduler(sched)
    return Pinned(world_size=world, scheduler=kind, warmup_steps=warmup, total_steps=total)


def _scheduler(sched: Mapping[str, Any]) -> tuple[str | None, int | None, int | None]:
    """(name as the row shows it, warmup_num_steps, total_num_steps) of a `scheduler` block. WarmupLR and
    WarmupDecayLR ramp up logarithmically unless `warmup_type` is "linear" (lr_schedules.py `WarmupLR`):
    the name says which, so the chart draws the ramp DeepSpeed makes."""
    kind = sched.get("type")
    params = sched.get("params")
    params = params if isinstance(params, Mapping) else {}
    if not isinstance(kind, str):
        return None, None, None
    name = f"DeepSpeed {kind}"
    if kind in ("WarmupLR", "WarmupDecayLR"):
        name += " (linear warmup)" if params.get("warmup_type") == "linear" else " (log warmup)"
    return name, _number(params, "warmup_num_steps"), _number(params, "total_num_steps")


def decays(scheduler: str | None) -> bool:
    """Whether a DeepSpeed scheduler, as `_scheduler` names it, decays after its warmup."""
    return shape_of(scheduler)[0] in ("linear", "cosine") and (scheduler or "").startswith("DeepSpeed ")


def detect(data: Any) -> bool:
    """A DeepSpeed config with a batch size of its own: `train_micro_batch_size_per_gpu` or
    `train_batch_size` a number (not HF's "auto"), beside a key only DeepSpeed configs have."""
    if not isinstance(data, Mapping):
        return False
    if _number(data, "train_micro_batch_size_per_gpu") is None and _number(data, "train_batch_size") is None:
        return False
    return any(key in data for key in _ENGINE_KEYS) and "per_device_train_batch_size" not in data


def _layout(ds: Mapping[str, Any], facts: Facts) -> tuple[int, int, int, int, str]:
    """(train_batch_size, micro-batch, accumulation, world size, where the world size came from), resolved
    as the engine does from the two or three it is given (`runtime/config.py`
    `_configure_train_batch_size`): train_batch_size = micro × accumulation × world size."""
    tb, micro = _number(ds, "train_batch_size"), _number(ds, "train_micro_batch_size_per_gpu")
    ga = _number(ds, "gradient_accumulation_steps")
    for key, value in (("train_batch_size", tb), ("train_micro_batch_size_per_gpu", micro),
                       ("gradient_accumulation_steps", ga)):  # fmt: skip
        if value is not None and value <= 0:
            raise TrainerConfigError(f"`{key}` should be above 0; got {value}")
    if tb is not None and micro is not None and ga is not None:
        if tb % (micro * ga):
            raise TrainerConfigError(
                f"`train_batch_size` {tb} is not a multiple of micro-batch × accumulation = {micro * ga}: "
                "DeepSpeed refuses it"
            )
        return tb, micro, ga, tb // (micro * ga), "world size from `train_batch_size`"
    world, note = facts.world()
    if tb is not None and micro is not None:
        if tb % (micro * world):
            raise TrainerConfigError(
                f"`train_batch_size` {tb} is not a multiple of the micro-batch × world size = {micro * world}"
            )
        return tb, micro, tb // (micro * world), world, note
    if tb is not None:
        ga = ga or 1
        if tb % (ga * world):
            raise TrainerConfigError(
                f"`train_batch_size` {tb} is not a multiple of accumulation × world size = {ga * world}"
            )
        return tb, tb // (ga * world), ga, world, note
    assert micro is not None
    ga = ga or 1
    return micro * ga * world, micro, ga, world, note


def derive(data: Any, facts: Facts) -> StepValues:
    """The batch layout and scheduler of a DeepSpeed config used on its own. DeepSpeed has no run length:
    the training script's loop decides it; a decaying scheduler's `total_num_steps` is the run the
    config was written for, and is shown as such."""
    tb, micro, ga, world, note = _layout(data, facts)
    notes = [note]
    auto = [k for k in ("gradient_accumulation_steps", "train_batch_size") if data.get(k) == "auto"]
    if auto:
        notes.append(f'{", ".join(f"`{k}`" for k in auto)} "auto": filled in by the HF integration')
    sched = data.get("scheduler")
    kind, warmup, total = _scheduler(sched) if isinstance(sched, Mapping) else (None, None, None)
    formula = None
    if total is not None:
        notes.append(
            "run length from the scheduler's `total_num_steps`; the training loop decides when it stops"
        )
    else:
        formula = "S is set by the training script's loop (a DeepSpeed config has no run length)"
    decaying = decays(kind)
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NAME,
        batch_size=tb,
        micro_batch_size=micro,
        world_size=world,
        grad_accum=ga,
        optimizer_steps=total,
        effective_train_examples=total * tb if total is not None else None,
        scheduler=kind,
        warmup_steps=warmup,
        decay_steps=total - (warmup or 0) if decaying and total is not None else None,
        tail="carried: the engine counts micro-batches across epochs (an epoch's last join the next update)",
        formula=formula,
        assumptions=tuple(notes),
    )
