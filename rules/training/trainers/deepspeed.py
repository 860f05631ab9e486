"""A DeepSpeed JSON config read beside the HF arguments file that names it (`deepspeed: ds_config.json`).

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

from rules.training.trainers.keys import TrainerConfigError


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
    kind = sched.get("type")
    params = sched.get("params")
    params = params if isinstance(params, Mapping) else {}
    return Pinned(
        world_size=world,
        scheduler=f"DeepSpeed {kind}" if isinstance(kind, str) else None,
        warmup_steps=_number(params, "warmup_num_steps"),
        total_steps=_number(params, "total_num_steps"),
    )
