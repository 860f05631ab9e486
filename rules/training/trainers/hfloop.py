"""The Hugging Face Trainer's training loop in numbers (transformers >= 4.52, `set_initial_training_values`).

Per process the dataloader yields L = ceil(N / (b * W)) micro-batches an epoch (floor with
`dataloader_drop_last`); an optimizer update comes every GA of them, and the short tail of an epoch is
stepped too, so an epoch makes U = max(ceil(L / GA), 1) updates. The run makes S = max_steps updates when
`max_steps` > 0, else ceil(num_train_epochs * U), and stops at the S-th update even within an epoch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Epoch:
    """One epoch of the loop on one process: micro-batches, updates, micro-batches of the short update."""

    micro_batches: int
    updates: int
    tail: int
    examples: int  # examples an epoch applies across all processes


def epoch(examples: int, per_device: int, world_size: int, grad_accum: int, drop_last: bool = False) -> Epoch:
    """An epoch of `examples` training examples, each process taking micro-batches of `per_device`."""
    rows = per_device * world_size
    micro = examples // rows if drop_last else -(-examples // rows)
    return Epoch(
        micro_batches=micro,
        updates=max(-(-micro // grad_accum), 1),
        tail=micro % grad_accum,
        examples=micro * rows if drop_last else examples,
    )


def total_updates(ep: Epoch, epochs: float) -> int:
    """S in epoch mode: ceil(num_train_epochs * U)."""
    return math.ceil(epochs * ep.updates)


def examples_applied(ep: Epoch, updates: int, grad_accum: int, rows: int) -> int:
    """Examples in the first `updates` updates: whole epochs, then GA micro-batches of `rows` per update of
    the epoch the run stops in (capped by what that epoch holds)."""
    whole, rest = divmod(updates, ep.updates)
    return whole * ep.examples + min(rest * grad_accum * rows, ep.examples)


def warmup(updates: int | None, warmup_steps: float, warmup_ratio: float) -> tuple[int | None, str | None]:
    """Warmup in updates, as `get_warmup_steps` computes it; else (None, the formula) when S is unknown.

    `warmup_steps` >= 1 is absolute; a `warmup_steps` below 1 is a ratio (transformers 5); else
    ceil(S * warmup_ratio)."""
    if warmup_steps >= 1:
        return int(warmup_steps), None
    ratio = warmup_steps if warmup_steps > 0 else warmup_ratio
    if ratio <= 0:
        return 0, None
    if updates is None:
        return None, f"ceil({ratio:g} × S)"
    return math.ceil(updates * ratio), None
