"""PyTorch Lightning trainer configs (LightningCLI/Hydra YAML with a `trainer:` section, NeMo's model
configs) and NeMo Megatron configs: detection and step math.

Lightning (7f0c3436 `trainer/trainer.py` L1754-1792, `loops/utilities.py` L71-80): an epoch is B batches per
device (after `limit_train_batches`, `trainer/connectors/data_connector.py` L449-466) and makes
U = ceil(B / `accumulate_grad_batches`) optimizer steps, the last one short ("Lightning steps on the final
batch", `loops/training_epoch_loop.py` L447-454); the run makes min(U × max_epochs, max_steps), where an
unset `max_epochs` is 1000 without `max_steps` and unbounded with it. Batch size is the data module's (NeMo:
`model.train_ds.batch_size`). A scheduler steps once an epoch unless its interval is "step"
(`utilities/types.py` L86); NeMo's `model.optim.sched` steps once an optimizer step over the same S
(NeMo 8cfedd72 `core/optim/lr_scheduler.py` L822, L964, L1019-1040).

NeMo Megatron (`model.global_batch_size`, `model.micro_batch_size`): one Lightning step is one global batch
(the micro-batches are accumulated inside the step, so `accumulate_grad_batches` must be 1,
`megatron_gpt_model.py` L1961); S = `trainer.max_steps` when >= 0, else global batches × max_epochs
(`megatron_base_model.py` L1284-1322).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import HF_EPOCH, OPTIMIZER
from rules.training.trainers import hfloop
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, integer, number, positive

NAME = "lightning"
NEMO = "nemo"
WORDS = ("accumulate_grad_batches", "max_steps:")
# NeMo's schedulers that decay after warmup and the constant phase (`core/optim/lr_scheduler.py`).
_DECAYING = ("Cosine", "Linear", "Polynomial", "Squareroot", "InverseSquareRoot", "Noam", "WarmupAnnealing")


def _int(node: Mapping[str, Any], key: str) -> bool:
    value = node.get(key)
    return isinstance(value, int) and not isinstance(value, bool)


def _section(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def detect(data: Any) -> bool:
    """A top-level `trainer:` mapping with an integer `max_steps` or `accumulate_grad_batches` (and no
    Megatron batch in `model`: that is NeMo's)."""
    trainer = _section(data, "trainer")
    if not (_int(trainer, "max_steps") or _int(trainer, "accumulate_grad_batches")):
        return False
    return not detect_nemo(data)


def detect_nemo(data: Any) -> bool:
    """A `trainer:` mapping with `max_steps` beside a `model:` with integer `global_batch_size` and
    `micro_batch_size`."""
    model = _section(data, "model")
    return (
        _int(_section(data, "trainer"), "max_steps")
        and _int(model, "global_batch_size")
        and _int(model, "micro_batch_size")
    )


def _world(trainer: Mapping[str, Any], facts: Facts) -> tuple[int, str]:
    """`devices` × `num_nodes` when `devices` is a count; -1 and "auto" mean every GPU the job has."""
    devices = trainer.get("devices")
    if isinstance(devices, int) and not isinstance(devices, bool) and devices > 0 and not facts.configured:
        nodes = integer(trainer, "num_nodes", 1) or 1
        return devices * nodes, f"world size {devices * nodes} from `trainer.devices` × `trainer.num_nodes`"
    return facts.world()


def _sched(data: Any) -> dict[str, Any]:
    return _section(_section(_section(data, "model"), "optim"), "sched")


def _warmup(sched: Mapping[str, Any], steps: int | None) -> tuple[int | None, int]:
    """(warmup, constant) steps of NeMo's scheduler: a count, else int(ratio × S)."""
    if sched.get("warmup_steps") is not None and sched.get("warmup_ratio") is not None:
        raise TrainerConfigError("`warmup_steps` and `warmup_ratio` exclude each other in NeMo's schedulers")
    out: list[int | None] = []
    for key in ("warmup", "constant"):
        count = integer(sched, f"{key}_steps", None)
        ratio = number(sched, f"{key}_ratio", None)
        if count is not None:
            out.append(count)
        elif ratio is not None:
            out.append(int(ratio * steps) if steps is not None else None)
        else:
            out.append(0)
    return out[0], out[1] or 0


def _decay(sched: Mapping[str, Any], steps: int | None, warmup: int | None, constant: int) -> int | None:
    name = sched.get("name")
    if steps is None or warmup is None or not isinstance(name, str) or not name.startswith(_DECAYING):
        return None
    return steps - warmup - constant


def _dataset(data: Any) -> tuple[str | None, int | None]:
    """The training data as `training.datasets` may name it (NeMo's `model.train_ds.manifest_filepath`,
    else the data module's class), and the per-device batch (`model.train_ds.batch_size`, `data.batch_size`,
    `data.init_args.batch_size`)."""
    train_ds = _section(_section(data, "model"), "train_ds")
    module = _section(data, "data")
    args = _section(module, "init_args")
    name = train_ds.get("manifest_filepath") or module.get("class_path") or module.get("_target_")
    name = None if name == "???" else name  # Hydra's mandatory value: set on the command line
    for node in (train_ds, module, args):
        if _int(node, "batch_size"):
            return (name if isinstance(name, str) else None), integer(node, "batch_size", None)
    return (name if isinstance(name, str) else None), None


def derive(data: Any, facts: Facts) -> StepValues:
    """The run a Lightning trainer config describes; raises TrainerConfigError for values it refuses."""
    trainer = _section(data, "trainer")
    accum = positive("accumulate_grad_batches", integer(trainer, "accumulate_grad_batches", 1) or 0)
    max_steps = integer(trainer, "max_steps", -1)
    max_steps = -1 if max_steps is None else max_steps
    max_epochs = integer(trainer, "max_epochs", None)
    if max_epochs is None:
        max_epochs = 1000 if max_steps == -1 else -1
    if max_steps == 0:
        raise TrainerConfigError("`max_steps` is 0: the run makes no step (-1 leaves the length to epochs)")
    if max_steps == -1 and max_epochs == -1:
        raise TrainerConfigError("`max_steps` and `max_epochs` are both -1: the run has no end")
    w, world_note = _world(trainer, facts)
    notes = [world_note]
    name, b = _dataset(data)
    n = facts.datasets.get(name) if name else None
    limit = trainer.get("limit_train_batches")
    ep = None
    if n is not None and b is not None:
        ep = hfloop.epoch(n, b, w, accum)
        batches = ep.micro_batches
        if isinstance(limit, int) and not isinstance(limit, bool):
            batches = min(batches, limit)
        elif isinstance(limit, float):
            batches = int(batches * limit)
        if batches == 0:
            raise TrainerConfigError(
                f"`limit_train_batches` {limit} leaves no batch of the epoch's {ep.micro_batches}"
            )
        if batches != ep.micro_batches:
            ep = hfloop.Epoch(
                batches, -(-batches // accum), batches % accum, batches * b * w, -(-batches // accum)
            )
    formula = None
    if ep is not None:
        by_epochs = ep.updates * max_epochs if max_epochs > 0 else None
        steps: int | None = min(x for x in (by_epochs, max_steps if max_steps > 0 else None) if x is not None)
    elif max_epochs == -1:
        steps = max_steps
    else:
        steps = None
        what = f"examples of `{name}`" if name else "training examples"
        per_epoch = f"{max_epochs} × ceil(ceil(N / ({b or 'b'} × {w})) / {accum})"
        formula = f"S = {f'min({per_epoch}, {max_steps})' if max_steps > 0 else per_epoch}, N = {what}"
        if b is None:
            notes.append("the batch size is the data module's: b is not in this config")
        notes.append(f"add {'`' + name + '`' if name else 'the dataset'} to `training.datasets`")
    sched = _sched(data)
    if sched:
        warmup, constant = _warmup(sched, steps)
        scheduler = str(sched.get("name", "NeMo scheduler"))
    else:
        warmup, constant, scheduler = None, 0, None
        notes.append("Lightning steps a scheduler once an epoch unless its `interval` is `step`")
    examples = hfloop.examples_applied(ep, steps, accum, (b or 0) * w) if ep is not None and steps else None
    return StepValues(
        semantics=HF_EPOCH,
        trainer=NAME,
        batch_size=b * accum * w if b is not None else None,
        micro_batch_size=b,
        world_size=w,
        grad_accum=accum,
        max_steps=max_steps if max_steps > 0 else None,
        optimizer_steps=steps,
        effective_train_examples=examples,
        train_examples=n,
        epochs=hfloop.epochs_covered(ep, steps, accum)
        if ep is not None and steps
        else (float(max_epochs) if max_epochs > 0 else None),
        scheduler=scheduler,
        warmup_steps=warmup,
        decay_steps=_decay(sched, steps, warmup, constant),
        tail=hfloop.describe_tail(ep, accum, "Lightning") if ep is not None else None,
        formula=formula,
        assumptions=tuple(notes),
    )


def derive_nemo(data: Any, facts: Facts) -> StepValues:
    """The run a NeMo Megatron config describes; raises TrainerConfigError for values NeMo refuses."""
    trainer, model = _section(data, "trainer"), _section(data, "model")
    if (integer(trainer, "accumulate_grad_batches", 1) or 1) != 1:
        raise TrainerConfigError(
            "`trainer.accumulate_grad_batches` must be 1 for Megatron models: NeMo accumulates "
            "`global_batch_size` / (micro_batch_size × data-parallel size) inside each step"
        )
    gbs = positive("model.global_batch_size", integer(model, "global_batch_size", None) or 0)
    mbs = positive("model.micro_batch_size", integer(model, "micro_batch_size", None) or 0)
    w, world_note = _world(trainer, facts)
    parallel = 1
    for key in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size"):
        parallel *= positive(key, integer(model, key, 1) or 1)
    if w % parallel:
        raise TrainerConfigError(f"world size {w} is not a multiple of the model-parallel size {parallel}")
    dp = w // parallel
    if gbs % (mbs * dp):
        raise TrainerConfigError(
            f"`global_batch_size` {gbs} is not a multiple of micro_batch_size × data-parallel size = "
            f"{mbs * dp}: Megatron refuses it"
        )
    max_steps = integer(trainer, "max_steps", -1)
    max_steps = -1 if max_steps is None else max_steps
    max_epochs = integer(trainer, "max_epochs", -1)
    notes = [world_note, f"one step is one global batch of {gbs} sequences"]
    formula = None
    steps: int | None = max_steps if max_steps >= 0 else None
    if steps is None:
        if max_epochs is None or max_epochs < 0:
            raise TrainerConfigError(
                "neither `trainer.max_steps` nor `trainer.max_epochs` is set: no run length"
            )
        formula = f"S = ⌊N / {gbs}⌋ × {max_epochs}, N = training sequences"
    elif max_epochs is not None and max_epochs >= 0:
        notes.append(f"`max_epochs` {max_epochs} is ignored for the schedule: `max_steps` sets it")
    sched = _sched(data)
    warmup, constant = _warmup(sched, steps) if sched else (None, 0)
    seq = integer(model, "encoder_seq_length", None) or integer(model, "seq_length", None)
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NEMO,
        batch_size=gbs,
        micro_batch_size=mbs,
        world_size=w,
        grad_accum=gbs // (mbs * dp),
        seq_len=seq,
        tokens_per_step=gbs * seq if seq else None,
        max_steps=max_steps if max_steps >= 0 else None,
        optimizer_steps=steps,
        effective_train_examples=steps * gbs if steps is not None else None,
        scheduler=str(sched.get("name")) if sched.get("name") else None,
        warmup_steps=warmup,
        decay_steps=_decay(sched, steps, warmup, constant),
        formula=formula,
        assumptions=tuple(notes),
    )


__all__ = ["NAME", "NEMO", "WORDS", "TrainerConfigError", "derive", "derive_nemo", "detect", "detect_nemo"]
