"""axolotl YAML: detection and step math.

axolotl estimates the run's optimizer updates itself and hands them to the HF Trainer as `max_steps`
(`core/builders/base.py`: `max_steps = cfg.max_steps or total_num_steps`), so the Trainer always runs in
max_steps mode; warmup is counted in those updates. Without sample packing the estimate is
ceil(N * num_epochs / G) over the whole run (`utils/trainer.py` `calculate_total_num_steps`), where
G = micro_batch_size * gradient_accumulation_steps * world size (`utils/config` `normalize_config`); with
packing it depends on how the examples pack, which only the data says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import HF_EPOCH
from rules.training.trainers import hfloop
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, flag, integer, number, positive, shown

NAME = "axolotl"
WORD = "micro_batch_size"
_MARKERS = frozenset({"base_model", "datasets", "num_epochs", "gradient_accumulation_steps"})


def detect(data: Any) -> bool:
    """A top-level mapping with integer `micro_batch_size` and `sequence_len` beside another axolotl key."""
    if not isinstance(data, dict):
        return False
    for key in (WORD, "sequence_len"):
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            return False
    return bool(_MARKERS & set(data))


def _dataset_names(data: Mapping[str, Any]) -> list[str] | None:
    """The `path` of every entry of `datasets`, or None when one has none (a local file by other keys)."""
    entries = data.get("datasets")
    if not isinstance(entries, list) or not entries:
        return None
    names = [e.get("path") if isinstance(e, dict) else None for e in entries]
    return [n for n in names if isinstance(n, str)] if all(isinstance(n, str) and n for n in names) else None


def _validation(data: Mapping[str, Any], n: int) -> int:
    """Examples `val_set_size` takes off: a fraction below 1 is datasets' `train_test_split` test_size
    (ceil(fraction * N)), above 1 a count (`utils/data/sft.py`)."""
    v = number(data, "val_set_size", 0.0) or 0.0
    if v <= 0:
        return 0
    if v < 1:
        return math.ceil(v * n)
    return int(v)


def _warmup(data: Mapping[str, Any], total: int | None) -> tuple[int | None, str | None]:
    """Warmup as `_configure_warmup_and_logging` sets it: `warmup_steps`; else int(warmup_ratio * total);
    else min(int(0.03 * total), 100); a warmup of 1 becomes 2."""
    steps = integer(data, "warmup_steps", None)
    ratio = number(data, "warmup_ratio", None)
    if steps is not None:
        warm: int | None = steps
    elif ratio is not None:
        if total is None:
            return None, f"int({ratio:g} × min(estimate, max_steps))"
        warm = max(int(ratio * total), 0)
    else:
        if total is None:
            return None, "min(int(0.03 × estimate), 100)"
        warm = min(int(0.03 * total), 100)
    return (2 if warm == 1 else warm), None


def derive(data: Mapping[str, Any], facts: Facts) -> StepValues:
    """The run an axolotl config describes; raises TrainerConfigError for values axolotl refuses."""
    micro = positive(WORD, integer(data, WORD, 1) or 0)
    batch = integer(data, "batch_size", None)
    ga = integer(data, "gradient_accumulation_steps", None)
    if ga is None:
        ga = batch // micro if batch else 1
    positive("gradient_accumulation_steps", ga)
    per_device = batch or micro * ga
    epochs = number(data, "num_epochs", 1.0) or 0.0
    if epochs <= 0 and not (integer(data, "max_steps", None) or 0) > 0:
        raise TrainerConfigError(f"`num_epochs` should be above 0; got {shown(epochs)}")
    max_steps = integer(data, "max_steps", None) or None
    if max_steps is not None:
        positive("max_steps", max_steps)
    w, world_note = facts.world()
    notes = [world_note]
    parallel = (integer(data, "context_parallel_size", 1) or 1) * (
        integer(data, "tensor_parallel_size", 1) or 1
    )
    dp = max(w // parallel, 1)
    g = per_device * dp
    packing = flag(data, "sample_packing")
    if batch is not None:
        notes.append("`batch_size` is set: axolotl reads it per device and multiplies it by the world size")
    names = _dataset_names(data)
    raw = sum(facts.datasets[n] for n in names) if names and all(n in facts.datasets for n in names) else None
    n = raw - _validation(data, raw) if raw is not None else None
    formula_parts: list[str] = []
    if n is not None and n <= 0:
        raise TrainerConfigError(f"`val_set_size` leaves no training examples of the {raw} configured")
    estimate_steps: int | None = None
    if packing:
        notes.append("sample packing: each micro-batch is packed rows, so counts are estimates")
        formula_parts.append(f"estimate = floor(packed micro-batches × {micro} / {g} × {shown(epochs)})")
    elif n is not None:
        estimate_steps = math.ceil(n * epochs / g)
    else:
        formula_parts.append(f"estimate = ceil(N × {shown(epochs)} / {g}), N = training examples")
        missing = [x for x in names or [] if x not in facts.datasets]
        notes.append(
            "add "
            + (", ".join(f"`{x}`" for x in missing) if missing else "the datasets")
            + " to `training.datasets`"
        )
    steps = max_steps or estimate_steps
    total = min(estimate_steps, max_steps) if max_steps and estimate_steps else (estimate_steps or None)
    warmup, warm_formula = _warmup(data, total)
    if warm_formula:
        formula_parts.append(f"warmup = {warm_formula}")
    version, release = facts.release()
    how = hfloop.regime(version)
    ep = hfloop.epoch(n, micro, dp, ga, flag(data, "dataloader_drop_last"), how) if n is not None else None
    examples = None
    if steps is not None and ep is not None and not packing:
        examples = hfloop.examples_applied(ep, steps, ga, micro * dp)
    tail = hfloop.describe_tail(ep, ga, release) if not packing else None
    scheduler = data.get("lr_scheduler", "cosine")
    scheduler = scheduler if isinstance(scheduler, str) else "cosine"
    decaying = scheduler not in ("constant", "constant_with_warmup")
    return StepValues(
        semantics=HF_EPOCH,
        trainer=NAME,
        batch_size=g,
        micro_batch_size=micro,
        world_size=w,
        grad_accum=ga,
        seq_len=integer(data, "sequence_len", None),
        max_steps=max_steps,
        optimizer_steps=steps,
        effective_train_examples=examples,
        train_examples=n,
        epochs=hfloop.epochs_covered(ep, steps, ga)
        if steps is not None and ep is not None and not packing
        else epochs,
        scheduler=scheduler,
        warmup_steps=warmup,
        warmup_ratio=number(data, "warmup_ratio", None),
        decay_steps=steps - warmup if steps is not None and warmup is not None and decaying else None,
        tail=tail,
        formula="; ".join(formula_parts) or None,
        estimate=packing,
        assumptions=tuple(notes),
    )


__all__ = ["NAME", "WORD", "TrainerConfigError", "derive", "detect"]
