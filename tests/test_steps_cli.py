"""`bot steps`: the calculator, over real files and the real argument parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
LINEAR = ROOT / "examples/linear-scheduler/base"


def _json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["steps", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _four(data: dict) -> tuple:
    return tuple(
        data[k] for k in ("max_steps", "decay_steps", "effective_train_examples", "unapplied_micro_steps")
    )


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--target-micro-steps", "300", "--batch-size", "8"], (37, 37, 296, 4)),
        (["--target-examples", "300", "--batch-size", "8"], (38, 38, 304, None)),
        (["--target-micro-steps", "8", "--batch-size", "8"], (1, 1, 8, 0)),
        (["--target-examples", "1", "--batch-size", "8"], (1, 1, 8, None)),
        (["--target-micro-steps", "300", "--batch-size", "8", "--no-sync-scheduler"], (37, None, 296, 4)),
        (["--max-steps", "40", "--batch-size", "8"], (40, 40, 320, None)),
        (
            # Every value the converted run's: its micro-batches are all stepped (the 4 are under `from`).
            ["--from", "legacy-micro", "--max-steps", "300", "--grad-accum", "8", "--to", "optimizer"],
            (37, 37, 296, 0),
        ),
        (
            ["--from", "optimizer", "--max-steps", "37", "--grad-accum", "8", "--to", "legacy-micro"],
            (296, 37, 296, 0),
        ),
        (
            [
                "--from",
                "hf-epoch",
                "--micro-batches-per-epoch",
                "300",
                "--grad-accum",
                "8",
                "--to",
                "optimizer",
            ],
            (38, 38, 304, 0),
        ),
        (
            [
                "--from",
                "torchtune",
                "--micro-batches-per-epoch",
                "300",
                "--grad-accum",
                "8",
                "--to",
                "optimizer",
            ],
            (37, 37, 296, 0),
        ),
        (
            ["--from", "legacy-micro", "--max-steps", "300", "--batch-size", "8", "--to", "optimizer"],
            (37, 37, 296, 0),
        ),
    ],
)
def test_answers(capsys, argv, expected):
    code, data = _json(capsys, *argv)
    assert code == 0 and _four(data) == expected and data["problems"] == []


def test_details(capsys):
    code, data = _json(
        capsys,
        "--target-micro-steps",
        "300",
        "--batch-size",
        "8",
        "--micro-batch-size",
        "2",
        "--seq-len",
        "4096",
    )
    assert (data["grad_accum"], data["tokens_per_step"], data["semantics"]) == (4, 32768, "legacy-micro")
    assert data["ckpt_interval"] is None
    _, data = _json(capsys, "--target-micro-steps", "300", "--batch-size", "8", "--sync-ckpt")
    assert (data["ckpt_interval"], data["ckpt_keep_interval"]) == (37, 37)


def test_prime_rl_config(capsys):
    code, data = _json(capsys, "--config", str(LINEAR / "configs/sft/mobile300.toml"))
    assert code == 0
    assert _four(data) == (40, 30, 320, None) and data["scheduler"] == "linear"
    assert data["tokens_per_step"] == 8 * 4096


def test_config_with_target_reports_what_prime_rl_refuses(capsys):
    code, data = _json(
        capsys, "--config", str(LINEAR / "configs/sft/mobile300.toml"), "--target-micro-steps", "300"
    )
    assert code == 1
    assert _four(data) == (37, 37, 296, 4)
    (problem,) = data["problems"]
    assert "leaves no room for `warmup_steps=5`" in problem


def test_profile_file_and_its_config(capsys, monkeypatch):
    monkeypatch.chdir(LINEAR)
    code, data = _json(capsys, "--profile", "training/compat_profiles/env0-mobile300-pr828.toml")
    assert code == 0 and _four(data) == (37, 32, 296, 4) and data["batch_size"] == 8


def test_text_output(capsys):
    assert main(["steps", "--target-micro-steps", "300", "--batch-size", "8"]) == 0
    out = capsys.readouterr().out
    assert "max_steps:" in out and " 37\n" in out and "unapplied_micro_steps:    4" in out


CONVERSIONS = [
    ["--from", "legacy-micro", "--max-steps", "300", "--grad-accum", "8", "--to", "optimizer"],
    ["--from", "optimizer", "--max-steps", "37", "--grad-accum", "8", "--to", "legacy-micro"],
    ["--from", "hf-epoch", "--micro-batches-per-epoch", "300", "--grad-accum", "8", "--to", "optimizer"],
    ["--from", "torchtune", "--micro-batches-per-epoch", "300", "--grad-accum", "8", "--to", "optimizer"],
    ["--from", "optimizer", "--max-steps", "74", "--micro-batches-per-epoch", "300", "--grad-accum", "8"]
    + ["--to", "torchtune"],
]


@pytest.mark.parametrize("argv", CONVERSIONS, ids=lambda a: f"{a[1]}-to-{a[-1]}")
def test_conversion_top_level_fields_are_all_the_converted_runs(capsys, argv):
    """Before: legacy-micro -> optimizer showed the `from` side's unapplied micro steps at the top, hf-epoch
    -> optimizer the `to` side's examples."""
    code, data = _json(capsys, *argv)
    to = data["to"]
    assert code == 0 and data["semantics"] == to["semantics"] == argv[-1]
    assert (data["max_steps"], data["effective_train_examples"]) == (to["max_steps"], to["examples"])
    assert (data["unapplied_micro_steps"], data["optimizer_steps"]) == (
        to["unapplied_micro_steps"],
        to["optimizer_steps"],
    )
    assert data["decay_steps"] == to["optimizer_steps"]
    assert data["from"]["semantics"] == argv[1]


def test_conversion_text_is_one_table_with_a_column_per_side():
    """Through the console command, as a user runs it: each value sits under the side it belongs to."""
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "steps", *CONVERSIONS[2]],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in proc.stdout.splitlines()[1:]}
    assert proc.stdout.splitlines()[0].split() == ["from", "hf-epoch", "to", "optimizer"]
    # The same 38 updates see 300 examples in HF (the short tail is stepped) and 304 in Prime-RL.
    assert rows["optimizer_steps"] == ["38", "38"] and rows["effective_train_examples"] == ["300", "304"]
    assert rows["max_steps"] == ["-", "38"] and rows["decay_steps"] == ["-", "38"]
    legacy = subprocess.run(
        [sys.executable, "-m", "bot", "steps", *CONVERSIONS[0]],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in legacy.stdout.splitlines()[1:]}
    assert rows["unapplied_micro_steps"] == ["4", "0"] and rows["max_steps"] == ["300", "37"]


def test_a_refused_scheduler_key_written_by_the_sync_suggests_no_sync_scheduler(tmp_path, capsys):
    config = tmp_path / "sft.toml"
    config.write_text("max_steps = 10\n\n[data]\nbatch_size = 8\n\n[scheduler]\nwarmup_steps = 1\n")
    code, data = _json(capsys, "--config", str(config), "--target-micro-steps", "300")
    (problem,) = data["problems"]
    assert (
        code == 1
        and "accepts no `decay_steps` (written by `sync_scheduler_to_max_steps`), `warmup_steps`" in (problem)
    )
    assert problem.endswith(
        'Fix: set `type = "linear"`, or remove `warmup_steps` and set `sync_scheduler_to_max_steps = false` '
        "(`--no-sync-scheduler`)."
    )
    code, data = _json(
        capsys, "--config", str(config), "--target-micro-steps", "300", "--scheduler", "cosine"
    )
    (problem,) = data["problems"]
    unsync = "set `sync_scheduler_to_max_steps = false` (`--no-sync-scheduler`)"
    assert problem.endswith(f"Fix: {unsync}, or use a scheduler that takes them.")
    code, data = _json(
        capsys, "--config", str(config), "--target-micro-steps", "300", "--scheduler", "cosine",
        "--no-sync-scheduler",
    )  # fmt: skip
    assert code == 0 and data["problems"] == [] and data["decay_steps"] is None


def test_a_profiles_missing_config_is_blamed_on_the_profile_not_on_config(tmp_path, capsys):
    """Before: "cannot read --config configs/missing.toml" though no --config was given."""
    profile = tmp_path / "p.toml"
    profile.write_text('name = "p"\nconfig = "./configs/missing.toml"\ntarget_micro_steps = 300\n')
    assert main(["steps", "--profile", str(profile)]) == 2
    err = capsys.readouterr().err
    assert "--config" not in err
    assert err == (
        f"bot: cannot read --profile {profile}'s `config` {tmp_path / 'configs/missing.toml'}: "
        "No such file or directory\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--target-micro-steps", "7", "--batch-size", "8"], "no optimizer step would be applied"),
        (
            ["--target-micro-steps", "300", "--target-examples", "300", "--batch-size", "8"],
            "mutually exclusive",
        ),
        (["--target-examples", "300", "--max-steps", "38", "--batch-size", "8"], "explicit max_steps=38"),
        (["--target-examples", "300", "--batch-size", "8", "--decay-steps", "30"], "decay_steps=30"),
        (["--target-examples", "300"], "batch_size is unknown: give --batch-size"),
        ([], "nothing to compute: give --target-examples"),
        (["--from", "optimizer", "--max-steps", "37", "--to", "legacy-micro"], "give --grad-accum"),
        (
            ["--from", "legacy-micro", "--max-steps", "300", "--batch-size", "12", "--micro-batch-size", "8"]
            + ["--to", "optimizer"],
            "not divisible by micro_batch_size=8",
        ),
        (["--from", "legacy-micro", "--max-steps", "300"], "--from needs --to"),
        (
            ["--from", "legacy-micro", "--max-steps", "7", "--grad-accum", "8", "--to", "optimizer"],
            "no optimizer",
        ),
        (["--config", "/nonexistent/sft.toml"], "cannot read --config"),
        (["--profile", "/nonexistent/p.toml"], "cannot read --profile"),
        (["--target-examples", "0", "--batch-size", "8"], "target_examples must be > 0"),
        (["--from", "rollouts", "--max-steps", "20", "--to", "optimizer"], "give --updates-per-rollout"),
        (
            ["--from", "hf-epoch", "--max-steps", "20", "--transformers", "latest", "--to", "optimizer"],
            "--transformers 'latest': give a release as X.Y",
        ),
        (
            ["--from", "optimizer", "--max-steps", "81", "--updates-per-rollout", "4", "--to", "rollouts"],
            "not a whole number of RL iterations",
        ),
    ],
)
def test_refused_input_is_one_line_exit_2(capsys, argv, message):
    assert main(["steps", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad.toml", b"max_steps = \n", "invalid TOML"),
        ("types.toml", b'max_steps = "ten"\n', "max_steps"),
        ("nul.toml", b"max_steps = 1\x00\n", "NUL bytes"),
        ("latin.toml", b'x = "caf\xe9"\n', "not valid UTF-8"),
    ],
)
def test_bad_config_file(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["steps", "--config", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_profile_file_with_several_profiles_needs_a_name(tmp_path, capsys):
    path = tmp_path / "all.yaml"
    path.write_text("profiles:\n  a:\n    target_examples: 300\n  b:\n    target_micro_steps: 300\n")
    assert main(["steps", "--profile", str(path), "--batch-size", "8"]) == 2
    assert "choose one with --name" in capsys.readouterr().err
    code, data = _json(capsys, "--profile", str(path), "--name", "b", "--batch-size", "8")
    assert code == 0 and data["max_steps"] == 37


SFT = """max_steps = 300

[deployment]
num_train_gpus = 2

[model]
name = "org/small"

[model.lora]
rank = 16

[data]
name = "org/set"
seq_len = 8192
batch_size = 8

[[data.source]]
dataset = "org/extra"

[scheduler]
type = "linear"
warmup_steps = 5
decay_steps = 30

[ckpt]
interval = 50
keep_last = 3
"""


@pytest.mark.parametrize(
    "content, extra, expected",
    [
        # The config as it stands: its own max_steps and decay, 8 rows over 2 GPUs.
        (
            SFT,
            [],
            {"max_steps": 300, "decay_steps": 30, "grad_accum": 4, "world_size": 2, "ckpt_interval": 50},
        ),
        # A target replaces max_steps and syncs the decay, which leaves no room for the warmup.
        (SFT, ["--target-micro-steps", "300"], {"max_steps": 37, "decay_steps": 37, "grad_accum": 4}),
        # Prime-RL's defaults fill what the file leaves out: 128 rows a step.
        ("max_steps = 10\n", [], {"max_steps": 10, "batch_size": 128, "effective_train_examples": 1280}),
    ],
)
def test_config_answers(tmp_path, capsys, content, extra, expected):
    path = tmp_path / "sft.toml"
    path.write_text(content, encoding="utf-8")
    code, data = _json(capsys, "--config", str(path), *extra)
    assert {k: data[k] for k in expected} == expected
    assert code == (1 if extra else 0)
    if extra:
        assert "leaves no room for `warmup_steps=5`" in data["problems"][0]


@pytest.mark.parametrize(
    "content, message",
    [
        ("max_steps = 10\n\n[orchestrator]\nbatch_size = 64\n", "Prime-RL RL config (it has `orchestrator`)"),
        ("[data]\nbatch_size = 8\n", "`max_steps` is not set"),
    ],
)
def test_config_refused(tmp_path, capsys, content, message):
    path = tmp_path / "c.toml"
    path.write_text(content, encoding="utf-8")
    assert main(["steps", "--config", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_help_groups_the_flags_and_shows_examples(capsys):
    with pytest.raises(SystemExit):
        main(["steps", "--help"])
    out = capsys.readouterr().out
    for heading in ("run length (one of):", "batch layout:", "files (flags above override their values):"):
        assert heading in out
    assert "bot steps --target-micro-steps 300 --batch-size 8" in out and "Exit code 0; 1 when" in out


# Each trainer's own loop on TRAINERS.md §0's worked run (300 micro-batches an epoch, GA 8, 3 epochs),
# converted to Prime-RL: (flags of the from side, optimizer steps, examples applied, unapplied micro-batches).
EPOCH_RUN = ["--micro-batches-per-epoch", "300", "--grad-accum", "8", "--epochs", "3"]


@pytest.mark.parametrize(
    "side, steps, examples, unapplied",
    [
        (["hf-epoch"], 114, 900, 0),
        (["hf-epoch", "--transformers", "4.50"], 111, 880, 0),
        (["hf-epoch", "--transformers", "4.46.3"], 111, 888, 0),
        (["axolotl"], 113, 896, 0),
        (["lightning"], 114, 900, 0),
        (["deepspeed"], 112, 896, 4),
        (["torchtune"], 111, 888, 12),
        (["torchtune", "--torchtune-recipe", "lora"], 111, 896, 4),
        (["torchtune", "--torchtune", "0.6"], 111, 896, 4),
    ],
)
def test_each_trainer_tail_from_its_own_loop(capsys, side, steps, examples, unapplied):
    code, data = _json(capsys, "--from", *side, *EPOCH_RUN, "--to", "optimizer")
    got = data["from"]
    assert code == 0
    assert (got["optimizer_steps"], got["examples"], got["unapplied_micro_steps"]) == (
        steps,
        examples,
        unapplied,
    )
    # The top level is Prime-RL's: the same updates, each of 8 rows.
    assert _four(data) == (steps, steps, steps * 8, 0)


def test_transformers_upgrade_keeps_the_updates_and_says_which_tail(capsys):
    argv = ["--from", "hf-epoch", "--transformers", "4.50", *EPOCH_RUN, "--to", "hf-epoch"]
    code, data = _json(capsys, *argv, "--to-transformers", "4.57")
    assert code == 0
    assert (data["from"]["transformers"], data["to"]["transformers"]) == ("4.50", "4.57")
    assert (data["from"]["tail"], data["to"]["tail"]) == ("short-floor", "short")
    # 111 updates on 4.57 stop at the same place: 2 epochs of 38 updates and 35 of the third.
    assert (data["max_steps"], data["effective_train_examples"]) == (111, 880)
    main(["steps", *argv, "--to-transformers", "4.57"])
    out = capsys.readouterr().out
    assert "tail short-floor: each epoch's last update takes the tail, but the length counts whole" in out


def test_megatron_side_shows_train_samples(capsys):
    code, data = _json(
        capsys, "--from", "legacy-micro", "--max-steps", "300", "--grad-accum", "8", "--to", "megatron"
    )
    assert code == 0 and data["to"]["train_samples"] == 296 and data["max_steps"] == 37
    code, data = _json(
        capsys, "--from", "megatron", "--train-samples", "300", "--grad-accum", "8", "--to", "optimizer"
    )
    assert data["from"]["optimizer_steps"] == 37 and data["max_steps"] == 37


def test_rollouts_count_iterations(capsys):
    code, data = _json(
        capsys, "--from", "rollouts", "--max-steps", "20", "--updates-per-rollout", "4", "--grad-accum", "2",
        "--to", "optimizer",
    )  # fmt: skip
    assert code == 0 and data["max_steps"] == 80 and data["from"]["max_steps"] == 20
