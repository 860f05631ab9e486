"""Builds Prime-RL SFT commands from compat profiles."""

import math


def max_steps_for_examples(target_examples: int, batch_size: int) -> int:
    """Optimizer steps that show the model at least target_examples rows."""
    return math.ceil(target_examples / batch_size)
