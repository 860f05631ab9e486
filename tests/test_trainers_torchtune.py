"""torchtune recipe configs (rules/training/trainers/torchtune.py): detection, step math against the
recipes' loop simulated batch by batch, and a pull request's row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from rules.core import formats
from rules.training.trainers import format_of, torchtune
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError

FIXTURES = Path(__file__).parent / "fixtures" / "trainers" / "torchtune"
ALPACA = "torchtune.datasets.alpaca_cleaned_dataset"


def _load(name: str) -> dict:
    data = formats.load((FIXTURES / name).read_text(encoding="utf-8"), "yaml")
    assert isinstance(data, dict)
    return data


def tune_loop(n: int, b: int, world: int, ga: int, epochs: int, cap: int | None) -> tuple[int, int]:
    """(updates, examples applied) of torchtune v0.6.1's recipe loop, batch by batch: each rank takes
    `b` rows at a time of its padded ceil(n / world) shard, dropping the last short batch; an update when
    `(idx + 1) % GA == 0`, gradients of an epoch's leftover micro-batches kept for the next update; the
    epoch ends early when `(idx + 1) // GA == max_steps_per_epoch`."""
    micro = -(-n // world) // b
    updates = examples = window = 0
    for _ in range(epochs):
        for idx in range(micro):
            window += b * world
            if (idx + 1) % ga == 0:
                updates += 1
                examples += window
                window = 0
            if cap is not None and (idx + 1) // ga == cap:
                break
    return updates, examples


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.name)
def test_each_real_torchtune_config_is_recognised_as_torchtune(path):
    fmt = format_of(formats.load(path.read_text(encoding="utf-8"), "yaml"))
    assert fmt is not None and fmt.name == torchtune.NAME


@pytest.mark.parametrize("world", [1, 3, 8])
@pytest.mark.parametrize(
    "fixture, dataset, n",
    [
        ("torchtune-llama3_2-1b-lora-single-device.yaml", ALPACA, 51_760),
        ("torchtune-llama3_1-8b-lora-dpo.yaml", "torchtune.datasets.stack_exchange_paired_dataset", 40_000),
        ("torchtune-qwen2_5-14b-to-7b-kd-lora.yaml", ALPACA, 51_760),
        ("torchtune-llama3_2-3b-full.yaml", ALPACA, 49_172),
    ],
)
def test_torchtune_configs_derive_what_the_recipe_loop_does(fixture, dataset, n, world):
    data = _load(fixture)
    v = torchtune.derive(data, Facts(world, "the test", {dataset: n}))
    b, ga, epochs = data["batch_size"], data["gradient_accumulation_steps"], data["epochs"]
    assert (v.optimizer_steps, v.effective_train_examples) == tune_loop(
        n, b, world, ga, epochs, data["max_steps_per_epoch"]
    )
    assert v.batch_size == b * ga * world and v.micro_batch_size == b and v.trainer == torchtune.NAME
    assert v.train_examples == n and v.epochs == epochs and v.semantics == "torchtune"
    scheduler = data.get("lr_scheduler")
    if scheduler is None:  # the full-finetune config builds no scheduler: a constant rate
        assert (v.scheduler, v.warmup_steps, v.decay_steps) == ("constant", 0, None)
    else:
        warmup = scheduler["num_warmup_steps"]
        assert (v.warmup_steps, v.decay_steps) == (warmup, v.optimizer_steps - warmup)


def test_the_dpo_configs_cap_binds_on_one_device():
    """b=4, GA=8 on 40,000 pairs: 10,000 micro-batches make 1,250 updates an epoch, capped at 1,000."""
    data = _load("torchtune-llama3_1-8b-lora-dpo.yaml")
    v = torchtune.derive(
        data, Facts(1, "the test", {"torchtune.datasets.stack_exchange_paired_dataset": 40_000})
    )
    assert (v.optimizer_steps, v.effective_train_examples, v.warmup_steps) == (1000, 32_000, 100)
    assert v.tail is not None and "ends each epoch after 1000 of 1250 updates" in v.tail


def test_the_distillation_configs_tail_is_carried_across_its_five_epochs():
    """b=2, GA=8, 5 epochs, one device, 51,778 examples: 25,889 micro-batches make 3,236 updates an epoch
    and one left over, carried into the next epoch's first update four times (the last one is wasted)."""
    data = _load("torchtune-qwen2_5-14b-to-7b-kd-lora.yaml")
    v = torchtune.derive(data, Facts(1, "the test", {ALPACA: 51_778}))
    assert v.optimizer_steps == 5 * 3_236 and v.effective_train_examples == 5 * 3_236 * 16 + 4 * 1 * 2
    assert v.tail is not None and "last 1 of 25889 micro-batches are carried" in v.tail


def test_a_dataset_list_sums_and_a_source_names_the_dataset():
    data = {
        "model": {"_component_": "torchtune.models.llama3_2.lora_llama3_2_1b"},
        "dataset": [
            {"_component_": "torchtune.datasets.instruct_dataset", "source": "org/a"},
            {"_component_": "torchtune.datasets.chat_dataset", "source": "json", "data_files": "data/b.json"},
        ],
        "batch_size": 2,
        "gradient_accumulation_steps": 2,
        "epochs": 1,
        "max_steps_per_epoch": None,
    }
    v = torchtune.derive(data, Facts(1, "the test", {"org/a": 60, "data/b.json": 40}))
    assert (v.train_examples, v.optimizer_steps) == (100, 25)
    unknown = torchtune.derive(data, Facts(1, "the test", {"org/a": 60}))
    assert unknown.optimizer_steps is None and unknown.formula is not None
    assert "S = 1 × ⌊L / 2⌋" in unknown.formula
    assert any("`data/b.json`" in note for note in unknown.assumptions)


def test_packing_makes_the_counts_an_estimate():
    data = _load("torchtune-llama3_2-1b-lora-single-device.yaml")
    data["dataset"] = {**data["dataset"], "packed": True}
    assert torchtune.derive(data, Facts(1, "the test", {ALPACA: 10_000})).estimate


@pytest.mark.parametrize(
    "extra, n, message",
    [
        ({"gradient_accumulation_steps": 2, "optimizer_in_bwd": True}, 1000, "optimizer_in_bwd"),
        ({"gradient_accumulation_steps": 64}, 100, "makes no update"),
        ({"batch_size": 0}, 100, "`batch_size` should be above 0"),
        ({"epochs": 1.5}, 100, "whole number"),
        ({"max_steps_per_epoch": 0}, 100, "should be above 0"),
    ],
)
def test_values_the_recipes_refuse_are_errors(extra, n, message):
    data = {**_load("torchtune-llama3_2-1b-lora-single-device.yaml"), **extra}
    with pytest.raises(TrainerConfigError, match=message):
        torchtune.derive(data, Facts(1, "the test", {ALPACA: n}))


@pytest.mark.parametrize(
    "data",
    [
        {"batch_size": 4, "epochs": 1, "max_steps_per_epoch": None, "gradient_accumulation_steps": 8},
        {"batch_size": 4, "epochs": 1, "model": {"_component_": "m"}},
        {"batch_size": "4", "epochs": 1, "max_steps_per_epoch": None, "model": {"_component_": "m"}},
        {"batch_size": 4, "epochs": 1, "max_steps_per_epoch": "all", "model": {"_component_": "m"}},
    ],
)
def test_torchtune_near_misses_are_not_detected(data):
    assert format_of(data) is None


def _check(capsys, repo: Path) -> dict:
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    return json.loads(capsys.readouterr().out)


def test_a_pr_doubling_gradient_accumulation_in_a_torchtune_config_shows_the_row(make_repo, capsys):
    """The 1B LoRA recipe on 51,760 examples, one device: 12,940 micro-batches; GA 8 -> 16 takes the
    updates from 1,617 (4 micro-batches left) to 808 (12 left), the cosine decay from 1,517 to 708."""
    text = (FIXTURES / "torchtune-llama3_2-1b-lora-single-device.yaml").read_text(encoding="utf-8")
    bot_yml = f"training:\n  world_size: 1\n  datasets:\n    {ALPACA}: 51760\n"
    head = text.replace("gradient_accumulation_steps: 8", "gradient_accumulation_steps: 16")
    assert head != text
    repo = make_repo(
        {".github/bot.yml": bot_yml, "recipes/configs/1B_lora.yaml": text},
        {"recipes/configs/1B_lora.yaml": head},
    ).path
    (row,) = _check(capsys, repo)["profiles"]
    assert (row["kind"], row["trainer"]) == ("torchtune", "torchtune")
    old, new = row["base"], row["head"]
    assert (old["optimizer_steps"], new["optimizer_steps"]) == (1617, 808)
    assert (old["decay_steps"], new["decay_steps"]) == (1517, 708)
    assert (old["effective_train_examples"], new["effective_train_examples"]) == (1617 * 32, 808 * 64)
    assert (old["batch_size"], new["batch_size"]) == (32, 64)
    assert {"grad_accum", "optimizer_steps", "batch_size", "decay_steps"} <= set(row["changed"])
