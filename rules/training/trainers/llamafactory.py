"""LLaMA-Factory YAML (`llamafactory-cli train x.yaml`): detection and step math.

A LLaMA-Factory config is HF `TrainingArguments` beside LLaMA-Factory's own model, method and data
arguments, and its SFT, pre-training, reward, DPO and KTO stages run HF `Trainer` subclasses: the step math
is the HF loop's (rules/training/trainers/hfloop.py) on the training examples LLaMA-Factory builds
(LLaMA-Factory ff6d4d12): each dataset of the comma-separated `dataset` is cut to `max_samples`
(`data/loader.py` L157-159), the datasets are concatenated, and `val_size` (a fraction, or a count above 1)
is split off (`data/data_utils.py` L109-117). Packing is on by default for `stage: pt`
(`hparams/parser.py` L645). The PPO stage counts PPO steps of its own (`train/ppo/trainer.py` L130-135).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import HF_EPOCH
from rules.training.trainers import hf
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, flag, integer, number, positive, shown

NAME = "llama-factory"
WORD = "finetuning_type"
_STAGES = frozenset({"pt", "sft", "rm", "ppo", "dpo", "kto"})


def detect(data: Any) -> bool:
    """A top-level mapping with a known `stage`, a string `finetuning_type` and an integer
    `per_device_train_batch_size`."""
    if not isinstance(data, dict):
        return False
    batch = data.get(hf.WORD)
    return (
        data.get("stage") in _STAGES
        and isinstance(data.get(WORD), str)
        and isinstance(batch, int)
        and not isinstance(batch, bool)
    )


def _names(data: Mapping[str, Any]) -> list[str]:
    """The datasets of `dataset`: a comma-separated string (as LLaMA-Factory splits it) or a list."""
    value = data.get("dataset")
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def _examples(data: Mapping[str, Any], facts: Facts, names: list[str]) -> int | None:
    """N after `max_samples` (per dataset) and the `val_size` split, or None when a size is unknown."""
    if not names or any(name not in facts.datasets for name in names):
        return None
    cap = integer(data, "max_samples", None)
    if cap is not None:
        positive("max_samples", cap)
    n = sum(min(facts.datasets[name], cap) if cap is not None else facts.datasets[name] for name in names)
    val = number(data, "val_size", 0.0) or 0.0
    if val > 1:
        held = int(val)
    elif val > 1e-6:
        held = math.ceil(val * n)  # datasets' train_test_split rounds a fractional test size up
    else:
        held = 0
    if held >= n:
        raise TrainerConfigError(f"`val_size` {shown(val)} leaves no training examples of the {n}")
    return n - held


def derive(data: Mapping[str, Any], facts: Facts) -> StepValues:
    """The run a LLaMA-Factory config describes; raises TrainerConfigError for values it refuses."""
    stage = str(data.get("stage"))
    max_steps = integer(data, "max_steps", -1)
    if flag(data, "streaming") and (max_steps is None or max_steps <= 0):
        raise TrainerConfigError("`streaming` needs `max_steps`: LLaMA-Factory refuses the config")
    names = _names(data)
    n = _examples(data, facts, names)
    packed = data.get("packing")
    packing = packed is True or (packed is None and stage == "pt") or flag(data, "neat_packing")
    notes = []
    cap = integer(data, "max_samples", None)
    if cap is not None:
        notes.append(f"`max_samples` {cap} cuts each dataset before preprocessing")
    mix = data.get("mix_strategy", "concat")
    if mix != "concat":
        packing = True  # an interleaved mixture's length depends on the sampling
        notes.append(f"`mix_strategy: {mix}`: the mixture's length is an estimate from the datasets' sizes")
    missing = [name for name in names if name not in facts.datasets]
    label = ", ".join(f"`{name}`" for name in (missing or names)) or None
    if stage == "ppo":
        return _ppo(data, facts, n, label, notes)
    values = hf.derive_run(data, facts, n, label, packing, trainer=NAME, extra_notes=tuple(notes))
    return values.model_copy(update={"seq_len": integer(data, "cutoff_len", None)})


def _ppo(
    data: Mapping[str, Any], facts: Facts, n: int | None, label: str | None, notes: list[str]
) -> StepValues:
    """The PPO stage: PPO steps of b·GA·`ppo_buffer_size`·W prompts, each several optimizer updates."""
    b = positive(hf.WORD, integer(data, hf.WORD, 8) or 0)
    ga = positive("gradient_accumulation_steps", integer(data, "gradient_accumulation_steps", 1) or 0)
    buffer = positive("ppo_buffer_size", integer(data, "ppo_buffer_size", 1) or 0)
    epochs = number(data, "num_train_epochs", 3.0) or 0.0
    w, world_note = facts.world()
    max_steps = integer(data, "max_steps", -1) or -1
    batch = b * ga * buffer * w
    ppo_steps = max_steps if max_steps > 0 else (math.ceil(epochs * math.ceil(n / batch)) if n else None)
    what = f"examples of {label}" if label else "training examples"
    count = str(ppo_steps) if ppo_steps is not None else f"ceil({shown(epochs)} × ceil(N / {batch}))"
    return StepValues(
        semantics=HF_EPOCH,
        trainer=NAME,
        batch_size=batch,
        micro_batch_size=b,
        world_size=w,
        grad_accum=ga,
        max_steps=max_steps if max_steps > 0 else None,
        train_examples=n,
        epochs=epochs if max_steps <= 0 else None,
        formula=(
            f"PPO steps = {count}, N = {what}; "
            "each PPO step makes `ppo_epochs` passes of optimizer updates over its batch"
        ),
        assumptions=(world_note, *notes, "stage `ppo`: the row counts PPO steps, not optimizer updates"),
    )


__all__ = ["NAME", "WORD", "TrainerConfigError", "derive", "detect"]
