"""Training step arithmetic: pure functions from run targets to Prime-RL optimizer-step values.

See docs/stepmath.md. B is the global batch size of one optimizer step (Prime-RL `data.batch_size`).
"""

from __future__ import annotations

from dataclasses import dataclass


class StepMathError(ValueError):
    """Inputs that the training CLI would refuse; the message says why."""


@dataclass(frozen=True)
class StepInputs:
    """What a compat profile (or CLI) asks for."""

    batch_size: int | None = None
    target_examples: int | None = None
    target_micro_steps: int | None = None
    max_steps: int | None = None
    decay_steps: int | None = None
    sync_scheduler_to_max_steps: bool = True
    sync_ckpt_to_max_steps: bool = False


@dataclass(frozen=True)
class StepResult:
    """The values a Prime-RL run will use."""

    semantics: str
    max_steps: int
    decay_steps: int | None
    ckpt_interval: int | None
    effective_train_examples: int | None
    unapplied_micro_steps: int | None


def _positive(name: str, value: int | None) -> int:
    if value is None:
        raise StepMathError(f"{name} is required")
    if isinstance(value, bool) or not isinstance(value, int):
        raise StepMathError(f"{name} must be an integer, got {type(value).__name__}")
    if value <= 0:
        raise StepMathError(f"{name} must be > 0, got {value}")
    return value


def steps_for_examples(target_examples: int, batch_size: int) -> int:
    """Optimizer steps so that at least target_examples rows are seen: ceil(T / B)."""
    t = _positive("target_examples", target_examples)
    b = _positive("batch_size", batch_size)
    return -(-t // b)


def steps_for_micro_steps(target_micro_steps: int, batch_size: int) -> int:
    """Optimizer steps a legacy micro-step run applied: floor(M / B), which must be > 0."""
    m = _positive("target_micro_steps", target_micro_steps)
    b = _positive("batch_size", batch_size)
    steps = m // b
    if steps == 0:
        raise StepMathError(
            f"target_micro_steps={m} is smaller than batch_size={b}: no optimizer step would be applied"
        )
    return steps


def derive(inputs: StepInputs) -> StepResult:
    """Derive max_steps and the values synced to it, as the training CLI does."""
    if inputs.target_examples is not None and inputs.target_micro_steps is not None:
        raise StepMathError("target_examples and target_micro_steps are mutually exclusive")
    target = "target_examples" if inputs.target_examples is not None else "target_micro_steps"
    has_target = inputs.target_examples is not None or inputs.target_micro_steps is not None
    if has_target and inputs.max_steps is not None:
        raise StepMathError(f"{target} conflicts with an explicit max_steps={inputs.max_steps}")
    if inputs.sync_scheduler_to_max_steps and has_target and inputs.decay_steps is not None:
        raise StepMathError(
            "sync_scheduler_to_max_steps conflicts with an explicit "
            f"scheduler.decay_steps={inputs.decay_steps}"
        )
    unapplied: int | None = None
    if inputs.target_examples is not None:
        b = _positive("batch_size", inputs.batch_size)
        max_steps = steps_for_examples(inputs.target_examples, b)
        semantics = "examples"
        effective: int | None = max_steps * b
    elif inputs.target_micro_steps is not None:
        b = _positive("batch_size", inputs.batch_size)
        max_steps = steps_for_micro_steps(inputs.target_micro_steps, b)
        semantics = "legacy-micro"
        effective = max_steps * b
        unapplied = inputs.target_micro_steps - effective
    else:
        max_steps = _positive("max_steps", inputs.max_steps)
        semantics = "optimizer"
        effective = max_steps * inputs.batch_size if inputs.batch_size else None
    if has_target and inputs.sync_scheduler_to_max_steps:
        decay: int | None = max_steps
    else:
        decay = inputs.decay_steps
    ckpt = max_steps if has_target and inputs.sync_ckpt_to_max_steps else None
    return StepResult(
        semantics=semantics,
        max_steps=max_steps,
        decay_steps=decay,
        ckpt_interval=ckpt,
        effective_train_examples=effective,
        unapplied_micro_steps=unapplied,
    )
