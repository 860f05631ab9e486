"""Builds Prime-RL SFT commands from compat profiles."""

import math


def max_steps_for_examples(target_examples: int, batch_size: int) -> int:
    """Optimizer steps that show the model at least target_examples rows."""
    return math.ceil(target_examples / batch_size)


def max_steps_for_micro_steps(target_micro_steps: int, batch_size: int) -> int:
    """Optimizer steps the custom trainer applied: the tail micro-batches were never stepped."""
    steps = target_micro_steps // batch_size
    if steps <= 0:
        raise ValueError("target_micro_steps is smaller than one optimizer step")
    return steps
