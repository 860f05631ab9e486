"""`bot steps`: the calculator, over real files and the real argument parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

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
            ["--from", "legacy-micro", "--max-steps", "300", "--grad-accum", "8", "--to", "optimizer"],
            (37, 37, 296, 4),
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
            (37, 37, 296, 4),
        ),
        (
            ["--from", "legacy-micro", "--max-steps", "300", "--batch-size", "8", "--to", "optimizer"],
            (37, 37, 296, 4),
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
        (["--target-examples", "300"], "batch_size is unknown"),
        (["--from", "legacy-micro", "--max-steps", "300"], "--from needs --to"),
        (
            ["--from", "legacy-micro", "--max-steps", "7", "--grad-accum", "8", "--to", "optimizer"],
            "no optimizer",
        ),
        (["--config", "/nonexistent/sft.toml"], "cannot read --config"),
        (["--profile", "/nonexistent/p.toml"], "cannot read --profile"),
        (["--target-examples", "0", "--batch-size", "8"], "target_examples must be > 0"),
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
