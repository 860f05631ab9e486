"""LLaMA-Factory configs (rules/training/trainers/llamafactory.py): detection, its datasets and limits, the
HF loop's step math on them, and a pull request's row."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bot.cli.main import main
from rules.core import formats
from rules.training.trainers import format_of, llamafactory
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError
from tests.test_trainers import hf_loop

FIXTURES = Path(__file__).parent / "fixtures" / "trainers" / "llamafactory"
# The sizes of the demo datasets LLaMA-Factory ships in data/ at ff6d4d12 (entries of each JSON file).
DEMO = {"identity": 91, "alpaca_en_demo": 999, "dpo_en_demo": 300, "c4_demo": 300}


def _load(name: str) -> dict:
    data = formats.load((FIXTURES / name).read_text(encoding="utf-8"), "yaml")
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.name)
def test_each_real_llamafactory_config_is_recognised_as_llamafactory(path):
    fmt = format_of(formats.load(path.read_text(encoding="utf-8"), "yaml"))
    assert fmt is not None and fmt.name == llamafactory.NAME


@pytest.mark.parametrize("world", [1, 4])
@pytest.mark.parametrize(
    "fixture, n",
    [
        ("llamafactory-qwen3_lora_sft.yaml", 91 + 999),  # identity (91) + alpaca_en_demo, both under 1000
        ("llamafactory-qwen3_lora_dpo.yaml", 300),
        ("llamafactory-qwen3_lora_pretrain.yaml", 300),
        ("llamafactory-qwen3_full_sft.yaml", 91 + 999),
    ],
)
def test_llamafactory_configs_derive_what_the_hf_loop_does(fixture, n, world):
    data = _load(fixture)
    v = llamafactory.derive(data, Facts(world, "the test", DEMO))
    b, ga = data["per_device_train_batch_size"], data["gradient_accumulation_steps"]
    updates, examples = hf_loop(n, b, world, ga, data["num_train_epochs"])
    assert (v.train_examples, v.optimizer_steps, v.effective_train_examples) == (n, updates, examples)
    assert v.warmup_steps == math.ceil(updates * data["warmup_ratio"])
    assert v.trainer == llamafactory.NAME and v.seq_len == data["cutoff_len"]
    assert v.estimate is (data["stage"] == "pt")  # pre-training packs by default


def test_max_samples_cuts_each_dataset_and_val_size_splits_the_rest():
    data = _load("llamafactory-qwen3_lora_sft.yaml")
    sizes = {"identity": 5000, "alpaca_en_demo": 700}
    assert llamafactory.derive(data, Facts(1, "t", sizes)).train_examples == 1000 + 700
    split = {**data, "val_size": 0.1}
    assert llamafactory.derive(split, Facts(1, "t", sizes)).train_examples == 1700 - 170
    assert llamafactory.derive({**data, "val_size": 25}, Facts(1, "t", sizes)).train_examples == 1675
    unknown = llamafactory.derive(data, Facts(1, "t", {"identity": 91}))
    assert unknown.optimizer_steps is None and unknown.formula is not None
    assert "N = examples of `alpaca_en_demo`" in unknown.formula


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"streaming": True}, "`streaming` needs `max_steps`"),
        ({"val_size": 5000}, "leaves no training examples"),
        ({"max_samples": 0}, "should be above 0"),
        ({"gradient_accumulation_steps": 0}, "should be above 0"),
    ],
)
def test_values_llamafactory_refuses_are_errors(extra, message):
    data = {**_load("llamafactory-qwen3_lora_sft.yaml"), **extra}
    with pytest.raises(TrainerConfigError, match=message):
        llamafactory.derive(data, Facts(1, "t", DEMO))


def test_the_ppo_stage_counts_ppo_steps_and_says_so():
    data = {**_load("llamafactory-qwen3_lora_sft.yaml"), "stage": "ppo", "ppo_buffer_size": 2}
    v = llamafactory.derive(data, Facts(2, "t", DEMO))
    assert v.optimizer_steps is None and v.batch_size == 1 * 8 * 2 * 2
    assert v.formula is not None and v.formula.startswith(f"PPO steps = {3 * math.ceil(1090 / 32)}")


@pytest.mark.parametrize(
    "data",
    [
        {"stage": "sft", "per_device_train_batch_size": 1, "num_train_epochs": 3},  # no finetuning_type
        {"stage": "train", "finetuning_type": "lora", "per_device_train_batch_size": 1},  # no LF stage
        {"stage": "sft", "finetuning_type": "lora", "per_device_train_batch_size": "1"},
        {"stage": "sft", "finetuning_type": "lora", "micro_batch_size": 1, "global_batch_size": 8},  # v1
    ],
)
def test_llamafactory_near_misses_are_not_detected(data):
    fmt = format_of(data)
    assert fmt is None or fmt.name != llamafactory.NAME


def test_a_pr_halving_max_samples_in_a_llamafactory_config_shows_the_row(make_repo, capsys):
    """identity (91) + alpaca_en_demo (999) cut at 1000, then at 500: 1,090 -> 591 examples, 3 epochs of
    b=1, GA=8 on one device: 3·ceil(1090/8) = 411 -> 3·ceil(591/8) = 222 updates."""
    text = (FIXTURES / "llamafactory-qwen3_lora_sft.yaml").read_text(encoding="utf-8")
    head = text.replace("max_samples: 1000", "max_samples: 500")
    assert head != text
    bot_yml = "training:\n  world_size: 1\n  datasets:\n    identity: 91\n    alpaca_en_demo: 999\n"
    repo = make_repo(
        {".github/bot.yml": bot_yml, "examples/train_lora/sft.yaml": text},
        {"examples/train_lora/sft.yaml": head},
    ).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    (row,) = json.loads(capsys.readouterr().out)["profiles"]
    assert (row["kind"], row["trainer"]) == ("llama-factory", "llama-factory")
    old, new = row["base"], row["head"]
    assert (old["train_examples"], new["train_examples"]) == (1090, 591)
    assert (old["optimizer_steps"], new["optimizer_steps"]) == (411, 222)
    assert (old["effective_train_examples"], new["effective_train_examples"]) == (3 * 1090, 3 * 591)
    assert (old["warmup_steps"], new["warmup_steps"]) == (42, 23)
    assert {"train_examples", "optimizer_steps", "warmup_steps"} <= set(row["changed"])
