"""`bot steps`: its arguments (kept import-light for `bot --help`); the work is in bot/calculator.py."""

from __future__ import annotations

import argparse
from pathlib import Path

from rules.stepmath import SEMANTICS


def add_steps_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "steps",
        help="compute training step values (max_steps, decay, effective examples) or convert semantics",
        description="Answer step-math questions directly; see docs/stepmath.md.",
    )
    p.add_argument("--target-examples", type=int, metavar="T", help="examples to see: ceil(T / B) steps")
    p.add_argument(
        "--target-micro-steps", type=int, metavar="M", help="legacy micro-batches: floor(M / B) steps"
    )
    p.add_argument("--max-steps", type=int, help="explicit max_steps (with --from: in that semantics)")
    p.add_argument("--batch-size", type=int, metavar="B", help="global batch size (data.batch_size)")
    p.add_argument("--micro-batch-size", type=int)
    p.add_argument("--world-size", type=int)
    p.add_argument("--cp", type=int, help="context-parallel degree")
    p.add_argument("--seq-len", type=int)
    p.add_argument("--decay-steps", type=int, help="explicit scheduler.decay_steps")
    p.add_argument("--warmup-steps", type=int, help="scheduler.warmup_steps override")
    p.add_argument("--scheduler", choices=("constant", "linear", "cosine"), help="scheduler type override")
    p.add_argument(
        "--no-sync-scheduler", action="store_true", help="do not set scheduler.decay_steps = max_steps"
    )
    p.add_argument("--sync-ckpt", action="store_true", help="set ckpt.interval = keep_interval = max_steps")
    p.add_argument("--config", type=Path, help="Prime-RL SFT TOML config the run uses")
    p.add_argument("--profile", type=Path, help="compat-profile file (TOML, YAML or JSON)")
    p.add_argument("--name", help="which profile of a file holding several")
    p.add_argument("--from", dest="from_", choices=tuple(SEMANTICS), help="convert from these semantics")
    p.add_argument("--to", choices=tuple(SEMANTICS), help="convert to these semantics")
    p.add_argument("--grad-accum", type=int, help="micro-batches per optimizer step (conversions)")
    p.add_argument("--micro-batches-per-epoch", type=int, help="hf-epoch / torchtune epoch length")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-steps-per-epoch", type=int, help="torchtune cap per epoch")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run_steps(args: argparse.Namespace) -> int:
    from bot.calculator import run_steps as run

    return run(args)
