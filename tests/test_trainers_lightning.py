"""Lightning trainer configs and NeMo Megatron configs (rules/training/trainers/lightning.py): detection,
step math against Lightning's loop simulated batch by batch, and pull requests' rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from rules.core import formats
from rules.training.trainers import format_of, lightning
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError

FIXTURES = Path(__file__).parent / "fixtures" / "trainers" / "lightning"
MANIFEST = "data/train_manifest.json"


def _load(name: str, manifest: str | None = None) -> dict:
    data = formats.load((FIXTURES / name).read_text(encoding="utf-8"), "yaml")
    assert isinstance(data, dict)
    if manifest is not None:  # what `model.train_ds.manifest_filepath=...` on the command line sets
        data["model"]["train_ds"]["manifest_filepath"] = manifest
    return data


def lightning_loop(
    n: int, b: int, world: int, accum: int, max_epochs: int, max_steps: int, limit: int | float | None = None
) -> tuple[int, int]:
    """(optimizer steps, distinct examples) of Lightning's fit loop, batch by batch: the devices together
    take `b` × `world` rows a batch (the sampler pads the last with repeats, not counted again), at most
    `limit_train_batches` batches; a step when `accum` batches are in or at the epoch's final batch; the run
    stops at `max_steps` or after `max_epochs`."""
    batches = [min(b * world, n - start) for start in range(0, n, b * world)]
    if isinstance(limit, int):
        batches = batches[:limit]
    elif isinstance(limit, float):
        batches = batches[: int(len(batches) * limit)]
    steps = examples = 0
    for _ in range(max_epochs):
        window = 0
        for i, rows in enumerate(batches):
            window += rows
            if (i + 1) % accum == 0 or i + 1 == len(batches):
                steps += 1
                examples += window
                window = 0
                if steps == max_steps:
                    return steps, examples
    return steps, examples


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.name)
def test_each_real_config_is_recognised_as_lightning_or_nemo(path):
    data = formats.load(path.read_text(encoding="utf-8"), "yaml")
    fmt = format_of(data)
    expected = lightning.NEMO if "megatron" in path.name else lightning.NAME
    assert fmt is not None and fmt.name == expected


@pytest.mark.parametrize("world", [1, 3])
@pytest.mark.parametrize("n", [10_000, 28_539])
@pytest.mark.parametrize(
    "fixture, accum, limit",
    [
        ("nemo-speech_to_text_finetune.yaml", None, None),
        ("nemo-conformer_ctc_bpe.yaml", 3, None),
        ("nemo-asr_adaptation.yaml", 2, 0.25),
    ],
)
def test_lightning_configs_derive_what_the_fit_loop_does(fixture, accum, limit, n, world):
    data = _load(fixture, MANIFEST)
    trainer = data["trainer"]
    if accum is not None:
        trainer["accumulate_grad_batches"] = accum
    if limit is not None:
        trainer["limit_train_batches"] = limit
    trainer["devices"] = world
    v = lightning.derive(data, Facts(datasets={MANIFEST: n}))
    b = data["model"]["train_ds"]["batch_size"]
    epochs = trainer.get("max_epochs") or -1
    epochs = epochs if epochs > 0 else 10**9  # unset or -1 beside max_steps: the steps end the run
    steps, examples = lightning_loop(
        n,
        b,
        world,
        trainer["accumulate_grad_batches"],
        epochs,
        trainer["max_steps"],
        trainer.get("limit_train_batches"),
    )
    assert (v.optimizer_steps, v.effective_train_examples) == (steps, examples)
    assert v.world_size == world and v.trainer == lightning.NAME
    sched = data["model"]["optim"]["sched"]
    if sched.get("warmup_steps") is not None:
        assert v.warmup_steps == sched["warmup_steps"]


def test_a_lightning_run_without_its_dataset_size_gives_a_formula():
    v = lightning.derive(_load("nemo-speech_to_text_finetune.yaml"), Facts())
    assert (
        v.optimizer_steps is None
        and v.formula == "S = 50 × ceil(ceil(N / (16 × 1)) / 1), N = training examples"
    )
    bare = lightning.derive(
        {"trainer": {"max_steps": 500, "max_epochs": -1, "accumulate_grad_batches": 4}}, Facts()
    )
    assert (bare.optimizer_steps, bare.batch_size) == (500, None)
    assert any("once an epoch" in note for note in bare.assumptions)


@pytest.mark.parametrize(
    "trainer, message",
    [
        ({"max_steps": -1, "max_epochs": -1}, "no end"),
        ({"max_steps": 0}, "no step"),
        ({"max_steps": 10, "accumulate_grad_batches": 0}, "should be above 0"),
    ],
)
def test_values_lightning_refuses_are_errors(trainer, message):
    with pytest.raises(TrainerConfigError, match=message):
        lightning.derive({"trainer": trainer}, Facts())


@pytest.mark.parametrize(
    "fixture, steps, gbs, ga, warmup, decay",
    [
        # max_steps 100,000 of 8 sequences; 8 / (4 × 1) = 2 micro-batches; cosine after 500 warmup
        ("nemo-megatron_gpt_config.yaml", 100_000, 8, 2, 500, 99_500),
        ("nemo-megatron_gpt_finetuning_config.yaml", 20_000, 128, 32, 50, 19_950),
        # the llama config holds the rate for 50,000 constant steps before decaying
        ("nemo-megatron_llama_config.yaml", 100_000, 8, 2, 500, 100_000 - 500 - 50_000),
    ],
)
def test_nemo_megatron_configs_count_global_batches(fixture, steps, gbs, ga, warmup, decay):
    v = lightning.derive_nemo(_load(fixture), Facts())
    assert (v.optimizer_steps, v.batch_size, v.grad_accum, v.warmup_steps, v.decay_steps) == (
        steps,
        gbs,
        ga,
        warmup,
        decay,
    )
    assert v.effective_train_examples == steps * gbs and v.trainer == lightning.NEMO


@pytest.mark.parametrize(
    "change, message",
    [
        ({"trainer": {"accumulate_grad_batches": 2}}, "must be 1"),
        ({"model": {"global_batch_size": 6}}, "not a multiple"),
        ({"trainer": {"devices": 3}, "model": {"tensor_model_parallel_size": 2}}, "model-parallel"),
    ],
)
def test_values_nemo_refuses_are_errors(change, message):
    data = _load("nemo-megatron_gpt_config.yaml")
    for section, values in change.items():
        data[section].update(values)
    with pytest.raises(TrainerConfigError, match=message):
        lightning.derive_nemo(data, Facts())


def _row(make_repo, capsys, path: str, base: str, head: str, bot_yml: str = "") -> dict:
    files = {path: base} | ({".github/bot.yml": bot_yml} if bot_yml else {})
    repo = make_repo(files, {path: head}).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    (row,) = json.loads(capsys.readouterr().out)["profiles"]
    return row


def test_a_pr_doubling_nemos_global_batch_shows_twice_the_sequences(make_repo, capsys):
    text = (FIXTURES / "nemo-megatron_gpt_config.yaml").read_text(encoding="utf-8")
    head = text.replace("global_batch_size: 8 #", "global_batch_size: 16 #")
    assert head != text
    row = _row(make_repo, capsys, "conf/megatron_gpt_config.yaml", text, head)
    assert (row["kind"], row["trainer"]) == ("nemo", "nemo")
    old, new = row["base"], row["head"]
    assert (old["optimizer_steps"], new["optimizer_steps"]) == (100_000, 100_000)
    assert (old["effective_train_examples"], new["effective_train_examples"]) == (800_000, 1_600_000)
    assert (old["grad_accum"], new["grad_accum"]) == (2, 4)


def test_a_pr_raising_lightnings_accumulation_shows_fewer_steps(make_repo, capsys):
    """28,539 examples in batches of 16 on one device: 1,784 batches an epoch; accumulate 1 -> 4 takes the
    50 epochs from 89,200 to 50·446 = 22,300 optimizer steps."""
    text = (FIXTURES / "nemo-speech_to_text_finetune.yaml").read_text(encoding="utf-8")
    base = text.replace("manifest_filepath: ???", f"manifest_filepath: {MANIFEST}", 1).replace(
        "devices: -1", "devices: 1"
    )
    head = base.replace("accumulate_grad_batches: 1", "accumulate_grad_batches: 4")
    assert head != base != text
    row = _row(
        make_repo,
        capsys,
        "conf/finetune.yaml",
        base,
        head,
        f"training:\n  datasets:\n    {MANIFEST}: 28539\n",
    )
    assert (row["kind"], row["trainer"]) == ("lightning", "lightning")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (89_200, 22_300)
    assert row["head"]["tail"].startswith("none")  # 1,784 = 4 × 446
