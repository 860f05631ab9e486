"""Trainer configs (rules/training/trainers): detection, step math against the trainers' loops, the rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.cli.main import main
from rules.core import formats
from rules.core.config import Config
from rules.training.primerl import looks_like_prime_rl
from rules.training.trainers import axolotl, format_of, hf, launch
from rules.training.trainers.facts import Facts, transformers_from, world_from_accelerate
from rules.training.trainers.keys import TrainerConfigError

FIXTURES = Path(__file__).parent / "fixtures" / "trainers"
ROOT = Path(__file__).parent.parent


def _load(path: Path) -> object:
    return formats.load(path.read_text(encoding="utf-8"), formats.format_of(path.name) or "yaml")


# --- What the trainers' own loops do, step by step (the oracle the closed forms are checked against) ---


def hf_loop(
    n: int, per_device: int, world: int, ga: int, epochs: float, max_steps: int = -1
) -> tuple[int, int]:
    """(updates, examples applied) of transformers >= 4.52's `_inner_training_loop`, simulated batch by
    batch: each process takes micro-batches of `per_device` from its shard, an update comes when
    `(step + 1) % GA == 0` or at the epoch's last micro-batch, and the run ends at the S-th update."""
    batches = [min(per_device * world, n - start) for start in range(0, n, per_device * world)]
    updates_per_epoch = sum(1 for i in range(len(batches)) if (i + 1) % ga == 0 or i + 1 == len(batches))
    total = max_steps if max_steps > 0 else math.ceil(epochs * max(updates_per_epoch, 1))
    updates = examples = 0
    while updates < total:
        window = 0
        for i, rows in enumerate(batches):
            window += rows
            if (i + 1) % ga == 0 or i + 1 == len(batches):
                updates += 1
                examples += window
                window = 0
                if updates == total:
                    break
    return updates, examples


def old_hf_loop(n: int, per_device: int, ga: int, epochs: int, carried: bool) -> tuple[int, int]:
    """(updates, examples) of transformers 4.47-4.51 (the tail stepped per epoch, S counting floor(L / GA)
    an epoch) or, carried, up to 4.46 (an update every GA micro-batches of a count across epochs), one
    process, simulated batch by batch."""
    batches = [min(per_device, n - start) for start in range(0, n, per_device)]
    total = epochs * max(len(batches) // ga, 1)
    updates = examples = counted = window = 0
    for _ in range(epochs):
        for i, rows in enumerate(batches):
            window += rows
            counted += 1
            last = i + 1 == len(batches)
            if (counted % ga == 0) if carried else ((i + 1) % ga == 0 or last):
                updates += 1
                examples += window
                window = 0
                if updates == total:
                    return updates, examples
        if not carried:
            window = 0
    return updates, examples


def test_the_oracle_reproduces_the_surveyed_worked_example():
    """TRAINERS.md §0: 300 examples, b=1, GA=8: on >= 4.52 38 updates / 300 examples in one epoch, 114 / 900
    in three; 4.47-4.51: 37 / 296 and 111 / 880; up to 4.46: 37 / 296 and 111 / 888."""
    assert hf_loop(300, 1, 1, 8, 1) == (38, 300)
    assert hf_loop(300, 1, 1, 8, 3) == (114, 900)
    assert old_hf_loop(300, 1, 8, 1, carried=False) == (37, 296)
    assert old_hf_loop(300, 1, 8, 3, carried=False) == (111, 880)
    assert old_hf_loop(300, 1, 8, 3, carried=True) == (111, 888)


@pytest.mark.parametrize(
    "version, epochs, carried, tail",
    [
        ((4, 48), 3, False, "but the run length counts whole updates only"),
        ((4, 46), 3, True, "carried into the next epoch's first update"),
        ((4, 46), 1, True, "carried into the next epoch's first update"),
        ((4, 36), 2, True, "carried into the next epoch's first update"),
    ],
)
def test_older_transformers_releases_count_the_tail_their_own_way(version, epochs, carried, tail):
    data = {
        "per_device_train_batch_size": 1,
        "gradient_accumulation_steps": 8,
        "num_train_epochs": epochs,
        "dataset_name": "d",
    }
    source = f"transformers=={version[0]}.{version[1]} in requirements.txt"
    v = hf.derive(data, Facts(datasets={"d": 300}, transformers=version, transformers_source=source))
    assert (v.optimizer_steps, v.effective_train_examples) == old_hf_loop(300, 1, 8, epochs, carried)
    assert v.tail is not None and tail in v.tail and source in v.tail


@pytest.mark.parametrize(
    "files, version, source",
    [
        (
            {"setup.py": '_deps = [\n    "transformers==4.52.3",\n    "trl[vllm]==0.18.0",\n]\n'},
            (4, 52),
            "transformers==4.52 in setup.py",
        ),  # open-r1 @1416fa0
        (
            {"setup.py": '    "transformers>=4.53.3",\n'},
            (4, 53),
            "transformers>=4.53 in setup.py",
        ),  # alignment-handbook
        (
            {"pyproject.toml": 'dependencies = [\n    "transformers==5.14.1",\n]\n'},
            (5, 14),
            "transformers==5.14 in pyproject.toml",
        ),  # axolotl @067b021c
        (
            {"requirements.txt": "torch\ntransformers[torch]==4.48.3\n"},
            (4, 48),
            "transformers==4.48 in requirements.txt",
        ),
        (
            {"uv.lock": '[[package]]\nname = "transformers"\nversion = "4.46.3"\n'},
            (4, 46),
            "transformers==4.46 in uv.lock",
        ),
        ({"requirements.txt": "sentence-transformers==2.7.0\n"}, None, None),
        (
            {"a/requirements.txt": "transformers==4.48.3\n", "b/requirements.txt": "transformers==4.57.1\n"},
            None,
            "transformers pins disagree (4.48, 4.57)",
        ),
    ],
)
def test_the_transformers_release_comes_from_the_repositorys_pins(files, version, source):
    assert transformers_from(files) == (version, source)


# --- Detection ---


@pytest.mark.parametrize("path", sorted((FIXTURES / "hf").glob("*.y*ml")), ids=lambda p: p.name)
def test_each_real_hf_recipe_is_recognised_as_hf(path):
    fmt = format_of(_load(path))
    assert fmt is not None and fmt.name == hf.NAME


@pytest.mark.parametrize("path", sorted((FIXTURES / "axolotl").glob("*.y*ml")), ids=lambda p: p.name)
def test_each_real_axolotl_config_is_recognised_as_axolotl(path):
    fmt = format_of(_load(path))
    assert fmt is not None and fmt.name == axolotl.NAME


def _ordinary_files() -> list[Path]:
    own = [ROOT / "action.yml", *sorted((ROOT / ".github").rglob("*.y*ml"))]
    return [p for p in (*sorted((FIXTURES / "not_trainers").rglob("*")), *own) if p.is_file()]


def test_no_yaml_json_or_toml_of_repositories_that_train_nothing_is_detected():
    """Workflows, compose files, Ansible role defaults, benchmark load configs, OpenAPI fixtures, pyproject
    and tool TOML, shell scripts ... of ten real repositories and this one: no trainer format and no
    Prime-RL shape."""
    parsed: dict[str, int] = {}
    tomls = scripts = 0
    for path in _ordinary_files():
        fmt = formats.format_of(path.name)
        if launch.is_script_path(path.name):
            # shell scripts (CI helpers, install scripts): parsed as launch commands, never run
            scripts += 1
            assert format_of(launch.parse(path.read_text(encoding="utf-8"))) is None, path
            continue
        if fmt is None:
            continue
        try:
            data = formats.load(path.read_text(encoding="utf-8"), fmt)
        except (formats.FormatError, UnicodeDecodeError):
            continue  # a file the bot cannot parse is never a trainer config either
        repo = path.parent.name if path.is_relative_to(FIXTURES) else "this repository"
        parsed[repo] = parsed.get(repo, 0) + 1
        if fmt == "toml":
            tomls += 1
            # outside the Prime-RL globs a TOML file is a run only by its shape (rules/training/profiles.py)
            assert not looks_like_prime_rl(data), path
        else:
            assert format_of(data) is None, path
    # the check ran over the whole corpus, TOML included, not over a handful of files
    assert len(parsed) >= 11 and min(parsed.values()) >= 2 and sum(parsed.values()) >= 130 and tomls >= 10
    assert scripts >= 15


@pytest.mark.parametrize(
    "data",
    [
        # DeepSpeed: per-GPU micro-batch, but not an HF arguments file
        {"train_batch_size": 32, "learning_rate": 0.1},  # no DeepSpeed engine key beside it
        {
            "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto",
            "zero_optimization": {},
        },
        # accelerate config
        {"compute_environment": "LOCAL_MACHINE", "num_processes": 8, "mixed_precision": "bf16"},
        # torchtune recipe
        {"batch_size": 4, "epochs": 1, "max_steps_per_epoch": None, "gradient_accumulation_steps": 8},
        # a Lightning-looking trainer section whose numbers are no integers
        {"trainer": {"max_steps": "100", "accumulate_grad_batches": "4"}},
        # a batch size with no Trainer key beside it
        {"per_device_train_batch_size": 8},
        # a batch size that is no integer
        {"per_device_train_batch_size": "8", "num_train_epochs": 1},
        # micro_batch_size alone (Prime-RL, LLaMA-Factory v1) is no axolotl config
        {"micro_batch_size": 1, "global_batch_size": 8, "num_train_epochs": 3},
        ["per_device_train_batch_size", "micro_batch_size"],
    ],
)
def test_near_misses_are_not_detected(data):
    assert format_of(data) is None


def test_a_llamafactory_config_is_not_read_as_an_hf_arguments_file():
    """HF keys beside `stage` and `finetuning_type`: LLaMA-Factory's own datasets and limits decide N."""
    data = {
        "stage": "sft",
        "finetuning_type": "lora",
        "per_device_train_batch_size": 1,
        "num_train_epochs": 3,
    }
    assert not hf.detect(data)
    fmt = format_of(data)
    assert fmt is not None and fmt.name == "llama-factory"


# --- HF / TRL step math on the real recipes ---

WORLD8 = "`num_processes` in recipes/accelerate_configs/ddp.yaml"


@pytest.mark.parametrize(
    "fixture, dataset, n",
    [
        ("alignment-handbook-smollm2-sft.yaml", "HuggingFaceTB/smoltalk", 1_043_917),
        ("alignment-handbook-zephyr-141b-orpo.yaml", "argilla/distilabel-capybara-dpo-7k-binarized", 7_563),
        ("open-r1-distill-7b-sft.yaml", "open-r1/Mixture-of-Thoughts", 349_317),
        ("open-r1-qwen-1.5b-sft-packing.yaml", "open-r1/s1K-1.1", 1_000),
    ],
)
def test_hf_recipes_derive_what_the_trainer_loop_does(fixture, dataset, n):
    data = _load(FIXTURES / "hf" / fixture)
    assert isinstance(data, dict)
    v = hf.derive(data, Facts(8, WORLD8, {dataset: n}))
    b, ga = data["per_device_train_batch_size"], data["gradient_accumulation_steps"]
    updates, examples = hf_loop(n, b, 8, ga, data["num_train_epochs"], data.get("max_steps", -1))
    assert (v.optimizer_steps, v.effective_train_examples) == (updates, examples)
    assert v.batch_size == b * ga * 8 and v.grad_accum == ga and v.world_size == 8
    assert v.train_examples == n and v.trainer == hf.NAME
    if "warmup_steps" in data:
        assert v.warmup_steps == data["warmup_steps"]
    else:
        assert v.warmup_steps == math.ceil(updates * data["warmup_ratio"])
    assert v.estimate is (data.get("packing") is True)
    assert f"world size 8 from {WORLD8}" in v.assumptions


def test_the_smollm2_recipe_in_numbers():
    """b=4, GA=4, 2 epochs on 8 processes, 1,043,917 examples: 32,623 micro-batches an epoch per process,
    8,156 updates (the last takes 3 micro-batches), 16,312 in all; warmup ceil(0.1 * 16,312) = 1,632."""
    data = _load(FIXTURES / "hf" / "alignment-handbook-smollm2-sft.yaml")
    assert isinstance(data, dict)
    v = hf.derive(data, Facts(8, WORLD8, {"HuggingFaceTB/smoltalk": 1_043_917}))
    assert (v.optimizer_steps, v.warmup_steps, v.decay_steps) == (16_312, 1_632, 16_312 - 1_632)
    assert v.effective_train_examples == 2 * 1_043_917 and v.epochs == 2
    assert v.tail is not None and "3 of 4" in v.tail


def test_an_unknown_dataset_gives_a_formula_not_a_number():
    data = _load(FIXTURES / "hf" / "open-r1-distill-7b-sft.yaml")
    assert isinstance(data, dict)
    v = hf.derive(data, Facts())
    assert v.optimizer_steps is None and v.effective_train_examples is None and v.warmup_steps is None
    assert v.formula == (
        "S = ceil(5 × ceil(ceil(N / 2) / 8)), N = examples of `open-r1/Mixture-of-Thoughts`; "
        "warmup = ceil(0.03 × S)"
    )
    assert v.assumptions[0].startswith("world size 1 assumed")
    assert v.epochs == 5


def test_max_steps_overrides_epochs_and_counts_examples_by_the_trainers_estimate():
    data = {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "max_steps": 100}
    v = hf.derive(data, Facts(world_size=2, world_source="test"))
    assert (v.max_steps, v.optimizer_steps, v.effective_train_examples) == (100, 100, 100 * 4 * 2 * 2)
    assert v.estimate  # without the dataset size the examples are max_steps x global batch
    known = hf.derive({**data, "dataset_name": "d"}, Facts(2, "test", {"d": 1_000}))
    assert (known.optimizer_steps, known.effective_train_examples) == hf_loop(1_000, 4, 2, 2, 3, 100)
    assert not known.estimate and known.epochs == round(100 / 63, 4)


def test_transformers_5_lets_a_warmup_ratio_replace_warmup_steps():
    data = {
        "per_device_train_batch_size": 1,
        "gradient_accumulation_steps": 8,
        "num_train_epochs": 1,
        "dataset_name": "d",
        "warmup_steps": 5,
        "warmup_ratio": 0.5,
    }
    v5 = hf.derive(data, Facts(datasets={"d": 300}, transformers=(5, 0), transformers_source="pin"))
    v4 = hf.derive(data, Facts(datasets={"d": 300}, transformers=(4, 57), transformers_source="pin"))
    assert (v5.warmup_steps, v4.warmup_steps) == (19, 5)  # ceil(0.5 * 38) on 5.0


@pytest.mark.parametrize(
    "warmup, expected",
    [
        ({"warmup_steps": 5}, 5),
        ({"warmup_ratio": 0.1}, 4),  # ceil(38 * 0.1)
        ({"warmup_steps": 0.1}, 4),  # transformers 5: a warmup_steps below 1 is a ratio
        ({"warmup_steps": 5, "warmup_ratio": 0.5}, 5),  # absolute steps win
        ({}, 0),
    ],
)
def test_hf_warmup_in_optimizer_steps(warmup, expected):
    data = {
        "per_device_train_batch_size": 1,
        "gradient_accumulation_steps": 8,
        "num_train_epochs": 1,
        "dataset_name": "d",
        **warmup,
    }
    v = hf.derive(data, Facts(datasets={"d": 300}))
    assert (v.optimizer_steps, v.warmup_steps) == (38, expected)


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"per_device_train_batch_size": 0, "num_train_epochs": 1},
            "`per_device_train_batch_size` should be above 0",
        ),
        ({"per_device_train_batch_size": 1, "gradient_accumulation_steps": "8"}, "should be a whole number"),
        (
            {"per_device_train_batch_size": 1, "num_train_epochs": True},
            "`num_train_epochs` should be a number",
        ),
    ],
)
def test_values_the_trainer_refuses_are_errors(data, message):
    with pytest.raises(TrainerConfigError, match=message):
        hf.derive(data, Facts())


@pytest.mark.parametrize(
    "report, n, b, ga, world, ng, epochs, steps",
    [
        ("huggingface/trl#3204", 8_000, 4, 2, 3, 6, 2, 4_000),
        ("huggingface/open-r1#483", 5_498, 8, 4, 7, 8, 1, 196),
    ],
)
def test_grpo_steps_match_what_users_reported_their_runs_made(report, n, b, ga, world, ng, epochs, steps):
    data = {
        "per_device_train_batch_size": b,
        "gradient_accumulation_steps": ga,
        "num_generations": ng,
        "num_train_epochs": epochs,
        "dataset_name": "d",
    }
    v = hf.derive(data, Facts(world, report, {"d": n}))
    assert v.trainer == hf.GRPO and v.optimizer_steps == steps
    prompts = b * world * ga // ng
    assert v.effective_train_examples == steps * prompts  # one generation batch of prompts per update
    assert v.tail == f"{n % prompts} prompts an epoch left out (the sampler takes whole generation batches)"


def test_the_open_r1_grpo_recipe():
    """b=16 completions, GA 4, 16 generations on 8 processes: 32 prompts a generation batch; 93,733
    prompts make 2,929 updates in one epoch (5 prompts left out), warmup ceil(292.9) = 293."""
    data = _load(FIXTURES / "hf" / "open-r1-qwen-1.5b-grpo.yaml")
    assert isinstance(data, dict)
    v = hf.derive(data, Facts(8, WORLD8, {"open-r1/OpenR1-Math-220k": 93_733}))
    assert (v.optimizer_steps, v.effective_train_examples, v.warmup_steps) == (2_929, 2_929 * 32, 293)
    assert v.batch_size == 16 * 4 * 8 and v.decay_steps == 2_929 - 293
    unknown = hf.derive(data, Facts())
    assert unknown.optimizer_steps is None
    assert unknown.formula is not None and unknown.formula.startswith("S = ceil(1 × ceil((N // 4) × 4 / 4))")


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"num_generations": 7}, "not a multiple of `num_generations` = 7"),
        ({"generation_batch_size": 30}, "not a multiple of per_device_train_batch_size"),
        ({"generation_batch_size": 32, "steps_per_generation": 2}, "exclude each other"),
    ],
)
def test_grpo_batches_trl_refuses_are_errors(extra, message):
    data = {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "num_generations": 4, **extra}
    with pytest.raises(TrainerConfigError, match=message):
        hf.derive(data, Facts(2, "test"))


# --- axolotl step math on the real configs ---


def axolotl_run(n: int, micro: int, world: int, ga: int, epochs: float, val: float) -> tuple[int, int]:
    """axolotl without packing: the split, `calculate_total_num_steps`' ceil over the whole run, then the HF
    loop run for that many updates."""
    train = n - (math.ceil(val * n) if 0 < val < 1 else int(val))
    total = math.ceil(train * epochs / (micro * ga * world))
    return hf_loop(train, micro, world, ga, math.inf, total)


def test_the_axolotl_instruct_lora_config_stops_short_of_its_fourth_epoch():
    """micro 2, GA 4, 4 epochs, val_set_size 0.05 of 2,000 rows: 1,900 training examples, 950 updates by
    axolotl's estimate, while the HF loop makes 238 an epoch (the last over 2 micro-batches): the run ends
    2 updates before the end of epoch 4 (axolotl #1775)."""
    data = _load(FIXTURES / "axolotl" / "axolotl-llama3-instruct-lora-8b.yml")
    assert isinstance(data, dict)
    v = axolotl.derive(data, Facts(datasets={"fozziethebeat/alpaca_messages_2k_test": 2_000}))
    assert (v.optimizer_steps, v.effective_train_examples) == axolotl_run(2_000, 2, 1, 4, 4, 0.05)
    assert (v.train_examples, v.optimizer_steps, v.effective_train_examples) == (1_900, 950, 7_588)
    assert v.epochs == round(950 / 238, 4) and v.max_steps is None
    assert v.warmup_steps == int(0.1 * 950) and v.decay_steps == 950 - 95
    assert v.tail is not None and "2 of 4" in v.tail
    assert not v.estimate


@pytest.mark.parametrize("fixture", ["axolotl-llama3-lora-1b.yml", "axolotl-llama3-fft-8b.yaml"])
def test_axolotl_sample_packing_is_an_estimate_shown_as_a_formula(fixture):
    data = _load(FIXTURES / "axolotl" / fixture)
    assert isinstance(data, dict)
    datasets = {d["path"]: 50_000 for d in data["datasets"]}
    v = axolotl.derive(data, Facts(4, "test", datasets))
    assert v.estimate and v.optimizer_steps is None and v.effective_train_examples is None
    g = data["micro_batch_size"] * data["gradient_accumulation_steps"] * 4
    assert v.batch_size == g
    assert (
        v.formula is not None
        and f"/ {g} ×" in v.formula
        and "int(0.1 × min(estimate, max_steps))" in v.formula
    )
    assert any("sample packing" in a for a in v.assumptions)


@pytest.mark.parametrize(
    "extra, ga, g",
    [
        ({"gradient_accumulation_steps": 8}, 8, 16),
        ({"batch_size": 16}, 8, 32),  # batch_size is per device, times the world size (2)
    ],
)
def test_axolotl_batch_arithmetic(extra, ga, g):
    data = {"base_model": "m", "micro_batch_size": 2, "sequence_len": 512, "max_steps": 10, **extra}
    v = axolotl.derive(data, Facts(2, "test"))
    assert (v.grad_accum, v.batch_size, v.optimizer_steps) == (
        ga,
        g if "batch_size" in extra else 2 * 8 * 2,
        10,
    )


def test_axolotl_max_steps_caps_the_warmup_base():
    data = {
        "base_model": "m",
        "micro_batch_size": 1,
        "sequence_len": 512,
        "gradient_accumulation_steps": 1,
        "num_epochs": 1,
        "datasets": [{"path": "d"}],
        "warmup_ratio": 0.1,
        "max_steps": 40,
    }
    v = axolotl.derive(data, Facts(datasets={"d": 1_000}))
    assert (v.optimizer_steps, v.warmup_steps) == (40, 4)  # int(0.1 * min(1000, 40))
    one = axolotl.derive({**data, "warmup_ratio": None, "warmup_steps": 1}, Facts(datasets={"d": 1_000}))
    assert one.warmup_steps == 2  # axolotl bumps a warmup of 1 to 2


# --- Facts ---


def test_world_size_from_agreeing_accelerate_configs_and_not_from_disagreeing_ones():
    ddp = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\n"
    assert world_from_accelerate({"a/ddp.yaml": ddp, "a/z3.yaml": ddp}) == (
        8,
        "`num_processes` in a/ddp.yaml and 1 more",
    )
    two = ddp.replace("8", "2")
    world, why = world_from_accelerate({"a/ddp.yaml": ddp, "a/two.yaml": two})
    assert world is None and why is not None and "(2, 8)" in why
    assert Facts(None, why).world()[1].startswith("world size 1 assumed (accelerate configs disagree")
    assert world_from_accelerate({"a/x.yaml": "num_processes: 8\n"}) == (
        None,
        None,
    )  # not an accelerate config


def test_training_config_keys_are_checked():
    config = Config.model_validate({"training": {"world_size": 8, "datasets": {"org/set": 1000}}})
    assert config.training.world_size == 8 and config.training.datasets == {"org/set": 1000}
    for bad in ({"world_size": 0}, {"datasets": {"org/set": 0}}, {"datasets": {"org/set": "many"}}):
        with pytest.raises(ValidationError):
            Config.model_validate({"training": bad})


# --- The review ---

AXOLOTL = """base_model: org/small
datasets:
  - path: org/chat
    type: chat_template
sequence_len: 2048
sample_packing: false
micro_batch_size: 1
gradient_accumulation_steps: {ga}
num_epochs: 1
warmup_steps: 10
learning_rate: {lr}
"""
BOT_YML = "training:\n  world_size: 1\n  datasets:\n    org/chat: 300\n"


def _check(capsys, repo: Path, fmt: str) -> str:
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", fmt])
    return capsys.readouterr().out


def _json_check(capsys, make_repo, base: dict, head: dict) -> dict:
    return json.loads(_check(capsys, make_repo(base, head).path, "json"))


def test_a_pr_doubling_gradient_accumulation_in_an_axolotl_config_shows_the_row(make_repo, capsys):
    """GA 4 -> 8 on 300 examples: 75 -> 38 updates, warmup stays 10 (now a larger share of the run)."""
    base = {".github/bot.yml": BOT_YML, "configs/sft.yaml": AXOLOTL.format(ga=4, lr="2e-5")}
    repo = make_repo(base, {"configs/sft.yaml": AXOLOTL.format(ga=8, lr="2e-5")}).path
    (row,) = json.loads(_check(capsys, repo, "json"))["profiles"]
    assert (row["path"], row["kind"], row["trainer"]) == ("configs/sft.yaml", "axolotl", "axolotl")
    old, new = row["base"], row["head"]
    assert (old["trainer"], new["trainer"]) == ("axolotl", "axolotl")
    assert (old["optimizer_steps"], new["optimizer_steps"]) == (75, 38)
    assert (old["grad_accum"], new["grad_accum"]) == (4, 8)
    assert (old["effective_train_examples"], new["effective_train_examples"]) == (300, 300)
    assert (old["warmup_steps"], new["warmup_steps"]) == (10, 10)
    assert {"grad_accum", "optimizer_steps", "batch_size"} <= set(row["changed"])
    assert "world size 1 from `training.world_size` in .github/bot.yml" in new["assumptions"]

    out = _check(capsys, repo, "markdown")
    assert "| optimizer steps | 75 | **38** |" in out
    assert "<sub>axolotl config</sub>" in out


def test_a_change_that_moves_no_derived_value_gives_no_row(make_repo, capsys):
    base = {".github/bot.yml": BOT_YML, "configs/sft.yaml": AXOLOTL.format(ga=4, lr="2e-5")}
    data = _json_check(capsys, make_repo, base, {"configs/sft.yaml": AXOLOTL.format(ga=4, lr="1e-5")})
    assert data["profiles"] == []


def test_an_hf_recipe_takes_its_world_size_from_the_repositorys_accelerate_configs(make_repo, capsys):
    recipe = (FIXTURES / "hf" / "alignment-handbook-smollm2-sft.yaml").read_text(encoding="utf-8")
    accelerate = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\n"
    base = {
        "recipes/accelerate_configs/ddp.yaml": accelerate,
        "recipes/smollm2/sft/config.yaml": recipe,
    }
    head = {
        "recipes/smollm2/sft/config.yaml": recipe.replace(
            "gradient_accumulation_steps: 4", "gradient_accumulation_steps: 2"
        )
    }
    data = _json_check(capsys, make_repo, base, head)
    (row,) = data["profiles"]
    assert row["trainer"] == "hf-trainer"
    assert (row["base"]["world_size"], row["base"]["batch_size"], row["head"]["batch_size"]) == (8, 128, 64)
    assert row["head"]["optimizer_steps"] is None  # the dataset size is not configured
    assert "N = examples of `HuggingFaceTB/smoltalk`" in row["head"]["formula"]


def test_existing_rows_carry_their_trainer_and_optimizer_steps(capsys):
    """The mission's example: a profile moving from an examples target to a legacy micro-step target is a
    Prime-RL run on both sides (only the unit of its target changes): 38 -> 37 optimizer steps."""
    capsys.readouterr()
    main(["example", "mobile300", "--format", "json"])
    (row,) = json.loads(capsys.readouterr().out)["profiles"]
    assert (row["base"]["trainer"], row["head"]["trainer"], row["trainer"]) == ("prime-rl",) * 3
    assert (row["base"]["semantics"], row["head"]["semantics"]) == ("examples", "legacy-micro")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (38, 37)


def test_a_prime_rl_config_row_is_a_prime_rl_trainer(make_repo, capsys):
    toml = 'max_steps = {n}\n\n[model]\nname = "m"\n\n[data]\nbatch_size = 8\nseq_len = 1024\n'
    data = _json_check(
        capsys,
        make_repo,
        {"configs/sft/run.toml": toml.format(n=10)},
        {"configs/sft/run.toml": toml.format(n=20)},
    )
    (row,) = data["profiles"]
    assert row["kind"] == "prime-rl" and row["trainer"] == "prime-rl"
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (10, 20)


# --- A DeepSpeed config read with the HF arguments that name it ---

HF_DS = """per_device_train_batch_size: 4
gradient_accumulation_steps: {ga}
num_train_epochs: 1
dataset_name: org/chat
warmup_ratio: 0.1
deepspeed: {ds}
"""
DS = {
    "train_batch_size": 64,
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": "auto", "total_num_steps": "auto"}},
}
BOT_DATASET = "training:\n  datasets:\n    org/chat: 1000\n"


def test_a_deepspeed_train_batch_size_fixes_the_world_size_and_its_scheduler_replaces_hfs(make_repo, capsys):
    """train_batch_size 64 = W x 4 x GA: W = 8 at GA 2, and at GA 4 the same file needs W = 4."""
    base = {
        ".github/bot.yml": BOT_DATASET,
        "ds/z3.json": json.dumps(DS),
        "recipes/sft.yaml": HF_DS.format(ga=2, ds="ds/z3.json"),
    }
    data = _json_check(capsys, make_repo, base, {"recipes/sft.yaml": HF_DS.format(ga=4, ds="ds/z3.json")})
    (row,) = data["profiles"]
    old, new = row["base"], row["head"]
    assert (old["world_size"], new["world_size"]) == (8, 4)
    assert old["assumptions"][0] == "world size 8 from `train_batch_size` in the DeepSpeed config ds/z3.json"
    assert old["scheduler"] == "DeepSpeed WarmupDecayLR (log warmup)"
    # 1,000 examples in micro-batches of 32 (8 x 4): 32 a process, 16 updates; at W = 4: 63, still 16
    assert (old["optimizer_steps"], new["optimizer_steps"]) == (16, 16)
    assert (16, 16) == (hf_loop(1000, 4, 8, 2, 1)[0], hf_loop(1000, 4, 4, 4, 1)[0])
    assert (old["warmup_steps"], old["decay_steps"]) == (2, 14)


@pytest.mark.parametrize(
    "ds, message",
    [
        ({"gradient_accumulation_steps": 8}, "`gradient_accumulation_steps` is 8 in the DeepSpeed config"),
        ({"train_batch_size": 30}, "is not a multiple of"),
        (
            {"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 100}}},
            "`scheduler.params.warmup_num_steps` is 100",
        ),
    ],
)
def test_deepspeed_numbers_the_trainer_refuses_are_the_heads_error(make_repo, capsys, ds, message):
    base = {".github/bot.yml": BOT_DATASET, "recipes/sft.yaml": HF_DS.format(ga=2, ds="ds.json")}
    head = {"recipes/ds.json": json.dumps(ds)}  # the arguments file is unchanged: the JSON it names is added
    data = _json_check(capsys, make_repo, base, head)
    (row,) = data["profiles"]
    assert row["head"] is None and message in row["head_error"]
    assert "DeepSpeed config `ds.json` not read" in row["base"]["assumptions"][-1]


def test_a_deepspeed_config_changed_alone_re_derives_the_arguments_that_name_it(make_repo, capsys):
    """The recipe is unchanged; its DeepSpeed JSON's train_batch_size 64 -> 32 halves the world size."""
    base = {
        ".github/bot.yml": BOT_DATASET,
        "recipes/ds.json": json.dumps(DS),
        "recipes/sft.yaml": HF_DS.format(ga=2, ds="ds.json"),
        "recipes/other.yaml": HF_DS.format(ga=2, ds="other.json"),
    }
    data = _json_check(
        capsys, make_repo, base, {"recipes/ds.json": json.dumps({**DS, "train_batch_size": 32})}
    )
    (row,) = data["profiles"]
    assert row["path"] == "recipes/sft.yaml"
    assert (row["base"]["world_size"], row["head"]["world_size"]) == (8, 4)
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (16, 32)


def test_a_pinned_transformers_release_sets_the_rows_tail(make_repo, capsys):
    """300 examples, GA 8, one epoch: 38 updates on a current release, 37 on the pinned 4.48."""
    recipe = (
        HF_DS.replace("deepspeed: {ds}\n", "")
        .format(ga=8)
        .replace("per_device_train_batch_size: 4", "per_device_train_batch_size: 1")
    )
    bot_yml = "training:\n  world_size: 1\n  datasets:\n    org/chat: 300\n"
    base = {".github/bot.yml": bot_yml, "requirements.txt": "transformers==4.48.3\n", "sft.yaml": recipe}
    # The recipe changes too: a pin changed alone does not re-derive the unchanged configs (yet).
    head = {"requirements.txt": "transformers==4.57.1\n", "sft.yaml": recipe + "seed: 1\n"}
    (row,) = _json_check(capsys, make_repo, base, head)["profiles"]
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (37, 38)
    assert "ends early (transformers==4.48 in requirements.txt)" in row["base"]["tail"]


_VALUES = st.one_of(
    st.integers(min_value=-3, max_value=64),
    st.integers(min_value=-3, max_value=64),
    st.floats(min_value=-1, max_value=10),
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**15), max_value=10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
)
_KEYS = (
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "num_train_epochs",
    "max_steps",
    "warmup_steps",
    "warmup_ratio",
    "num_generations",
    "num_iterations",
    "steps_per_generation",
    "generation_batch_size",
    "micro_batch_size",
    "batch_size",
    "num_epochs",
    "val_set_size",
    "context_parallel_size",
    "tensor_parallel_size",
    "sequence_len",
    "max_length",
)


@settings(max_examples=1000, deadline=None)
@given(
    values=st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=10),
    world=st.integers(min_value=1, max_value=10**6),
    n=st.integers(min_value=1, max_value=10**9),
)
def test_any_values_give_values_or_a_reason_never_a_crash(values, world, n):
    facts = Facts(world, "test", {"d": n})
    for fmt, base in (
        (hf, {"per_device_train_batch_size": 2, "dataset_name": "d"}),
        (hf, {"per_device_train_batch_size": 2, "dataset_name": "d", "num_generations": 2}),
        (axolotl, {"micro_batch_size": 1, "sequence_len": 8, "datasets": [{"path": "d"}]}),
    ):
        try:
            v = fmt.derive({**base, **values}, facts)
        except TrainerConfigError:
            continue
        assert v.optimizer_steps is None or v.optimizer_steps >= 0


# --- DeepSpeed configs on their own (a script drives the engine; no HF arguments file names them) ---

DS_FIXTURES = sorted((FIXTURES / "deepspeed").glob("*.json"))


@pytest.mark.parametrize(
    "name, layout, scheduler, warmup",
    [
        # train_batch_size 4, accumulation 1, world size 1 assumed -> micro-batch 4
        ("deepspeed-ds_config_func_scheduler.json", (4, 4, 1, 1), "DeepSpeed WarmupLR (log warmup)", 10),
        ("deepspeed-ds_config_func_bs8_zero0_gas3.json", (24, 8, 3, 1), None, None),
        ("deepspeed-ds_config_perf_bs16.json", (16, 16, 1, 1), None, None),
    ],
)
def test_real_deepspeed_configs_derive_the_engines_batch_layout(name, layout, scheduler, warmup):
    from rules.training.trainers import deepspeed

    data = _load(FIXTURES / "deepspeed" / name)
    fmt = format_of(data)
    assert fmt is not None and fmt.name == deepspeed.NAME
    v = fmt.derive(data, Facts())
    assert (v.batch_size, v.micro_batch_size, v.grad_accum, v.world_size) == layout
    assert (v.scheduler, v.warmup_steps) == (scheduler, warmup)
    # No run length in a DeepSpeed config: said as a formula, never a made-up number.
    assert v.optimizer_steps is None and "training script" in (v.formula or "")
    assert "world size 1 assumed" in v.assumptions[0]


def test_deepspeed_resolves_the_third_batch_key_as_the_engine_does():
    from rules.training.trainers import deepspeed

    base = {"zero_optimization": {"stage": 2}}
    facts = Facts(world_size=4, world_source="bot.yml", configured=True)
    # all three: the world size follows; two: the third follows with the configured world size
    three = deepspeed.derive({**base, "train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
                              "gradient_accumulation_steps": 2}, facts)  # fmt: skip
    assert (three.world_size, three.grad_accum) == (8, 2)
    two = deepspeed.derive({**base, "train_batch_size": 64, "train_micro_batch_size_per_gpu": 4}, facts)
    assert (two.world_size, two.grad_accum) == (4, 4)
    with pytest.raises(TrainerConfigError, match="not a multiple"):
        deepspeed.derive({**base, "train_batch_size": 30, "train_micro_batch_size_per_gpu": 4}, facts)
    total = deepspeed.derive(
        {**base, "train_batch_size": 32, "scheduler": {"type": "WarmupDecayLR", "params": {
            "warmup_num_steps": 100, "total_num_steps": 1000, "warmup_type": "linear"}}},
        Facts(),
    )  # fmt: skip
    assert (total.optimizer_steps, total.effective_train_examples) == (1000, 32000)
    assert (total.scheduler, total.warmup_steps, total.decay_steps) == (
        "DeepSpeed WarmupDecayLR (linear warmup)",
        100,
        900,
    )


def test_a_pr_doubling_accumulation_in_a_deepspeed_config_shows_its_row(make_repo, capsys):
    """A standalone DeepSpeed config (the script runs the engine itself): GA 1 -> 2 doubles the examples
    of every update and halves the micro-batch the engine derives from train_batch_size."""
    ds = json.loads((FIXTURES / "deepspeed" / "deepspeed-ds_config_func_scheduler.json").read_text())
    base = {"ds_config.json": json.dumps(ds, indent=2)}
    head = {"ds_config.json": json.dumps({**ds, "gradient_accumulation_steps": 2}, indent=2)}
    (row,) = _json_check(capsys, make_repo, base, head)["profiles"]
    assert (row["path"], row["kind"], row["trainer"]) == ("ds_config.json", "deepspeed", "deepspeed")
    assert (row["base"]["grad_accum"], row["head"]["grad_accum"]) == (1, 2)
    assert (row["base"]["micro_batch_size"], row["head"]["micro_batch_size"]) == (4, 2)


def test_deepspeed_schedulers_are_drawn_with_their_own_warmup():
    from rules.core.models import StepValues
    from rules.training.lr_schedule import schedule_of

    def values(name):
        return StepValues(semantics="optimizer", scheduler=name, optimizer_steps=100, warmup_steps=10)

    log = schedule_of(values("DeepSpeed WarmupDecayLR (log warmup)"), (0, 1, 5, 10, 55, 100))
    linear = schedule_of(values("DeepSpeed WarmupDecayLR (linear warmup)"), (0, 1, 5, 10, 55, 100))
    # DeepSpeed's default ramp is log(step + 1) / log(warmup): above the linear one early on
    assert log.rates[:3] == (0.0, round(math.log(2) / math.log(10), 4), round(math.log(6) / math.log(10), 4))
    assert linear.rates[:3] == (0.0, 0.1, 0.5)
    assert log.rates[3:] == linear.rates[3:] == (1.0, 0.5, 0.0)
    constant = schedule_of(values("DeepSpeed WarmupLR (log warmup)"), (50, 100))
    assert constant.rates == (1.0, 1.0) and constant.unknown is None


# --- verl SFT scripts (optimizer updates, unlike verl's PPO trainer) ---

GSM8K = "$HOME/data/gsm8k/train.parquet"


@pytest.mark.parametrize(
    "name, micro, epochs, steps",
    [
        # 7,473 examples, train_batch_size 256 (verl's default), one rank: 29 updates an epoch, 49 left out
        ("verl-sft-gsm8k-run_gemma_2b.sh", 8, 3, 87),
        ("verl-sft-gsm8k-run_deepseek_6b7.sh", 8, 4, 116),
        ("verl-sft-gsm8k-run_gemma_7b.sh", 4, 4, 116),
    ],
)
def test_real_verl_sft_scripts_count_optimizer_updates(name, micro, epochs, steps):
    from rules.training.trainers import verl_sft

    data = launch.parse((FIXTURES / "verl" / name).read_text(encoding="utf-8"))
    fmt = format_of(data)
    assert fmt is not None and fmt.name == verl_sft.NAME
    v = fmt.derive(data, Facts(datasets={GSM8K: 7473}))
    assert (v.batch_size, v.micro_batch_size, v.grad_accum, v.world_size) == (256, micro, 256 // micro, 1)
    assert (v.optimizer_steps, v.effective_train_examples, v.epochs) == (steps, steps * 256, float(epochs))
    # warmup int(S × 0.1), cosine over the rest; the sampler's and the loader's drop_last leave 49 out
    assert (v.warmup_steps, v.decay_steps) == (int(steps * 0.1), steps - int(steps * 0.1))
    assert v.tail == "49 examples an epoch left out (drop_last)"
    assert "world size 1 assumed" in v.assumptions[0]  # `--nproc_per_node=$1`: not in the file


def test_verl_sft_world_size_early_exit_and_refusals():
    from rules.training.trainers import verl_sft

    script = (
        "torchrun --nnodes=2 --nproc_per_node=4 -m verl.trainer.fsdp_sft_trainer \\\n"
        "  data.train_files=/d/train.parquet data.train_batch_size=64 data.micro_batch_size_per_gpu=2 \\\n"
        "  trainer.total_epochs=2 trainer.total_training_steps=50 optim.lr_warmup_steps_ratio=0.05\n"
    )
    v = verl_sft.derive(launch.parse(script), Facts(datasets={"/d/train.parquet": 6400}))
    # 8 ranks of 8 rows, micro-batches of 2: GA 4; 100 updates an epoch, 200 scheduled, 50 run
    assert (v.world_size, v.grad_accum, v.optimizer_steps, v.max_steps) == (8, 4, 50, 50)
    # fsdp_sft_trainer's schedule keeps all 200 updates: warmup int(200 × 0.05), the decay never ends
    assert (v.warmup_steps, v.decay_steps) == (10, 190)
    assert "the decay never finishes" in v.assumptions[-1]
    newer = verl_sft.derive(
        launch.parse(script.replace("fsdp_sft_trainer", "sft_trainer")),
        Facts(datasets={"/d/train.parquet": 6400}),
    )
    assert (newer.warmup_steps, newer.decay_steps) == (2, 48)
    with pytest.raises(TrainerConfigError, match="not divisible by the 8 data-parallel ranks"):
        verl_sft.derive(launch.parse(script.replace("train_batch_size=64", "train_batch_size=60")), Facts())
    zero = (
        (FIXTURES / "verl" / "verl-sft-gsm8k-run_gemma_7b.sh").read_text().replace("per_gpu=4", "per_gpu=0")
    )
    with pytest.raises(TrainerConfigError, match="above 0"):
        verl_sft.derive(launch.parse(zero), Facts())


# --- Megatron-LM launch scripts ---


def _megatron(name: str):
    from rules.training.trainers import megatron

    data = launch.parse((FIXTURES / "megatron" / name).read_text(encoding="utf-8"))
    fmt = format_of(data)
    assert fmt is not None and fmt.name == megatron.NAME
    return fmt, data


def test_megatron_t5_iterations_from_flags_kept_in_a_quoted_multi_line_variable():
    """The T5 script keeps its flags in `T5_ARGS="..."` over 30 lines and passes `$T5_ARGS` unquoted: the
    shell splits it into words, and so does the reader."""
    fmt, data = _megatron("megatron-t5-train_t5_220m_distributed.sh")
    v = fmt.derive(data, Facts())
    # 8 ranks (torchrun's --nproc_per_node 8 × --nnodes 1), tp = pp = 1: 512 = 64 × 8 × 1 micro-batch
    assert (v.world_size, v.batch_size, v.micro_batch_size, v.grad_accum) == (8, 512, 64, 1)
    assert (v.optimizer_steps, v.effective_train_examples) == (1_000_000, 512_000_000)
    # --lr-warmup-fraction .01 of the decay (1,000,000 iterations), linear to the end
    assert (v.scheduler, v.warmup_steps, v.decay_steps) == ("linear", 10_000, 990_000)


def test_megatron_llama3_counts_samples():
    fmt, data = _megatron("megatron-llama-train_llama3_8b_h100_fp8.sh")
    v = fmt.derive(data, Facts())
    assert (v.world_size, v.batch_size, v.grad_accum, v.tokens_per_step) == (8, 128, 16, 128 * 8192)
    # --train-samples 1,953,125,000 // 128; warmup and the decay's end given in samples, // 128 too
    assert (v.optimizer_steps, v.max_steps, v.warmup_steps) == (15_258_789, None, 30_517)
    assert v.decay_steps == 15_228_271 - 30_517
    # the decay ends before the run does: named, so the chart does not stretch it over the whole run
    assert v.scheduler == "cosine (decay ends at iteration 15228271)"
    assert "counts samples" in v.assumptions[1]


def test_megatron_gpt3_as_written_is_refused_with_the_reason():
    """One node of 8 processes for tensor × pipeline parallel 8 × 16: Megatron refuses it (the script says
    to change NUM_NODES for a multi-node run)."""
    fmt, data = _megatron("megatron-gpt3-train_gpt3_175b_distributed.sh")
    with pytest.raises(
        TrainerConfigError, match="8 processes cannot hold tensor × pipeline × context parallel = 128"
    ):
        fmt.derive(data, Facts())
    sixteen = (FIXTURES / "megatron" / "megatron-gpt3-train_gpt3_175b_distributed.sh").read_text()
    v = fmt.derive(launch.parse(sixteen.replace("NUM_NODES=1", "NUM_NODES=16")), Facts())
    # 128 ranks / 128 model-parallel = dp 1: 1536 micro-batches of 1 an update
    assert (v.world_size, v.grad_accum, v.optimizer_steps) == (128, 1536, 500_000)
    assert int(0.001 * 430_000) == v.warmup_steps and v.scheduler == "cosine (decay ends at iteration 430000)"
    assert any("rampup" in n for n in v.assumptions)


@pytest.mark.parametrize(
    "script",
    [
        "python train.py --micro-batch-size 4\n",  # no run length
        "python train.py --train-iters 10\n",
    ],
)
def test_scripts_without_megatrons_flags_are_not_megatron(script):
    assert format_of(launch.parse(script)) is None


def test_a_quoted_multi_line_value_is_one_logical_line():
    text = 'ARGS="\n  --a 1 \\\n  --b 2\n"\nrun $ARGS --c 3\n'
    assert launch.parse(text)["flags"] == {"a": 1, "b": 2, "c": 3}
    # an unclosed quote stops joining after a bounded number of lines; nothing is lost after it
    many = 'ARGS="\n' + "  --x 1\n" * 500 + "run --c 3\n"
    assert launch.parse(many)["flags"].get("c") == 3


def test_a_pr_changing_a_verl_sft_script_shows_its_row(make_repo, capsys):
    """The batch 256 -> 128 on 7,473 GSM8K examples: 29 -> 58 updates an epoch (the row, base -> head)."""
    script = (FIXTURES / "verl" / "verl-sft-gsm8k-run_gemma_7b.sh").read_text(encoding="utf-8")
    bot_yml = f'training:\n  world_size: 1\n  datasets:\n    "{GSM8K}": 7473\n'
    base = {".github/bot.yml": bot_yml, "examples/sft/run.sh": script}
    head = {
        "examples/sft/run.sh": script.replace(
            "trainer.total_epochs=4", "data.train_batch_size=128 \\\n    trainer.total_epochs=4"
        )
    }
    (row,) = _json_check(capsys, make_repo, base, head)["profiles"]
    assert (row["kind"], row["trainer"]) == ("verl-sft", "verl-sft")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (116, 232)
    assert (row["base"]["grad_accum"], row["head"]["grad_accum"]) == (64, 32)


def test_a_pr_changing_a_megatron_script_shows_its_row(make_repo, capsys):
    """The global batch 512 -> 1024 in the T5 script: the same iterations see twice the sequences."""
    script = (FIXTURES / "megatron" / "megatron-t5-train_t5_220m_distributed.sh").read_text(encoding="utf-8")
    base = {"examples/t5/train.sh": script}
    head = {"examples/t5/train.sh": script.replace("--global-batch-size 512", "--global-batch-size 1024")}
    (row,) = _json_check(capsys, make_repo, base, head)["profiles"]
    assert (row["kind"], row["trainer"]) == ("megatron", "megatron")
    assert (row["base"]["grad_accum"], row["head"]["grad_accum"]) == (1, 2)
    assert (row["base"]["effective_train_examples"], row["head"]["effective_train_examples"]) == (
        512_000_000,
        1_024_000_000,
    )
