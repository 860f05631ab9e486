"""The Hugging Face Trainer's loop in numbers (`set_initial_training_values`, `_inner_training_loop`).

Per process the dataloader yields L = ceil(N / (b * W)) micro-batches an epoch (floor with
`dataloader_drop_last`); an optimizer update comes every GA of them. The run makes S = max_steps updates
when `max_steps` > 0, else ceil(num_train_epochs * U), and stops at the S-th update even within an epoch.
What happens to an epoch's last L mod GA micro-batches depends on the release (TRAINERS.md §1, read in the
wheels):

- >= 4.52 (`CEIL`): the tail is a short update, and U = max(ceil(L / GA), 1);
- 4.47 to 4.51 (`FLOOR_HORIZON`): the tail is a short update, but S counts U = max(floor(L / GA), 1), so
  an epoch-based run ends early (transformers #36297);
- up to 4.46 (`CARRIED`): updates come every GA micro-batches of a count that runs across epochs, so the
  tail is carried into the next epoch's first update; S counts floor(L / GA) an epoch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CEIL, FLOOR_HORIZON, CARRIED = "ceil", "floor-horizon", "carried"


def regime(version: tuple[int, int] | None) -> str:
    """How a transformers release handles the tail; None (unknown) is taken as a current release."""
    if version is None or version >= (4, 52):
        return CEIL
    return FLOOR_HORIZON if version >= (4, 47) else CARRIED


TAIL = {
    CEIL: "each epoch's last update takes {tail} of {ga} micro-batches",
    FLOOR_HORIZON: "each epoch's last update takes {tail} of {ga} micro-batches, but the run length counts "
    "whole updates only, so it ends early",
    CARRIED: "each epoch's last {tail} micro-batches are carried into the next epoch's first update",
}


@dataclass(frozen=True)
class Epoch:
    """One epoch of the loop on one process: micro-batches, updates, micro-batches of the short update."""

    micro_batches: int
    updates: int  # updates the loop makes in a whole epoch
    tail: int
    examples: int  # examples an epoch applies across all processes
    horizon: int  # updates an epoch counts for S
    regime: str = CEIL


def epoch(
    examples: int,
    per_device: int,
    world_size: int,
    grad_accum: int,
    drop_last: bool = False,
    how: str = CEIL,
) -> Epoch:
    """An epoch of `examples` training examples, each process taking micro-batches of `per_device`."""
    rows = per_device * world_size
    micro = examples // rows if drop_last else -(-examples // rows)
    ceil = max(-(-micro // grad_accum), 1)
    floor = max(micro // grad_accum, 1)
    carried = how == CARRIED and micro >= grad_accum  # an epoch shorter than GA steps once at its end
    return Epoch(
        micro_batches=micro,
        updates=floor if carried else ceil,
        tail=micro % grad_accum,
        examples=micro * rows if drop_last else examples,
        horizon=ceil if how == CEIL else floor,
        regime=CARRIED if carried else (how if how != CARRIED else CEIL),
    )


def total_updates(ep: Epoch, epochs: float) -> int:
    """S in epoch mode: ceil(num_train_epochs * U), U as the release counts it."""
    return math.ceil(epochs * ep.horizon)


def examples_applied(ep: Epoch, updates: int, grad_accum: int, rows: int) -> int:
    """Examples in the first `updates` updates: whole epochs, then GA micro-batches of `rows` per update of
    the epoch the run stops in (capped by what that epoch holds); with the tail carried, GA micro-batches
    per update across epoch boundaries."""
    if ep.regime == CARRIED:
        whole, rest = divmod(updates * grad_accum, ep.micro_batches)
        return whole * ep.examples + min(rest * rows, ep.examples)
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


def epochs_covered(ep: Epoch, updates: int, grad_accum: int) -> float:
    """Epochs the first `updates` updates cover (4 decimals)."""
    if ep.regime == CARRIED:
        return round(updates * grad_accum / ep.micro_batches, 4)
    return round(updates / ep.updates, 4)


def describe_tail(ep: Epoch | None, grad_accum: int, release: str) -> str | None:
    """What the release does with an epoch's last micro-batches, for the row; None when GA is 1."""
    if ep is None:
        return f"depends on the epoch's length ({release})" if grad_accum > 1 else None
    if not ep.tail or ep.micro_batches < grad_accum:
        return f"none: {ep.micro_batches} micro-batches an epoch make {ep.updates} updates"
    return f"{TAIL[ep.regime].format(tail=ep.tail, ga=grad_accum)} ({release})"
