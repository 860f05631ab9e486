"""torchtune recipe YAML (`tune run <recipe> --config x.yaml`): detection and step math.

Every recipe counts the same way (torchtune bd2a0fc7 `recipes/lora_finetune_single_device.py` L340-348,
`full_finetune_distributed.py` L470-477): the per-rank dataloader takes `batch_size` rows with
`drop_last=True` from a `DistributedSampler` shard of ceil(N / W) rows (padded), so L = floor(ceil(N / W) /
batch_size) micro-batches an epoch; an epoch makes U = floor(L / GA) updates, capped by
`max_steps_per_epoch`; the run makes S = epochs * U, and the scheduler is built with that horizon and stepped
once an update (L494, L1054). The epoch's last L mod GA micro-batches are never an update of their own: the
v0.6.1 loop (and the LoRA, DPO and distillation recipes on main) carries their gradients into the next
epoch's first update; the full-finetune recipes on main (PR #2869, unreleased) skip them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import TORCHTUNE
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, flag, integer, positive

NAME = "torchtune"
WORD = "max_steps_per_epoch"
# `source:` values that name a loader, not a dataset: the files it loads are the dataset.
_LOADERS = frozenset({"json", "csv", "parquet", "text", "arrow"})
# torchtune's decaying schedule (`training/lr_schedulers.py`); the others hold the rate after warmup.
_DECAYING = frozenset({"get_cosine_schedule_with_warmup"})


def _component(node: Any) -> str | None:
    value = node.get("_component_") if isinstance(node, dict) else None
    return value if isinstance(value, str) else None


def detect(data: Any) -> bool:
    """A top-level mapping with the `max_steps_per_epoch` key (null or an integer), an integer `batch_size`
    and `epochs`, and a `model` or `dataset` built from a `_component_`."""
    if not isinstance(data, dict) or WORD not in data:
        return False
    cap = data[WORD]
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool)):
        return False
    for key in ("batch_size", "epochs"):
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            return False
    dataset = data.get("dataset")
    entries = dataset if isinstance(dataset, list) else [dataset]
    return _component(data.get("model")) is not None or any(_component(e) for e in entries)


def _names(entry: Any) -> list[str]:
    """What `training.datasets` may call one dataset entry, most specific first: its `source` (a hub id or
    path), the `data_files` a loader source reads, its `_component_`."""
    if not isinstance(entry, dict):
        return []
    out = []
    source, files = entry.get("source"), entry.get("data_files")
    if isinstance(source, str) and source not in _LOADERS:
        out.append(source)
    if isinstance(files, str):
        out.append(files)
    if (component := _component(entry)) is not None:
        out.append(component)
    return out


def _examples(data: Mapping[str, Any], facts: Facts, notes: list[str]) -> tuple[int | None, str | None]:
    """N, the sum over `dataset` (a list is concatenated), or (None, the names to configure)."""
    dataset = data.get("dataset")
    entries = dataset if isinstance(dataset, list) else [dataset]
    total, missing = 0, []
    for entry in entries:
        names = _names(entry)
        known = next((facts.datasets[n] for n in names if n in facts.datasets), None)
        if known is None:
            missing.append(names[0] if names else "the dataset")
            continue
        total += known
        split = entry.get("split") if isinstance(entry, dict) else None
        if isinstance(split, str) and split != "train":
            notes.append(f"`split: {split}`: `training.datasets` should give the size of that slice")
    if missing:
        return None, ", ".join(f"`{m}`" for m in missing)
    return total, None


def _packed(data: Mapping[str, Any]) -> bool:
    dataset = data.get("dataset")
    entries = dataset if isinstance(dataset, list) else [dataset]
    return any(isinstance(e, dict) and flag(e, "packed") for e in entries)


def _scheduler(data: Mapping[str, Any]) -> tuple[str, int]:
    """(scheduler name, warmup updates): no `lr_scheduler` keeps the learning rate constant."""
    node = data.get("lr_scheduler")
    component = _component(node)
    if component is None or not isinstance(node, dict):
        return "constant", 0
    warmup = integer(node, "num_warmup_steps", 0) or 0
    if warmup < 0:
        raise TrainerConfigError(f"`lr_scheduler.num_warmup_steps` should be 0 or above; got {warmup}")
    return component.rsplit(".", 1)[-1], warmup


def derive(data: Mapping[str, Any], facts: Facts) -> StepValues:
    """The run a torchtune config describes; raises TrainerConfigError for values the recipes refuse."""
    b = positive("batch_size", integer(data, "batch_size", None) or 0)
    ga = positive("gradient_accumulation_steps", integer(data, "gradient_accumulation_steps", 1) or 0)
    epochs = positive("epochs", integer(data, "epochs", None) or 0)
    cap = integer(data, WORD, None)
    if cap is not None:
        positive(WORD, cap)
    if ga > 1 and flag(data, "optimizer_in_bwd"):
        raise TrainerConfigError(
            "`optimizer_in_bwd` needs gradient_accumulation_steps 1: the recipes refuse it"
        )
    w, world_note = facts.world()
    notes = [world_note]
    parallel = (integer(data, "tensor_parallel_dim", 1) or 1) * (
        integer(data, "context_parallel_dim", 1) or 1
    )
    dp = max(w // parallel, 1)
    packed = _packed(data)
    if packed:
        notes.append(
            "`packed`: each row is a pack of examples up to max_seq_len tokens, so counts are estimates"
        )
    n, missing = _examples(data, facts, notes)
    scheduler, warmup = _scheduler(data)
    formula = None
    steps = per_epoch = micro = None
    if n is not None:
        micro = -(-n // dp) // b
        per_epoch = micro // ga if cap is None else min(micro // ga, cap)
        if per_epoch == 0:
            raise TrainerConfigError(
                f"an epoch of {n} examples makes {micro} micro-batches of {b} per rank, fewer than "
                f"gradient_accumulation_steps {ga}: the recipe makes no update"
            )
        steps = epochs * per_epoch
    else:
        capped = f"min(⌊L / {ga}⌋, {cap})" if cap is not None else f"⌊L / {ga}⌋"
        formula = f"S = {epochs} × {capped}, L = ⌊⌈N / {dp}⌉ / {b}⌋, N = training examples"
        notes.append(f"add {missing} to `training.datasets`")
    rows = b * ga * dp
    examples = tail = None
    if steps is not None and per_epoch is not None and micro is not None:
        # the tail is forwarded only when the loop reaches the epoch's end (no cap before it)
        left = micro - per_epoch * ga if cap is None or cap > micro // ga else 0
        examples = steps * rows + (epochs - 1) * left * b * dp
        if left:
            tail = (
                f"each epoch's last {left} of {micro} micro-batches are carried into the next epoch's first "
                "update (v0.6.1 and the LoRA/DPO recipes; full-finetune recipes on main skip them)"
            )
        elif per_epoch * ga < micro:
            tail = f"none: `{WORD}` ends each epoch after {per_epoch} of {micro // ga} updates"
        else:
            tail = f"none: {micro} micro-batches an epoch make {per_epoch} updates"
    return StepValues(
        semantics=TORCHTUNE,
        trainer=NAME,
        batch_size=rows,
        micro_batch_size=b,
        world_size=w,
        grad_accum=ga,
        seq_len=_max_seq_len(data),
        max_steps=None,
        optimizer_steps=steps,
        effective_train_examples=examples,
        train_examples=n,
        epochs=float(epochs),
        scheduler=scheduler,
        warmup_steps=warmup,
        decay_steps=steps - warmup if steps is not None and scheduler in _DECAYING else None,
        tail=tail,
        formula=formula,
        estimate=packed,
        assumptions=tuple(notes),
    )


def _max_seq_len(data: Mapping[str, Any]) -> int | None:
    tokenizer = data.get("tokenizer")
    return integer(tokenizer, "max_seq_len", None) if isinstance(tokenizer, dict) else None


__all__ = ["NAME", "WORD", "TrainerConfigError", "derive", "detect"]
