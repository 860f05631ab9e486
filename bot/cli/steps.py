"""`bot steps`: its arguments (kept import-light for `bot --help`); the work is in bot/cli/calculator.py."""

from __future__ import annotations

import argparse
from pathlib import Path

from rules.training.semantics import SEMANTICS

EXAMPLES = """examples:
  bot steps --target-micro-steps 300 --batch-size 8     legacy micro-batches -> 37 steps, 296 examples
  bot steps --target-examples 300 --batch-size 8        at least 300 examples -> 38 steps, 304 examples
  bot steps --config configs/sft/run.toml               a Prime-RL SFT config as it stands
  bot steps --config configs/sft/run.toml --target-micro-steps 300
  bot steps --profile compat_profiles/run.toml          a compat profile (and the config it names)
  bot steps --from legacy-micro --max-steps 300 --grad-accum 8 --to optimizer
  bot steps --from hf-epoch --transformers 4.50 --micro-batches-per-epoch 300 --grad-accum 8 \
            --epochs 3 --to hf-epoch --to-transformers 4.57   the same updates after an upgrade

Exit code 0; 1 when Prime-RL would refuse the result (see "problem:"); 2 when the input is refused.
Each semantics, with worked examples: docs/stepmath.md, installed with the package (`bot steps --doc`
prints it)."""


def stepmath_doc() -> Path | None:
    """docs/stepmath.md: inside the installed package (pyproject.toml ships `docs/` as `bot.docs`), or in the
    source checkout beside it."""
    here = Path(__file__).resolve().parents[1]
    for path in (here / "docs" / "stepmath.md", here.parent / "docs" / "stepmath.md"):
        if path.is_file():
            return path
    return None


def add_steps_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "steps",
        help="compute training step values (max_steps, decay, effective examples) or convert semantics",
        description="Answer step-math questions directly: what a run's max_steps, scheduler decay, "
        "effective examples and unapplied micro steps will be.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run = p.add_argument_group("run length (one of)")
    run.add_argument("--target-examples", type=int, metavar="T", help="examples to see: ceil(T / B) steps")
    run.add_argument(
        "--target-micro-steps", type=int, metavar="M", help="legacy micro-batches: floor(M / B) steps"
    )
    run.add_argument(
        "--max-steps", type=int, metavar="N", help="explicit max_steps (with --from: in that semantics)"
    )
    batch = p.add_argument_group("batch layout")
    batch.add_argument("--batch-size", type=int, metavar="B", help="global batch size (data.batch_size)")
    batch.add_argument("--micro-batch-size", type=int, metavar="N", help="rows per micro-batch (default 1)")
    batch.add_argument(
        "--world-size",
        type=int,
        metavar="N",
        help="training GPUs (default: the config's [deployment], else 1)",
    )
    batch.add_argument("--cp", type=int, metavar="N", help="context-parallel degree")
    batch.add_argument("--seq-len", type=int, metavar="N", help="tokens per packed row")
    sched = p.add_argument_group("scheduler and checkpoints")
    sched.add_argument(
        "--scheduler", choices=("constant", "linear", "cosine"), help="scheduler type override"
    )
    sched.add_argument("--warmup-steps", type=int, metavar="N", help="scheduler.warmup_steps override")
    sched.add_argument("--decay-steps", type=int, metavar="N", help="explicit scheduler.decay_steps")
    sched.add_argument(
        "--no-sync-scheduler", action="store_true", help="do not set scheduler.decay_steps = max_steps"
    )
    sched.add_argument(
        "--sync-ckpt", action="store_true", help="set ckpt.interval = keep_interval = max_steps"
    )
    files = p.add_argument_group("files (flags above override their values)")
    files.add_argument("--config", type=Path, metavar="TOML", help="Prime-RL SFT config the run uses")
    files.add_argument(
        "--profile", type=Path, metavar="FILE", help="compat-profile file (TOML, YAML or JSON)"
    )
    files.add_argument("--name", help="which profile of a file holding several")
    conv = p.add_argument_group("conversion between semantics")
    conv.add_argument("--from", dest="from_", choices=tuple(SEMANTICS), help="convert from these semantics")
    conv.add_argument("--to", choices=tuple(SEMANTICS), help="convert to these semantics")
    conv.add_argument("--grad-accum", type=int, metavar="N", help="micro-batches per optimizer step")
    conv.add_argument(
        "--micro-batches-per-epoch", type=int, metavar="N", help="hf-epoch / torchtune epoch length"
    )
    conv.add_argument("--epochs", type=int, default=1, metavar="N", help="epochs (default 1)")
    conv.add_argument("--max-steps-per-epoch", type=int, metavar="N", help="torchtune cap per epoch")
    conv.add_argument(
        "--transformers",
        metavar="X.Y",
        help="transformers release of an hf-epoch/axolotl run (default: 4.52 or later); the tail and the "
        "run length depend on it",
    )
    conv.add_argument(
        "--to-transformers", metavar="X.Y", help="release of the --to side when it differs (an upgrade)"
    )
    conv.add_argument(
        "--torchtune-recipe",
        choices=("full", "lora"),
        default="full",
        help="full (default): the tail is skipped; lora (also QAT, DPO, KD): carried into the next epoch",
    )
    conv.add_argument(
        "--torchtune", metavar="X.Y", help="torchtune release; 0.6 and older carry the tail in every recipe"
    )
    conv.add_argument("--train-samples", type=int, metavar="N", help="megatron: --train-samples instead")
    conv.add_argument(
        "--updates-per-rollout",
        type=int,
        metavar="K",
        help="rollouts: optimizer steps of one RL iteration (ppo_epochs * train_batch_size / "
        "ppo_mini_batch_size)",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default): a table; json: the values"
    )
    p.add_argument(
        "--doc", action="store_true", help="print docs/stepmath.md (each semantics, worked examples) and exit"
    )
