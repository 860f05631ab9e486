"""The learning-rate schedule of one side of a run, as fractions of the peak rate over optimizer steps."""

from __future__ import annotations

import math

from rules.core.models import Frozen, StepValues

# GitHub's xychart is unreadable past a few dozen points; a sparkline wants fewer still.
MAX_POINTS = 40
# The scheduler kinds whose shape after warmup is known; any other kind is reported, never guessed.
_DECAY = {
    "linear": "linear",
    "cosine": "cosine",
    "constant": "constant",
    "constant_with_warmup": "constant",
    # DeepSpeed's own schedulers (`deepspeed/runtime/lr_schedules.py`), as trainers/deepspeed.py names them.
    "deepspeed warmuplr": "constant",
    "deepspeed warmupdecaylr": "linear",
    "deepspeed warmupcosinelr": "cosine",
}
# The warmup ramp a scheduler's name says (DeepSpeed's WarmupLR and WarmupDecayLR: "... (log warmup)").
_RAMPS = ((" (log warmup)", True), (" (linear warmup)", False))


def shape_of(scheduler: str | None) -> tuple[str | None, bool]:
    """(the decay after warmup: linear, cosine or constant, or None when unknown; whether the warmup ramp is
    logarithmic) of a scheduler as a row names it."""
    name = (scheduler or "").lower()
    for suffix, log in _RAMPS:
        if name.endswith(suffix):
            return _DECAY.get(name[: -len(suffix)]), log
    return _DECAY.get(name), False


class Schedule(Frozen):
    """Sampled learning-rate fractions of one side; `unknown` says why nothing can be drawn."""

    steps: tuple[int, ...] = ()
    rates: tuple[float, ...] = ()
    unknown: str | None = None


def rate_at(
    step: int, total: int, warmup: int, decay_start: int, kind: str, log_warmup: bool = False
) -> float:
    """The fraction of the peak rate at an optimizer step: a warmup ramp (linear, or DeepSpeed's
    logarithmic log(step + 1) / log(warmup)), then the kind's decay."""
    if warmup > 0 and step < warmup:
        if log_warmup:
            return math.log(step + 1) / math.log(warmup) if warmup > 1 else 1.0
        return step / warmup
    if kind == "constant" or step < decay_start:
        return 1.0
    span = max(total - decay_start, 1)
    progress = min((step - decay_start) / span, 1.0)
    if kind == "linear":
        return 1.0 - progress
    return 0.5 * (1.0 + math.cos(math.pi * progress))


def total_steps(values: StepValues | None) -> int | None:
    """The optimizer updates the side makes, where known."""
    if values is None:
        return None
    total = values.optimizer_steps or values.max_steps
    return total if total and total > 0 else None


def grid(total: int, points: int = MAX_POINTS) -> tuple[int, ...]:
    """At most `points` evenly spaced optimizer steps from 0 to total."""
    count = max(min(points, total + 1), 2)
    return tuple(sorted({round(i * total / (count - 1)) for i in range(count)}))


def schedule_of(values: StepValues | None, steps: tuple[int, ...] | None = None) -> Schedule:
    """The side's schedule at the given optimizer steps (its own grid by default), or why it cannot be drawn.

    Past the side's last update the rate is 0: the run has stopped, so a shorter run ends early."""
    if values is None:
        return Schedule(unknown="absent")
    kind, log = shape_of(values.scheduler)
    if kind is None:
        return Schedule(unknown=f"scheduler {values.scheduler or 'not known'}")
    total = total_steps(values)
    if total is None:
        return Schedule(unknown="optimizer steps not known")
    warmup = min(values.warmup_steps or 0, total)
    # A decay_steps key decays over the last steps (warmup-stable-decay); without it the decay spans the rest.
    decay_start = max(total - values.decay_steps, warmup) if values.decay_steps else warmup
    at = steps if steps is not None else grid(total)
    rates = tuple(
        round(rate_at(s, total, warmup, decay_start, kind, log), 4) if s <= total else 0.0 for s in at
    )
    return Schedule(steps=at, rates=rates)


class Chart(Frozen):
    """Base and head schedules of one run on one shared grid; a side that cannot be drawn has no rates."""

    steps: tuple[int, ...] = ()
    base: Schedule
    head: Schedule

    @property
    def drawable(self) -> bool:
        return bool(self.steps) and bool(self.base.rates or self.head.rates)


def chart_of(base: StepValues | None, head: StepValues | None, points: int = MAX_POINTS) -> Chart:
    """Both sides sampled on the grid of the longer one."""
    totals = [t for t in (total_steps(base), total_steps(head)) if t is not None]
    steps = grid(max(totals), points) if totals else ()
    return Chart(steps=steps, base=schedule_of(base, steps), head=schedule_of(head, steps))


_BARS = "▁▂▃▄▅▆▇█"


def sparkline(schedule: Schedule) -> str:
    """The schedule as one line of block characters (empty when it cannot be drawn)."""
    return "".join(_BARS[min(int(r * len(_BARS)), len(_BARS) - 1)] for r in schedule.rates)
