"""Hugging Face `TrainingArguments` / TRL recipe YAML (SFT, DPO): detection and step math.

Such a file is what `HfArgumentParser.parse_yaml_file` reads (`trl sft --config`, alignment-handbook and
open-r1 recipes). The semantics are the Trainer's (rules/training/trainers/hfloop.py): `max_steps` counts
optimizer updates and overrides `num_train_epochs`; warmup is counted in updates. TRL GRPO configs (with
`num_generations`) count completions, not examples, in `per_device_train_batch_size`: their step math is
rules/training/trainers/grpo.py's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import HF_EPOCH
from rules.training.trainers import deepspeed, grpo, hfloop
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, flag, integer, number, positive, shown

NAME = "hf-trainer"
GRPO = "trl-grpo"
# Cheap test before parsing: a file without this word is not an HF arguments file.
WORD = "per_device_train_batch_size"
# TrainingArguments keys that come with a batch size in every real recipe; one of them must be present.
_COMPANIONS = frozenset(
    {"gradient_accumulation_steps", "num_train_epochs", "max_steps", "learning_rate", "output_dir"}
)
# Decaying schedulers: the learning rate falls from the end of warmup to the last update.
_DECAYING = frozenset(
    {
        "linear",
        "cosine",
        "cosine_with_restarts",
        "polynomial",
        "cosine_with_min_lr",
    }
)


def detect(data: Any) -> bool:
    """A top-level mapping with an integer `per_device_train_batch_size` beside another Trainer key, and
    not a LLaMA-Factory config (`stage` + `finetuning_type`, whose datasets and limits it reads itself)."""
    if not isinstance(data, dict):
        return False
    b = data.get(WORD)
    if not isinstance(b, int) or isinstance(b, bool):
        return False
    if "stage" in data and "finetuning_type" in data:
        return False
    return bool(_COMPANIONS & set(data))


def trainer_of(data: Mapping[str, Any]) -> str:
    """`trl-grpo` for a GRPO config, else `hf-trainer`."""
    return GRPO if "num_generations" in data else NAME


def _dataset(data: Mapping[str, Any]) -> str | None:
    name = data.get("dataset_name")
    return name if isinstance(name, str) and name else None


def _deepspeed(
    data: Mapping[str, Any], facts: Facts, b: int, ga: int, notes: list[str]
) -> deepspeed.Pinned | None:
    """What the DeepSpeed config named in `deepspeed:` fixes, where it was read with this file."""
    if facts.deepspeed is None:
        named = data.get("deepspeed")
        if isinstance(named, str) and named.endswith(".json"):
            notes.append(f"DeepSpeed config `{named}` not read: not found in the repository")
        return None
    return deepspeed.pinned(facts.deepspeed, facts.deepspeed_path or "", b, ga)


def _check_pinned(pin: deepspeed.Pinned, path: str | None, steps: int | None, warmup: int | None) -> None:
    """A scheduler number in the DeepSpeed config must be the Trainer's own, or transformers refuses it."""
    for key, theirs, ours in (
        ("total_num_steps", pin.total_steps, steps),
        ("warmup_num_steps", pin.warmup_steps, warmup),
    ):
        if theirs is not None and ours is not None and theirs != ours:
            raise TrainerConfigError(
                f"`scheduler.params.{key}` is {theirs} in the DeepSpeed config {path} but the Trainer "
                f'computes {ours}: transformers refuses the mismatch (write "auto")'
            )


def _grpo(
    data: Mapping[str, Any],
    facts: Facts,
    common: dict[str, Any],
    epochs: float,
    max_steps: int,
    notes: list[str],
) -> StepValues:
    """A GRPO run: updates from whole generation batches of prompts; examples are prompts."""
    b, w, ga = common["micro_batch_size"], common["world_size"], common["grad_accum"]
    prompts, spg, iterations = grpo.prompts_per_generation(data, b, w, ga)
    notes.append(
        f"examples are prompts: {prompts} a generation batch, each with `num_generations` completions; "
        "the batch size counts completions"
    )
    dataset = _dataset(data)
    n = facts.datasets.get(dataset) if dataset else None
    per_epoch = grpo.updates_per_epoch(n, prompts, spg, iterations, ga) if n is not None else None
    if max_steps > 0:
        steps: int | None = max_steps
    elif per_epoch is not None:
        steps = math.ceil(epochs * per_epoch)
    else:
        steps = None
    formula = None
    if steps is None:
        what = f"prompts of `{dataset}`" if dataset else "training prompts"
        formula = (
            f"S = ceil({shown(epochs)} × ceil((N // {prompts}) × {spg * iterations} / {ga})), N = {what}"
        )
    examples = None
    tail = None
    if n is not None and per_epoch is not None and steps is not None:
        if spg == ga and iterations == 1:  # one generation batch per update
            whole, rest = divmod(steps, per_epoch)
            examples = whole * (n // prompts) * prompts + rest * prompts
        tail = f"{n % prompts} prompts an epoch left out (the sampler takes whole generation batches)"
    warmup, warm_formula = hfloop.warmup(
        steps, number(data, "warmup_steps", 0.0) or 0.0, number(data, "warmup_ratio", 0.0) or 0.0
    )
    if warm_formula:
        formula = "; ".join(f for f in (formula, f"warmup = {warm_formula}") if f)
    decay = (
        steps - warmup if steps is not None and warmup is not None and _decays(common["scheduler"]) else None
    )
    return StepValues(
        **common,
        optimizer_steps=steps,
        effective_train_examples=examples,
        train_examples=n,
        epochs=round(steps / per_epoch, 4)
        if steps is not None and per_epoch
        else (epochs if max_steps <= 0 else None),
        warmup_steps=warmup,
        warmup_ratio=number(data, "warmup_ratio", None),
        decay_steps=decay,
        tail=tail,
        formula=formula,
        assumptions=tuple(notes),
    )


def _epochs(steps: int | None, ep: hfloop.Epoch | None, ga: int, configured: float | None) -> float | None:
    """Epochs the run covers: S / U where both are known, else the configured number (epoch mode)."""
    if steps is not None and ep is not None:
        return hfloop.epochs_covered(ep, steps, ga)
    return configured


def _decays(scheduler: str | None) -> bool:
    """Whether the run's scheduler (HF's, or the DeepSpeed config's that replaces it) decays after warmup."""
    return scheduler in _DECAYING or deepspeed.decays(scheduler)


def derive(data: Mapping[str, Any], facts: Facts) -> StepValues:
    """The run an HF arguments file describes; raises TrainerConfigError for values the Trainer refuses."""
    dataset = _dataset(data)
    n = facts.datasets.get(dataset) if dataset else None
    return derive_run(data, facts, n, f"`{dataset}`" if dataset else None, flag(data, "packing"))


def derive_run(
    data: Mapping[str, Any],
    facts: Facts,
    n: int | None,
    dataset: str | None,
    packing: bool,
    trainer: str | None = None,
    extra_notes: tuple[str, ...] = (),
) -> StepValues:
    """The HF Trainer's run on `n` training examples (None: unknown; `dataset` names them, in backticks), for
    formats that hand their arguments to the Trainer (LLaMA-Factory) as well as for HF files."""
    b = positive(WORD, integer(data, WORD, 8) or 0)
    ga = positive("gradient_accumulation_steps", integer(data, "gradient_accumulation_steps", 1) or 0)
    epochs = number(data, "num_train_epochs", 3.0) or 0.0
    if epochs <= 0 and not (integer(data, "max_steps", None) or 0) > 0:
        raise TrainerConfigError(f"`num_train_epochs` should be above 0; got {shown(epochs)}")
    max_steps = integer(data, "max_steps", -1)
    if max_steps == 0:
        raise TrainerConfigError(
            "`max_steps` is 0: the Trainer makes no update (-1 leaves the length to epochs)"
        )
    max_steps = -1 if max_steps is None else max_steps
    w, world_note = facts.world()
    notes = [world_note, *extra_notes]
    scheduler = data.get("lr_scheduler_type", "linear")
    scheduler = scheduler if isinstance(scheduler, str) else "linear"
    pin = _deepspeed(data, facts, b, ga, notes)
    if pin is not None and pin.world_size is not None and pin.world_size != w:
        if facts.configured:
            raise TrainerConfigError(
                f"`train_batch_size` in the DeepSpeed config {facts.deepspeed_path} needs world size "
                f"{pin.world_size}, but `training.world_size` is {w}: transformers refuses the mismatch"
            )
        w = pin.world_size
        notes[0] = f"world size {w} from `train_batch_size` in the DeepSpeed config {facts.deepspeed_path}"
    if pin is not None and pin.scheduler is not None:
        scheduler = pin.scheduler
    common: dict[str, Any] = {
        "semantics": HF_EPOCH,
        "trainer": trainer or trainer_of(data),
        "batch_size": b * ga * w,
        "micro_batch_size": b,
        "world_size": w,
        "grad_accum": ga,
        "max_steps": max_steps if max_steps > 0 else None,
        "seq_len": integer(data, "max_length", None) or integer(data, "max_seq_length", None),
        "scheduler": scheduler,
    }
    if common["trainer"] == GRPO:
        return _grpo(data, facts, common, epochs, max_steps, notes)
    if packing:
        notes.append("packing: examples are packed into rows of max_length tokens, so counts are estimates")
    version, release = facts.release()
    how = hfloop.regime(version)
    ep = hfloop.epoch(n, b, w, ga, flag(data, "dataloader_drop_last"), how) if n is not None else None
    if max_steps > 0:
        steps: int | None = max_steps
        formula = None
    elif ep is not None:
        steps = hfloop.total_updates(ep, epochs)
        formula = None
    else:
        steps = None
        what = f"examples of {dataset}" if dataset else "training examples"
        formula = f"S = ceil({shown(epochs)} × ceil(ceil(N / {b * w}) / {ga})), N = {what}"
        notes.append(f"add {dataset or 'the dataset'} to `training.datasets`")
    examples: int | None = None
    estimate = packing
    if steps is not None and ep is not None:
        examples = hfloop.examples_applied(ep, steps, ga, b * w)
    elif steps is not None:
        examples = steps * b * ga * w  # the Trainer's own estimate when the dataset size is unknown
        estimate = True
    warm_steps = number(data, "warmup_steps", 0.0) or 0.0
    warm_ratio = number(data, "warmup_ratio", 0.0) or 0.0
    if warm_ratio > 0 and version is not None and version >= (5, 0):
        # transformers 5.0 copies a set warmup_ratio into warmup_steps (training_args.py L1645-1647)
        warm_steps, warm_ratio = warm_ratio, 0.0
    elif warm_steps >= 1 and warm_ratio > 0:
        notes.append(
            "both warmup_steps and warmup_ratio: transformers 4 uses warmup_steps (assumed), 5 warmup_ratio"
        )
    warmup, warm_formula = hfloop.warmup(steps, warm_steps, warm_ratio)
    if pin is not None:
        _check_pinned(pin, facts.deepspeed_path, steps, warmup)
    if warm_formula:
        formula = "; ".join(f for f in (formula, f"warmup = {warm_formula}") if f)
    decay = steps - warmup if steps is not None and warmup is not None and _decays(scheduler) else None
    tail = hfloop.describe_tail(ep, ga, release)
    return StepValues(
        **common,
        optimizer_steps=steps,
        effective_train_examples=examples,
        train_examples=n,
        epochs=_epochs(steps, ep, ga, epochs if max_steps <= 0 else None),
        warmup_steps=warmup,
        warmup_ratio=(warm_steps if 0 < warm_steps < 1 else warm_ratio) or None,
        decay_steps=decay,
        tail=tail,
        formula=formula,
        estimate=estimate,
        assumptions=tuple(notes),
    )


__all__ = ["GRPO", "NAME", "WORD", "TrainerConfigError", "derive", "derive_run", "detect", "trainer_of"]
