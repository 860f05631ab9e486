"""Training step arithmetic: pure functions from run targets to Prime-RL optimizer-step values.

The reference is docs/stepmath.md. B is the global batch size of one optimizer step (Prime-RL
`data.batch_size`); GA is the number of micro-batches accumulated per optimizer step.

Named semantics say what a trainer's step count means:

- `legacy-micro`: the legacy custom trainer; max_steps counts micro-batches, an update every GA of them,
  the tail that does not fill an update is never stepped (floor).
- `optimizer`: Prime-RL; max_steps counts optimizer steps of B rows each.
- `hf-epoch`: HF Trainer / TRL; max_steps counts optimizer steps, and an epoch's short tail IS stepped
  (ceil per epoch).
- `torchtune`: steps per epoch are micro_batches // GA, optionally capped; the tail is skipped, or carried
  into the next epoch's first step (LoRA recipes, and every recipe up to 0.6.1).
- `axolotl`, `lightning`, `deepspeed`, `megatron`, `rollouts`: see `rules/training/semantics.py`; each
  epoch-based trainer's tail policy is `tail_policy`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# Re-exported: the names live apart so that `bot --help` can list them without this module.
from rules.training.semantics import AXOLOTL as AXOLOTL
from rules.training.semantics import DEEPSPEED as DEEPSPEED
from rules.training.semantics import EXAMPLES as EXAMPLES
from rules.training.semantics import HF_EPOCH as HF_EPOCH
from rules.training.semantics import LEGACY_MICRO as LEGACY_MICRO
from rules.training.semantics import LIGHTNING as LIGHTNING
from rules.training.semantics import MEGATRON as MEGATRON
from rules.training.semantics import OPTIMIZER as OPTIMIZER
from rules.training.semantics import ROLLOUTS as ROLLOUTS
from rules.training.semantics import SEMANTICS as SEMANTICS
from rules.training.semantics import TORCHTUNE as TORCHTUNE

# Prime-RL defaults (data config and schedulers).
DEFAULT_BATCH_SIZE = 128
DEFAULT_MICRO_BATCH_SIZE = 1
DEFAULT_WARMUP_STEPS = 10
DEFAULT_DECAY_STEPS = 10
SCHEDULER_KEYS = {
    "constant": frozenset({"type"}),
    "linear": frozenset({"type", "warmup_steps", "decay_steps", "min_lr"}),
    "cosine": frozenset({"type", "warmup_steps", "min_lr"}),
}


class StepMathError(ValueError):
    """Inputs that the training CLI (or Prime-RL) would refuse; the message says why.

    kind is "conflict" (inputs that exclude each other), "missing" (a needed input is absent),
    "invalid" (a value out of range) or "batch" (batch arithmetic that does not work out).
    """

    def __init__(self, message: str, kind: str = "invalid") -> None:
        super().__init__(message)
        self.kind = kind


def _positive(name: str, value: int | None) -> int:
    if value is None:
        raise StepMathError(f"{name} is required", kind="missing")
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
            f"target_micro_steps={m} is smaller than batch_size={b}: no optimizer step would be applied",
            kind="batch",
        )
    return steps


def grad_accum(batch_size: int, micro_batch_size: int = 1, world_size: int = 1, cp: int = 1) -> int:
    """Micro-batches per optimizer step on each rank: (B * cp) / (world_size * micro_batch_size), exactly."""
    b = _positive("batch_size", batch_size)
    mbs = _positive("micro_batch_size", micro_batch_size)
    ws = _positive("world_size", world_size)
    c = _positive("cp", cp)
    if b % mbs:
        raise StepMathError(
            f"batch_size={b} is not divisible by micro_batch_size={mbs}: Prime-RL refuses the config",
            kind="batch",
        )
    numerator, denominator = b * c, ws * mbs
    if numerator % denominator:
        raise StepMathError(
            f"batch_size * cp = {numerator} is not divisible by world_size * micro_batch_size = "
            f"{denominator}: gradient accumulation would not be a whole number",
            kind="batch",
        )
    return numerator // denominator


def tokens_per_step(batch_size: int, seq_len: int) -> int:
    """Tokens one optimizer step consumes: B packed rows of seq_len tokens."""
    return _positive("batch_size", batch_size) * _positive("seq_len", seq_len)


@dataclass(frozen=True)
class StepInputs:
    """What a compat profile (or the CLI) asks for, merged with the Prime-RL config it applies to.

    `max_steps` and `decay_steps` are explicit overrides; `config_*` values come from the Prime-RL
    config and are replaced, not contradicted, by a target.
    """

    batch_size: int | None = None
    target_examples: int | None = None
    target_micro_steps: int | None = None
    max_steps: int | None = None
    decay_steps: int | None = None
    sync_scheduler_to_max_steps: bool = True
    sync_ckpt_to_max_steps: bool = False
    micro_batch_size: int | None = None
    world_size: int | None = None
    cp: int | None = None
    seq_len: int | None = None
    config_max_steps: int | None = None
    config_decay_steps: int | None = None
    config_ckpt_interval: int | None = None
    config_ckpt_keep_interval: int | None = None


@dataclass(frozen=True)
class StepResult:
    """The values a Prime-RL run will use."""

    semantics: str
    max_steps: int
    decay_steps: int | None
    ckpt_interval: int | None
    effective_train_examples: int | None
    unapplied_micro_steps: int | None
    ckpt_keep_interval: int | None = None
    grad_accum: int | None = None
    tokens_per_step: int | None = None
    decay_synced: bool = False


def check_conflicts(inputs: StepInputs) -> None:
    """Raise for inputs that exclude each other, as the training CLI does."""
    if inputs.target_examples is not None and inputs.target_micro_steps is not None:
        raise StepMathError("target_examples and target_micro_steps are mutually exclusive", kind="conflict")
    target = "target_examples" if inputs.target_examples is not None else "target_micro_steps"
    has_target = inputs.target_examples is not None or inputs.target_micro_steps is not None
    if has_target and inputs.max_steps is not None:
        raise StepMathError(
            f"{target} conflicts with an explicit max_steps={inputs.max_steps}", kind="conflict"
        )
    sets_max = has_target or inputs.max_steps is not None
    if sets_max and inputs.sync_scheduler_to_max_steps and inputs.decay_steps is not None:
        raise StepMathError(
            "sync_scheduler_to_max_steps conflicts with an explicit "
            f"scheduler.decay_steps={inputs.decay_steps}",
            kind="conflict",
        )


def _batch_details(inputs: StepInputs) -> tuple[int | None, int | None]:
    """Grad accumulation and tokens per step where they can be computed; problems are TRN003's."""
    b = inputs.batch_size
    if b is None or b <= 0:
        return None, None
    try:
        ga = grad_accum(b, inputs.micro_batch_size or 1, inputs.world_size or 1, inputs.cp or 1)
    except StepMathError:
        ga = None
    tokens = b * inputs.seq_len if inputs.seq_len and inputs.seq_len > 0 else None
    return ga, tokens


def derive(inputs: StepInputs) -> StepResult:
    """Derive max_steps and the values synced to it, as the training CLI does."""
    check_conflicts(inputs)
    has_target = inputs.target_examples is not None or inputs.target_micro_steps is not None
    sets_max = has_target or inputs.max_steps is not None
    b = inputs.batch_size
    if b is not None:
        # Refused here, whatever sets the run length, so that one rule (TRN001) reports it.
        _positive("batch_size", b)
    elif has_target:
        raise StepMathError(
            "batch_size is unknown: set batch_size in the profile, or point it at a Prime-RL config "
            "with [data] batch_size",
            kind="missing",
        )
    unapplied: int | None = None
    if inputs.target_examples is not None:
        assert b is not None
        max_steps = steps_for_examples(inputs.target_examples, b)
        semantics = EXAMPLES
        effective: int | None = max_steps * b
    elif inputs.target_micro_steps is not None:
        assert b is not None
        max_steps = steps_for_micro_steps(inputs.target_micro_steps, b)
        semantics = LEGACY_MICRO
        effective = max_steps * b
        unapplied = inputs.target_micro_steps - effective
    else:
        explicit = inputs.max_steps if inputs.max_steps is not None else inputs.config_max_steps
        if explicit is None:
            raise StepMathError(
                "no target_examples, target_micro_steps or max_steps: the run length is unknown",
                kind="missing",
            )
        max_steps = _positive("max_steps", explicit)
        semantics = OPTIMIZER
        effective = max_steps * b if b is not None else None
    synced = sets_max and inputs.sync_scheduler_to_max_steps
    decay = (
        max_steps
        if synced
        else (inputs.decay_steps if inputs.decay_steps is not None else inputs.config_decay_steps)
    )
    ckpt: int | None
    keep: int | None
    if sets_max and inputs.sync_ckpt_to_max_steps:
        ckpt, keep = max_steps, max_steps
    else:
        ckpt, keep = inputs.config_ckpt_interval, inputs.config_ckpt_keep_interval
    ga, tokens = _batch_details(inputs)
    return StepResult(
        semantics=semantics,
        max_steps=max_steps,
        decay_steps=decay,
        ckpt_interval=ckpt,
        effective_train_examples=effective,
        unapplied_micro_steps=unapplied,
        ckpt_keep_interval=keep,
        grad_accum=ga,
        tokens_per_step=tokens,
        decay_synced=synced,
    )


def batch_problems(inputs: StepInputs) -> list[str]:
    """Batch arithmetic the run cannot do (TRN003): indivisible batches, no optimizer step at all."""
    problems: list[str] = []
    b = inputs.batch_size
    if b is None or isinstance(b, bool) or not isinstance(b, int) or b <= 0:
        return problems  # derive refuses a batch size that is not a positive integer (TRN001)
    try:
        grad_accum(b, inputs.micro_batch_size or 1, inputs.world_size or 1, inputs.cp or 1)
    except StepMathError as exc:
        problems.append(str(exc))
    cp, mbs, seq = inputs.cp, inputs.micro_batch_size, inputs.seq_len
    if isinstance(cp, int) and cp > 1:
        if isinstance(mbs, int) and mbs != 1:
            problems.append(
                f"micro_batch_size={mbs} with cp={cp}: Prime-RL refuses the config, since context "
                "parallelism needs micro_batch_size = 1"
            )
        if isinstance(seq, int) and seq > 0 and seq % cp:
            problems.append(f"seq_len={seq} is not divisible by cp={cp}: Prime-RL refuses the config")
    m = inputs.target_micro_steps
    if isinstance(m, int) and 0 < m < b and inputs.target_examples is None:
        problems.append(
            f"target_micro_steps={m} is smaller than batch_size={b}: no optimizer step would be applied"
        )
    return problems


# --- Conversions between semantics -------------------------------------------------------------

# How a trainer treats an epoch's last L mod GA micro-batches (its tail) and counts the run's length
# (TRAINERS.md §0, read from each trainer's loop):
SHORT = "short"  # a short update ends each epoch; the length counts ceil(L / GA) an epoch
SHORT_FLOOR = "short-floor"  # a short update, but the length counts floor(L / GA): epoch runs end early
CARRIED = "carried"  # an update every GA micro-batches of a count across epochs; length E * floor(L / GA)
CARRIED_ALL = "carried-all"  # the same count, but the loop runs every epoch: floor(E * L / GA) updates
CARRIED_FIRST = "carried-first"  # floor(L / GA) an epoch; the tail joins the next epoch's first update
SKIPPED = "skipped"  # floor(L / GA) an epoch; the tail is never stepped

TAILS = {
    SHORT: "each epoch's last update takes the tail's micro-batches",
    SHORT_FLOOR: "each epoch's last update takes the tail, but the length counts whole updates, so an "
    "epoch-based run ends early",
    CARRIED: "the tail is carried into the next epoch's first update; the length counts whole updates",
    CARRIED_ALL: "the tail is carried into the next epoch's first update; only the last one is unapplied",
    CARRIED_FIRST: "the tail is added to the next epoch's first update; only the last one is unapplied",
    SKIPPED: "the tail is never stepped",
}


@dataclass(frozen=True)
class Run:
    """A training run described in one trainer's semantics.

    max_steps means micro-batches (legacy-micro), RL iterations (rollouts) or optimizer steps (the
    others; Megatron's --train-iters); torchtune has no total, only epochs and max_steps_per_epoch.
    transformers is the release of an HF-based run (hf-epoch, axolotl), None for a current one;
    torchtune_carry says the torchtune recipe carries the tail (LoRA/QAT/DPO/KD recipes, and every recipe
    up to 0.6.1); train_samples is Megatron's --train-samples; updates_per_rollout is K, the optimizer
    steps of one RL iteration (ppo_epochs * train_batch_size / ppo_mini_batch_size).
    """

    semantics: str
    max_steps: int | None = None
    grad_accum: int = 1
    micro_batch_size: int = 1
    world_size: int = 1
    micro_batches_per_epoch: int | None = None
    epochs: int = 1
    max_steps_per_epoch: int | None = None
    transformers: tuple[int, int] | None = None
    torchtune_carry: bool = False
    train_samples: int | None = None
    updates_per_rollout: int | None = None

    @property
    def batch_size(self) -> int:
        """Rows per optimizer step across all ranks."""
        return self.grad_accum * self.micro_batch_size * self.world_size


@dataclass(frozen=True)
class Exposure:
    """What a run does: optimizer updates, rows in applied updates, micro-batches never stepped."""

    optimizer_steps: int
    examples: int
    unapplied_micro_steps: int


def hf_tail(version: tuple[int, int] | None) -> str:
    """How a transformers release handles the tail (TRAINERS.md §1): short updates counted as such from
    4.52 on (None, an unknown release, is taken as a current one), counted as whole updates in 4.47 to
    4.51, carried across epochs up to 4.46."""
    if version is None or version >= (4, 52):
        return SHORT
    return SHORT_FLOOR if version >= (4, 47) else CARRIED


def tail_policy(run: Run) -> str | None:
    """The tail policy of the run's trainer; None where epochs play no part (legacy-micro, optimizer,
    megatron, rollouts)."""
    if run.semantics in (HF_EPOCH, AXOLOTL):
        return hf_tail(run.transformers)
    if run.semantics == LIGHTNING:
        return SHORT
    if run.semantics == DEEPSPEED:
        return CARRIED_ALL
    if run.semantics == TORCHTUNE:
        return CARRIED_FIRST if run.torchtune_carry else SKIPPED
    return None


def _check_run(run: Run) -> None:
    if run.semantics not in SEMANTICS:
        raise StepMathError(
            f"unknown semantics {run.semantics!r} (known: {', '.join(SEMANTICS)})", kind="invalid"
        )
    for name in ("grad_accum", "micro_batch_size", "world_size", "epochs"):
        _positive(name, getattr(run, name))
    for name in ("max_steps", "micro_batches_per_epoch", "max_steps_per_epoch", "train_samples"):
        if getattr(run, name) is not None:
            _positive(name, getattr(run, name))
    if run.semantics == ROLLOUTS:
        _positive("updates_per_rollout", run.updates_per_rollout)


def _no_step(n: int, ga: int) -> StepMathError:
    return StepMathError(
        f"micro_batches_per_epoch={n} is smaller than grad_accum={ga}: no optimizer step at all", kind="batch"
    )


def _short(run: Run, n: int, policy: str) -> Exposure:
    """HF >= 4.47, Lightning and axolotl: every epoch ends with a short update; the run stops at its S-th
    update, even within an epoch (and goes round the data again when S asks for more)."""
    ga, rows = run.grad_accum, run.micro_batch_size * run.world_size
    per_epoch = max(-(-n // ga), 1)
    if run.max_steps is not None:
        steps = run.max_steps
    elif run.semantics == AXOLOTL:
        steps = max(-(-(run.epochs * n) // ga), 1)  # axolotl's total, handed to the HF loop as max_steps
    else:
        steps = run.epochs * (per_epoch if policy == SHORT else max(n // ga, 1))
    whole, rest = divmod(steps, per_epoch)
    return Exposure(steps, (whole * n + min(rest * ga, n)) * rows, 0)


def _epoch_exposure(run: Run, n: int, policy: str) -> Exposure:
    """Updates, examples and unapplied micro-batches of an epoch-based run of n micro-batches an epoch."""
    ga, rows = run.grad_accum, run.micro_batch_size * run.world_size
    if policy in (SHORT, SHORT_FLOOR) or (policy == CARRIED and n < ga):
        # An epoch shorter than GA steps once at its end in every transformers release.
        return _short(run, n, policy)
    if policy in (CARRIED, CARRIED_ALL):
        if run.max_steps is not None:
            return Exposure(run.max_steps, run.max_steps * run.batch_size, 0)
        if policy == CARRIED:
            steps = run.epochs * (n // ga)
            return Exposure(steps, steps * run.batch_size, 0)
        total = run.epochs * n
        if total < ga:
            raise _no_step(total, ga)
        return Exposure(total // ga, total // ga * run.batch_size, total % ga)
    # torchtune: floor(L / GA) an epoch, optionally capped; a cap below that stops before the tail.
    per_epoch = n // ga
    tail = n - per_epoch * ga
    if run.max_steps_per_epoch is not None and run.max_steps_per_epoch < per_epoch:
        per_epoch, tail = run.max_steps_per_epoch, 0
    if per_epoch == 0:
        raise _no_step(n, ga)
    steps = run.epochs * per_epoch
    if policy == CARRIED_FIRST:
        # Every tail but the last is applied with the next epoch's first update.
        return Exposure(steps, (steps * ga + (run.epochs - 1) * tail) * rows, tail)
    return Exposure(steps, steps * run.batch_size, run.epochs * tail)


def exposure(run: Run) -> Exposure:
    """Optimizer steps, examples stepped and unapplied micro-batches of a run in its own semantics."""
    _check_run(run)
    ga = run.grad_accum
    n = run.micro_batches_per_epoch
    if run.semantics == LEGACY_MICRO:
        m = _positive("max_steps", run.max_steps)
        steps = m // ga
        if steps == 0:
            raise StepMathError(
                f"max_steps={m} micro-batches is smaller than grad_accum={ga}: no optimizer step at all",
                kind="batch",
            )
        return Exposure(steps, steps * ga * run.micro_batch_size * run.world_size, m - steps * ga)
    if run.semantics == OPTIMIZER:
        steps = _positive("max_steps", run.max_steps)
        return Exposure(steps, steps * run.batch_size, 0)
    if run.semantics == MEGATRON:
        if run.max_steps is None and run.train_samples is not None:
            steps = run.train_samples // run.batch_size
            if steps == 0:
                raise StepMathError(
                    f"train_samples={run.train_samples} is smaller than the global batch "
                    f"{run.batch_size}: no optimizer step at all",
                    kind="batch",
                )
            return Exposure(steps, steps * run.batch_size, 0)
        steps = _positive("max_steps", run.max_steps)
        return Exposure(steps, steps * run.batch_size, 0)
    if run.semantics == ROLLOUTS:
        iterations = _positive("max_steps", run.max_steps)
        steps = iterations * (run.updates_per_rollout or 1)
        return Exposure(steps, steps * run.batch_size, 0)
    policy = tail_policy(run)
    assert policy is not None
    if run.semantics == TORCHTUNE and n is None:
        cap = run.max_steps_per_epoch
        if cap is None:
            raise StepMathError(
                "torchtune needs micro_batches_per_epoch or max_steps_per_epoch", kind="missing"
            )
        return Exposure(run.epochs * cap, run.epochs * cap * run.batch_size, 0)
    if n is None:
        if run.max_steps is None:
            raise StepMathError(f"{run.semantics} needs max_steps or micro_batches_per_epoch", kind="missing")
        # Without the epoch's length the tail cannot be placed: every update is whole.
        return Exposure(run.max_steps, run.max_steps * run.batch_size, 0)
    return _epoch_exposure(run, n, policy)


def convert(run: Run, to: str) -> Run:
    """The same number of optimizer updates, expressed in another trainer's semantics."""
    steps = exposure(run).optimizer_steps
    blank = replace(run, semantics=to, max_steps=None, epochs=1, max_steps_per_epoch=None, train_samples=None)
    _check_run(blank)
    if to in (OPTIMIZER, HF_EPOCH, AXOLOTL, LIGHTNING, DEEPSPEED, MEGATRON):
        return replace(blank, max_steps=steps)
    if to == LEGACY_MICRO:
        return replace(blank, max_steps=steps * run.grad_accum)
    if to == ROLLOUTS:
        k = blank.updates_per_rollout or 1
        if steps % k:
            raise StepMathError(
                f"{steps} optimizer steps is not a whole number of RL iterations of {k} steps each",
                kind="invalid",
            )
        return replace(blank, max_steps=steps // k)
    n = run.micro_batches_per_epoch
    if n is None:
        return replace(blank, max_steps_per_epoch=steps)
    per_epoch = n // run.grad_accum
    if per_epoch == 0:
        raise StepMathError(
            f"micro_batches_per_epoch={n} is smaller than grad_accum={run.grad_accum}", kind="batch"
        )
    if steps % per_epoch == 0:
        return replace(blank, epochs=steps // per_epoch)
    if steps < per_epoch:
        return replace(blank, max_steps_per_epoch=steps)
    raise StepMathError(
        f"{steps} optimizer steps is neither a whole number of torchtune epochs ({per_epoch} steps each) "
        "nor less than one epoch",
        kind="invalid",
    )


# --- Prime-RL scheduler validation ---------------------------------------------------------------


@dataclass(frozen=True)
class Scheduler:
    """A Prime-RL `[scheduler]` table as the run will see it; type None means no `type` key (constant)."""

    type: str | None = None
    warmup_steps: int | None = None
    decay_steps: int | None = None
    keys: frozenset[str] = frozenset()


def scheduler_problems(sched: Scheduler, max_steps: int | None, synced: bool = False) -> list[str]:
    """Why Prime-RL would refuse this scheduler with this max_steps (empty when it accepts it).

    synced says the decay_steps value was written by sync_scheduler_to_max_steps.
    """
    kind = sched.type or "constant"
    if kind not in SCHEDULER_KEYS:
        return [
            f"Prime-RL knows no scheduler type `{kind}` and refuses the config. "
            "Fix: use `constant`, `linear` or `cosine`."
        ]
    keys = set(sched.keys) | ({"decay_steps"} if synced else set())
    extra = sorted(keys - SCHEDULER_KEYS[kind])
    problems = []
    if extra:
        how = (
            "has no `type`, so it is the constant scheduler, which"
            if sched.type is None
            else (f"is `{kind}`, which")
        )
        # A decay_steps the sync wrote is not in the file: turning the sync off is what removes it.
        written = synced and "decay_steps" in extra
        own = [k for k in extra if not (written and k == "decay_steps")]
        remove = f"remove {', '.join(f'`{k}`' for k in own)}" if own else ""
        unsync = "set `sync_scheduler_to_max_steps = false`" if written else ""
        drop = " and ".join(part for part in (remove, unsync) if part)
        fix = (
            f'set `type = "linear"`, or {drop}'
            if sched.type is None
            else f"{drop}, or use a scheduler that takes them"
        )
        named = [
            f"`{k}`"
            + (" (written by `sync_scheduler_to_max_steps`)" if written and k == "decay_steps" else "")
            for k in extra
        ]
        problems.append(
            f"The scheduler {how} accepts no {', '.join(named)}: Prime-RL refuses the config. Fix: {fix}."
        )
    for name in ("warmup_steps", "decay_steps"):
        value = getattr(sched, name)
        if value is not None and value < 0:
            problems.append(
                f"`scheduler.{name}={value}` is negative: Prime-RL refuses the config. Fix: use 0 or more."
            )
    if problems:
        return problems
    warmup = DEFAULT_WARMUP_STEPS if sched.warmup_steps is None else sched.warmup_steps
    if kind == "linear":
        decay = DEFAULT_DECAY_STEPS if sched.decay_steps is None else sched.decay_steps
        if warmup == 0 and decay == 0:
            return [
                "A linear scheduler with `warmup_steps=0` and `decay_steps=0` is refused by Prime-RL. "
                "Fix: drop `type` to use the constant scheduler, or set one of them above 0."
            ]
        if decay > 0 and max_steps is None:
            return [
                f"A linear scheduler with `decay_steps={decay}` needs `max_steps`; Prime-RL refuses the "
                "config without it. Fix: set `max_steps`."
            ]
        if max_steps is not None and warmup + decay > max_steps:
            if synced and warmup > 0:
                return [
                    f"`sync_scheduler_to_max_steps` sets `decay_steps={decay}` (= `max_steps`), which leaves "
                    f"no room for `warmup_steps={warmup}`: {warmup} + {decay} = {warmup + decay} > "
                    f"{max_steps}, so Prime-RL refuses the config. Fix: set `warmup_steps = 0`, or set "
                    "`sync_scheduler_to_max_steps = false` and "
                    f"`decay_steps = {max(max_steps - warmup, 0)}`."
                ]
            return [
                f"`warmup_steps={warmup}` + `decay_steps={decay}` = {warmup + decay} exceeds "
                f"`max_steps={max_steps}`: Prime-RL refuses the config. "
                f"Fix: make them add up to at most {max_steps}."
            ]
    if kind == "cosine":
        if max_steps is None:
            return [
                "A cosine scheduler needs `max_steps`; Prime-RL refuses the config. Fix: set `max_steps`."
            ]
        if warmup >= max_steps:
            return [
                f"`warmup_steps={warmup}` is not less than `max_steps={max_steps}`: Prime-RL refuses a "
                f"cosine scheduler that never decays. Fix: set `warmup_steps` below {max_steps}."
            ]
    return []
