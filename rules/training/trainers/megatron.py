"""Megatron-LM launch scripts (`torchrun ... pretrain_gpt.py --micro-batch-size 1 --global-batch-size 128
--train-iters ...`): detection and step math.

One Megatron iteration is one optimizer update over `--global-batch-size` sequences, made of
GBS / (micro-batch × dp) micro-batches a data-parallel rank, which must divide
(`core/num_microbatches_calculator.py`); dp = world size / (tensor × pipeline × context parallel). The run is
`--train-iters`, or `--train-samples` // GBS iterations (`training.py` `update_train_iters`); there are no
epochs (the dataset index is built for the samples asked). The learning-rate scheduler counts samples:
warmup and decay given in iterations are multiplied by GBS, `--lr-warmup-fraction` takes that share of the
decay, and `--lr-decay-iters` (or `-samples`) is where the decay ends, counted from the start
(`training.py` `get_optimizer_param_scheduler`). With `--rampup-batch-size` the first iterations take
smaller batches, so the iterations of a `--train-samples` run are more than samples // GBS.
"""

from __future__ import annotations

from typing import Any

from rules.core.models import StepValues
from rules.training.semantics import OPTIMIZER
from rules.training.trainers import launch
from rules.training.trainers.facts import Facts
from rules.training.trainers.keys import TrainerConfigError, integer, number, positive

NAME = "megatron"
WORDS = ("--global-batch-size", "--micro-batch-size")
# Flags only Megatron's argument parser has, one of which must stand beside the batch flags.
_RUN_FLAGS = ("train-iters", "train-samples")


def detect(data: Any) -> bool:
    """A launch script passing `--micro-batch-size` and a run length (`--train-iters` or `--train-samples`)
    as Megatron's argument parser spells them."""
    if not launch.is_script(data):
        return False
    flags = data["flags"]
    return "micro-batch-size" in flags and any(f in flags for f in _RUN_FLAGS)


def _world(flags: dict[str, Any], facts: Facts) -> tuple[int, str]:
    world = launch.torchrun_world(flags)
    return (world, launch.TORCHRUN_WORLD) if world is not None else facts.world()


def derive(data: Any, facts: Facts) -> StepValues:
    """The run a Megatron script describes; raises TrainerConfigError for values Megatron refuses."""
    flags = data["flags"]
    mbs = positive("--micro-batch-size", integer(flags, "micro-batch-size", None) or 0)
    tp = integer(flags, "tensor-model-parallel-size", 1) or 1
    pp = integer(flags, "pipeline-model-parallel-size", 1) or 1
    cp = integer(flags, "context-parallel-size", 1) or 1
    world, note = _world(flags, facts)
    if world % (tp * pp * cp):
        raise TrainerConfigError(
            f"{world} processes cannot hold tensor × pipeline × context parallel = {tp * pp * cp}: Megatron "
            "refuses it"
        )
    dp = world // (tp * pp * cp)
    gbs = integer(flags, "global-batch-size", None) or mbs * dp
    if gbs % (mbs * dp):
        raise TrainerConfigError(
            f"`--global-batch-size` {gbs} is not a multiple of micro-batch × data-parallel = {mbs * dp}: "
            "Megatron refuses it"
        )
    iters = integer(flags, "train-iters", None)
    samples = integer(flags, "train-samples", None)
    if iters is not None and samples is not None:
        raise TrainerConfigError("`--train-iters` and `--train-samples` are both set: Megatron refuses it")
    notes = [note, "the learning-rate scheduler counts samples: iterations × the global batch"]
    if iters is not None:
        steps = positive("--train-iters", iters)
    else:
        steps = positive("--train-samples", samples or 0) // gbs
    if steps == 0:
        raise TrainerConfigError(f"`--train-samples` {samples} make no global batch of {gbs}")
    if "rampup-batch-size" in flags:
        notes.append(
            "`--rampup-batch-size`: the first iterations take smaller batches (counted at the full one)"
        )

    def in_iters(name: str) -> int | None:
        value = integer(flags, f"{name}-iters", None)
        if value is not None:
            return value
        count = integer(flags, f"{name}-samples", None)
        return count // gbs if count is not None else None

    decay_end = in_iters("lr-decay") or steps
    fraction = number(flags, "lr-warmup-fraction", None)
    warmup = int(fraction * decay_end) if fraction is not None else (in_iters("lr-warmup") or 0)
    style = flags.get("lr-decay-style", "linear")
    style = style if isinstance(style, str) else "linear"
    decays = style in ("linear", "cosine")
    if decays and decay_end != steps:
        # The decay ends at its own iteration, before or after the run's end: named, so the chart does not
        # draw it over the whole run.
        style = f"{style} (decay ends at iteration {decay_end})"
    seq = integer(flags, "seq-length", None) or integer(flags, "encoder-seq-length", None)
    return StepValues(
        semantics=OPTIMIZER,
        trainer=NAME,
        batch_size=gbs,
        micro_batch_size=mbs,
        world_size=world,
        grad_accum=gbs // (mbs * dp),
        max_steps=iters,
        optimizer_steps=steps,
        effective_train_examples=steps * gbs,
        seq_len=seq,
        tokens_per_step=gbs * seq if seq else None,
        scheduler=style,
        warmup_steps=warmup,
        decay_steps=max(decay_end - warmup, 0) if decays else None,
        tail="none: the data index wraps epochs",
        assumptions=tuple(notes),
    )


__all__ = ["NAME", "WORDS", "TrainerConfigError", "derive", "detect"]
