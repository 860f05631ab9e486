"""RL launch scripts (rules/training/trainers/launch.py, verl.py, openrlhf.py): parsing without running,
detection, step math against the trainers' loops, and pull requests' rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bot.cli.main import main
from rules.core import formats
from rules.training.trainers import format_of, launch, openrlhf, verl
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError

FIXTURES = Path(__file__).parent / "fixtures" / "trainers"
GSM8K = "$HOME/data/gsm8k/train.parquet"


def _parsed(path: Path) -> object:
    text = path.read_text(encoding="utf-8")
    return launch.parse(text) if launch.is_script_path(path.name) else formats.load(text, "yaml")


def verl_loop(
    n: int, loader: int, prompts: int, mini: int, ppo_epochs: int, epochs: int, total: int | None
) -> tuple[int, int, int]:
    """(training steps, optimizer updates, prompts) of verl's `fit` loop, step by step: the dataloader
    yields whole batches of `loader` prompts (drop_last); each training step the actor splits its batch
    into mini-batches and updates once per mini-batch per PPO epoch; the scheduler steps once per training
    step; the run stops after `total` training steps when set."""
    steps = updates = seen = 0
    for _ in range(epochs if total is None else 10**6):
        for _batch in range(n // loader):
            if total is not None and steps == total:
                return steps, updates, seen
            for _ in range(ppo_epochs):
                updates += len(range(0, prompts, mini))
            steps += 1
            seen += loader
    return steps, updates, seen


# --- the parser ---


def test_a_script_is_read_as_words_never_run():
    script = """#!/bin/bash
set -x
BS=${BS:-256}
export N=4
ROOT=${ROOT:-"${HOME}/verl"}
LEN=$((1024 * 2))
python3 -m verl.trainer.main_ppo \\
    data.train_batch_size=$BS \\
    data.train_files="$ROOT/data/train.parquet" \\
    actor_rollout_ref.rollout.n=$N \\
    +trainer.extra='[a, b]' \\
    data.max_prompt_length=$LEN $@ # data.train_batch_size=9
echo "unterminated
"""
    parsed = launch.parse(script)
    assert parsed["modules"] == ["verl.trainer.main_ppo"]
    assert parsed["overrides"]["data.train_batch_size"] == 256
    assert parsed["overrides"]["actor_rollout_ref.rollout.n"] == 4
    assert parsed["overrides"]["data.train_files"] == "${HOME}/verl/data/train.parquet"
    assert parsed["overrides"]["trainer.extra"] == "[a, b]"
    assert parsed["overrides"]["data.max_prompt_length"] == "$LEN"  # arithmetic is not evaluated


def test_flags_take_values_negative_numbers_and_booleans():
    parsed = launch.parse("deepspeed --module openrlhf.cli.train_sft --a.b 3 --save_steps -1 --flag --c=x\n")
    assert parsed["flags"] == {
        "module": "openrlhf.cli.train_sft",
        "a.b": 3,
        "save_steps": -1,
        "flag": True,
        "c": "x",
    }


# --- verl ---


@pytest.mark.parametrize("path", sorted((FIXTURES / "verl").glob("verl-*")), ids=lambda p: p.name)
def test_each_real_verl_run_is_recognised_as_verl(path):
    """PPO/GRPO runs are `verl` (rollouts); the SFT trainer's scripts are `verl-sft` (optimizer updates)."""
    fmt = format_of(_parsed(path))
    assert fmt is not None and fmt.name == ("verl-sft" if path.name.startswith("verl-sft-") else verl.NAME)


@pytest.mark.parametrize(
    "fixture, dataset, n",
    [
        ("verl-grpo_trainer-run_qwen2-7b.sh", GSM8K, 7_473),
        ("verl-ppo_trainer-run_deepseek7b_llm.sh", GSM8K, 7_473),
        ("verl-gmpo_trainer-test_dapo_7b_math.sh", "${HOME}/verl/data/dapo-math-17k.parquet", 17_917),
        ("verl-split_placement-ppo_trainer_split.yaml", "~/data/rlhf/gsm8k/train.parquet", 7_473),
        ("verl-sglang_multiturn-gsm8k_multiturn_grpo.yaml", None, 0),
    ],
)
def test_verl_runs_derive_what_the_fit_loop_does(fixture, dataset, n):
    data = _parsed(FIXTURES / "verl" / fixture)
    keys = {**verl.DEFAULTS, **(verl.settings(data) or {})}
    v = verl.derive(data, Facts(datasets={dataset: n} if dataset else {}))
    if dataset is None:
        assert v.optimizer_steps is None and v.formula is not None and "N = prompts" in v.formula
        return
    prompts = keys["data.train_batch_size"]
    mini = keys["actor_rollout_ref.actor.ppo_mini_batch_size"]
    steps, updates, seen = verl_loop(
        n,
        prompts,
        prompts,
        mini,
        keys["actor_rollout_ref.actor.ppo_epochs"],
        keys["trainer.total_epochs"],
        keys.get("trainer.total_training_steps"),
    )
    assert (v.optimizer_steps, v.effective_train_examples, v.train_examples) == (updates, seen, n)
    assert v.batch_size == mini * keys["actor_rollout_ref.rollout.n"] and v.trainer == verl.NAME
    assert f"counts training steps (rollouts): {steps}" in " ".join(v.assumptions)


def test_the_surveyed_grpo_example_in_numbers():
    """TRAINERS.md §8: 7,473 GSM8K prompts, batches of 1,024, 15 epochs: 7 training steps an epoch (305
    prompts dropped), 105 in all, 4 updates each of 256-prompt mini-batches: 420 optimizer updates."""
    v = verl.derive(
        _parsed(FIXTURES / "verl" / "verl-grpo_trainer-run_qwen2-7b.sh"), Facts(datasets={GSM8K: 7_473})
    )
    assert (v.optimizer_steps, v.world_size, v.grad_accum, v.micro_batch_size) == (420, 8, 4, 40)
    assert v.tail == "305 prompts an epoch left out (drop_last)"


def test_verl_warmup_counts_rollouts_and_is_shown_in_updates():
    """The DAPO script: 200 training steps of 16 updates, warmup 10 training steps = 160 updates."""
    v = verl.derive(_parsed(FIXTURES / "verl" / "verl-gmpo_trainer-test_dapo_7b_math.sh"), Facts())
    assert (v.max_steps, v.optimizer_steps, v.warmup_steps, v.world_size) == (200, 3200, 160, 64)
    assert v.epochs is None  # total_training_steps decides; the epochs it spans need the dataset's size
    ratio = launch.parse(
        "python3 -m verl.trainer.main_ppo data.train_batch_size=64 "
        "actor_rollout_ref.actor.ppo_mini_batch_size=16 trainer.total_training_steps=90 "
        "actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.05 "
        "actor_rollout_ref.actor.optim.lr_scheduler_type=cosine\n"
    )
    w = verl.derive(ratio, Facts())
    assert (w.warmup_steps, w.decay_steps) == (int(0.05 * 90) * 4, 90 * 4 - int(0.05 * 90) * 4)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (
            "data.train_batch_size=128 actor_rollout_ref.actor.ppo_mini_batch_size=256",
            "above `data.train_batch_size`",
        ),
        (
            "data.train_batch_size=256 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=48",
            "not a multiple",
        ),
        ("data.train_batch_size=0", "should be above 0"),
    ],
)
def test_values_verl_refuses_are_errors(overrides, message):
    with pytest.raises(TrainerConfigError, match=message):
        verl.derive(launch.parse(f"python3 -m verl.trainer.main_ppo {overrides}\n"), Facts())


@pytest.mark.parametrize(
    "text",
    [
        "python3 train.py data.train_batch_size=8\n",  # another program's Hydra override
        "torchrun x.py --train_batch_size 8\n",
        "echo actor_rollout_ref.actor.ppo_mini_batch_size\n",
    ],
)
def test_scripts_that_are_no_verl_or_openrlhf_run_are_not_detected(text):
    assert format_of(launch.parse(text)) is None


# --- OpenRLHF ---


@pytest.mark.parametrize("path", sorted((FIXTURES / "openrlhf").glob("*.sh")), ids=lambda p: p.name)
def test_each_real_openrlhf_script_is_recognised_as_openrlhf(path):
    fmt = format_of(_parsed(path))
    assert fmt is not None and fmt.name == openrlhf.NAME


@pytest.mark.parametrize(
    "fixture, dataset, n, expected",
    [
        # PPO, flat flags: min(120000, 100000) prompts × 1 // 128 = 781 updates, 8 GPUs, GA 128/(4·8) = 4
        (
            "openrlhf-v0.9.0-train_ppo_llama_ray_hybrid_engine.sh",
            "OpenRLHF/prompt-collection-v0.1",
            120_000,
            (781, 8, 4),
        ),
        # REINFORCE, dotted flags: 17,917 prompts × 8 // 1024 = 139 updates, 4 GPUs, GA 1024/(1·4) = 256
        (
            "openrlhf-train_reinforce_baseline_hybrid_engine.sh",
            "zhuzilin/dapo-math-17k",
            17_917,
            (139, 4, 256),
        ),
        # SFT: ceil(1 × (min(4,233,923, 500,000) // 256)) = 1953, world 1 assumed
        ("openrlhf-train_sft.sh", "Open-Orca/OpenOrca", 4_233_923, (1953, 1, 128)),
        # DPO: 1 epoch (train_dpo's default) of 40,000 // 256 = 156
        (
            "openrlhf-train_dpo_llama.sh",
            "OpenRLHF/preference_dataset_mixture2_and_safe_pku",
            40_000,
            (156, 1, 256),
        ),
    ],
)
def test_openrlhf_scripts_derive_what_openrlhf_computes(fixture, dataset, n, expected):
    v = openrlhf.derive(_parsed(FIXTURES / "openrlhf" / fixture), Facts(datasets={dataset: n}))
    assert (v.optimizer_steps, v.world_size, v.grad_accum) == expected
    assert v.warmup_steps == math.ceil(expected[0] * 0.03) and v.decay_steps == expected[0] - v.warmup_steps
    assert v.effective_train_examples == expected[0] * v.batch_size and v.trainer == openrlhf.NAME


def test_openrlhf_train_batch_size_must_split_over_the_gpus():
    script = "python3 -m openrlhf.cli.train_ppo_ray --train_batch_size 100 --micro_train_batch_size 4\n"
    with pytest.raises(TrainerConfigError, match="not a multiple"):
        openrlhf.derive(launch.parse(script), Facts())


# --- pull requests ---


def _row(make_repo, capsys, path: str, base: str, head: str, bot_yml: str) -> dict:
    repo = make_repo({".github/bot.yml": bot_yml, path: base}, {path: head}).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    (row,) = json.loads(capsys.readouterr().out)["profiles"]
    return row


def test_a_pr_halving_verls_mini_batch_shows_twice_the_updates(make_repo, capsys):
    """ppo_mini_batch_size 256 -> 128 on the GRPO script: 4 -> 8 updates a training step, 420 -> 840."""
    text = (FIXTURES / "verl" / "verl-grpo_trainer-run_qwen2-7b.sh").read_text(encoding="utf-8")
    head = text.replace("ppo_mini_batch_size=256", "ppo_mini_batch_size=128")
    assert head != text
    row = _row(
        make_repo, capsys, "examples/grpo/run.sh", text, head, f"training:\n  datasets:\n    {GSM8K}: 7473\n"
    )
    assert (row["kind"], row["trainer"]) == ("verl", "verl")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (420, 840)
    assert (row["base"]["effective_train_examples"], row["head"]["effective_train_examples"]) == (
        105 * 1024,
    ) * 2


def test_a_pr_raising_openrlhfs_samples_per_prompt_shows_the_row(make_repo, capsys):
    """n_samples_per_prompt 8 -> 16 with train_batch_size 1024: 139 -> 279 updates on 17,917 prompts."""
    text = (FIXTURES / "openrlhf" / "openrlhf-train_reinforce_baseline_hybrid_engine.sh").read_text(
        encoding="utf-8"
    )
    head = text.replace("--rollout.n_samples_per_prompt 8", "--rollout.n_samples_per_prompt 16")
    assert head != text
    bot_yml = "training:\n  datasets:\n    zhuzilin/dapo-math-17k: 17917\n"
    row = _row(make_repo, capsys, "examples/scripts/train.sh", text, head, bot_yml)
    assert (row["kind"], row["trainer"]) == ("openrlhf", "openrlhf")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (139, 17_917 * 16 // 1024)


def test_the_engine_knows_launch_scripts_by_the_same_names():
    from rules.training.ports import SCRIPT_SUFFIXES

    assert SCRIPT_SUFFIXES == launch.SUFFIXES
