"""verl PPO/GRPO runs (`python3 -m verl.trainer.main_ppo key=value ...` launch scripts, and verl YAML):
detection and step math.

A verl "training step" is one rollout batch, not an optimizer update (verl #399). The prompt dataloader
takes `data.gen_batch_size` (else `data.train_batch_size`) prompts with `drop_last=True`, so an epoch has
floor(N / batch) training steps and the run T = that × `trainer.total_epochs`, or
`trainer.total_training_steps` (verl b178a3cd `trainer/ppo/ray_trainer.py` L348-392). Each training step
the actor splits its batch into mini-batches of `ppo_mini_batch_size` prompts (× `rollout.n` responses)
and makes one optimizer update per mini-batch for each of `ppo_epochs` passes (`workers/actor/dp_actor.py`
L541-550): ppo_epochs × ceil(train_batch_size / ppo_mini_batch_size) updates. The learning-rate scheduler
is built with T and stepped once per training step (`workers/fsdp_workers.py` L579-599, L921): its warmup
and decay count rollouts, whatever the updates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import OPTIMIZER
from rules.training.trainers import launch
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, integer, number, positive

NAME = "verl"
WORDS = ("data.train_batch_size", "ppo_mini_batch_size")
_ACTOR = "actor_rollout_ref.actor."
# verl's defaults where a run does not set the key (b178a3cd `trainer/config/_generated_ppo_trainer.yaml`
# L13-23, L50, L79, L345, L593; `trainer/config/rollout/rollout.yaml` L108; `ppo_trainer.yaml` L153-156).
DEFAULTS: dict[str, Any] = {
    "data.train_batch_size": 1024,
    _ACTOR + "ppo_mini_batch_size": 256,
    _ACTOR + "ppo_epochs": 1,
    "actor_rollout_ref.rollout.n": 1,
    "trainer.total_epochs": 30,
    "trainer.nnodes": 1,
    "trainer.n_gpus_per_node": 8,
    _ACTOR + "optim.lr_warmup_steps": -1,
    _ACTOR + "optim.lr_warmup_steps_ratio": 0.0,
    _ACTOR + "ulysses_sequence_parallel_size": 1,
}
# Nesting a verl YAML is flattened to, at most (its own config is 5 deep).
_MAX_DEPTH = 8


def _flatten(node: Mapping[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and depth < _MAX_DEPTH:
            out.update(_flatten(value, name + ".", depth + 1))
        else:
            out[name] = value
    return out


# `${data.train_batch_size}` or `${oc.select:key,default}`: a value that names another key of the config.
_REFERENCE = re.compile(r"^\$\{(?:oc\.select:)?([A-Za-z_][A-Za-z0-9_.]*)(?:,([^}]*))?\}$")


def _resolved(flat: dict[str, Any]) -> dict[str, Any]:
    """Each value that only references another key, replaced by that key's value (one level), else by its
    `oc.select` default, else dropped (verl's default applies)."""
    out = {}
    for key, value in flat.items():
        ref = _REFERENCE.match(value) if isinstance(value, str) else None
        if ref is None:
            out[key] = value
        elif ref.group(1) in flat and not isinstance(flat[ref.group(1)], str):
            out[key] = flat[ref.group(1)]
        elif ref.group(2) is not None:
            out[key] = launch.scalar(ref.group(2).strip())
    return out


def settings(data: Any) -> dict[str, Any] | None:
    """The run's keys as dotted names (a script's overrides, a YAML flattened), or None if not verl."""
    if launch.is_script(data):
        overrides = data["overrides"]
        if "data.train_batch_size" not in overrides:
            return None
        verl_module = any(m.startswith("verl.") and "sft" not in m for m in data["modules"])
        if not verl_module and not any(k.startswith("actor_rollout_ref.") for k in overrides):
            return None
        return _resolved(dict(overrides))
    if not isinstance(data, dict):
        return None
    section, actor = data.get("data"), data.get("actor_rollout_ref")
    if not isinstance(section, dict) or not isinstance(actor, dict) or "train_batch_size" not in section:
        return None
    return _resolved(_flatten(data))


def detect(data: Any) -> bool:
    """A launch script passing `data.train_batch_size=` to verl's PPO entry point (or with
    `actor_rollout_ref.` overrides), or a YAML with `data.train_batch_size` beside `actor_rollout_ref`."""
    return settings(data) is not None


def train_files(value: Any) -> list[str]:
    """`data.train_files`: a path, a YAML list, or a Hydra list written in a script (`[a.parquet,b]`)."""
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            return [part.strip().strip("'\"") for part in text[1:-1].split(",") if part.strip()]
        return [text]
    return []


def derive(data: Any, facts: Facts) -> StepValues:
    """The run a verl script or YAML describes; raises TrainerConfigError for values verl refuses."""
    keys = {**DEFAULTS, **(settings(data) or {})}
    prompts = positive("data.train_batch_size", integer(keys, "data.train_batch_size", None) or 0)
    loader = integer(keys, "data.gen_batch_size", None) or prompts
    mini = positive("ppo_mini_batch_size", integer(keys, _ACTOR + "ppo_mini_batch_size", None) or 0)
    ppo_epochs = positive("ppo_epochs", integer(keys, _ACTOR + "ppo_epochs", None) or 0)
    n = positive("actor_rollout_ref.rollout.n", integer(keys, "actor_rollout_ref.rollout.n", None) or 0)
    epochs = positive("trainer.total_epochs", integer(keys, "trainer.total_epochs", None) or 0)
    world = (integer(keys, "trainer.nnodes", 1) or 1) * (integer(keys, "trainer.n_gpus_per_node", 8) or 8)
    sp = integer(keys, _ACTOR + "ulysses_sequence_parallel_size", 1) or 1
    dp = max(world // sp, 1)
    if mini > prompts:
        raise TrainerConfigError(
            f"`ppo_mini_batch_size` {mini} is above `data.train_batch_size` {prompts}: verl refuses it"
        )
    per_rank = mini * n // dp
    if per_rank <= 0:
        raise TrainerConfigError(
            f"`ppo_mini_batch_size` {mini} × n {n} over {dp} data-parallel ranks leaves none per rank"
        )
    micro = integer(keys, _ACTOR + "ppo_micro_batch_size_per_gpu", None)
    if micro is not None and (micro <= 0 or per_rank % micro):
        raise TrainerConfigError(
            f"the per-rank mini-batch of {per_rank} responses is not a multiple of "
            f"`ppo_micro_batch_size_per_gpu` {micro}: verl refuses it"
        )
    updates_per_step = ppo_epochs * math.ceil(prompts / mini)
    files = train_files(keys.get("data.train_files"))
    n_prompts = (
        sum(facts.datasets[f] for f in files) if files and all(f in facts.datasets for f in files) else None
    )
    fixed = integer(keys, "trainer.total_training_steps", None)
    notes = [
        f"world size {world} from `trainer.nnodes` × `trainer.n_gpus_per_node`",
        f"examples are prompts, {n} responses each; a training step is one rollout of {loader} prompts "
        f"and makes {updates_per_step} optimizer updates",
    ]
    per_epoch = n_prompts // loader if n_prompts is not None else None
    if per_epoch == 0:
        raise TrainerConfigError(f"{n_prompts} prompts make no batch of {loader}: verl's dataloader is empty")
    steps_t = fixed if fixed is not None else (per_epoch * epochs if per_epoch is not None else None)
    formula = None
    if steps_t is None:
        formula = f"T = ⌊N / {loader}⌋ × {epochs} training steps, N = prompts"
        named = ", ".join(f"`{f}`" for f in files) or "`data.train_files`"
        notes.append(f"add {named} to `training.datasets`")
    warm_t = _warmup(keys, steps_t)
    scheduler = keys.get(_ACTOR + "optim.lr_scheduler_type") or keys.get(_ACTOR + "optim.warmup_style")
    scheduler = scheduler if isinstance(scheduler, str) else "constant"
    if steps_t is not None:
        notes.append(
            f"the learning-rate scheduler counts training steps (rollouts): {steps_t}, warmup {warm_t}"
        )
    updates = steps_t * updates_per_step if steps_t is not None else None
    warmup = warm_t * updates_per_step if warm_t is not None else None
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NAME,
        batch_size=mini * n,
        micro_batch_size=micro,
        world_size=world,
        grad_accum=per_rank // micro if micro else None,
        max_steps=fixed,
        optimizer_steps=updates,
        effective_train_examples=steps_t * loader if steps_t is not None else None,
        train_examples=n_prompts,
        epochs=round(steps_t / per_epoch, 4)
        if steps_t is not None and per_epoch
        else (None if fixed is not None else float(epochs)),
        scheduler=f"{scheduler} (per training step)",
        warmup_steps=warmup,
        decay_steps=updates - warmup
        if updates is not None and warmup is not None and scheduler == "cosine"
        else None,
        tail=f"{n_prompts % loader} prompts an epoch left out (drop_last)" if n_prompts is not None else None,
        formula=formula,
        assumptions=tuple(notes),
    )


def _warmup(keys: Mapping[str, Any], total: int | None) -> int | None:
    """Warmup in training steps: `lr_warmup_steps` when >= 0, else int(`lr_warmup_steps_ratio` × T)."""
    steps = integer(keys, _ACTOR + "optim.lr_warmup_steps", -1)
    if steps is not None and steps >= 0:
        return steps
    ratio = number(keys, _ACTOR + "optim.lr_warmup_steps_ratio", 0.0) or 0.0
    if ratio <= 0:
        return 0
    return int(ratio * total) if total is not None else None


__all__ = ["DEFAULTS", "NAME", "WORDS", "TrainerConfigError", "derive", "detect"]
