"""OpenRLHF launch scripts (`openrlhf.cli.train_ppo_ray`, `train_sft`, `train_dpo`, `train_rm` with their
flags): detection and step math.

OpenRLHF computes its run length itself and gives it to the scheduler (`utils/deepspeed/deepspeed.py`
L370-385: warmup ceil(S × `lr_warmup_ratio`), default cosine_with_min_lr), which DeepSpeed steps once an
optimizer update. The flags were renamed from flat (`--train_batch_size`, up to v0.10.1) to dotted
(`--train.batch_size`, from v0.10.2); both are read.

- PPO-style (`train_ppo_ray`; OpenRLHF 3c3be623 `trainer/ppo_trainer.py` L71-78, v0.9.0 L348-354):
  S = min(N, max_samples) × n_samples_per_prompt // train_batch_size × num_episodes × max_epochs, where
  `train_batch_size` counts responses.
- SFT, DPO, RM (`cli/train_sft.py` L102-103, `train_dpo.py` L124-125, `train_rm.py` L101-102):
  S = ceil(max_epochs × (min(N, max_samples) // train_batch_size)).

Gradient accumulation is train_batch_size / (micro_batch_size × W) (`deepspeed.py` L110-116).
"""

from __future__ import annotations

import math
from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import OPTIMIZER
from rules.training.trainers import launch
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, integer, number, positive

NAME = "openrlhf"
WORDS = ("openrlhf.cli",)
_RL = "train_ppo_ray"
_SUPERVISED = ("train_sft", "train_dpo", "train_rm")
# meaning -> (flag up to v0.10.1, flag from v0.10.2, default of the PPO entry point, of the SFT one):
# OpenRLHF 3c3be623 `cli/train_ppo_ray.py` L213-214, L372-394, L414, L470-471, L527;
# `cli/train_sft.py` L166-167, L212, L240, L267, L274; v0.9.0 `cli/train_ppo_ray.py` L318-357, L423.
_FLAGS: dict[str, tuple[tuple[str, ...], Any, Any]] = {
    "train_batch": (("train_batch_size", "train.batch_size"), 128, 128),
    "micro": (("micro_train_batch_size", "train.micro_batch_size"), 4, 8),
    "n": (("n_samples_per_prompt", "rollout.n_samples_per_prompt"), 1, 1),
    "rollout_batch": (("rollout_batch_size", "rollout.batch_size"), 1024, None),
    "max_epochs": (("max_epochs", "train.max_epochs"), 1, 2),
    "episodes": (("num_episodes", "train.num_episodes"), 1, 1),
    "max_samples": (("max_samples", "data.max_samples"), 100_000_000, 1_000_000),
    "warmup_ratio": (("lr_warmup_ratio", "actor.lr_warmup_ratio"), 0.03, 0.03),
    "scheduler": (("lr_scheduler", "actor.lr_scheduler"), "cosine_with_min_lr", "cosine_with_min_lr"),
    "nodes": (("actor_num_nodes", "actor.num_nodes"), 1, None),
    "gpus": (("actor_num_gpus_per_node", "actor.num_gpus_per_node"), 8, None),
    "dataset": (("prompt_data", "data.prompt_dataset", "dataset", "data.dataset"), None, None),
}


# Where the supervised entry points' defaults differ from train_sft's (`cli/train_dpo.py` L188, L236;
# `cli/train_rm.py` L242, L246).
_ENTRY_DEFAULTS: dict[str, dict[str, Any]] = {
    "train_dpo": {"max_epochs": 1},
    "train_rm": {"max_epochs": 1, "micro": 1},
}


def _entry(data: Any) -> str | None:
    """The OpenRLHF entry point the script runs (`train_ppo_ray`, `train_sft`, ...), or None."""
    if not launch.is_script(data):
        return None
    for module in data["modules"]:
        if module.startswith("openrlhf.cli."):
            name = module.rsplit(".", 1)[-1]
            if name == _RL or name in _SUPERVISED:
                return name
    return None


def detect(data: Any) -> bool:
    """A launch script running `openrlhf.cli.train_ppo_ray`, `train_sft`, `train_dpo` or `train_rm`."""
    return _entry(data) is not None


def _read(flags: dict[str, Any], meaning: str, entry: str) -> Any:
    names, ppo_default, sft_default = _FLAGS[meaning]
    for name in reversed(names):  # the dotted name wins where a script passes both
        if name in flags:
            return flags[name]
    if entry == _RL:
        return ppo_default
    return _ENTRY_DEFAULTS.get(entry, {}).get(meaning, sft_default)


def derive(data: Any, facts: Facts) -> StepValues:
    """The run an OpenRLHF script describes; raises TrainerConfigError for values OpenRLHF refuses."""
    entry = _entry(data) or _RL
    rl = entry == _RL
    flags = data["flags"]
    values = {meaning: _read(flags, meaning, entry) for meaning in _FLAGS}
    tb = positive("train_batch_size", integer(values, "train_batch", None) or 0)
    micro = positive("micro_train_batch_size", integer(values, "micro", None) or 0)
    n = positive("n_samples_per_prompt", integer(values, "n", None) or 0)
    epochs = positive("max_epochs", integer(values, "max_epochs", None) or 0)
    episodes = positive("num_episodes", integer(values, "episodes", None) or 0)
    cap = positive("max_samples", integer(values, "max_samples", None) or 0)
    notes = []
    if rl:
        world = (integer(values, "nodes", 1) or 1) * (integer(values, "gpus", 8) or 8)
        notes.append(f"world size {world} from the actor's nodes × GPUs per node")
    else:
        world, world_note = facts.world()
        notes.append(world_note)
    if tb % (micro * world):
        raise TrainerConfigError(
            f"`train_batch_size` {tb} is not a multiple of micro_train_batch_size × world size = "
            f"{micro * world}: DeepSpeed refuses it"
        )
    dataset = values["dataset"] if isinstance(values["dataset"], str) else None
    size = facts.datasets.get(dataset) if dataset else None
    examples = min(size, cap) if size is not None else None
    formula = None
    if rl:
        notes.append(f"`train_batch_size` counts responses: {n} a prompt; examples are responses")
        steps = examples * n // tb * episodes * epochs if examples is not None else None
        if steps is None:
            formula = f"S = ⌊min(N, {cap}) × {n} / {tb}⌋ × {episodes} × {epochs}, N = prompts"
        if any(name.endswith("dynamic_filtering_enable") for name in flags):
            notes.append("dynamic filtering drops prompts by reward after each rollout: S is an upper bound")
        rollout = integer(values, "rollout_batch", None)
        if rollout and examples is not None and examples % rollout:
            notes.append(f"{examples % rollout} prompts an episode make no whole rollout batch of {rollout}")
    else:
        steps = math.ceil(epochs * (examples // tb)) if examples is not None else None
        if steps is None:
            formula = f"S = {epochs} × ⌊min(N, {cap}) / {tb}⌋, N = training examples"
    if steps == 0:
        raise TrainerConfigError(f"{examples} examples make no batch of {tb}: the run makes no update")
    if dataset is None or size is None:
        notes.append(f"add {'`' + dataset + '`' if dataset else 'the dataset'} to `training.datasets`")
    ratio = number(values, "warmup_ratio", 0.03) or 0.0
    warmup = math.ceil(steps * ratio) if steps is not None else None
    if warmup is None and formula is not None:
        formula += f"; warmup = ceil({ratio:g} × S)"
    scheduler = values["scheduler"] if isinstance(values["scheduler"], str) else "cosine_with_min_lr"
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NAME,
        batch_size=tb,
        micro_batch_size=micro,
        world_size=world,
        grad_accum=tb // (micro * world),
        optimizer_steps=steps,
        effective_train_examples=steps * tb if steps is not None else None,
        train_examples=examples,
        epochs=float(epochs * episodes) if rl else float(epochs),
        scheduler=scheduler,
        warmup_steps=warmup,
        warmup_ratio=ratio or None,
        decay_steps=steps - warmup
        if steps is not None and warmup is not None and scheduler.startswith(("cosine", "linear"))
        else None,
        formula=formula,
        assumptions=tuple(notes),
    )


__all__ = ["NAME", "WORDS", "TrainerConfigError", "derive", "detect"]
