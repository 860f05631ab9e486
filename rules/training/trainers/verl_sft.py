"""verl SFT launch scripts (`torchrun ... -m verl.trainer.fsdp_sft_trainer key=value ...`, and the newer
`verl.trainer.sft_trainer`): detection and step math.

Unlike verl's PPO trainer, its SFT trainers count optimizer updates: one per dataloader batch. The global
`data.train_batch_size` is split over the data-parallel ranks (it must divide), each rank's share over
`data.micro_batch_size_per_gpu` micro-batches (gradient accumulation). The sampler and the dataloader
both drop what does not fill a batch, so an epoch is ⌊⌊N / dp⌋ / (train_batch_size / dp)⌋ updates and
the run S = that × `trainer.total_epochs` (verl 0062357f `trainer/fsdp_sft_trainer.py`
`_normalize_config_bsz`, `_build_dataloader`, `_build_model_optimizer`: `total_steps = steps_per_epoch ×
total_epochs`, warmup int(S × `lr_warmup_steps_ratio`), cosine by default). `trainer.total_training_steps`
stops the run early; in `fsdp_sft_trainer` (through verl 0.7.0) the schedule keeps the full S, so the
learning rate never finishes its decay, while `sft_trainer` builds the schedule for the shorter run.
"""

from __future__ import annotations

from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import OPTIMIZER
from rules.training.trainers import launch
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, integer, number, positive
from rules.training.trainers.verl import train_files

NAME = "verl-sft"
WORDS = ("fsdp_sft_trainer", "verl.trainer.sft_trainer")
_OLD, _NEW = "verl.trainer.fsdp_sft_trainer", "verl.trainer.sft_trainer"
# `verl/trainer/config/sft_trainer.yaml` (005a83db): the values a script leaves unset.
DEFAULTS: dict[str, Any] = {
    "data.train_batch_size": 256,
    "data.micro_batch_size_per_gpu": 4,
    "trainer.total_epochs": 4,
    "optim.lr_scheduler": "cosine",
    "ulysses_sequence_parallel_size": 1,
}
# The warmup ratio's key was `optim.warmup_steps_ratio` in the YAML and `lr_warmup_steps_ratio` in the code
# that reads it; both are taken, and the default is the YAML's 0.1.
_WARMUP_KEYS = ("optim.lr_warmup_steps_ratio", "optim.warmup_steps_ratio")
_DEFAULT_WARMUP = 0.1


def _entry(data: Any) -> str | None:
    if not launch.is_script(data):
        return None
    for module in data["modules"]:
        if module in (_OLD, _NEW):
            return str(module)
    return None


def detect(data: Any) -> bool:
    """A launch script running `verl.trainer.fsdp_sft_trainer` or `verl.trainer.sft_trainer`."""
    return _entry(data) is not None


def _world(data: Any, keys: dict[str, Any], facts: Facts) -> tuple[int, str]:
    """The world size: torchrun's `--nproc_per_node` × `--nnodes` when the script writes them as numbers,
    else `trainer.n_gpus_per_node` × `trainer.nnodes`, else what the repository says."""
    world = launch.torchrun_world(data["flags"])
    if world is not None:
        return world, launch.TORCHRUN_WORLD
    gpus = integer(keys, "trainer.n_gpus_per_node", None)
    if gpus:
        world = gpus * (integer(keys, "trainer.nnodes", 1) or 1)
        return world, "world size from `trainer.n_gpus_per_node` × `trainer.nnodes`"
    return facts.world()


def derive(data: Any, facts: Facts) -> StepValues:
    """The run a verl SFT script describes; raises TrainerConfigError for values verl refuses."""
    entry = _entry(data) or _OLD
    keys = {**DEFAULTS, **launch_overrides(data)}
    if "data.micro_batch_size" in keys and keys["data.micro_batch_size"] is not None:
        # The deprecated name, still honoured by the trainer: the per-GPU micro-batch.
        keys["data.micro_batch_size_per_gpu"] = keys["data.micro_batch_size"]
    tb = positive("data.train_batch_size", integer(keys, "data.train_batch_size", None) or 0)
    micro = positive("micro_batch_size_per_gpu", integer(keys, "data.micro_batch_size_per_gpu", None) or 0)
    epochs = positive("trainer.total_epochs", integer(keys, "trainer.total_epochs", None) or 0)
    sp = integer(keys, "ulysses_sequence_parallel_size", 1) or 1
    world, world_note = _world(data, keys, facts)
    dp = max(world // sp, 1)
    if tb % dp:
        raise TrainerConfigError(
            f"`data.train_batch_size` {tb} is not divisible by the {dp} data-parallel ranks: verl refuses it"
        )
    per_rank = tb // dp
    if per_rank % micro:
        raise TrainerConfigError(
            f"the per-rank batch {per_rank} is not a multiple of the micro-batch {micro}: verl refuses it"
        )
    notes = [world_note]
    files = train_files(keys.get("data.train_files"))
    size = (
        sum(facts.datasets[f] for f in files) if files and all(f in facts.datasets for f in files) else None
    )
    per_epoch = (size // dp) // per_rank if size is not None else None
    if per_epoch == 0:
        raise TrainerConfigError(f"{size} examples make no batch of {tb}: verl's dataloader is empty")
    schedule = per_epoch * epochs if per_epoch is not None else None
    fixed = integer(keys, "trainer.total_training_steps", None)
    steps = min(fixed, schedule) if fixed is not None and schedule is not None else (fixed or schedule)
    formula = None
    if schedule is None:
        formula = f"S = ⌊⌊N / {dp}⌋ / {per_rank}⌋ × {epochs}, N = training examples"
        named = ", ".join(f"`{f}`" for f in files) or "`data.train_files`"
        notes.append(f"add {named} to `training.datasets`")
    horizon = schedule if entry == _OLD else steps
    if fixed is not None and entry == _OLD:
        notes.append(
            "`trainer.total_training_steps` stops the run early but fsdp_sft_trainer builds the "
            "learning-rate schedule for every epoch, so the decay never finishes"
        )
    ratio = next((number(keys, k, None) for k in _WARMUP_KEYS if keys.get(k) is not None), None)
    if ratio is None:
        ratio = _DEFAULT_WARMUP
    warmup = int(horizon * ratio) if horizon is not None else None
    scheduler = keys.get("optim.lr_scheduler")
    scheduler = scheduler if isinstance(scheduler, str) else "cosine"
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NAME,
        batch_size=tb,
        micro_batch_size=micro,
        world_size=world,
        grad_accum=per_rank // micro,
        max_steps=fixed,
        optimizer_steps=steps,
        effective_train_examples=steps * tb if steps is not None else None,
        train_examples=size,
        epochs=round(steps / per_epoch, 4) if steps is not None and per_epoch else float(epochs),
        scheduler=scheduler,
        warmup_steps=warmup,
        warmup_ratio=ratio or None,
        decay_steps=horizon - warmup
        if horizon is not None and warmup is not None and scheduler == "cosine"
        else None,
        tail=f"{size - per_epoch * tb} examples an epoch left out (drop_last)"
        if size is not None and per_epoch is not None
        else None,
        formula=formula,
        assumptions=tuple(notes),
    )


def launch_overrides(data: Any) -> dict[str, Any]:
    """The script's Hydra overrides (`key=value`, `+key=value`)."""
    return dict(data["overrides"]) if launch.is_script(data) else {}


__all__ = ["NAME", "WORDS", "TrainerConfigError", "derive", "detect"]
