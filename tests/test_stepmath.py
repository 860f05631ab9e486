"""Every number of STEPMATH.md (docs/stepmath.md) as a table, plus property tests of the step-math library."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.training.stepmath import (
    AXOLOTL,
    CARRIED,
    DEEPSPEED,
    HF_EPOCH,
    LEGACY_MICRO,
    LIGHTNING,
    MEGATRON,
    OPTIMIZER,
    ROLLOUTS,
    SHORT,
    SHORT_FLOOR,
    TORCHTUNE,
    Exposure,
    Run,
    Scheduler,
    StepInputs,
    StepMathError,
    batch_problems,
    convert,
    derive,
    exposure,
    grad_accum,
    hf_tail,
    scheduler_problems,
    steps_for_examples,
    steps_for_micro_steps,
    tokens_per_step,
)

# (inputs, max_steps, decay_steps, effective_train_examples, unapplied_micro_steps, semantics)
REFERENCE = [
    (StepInputs(batch_size=8, target_examples=300), 38, 38, 304, None, "examples"),
    (StepInputs(batch_size=8, target_micro_steps=300), 37, 37, 296, 4, "legacy-micro"),
    (StepInputs(batch_size=8, target_micro_steps=8), 1, 1, 8, 0, "legacy-micro"),
    (StepInputs(batch_size=8, target_examples=1), 1, 1, 8, None, "examples"),
    (StepInputs(batch_size=8, target_examples=8), 1, 1, 8, None, "examples"),
    (StepInputs(batch_size=8, target_examples=9), 2, 2, 16, None, "examples"),
    (StepInputs(batch_size=8, target_micro_steps=15), 1, 1, 8, 7, "legacy-micro"),
    # No sync: the explicit decay stands; an explicit max_steps is the optimizer semantics.
    (
        StepInputs(batch_size=8, target_micro_steps=300, sync_scheduler_to_max_steps=False, decay_steps=30),
        37,
        30,
        296,
        4,
        "legacy-micro",
    ),
    (StepInputs(batch_size=8, max_steps=40), 40, 40, 320, None, "optimizer"),
    (
        StepInputs(batch_size=8, max_steps=40, sync_scheduler_to_max_steps=False, decay_steps=12),
        40,
        12,
        320,
        None,
        "optimizer",
    ),
    # max_steps only from a Prime-RL config: the config's own decay stays (nothing to sync).
    (StepInputs(batch_size=8, config_max_steps=40, config_decay_steps=30), 40, 30, 320, None, "optimizer"),
    # A target replaces the config's max_steps and decay without conflict.
    (
        StepInputs(batch_size=8, target_micro_steps=300, config_max_steps=40, config_decay_steps=30),
        37,
        37,
        296,
        4,
        "legacy-micro",
    ),
]


@pytest.mark.parametrize("inputs, max_steps, decay, effective, unapplied, semantics", REFERENCE)
def test_reference_values(inputs, max_steps, decay, effective, unapplied, semantics):
    r = derive(inputs)
    assert (r.max_steps, r.decay_steps, r.effective_train_examples, r.unapplied_micro_steps) == (
        max_steps,
        decay,
        effective,
        unapplied,
    )
    assert r.semantics == semantics


ERRORS = [
    (StepInputs(batch_size=8, target_micro_steps=7), "batch", "no optimizer step"),
    (StepInputs(batch_size=8, target_examples=300, target_micro_steps=300), "conflict", "mutually exclusive"),
    (StepInputs(batch_size=8, target_examples=300, max_steps=38), "conflict", "explicit max_steps=38"),
    (StepInputs(batch_size=8, target_micro_steps=300, max_steps=37), "conflict", "explicit max_steps=37"),
    (StepInputs(batch_size=8, target_micro_steps=300, decay_steps=30), "conflict", "decay_steps=30"),
    (StepInputs(batch_size=8, max_steps=40, decay_steps=30), "conflict", "sync_scheduler_to_max_steps"),
    (StepInputs(target_examples=300), "missing", "batch_size is unknown"),
    (StepInputs(target_micro_steps=300), "missing", "batch_size is unknown"),
    (StepInputs(batch_size=8), "missing", "run length is unknown"),
    (StepInputs(batch_size=0, target_examples=300), "invalid", "batch_size must be > 0"),
    (StepInputs(batch_size=-8, max_steps=5), "invalid", "batch_size must be > 0"),
    (StepInputs(batch_size=8, target_examples=0), "invalid", "target_examples must be > 0"),
    (StepInputs(batch_size=8, target_micro_steps=-8), "invalid", "target_micro_steps must be > 0"),
    (StepInputs(batch_size=8, max_steps=0, sync_scheduler_to_max_steps=False), "invalid", "max_steps"),
]


@pytest.mark.parametrize("inputs, kind, message", ERRORS)
def test_refused_inputs(inputs, kind, message):
    with pytest.raises(StepMathError) as info:
        derive(inputs)
    assert info.value.kind == kind
    assert message in str(info.value)


@pytest.mark.parametrize(
    "sync_ckpt, config, interval, keep",
    [
        (False, {}, None, None),
        (True, {}, 37, 37),
        (False, {"config_ckpt_interval": 10, "config_ckpt_keep_interval": 20}, 10, 20),
        (True, {"config_ckpt_interval": 10, "config_ckpt_keep_interval": 20}, 37, 37),
    ],
)
def test_ckpt_sync(sync_ckpt, config, interval, keep):
    r = derive(StepInputs(batch_size=8, target_micro_steps=300, sync_ckpt_to_max_steps=sync_ckpt, **config))
    assert (r.ckpt_interval, r.ckpt_keep_interval) == (interval, keep)


@pytest.mark.parametrize(
    "batch, micro, world, cp, expected",
    [
        (128, 1, 1, 1, 128),  # Prime-RL defaults
        (8, 1, 1, 1, 8),
        (8, 2, 1, 1, 4),
        (8, 8, 1, 1, 1),
        (8, 1, 2, 1, 4),
        (8, 1, 2, 2, 8),  # context parallelism multiplies accumulation
        (16, 2, 4, 1, 2),
    ],
)
def test_grad_accum(batch, micro, world, cp, expected):
    assert grad_accum(batch, micro, world, cp) == expected


@pytest.mark.parametrize(
    "batch, micro, world, cp, message",
    [
        (8, 3, 1, 1, "not divisible by micro_batch_size=3"),
        (12, 8, 1, 1, "not divisible by micro_batch_size=8"),
        (8, 2, 3, 1, "world_size * micro_batch_size = 6"),
        (8, 1, 16, 1, "world_size * micro_batch_size = 16"),
        (0, 1, 1, 1, "batch_size must be > 0"),
        (8, 0, 1, 1, "micro_batch_size must be > 0"),
    ],
)
def test_grad_accum_refused(batch, micro, world, cp, message):
    with pytest.raises(StepMathError, match=re.escape(message)):
        grad_accum(batch, micro, world, cp)


def test_tokens_per_step():
    assert tokens_per_step(8, 4096) == 32768
    assert derive(StepInputs(batch_size=8, target_micro_steps=300, seq_len=2048)).tokens_per_step == 16384
    assert derive(StepInputs(batch_size=8, target_micro_steps=300)).tokens_per_step is None


@pytest.mark.parametrize(
    "inputs, problems",
    [
        (StepInputs(batch_size=8, target_micro_steps=300), []),
        (StepInputs(batch_size=8, target_micro_steps=7), ["smaller than batch_size=8"]),
        (StepInputs(batch_size=12, micro_batch_size=8, target_micro_steps=300), ["not divisible"]),
        (StepInputs(batch_size=8, world_size=3, target_micro_steps=300), ["world_size * micro_batch_size"]),
        (StepInputs(batch_size=8, micro_batch_size=3, target_micro_steps=7), ["not divisible", "smaller"]),
        (StepInputs(target_micro_steps=7), []),  # no batch size known: TRN001 reports that
        (StepInputs(batch_size=0, max_steps=5), []),  # derive refuses it: TRN001 reports that
        # Context parallelism: Prime-RL wants micro_batch_size 1 and seq_len divisible by cp.
        (StepInputs(batch_size=8, cp=2, micro_batch_size=2, max_steps=5), ["micro_batch_size=2 with cp=2"]),
        (StepInputs(batch_size=8, cp=2, seq_len=4097, max_steps=5), ["seq_len=4097 is not divisible"]),
        (StepInputs(batch_size=8, cp=2, micro_batch_size=1, seq_len=4096, max_steps=5), []),
        (StepInputs(batch_size=8, cp=1, micro_batch_size=2, seq_len=4097, max_steps=5), []),
    ],
)
def test_batch_problems(inputs, problems):
    found = batch_problems(inputs)
    assert len(found) == len(problems)
    for text, expected in zip(found, problems, strict=True):
        assert expected in text


LINEAR = frozenset({"type", "warmup_steps", "decay_steps"})

SCHEDULERS = [
    # (scheduler, max_steps, synced, expected problem or None)
    (Scheduler("linear", 10, 10, LINEAR), 20, False, None),
    (Scheduler("linear", None, None, frozenset({"type"})), 20, False, None),  # defaults 10 + 10
    (Scheduler("linear", None, None, frozenset({"type"})), 19, False, "= 20 exceeds `max_steps=19`"),
    (Scheduler("linear", 5, 30, LINEAR), 37, False, None),
    (Scheduler("linear", 5, 33, LINEAR), 37, False, "= 38 exceeds"),
    (Scheduler("linear", 0, 0, LINEAR), 37, False, "`warmup_steps=0` and `decay_steps=0`"),
    (Scheduler("linear", 5, 10, LINEAR), None, False, "needs `max_steps`"),
    (Scheduler("linear", 5, 0, LINEAR), None, False, None),  # no decay: max_steps not needed
    (Scheduler("linear", 5, 37, LINEAR), 37, True, "leaves no room for `warmup_steps=5`"),
    (Scheduler("linear", 0, 37, LINEAR), 37, True, None),  # synced decay without warmup fits exactly
    (Scheduler("linear", None, 37, frozenset({"type"})), 37, True, "warmup_steps=10"),  # default warmup
    (Scheduler("linear", -1, 10, LINEAR), 37, False, "negative"),
    (Scheduler("cosine", 10, None, frozenset({"type", "warmup_steps"})), 11, False, None),
    (Scheduler("cosine", 10, None, frozenset({"type", "warmup_steps"})), 10, False, "not less than"),
    (Scheduler("cosine", None, None, frozenset({"type"})), 10, False, "not less than"),  # default 10
    (Scheduler("cosine", 0, None, frozenset({"type"})), None, False, "cosine scheduler needs"),
    (Scheduler("cosine", 5, 20, LINEAR), 37, False, "accepts no `decay_steps`"),
    (Scheduler("cosine", 5, 37, frozenset({"type", "warmup_steps"})), 37, True, "written by"),
    (Scheduler(None, None, None, frozenset()), 37, False, None),  # constant, nothing to refuse
    (Scheduler(None, 10, None, frozenset({"warmup_steps"})), 37, False, "constant scheduler"),
    (Scheduler(None, None, 37, frozenset()), 37, True, "`sync_scheduler_to_max_steps`"),
    (Scheduler("constant", None, None, frozenset({"type"})), None, False, None),
    (Scheduler("wsd", None, None, frozenset({"type"})), 37, False, "knows no scheduler type `wsd`"),
]


@pytest.mark.parametrize("sched, max_steps, synced, expected", SCHEDULERS)
def test_scheduler_validation(sched, max_steps, synced, expected):
    problems = scheduler_problems(sched, max_steps, synced=synced)
    if expected is None:
        assert problems == []
    else:
        assert len(problems) == 1 and expected in problems[0]
        assert "Prime-RL" in problems[0] and "Fix:" in problems[0]


# --- Other trainers' semantics -----------------------------------------------------------------

EXPOSURES = [
    # (run, optimizer_steps, examples, unapplied)
    (Run(LEGACY_MICRO, max_steps=300, grad_accum=8), 37, 296, 4),
    (Run(LEGACY_MICRO, max_steps=8, grad_accum=8), 1, 8, 0),
    (Run(LEGACY_MICRO, max_steps=300, grad_accum=4, micro_batch_size=2), 75, 600, 0),
    (Run(OPTIMIZER, max_steps=37, grad_accum=8), 37, 296, 0),
    (Run(OPTIMIZER, max_steps=10, grad_accum=4, micro_batch_size=2, world_size=4), 10, 320, 0),
    # HF Trainer: the epoch's short tail IS stepped: 300 micro-batches, GA 8 -> 38 updates, last over 4.
    (Run(HF_EPOCH, micro_batches_per_epoch=300, grad_accum=8), 38, 300, 0),
    (Run(HF_EPOCH, micro_batches_per_epoch=300, grad_accum=8, epochs=2), 76, 600, 0),
    (Run(HF_EPOCH, max_steps=38, micro_batches_per_epoch=300, grad_accum=8), 38, 300, 0),
    (Run(HF_EPOCH, max_steps=40, micro_batches_per_epoch=300, grad_accum=8), 40, 316, 0),
    (Run(HF_EPOCH, max_steps=37, grad_accum=8), 37, 296, 0),
    # torchtune: micro_batches // GA per epoch, tail never stepped: 300 / 8 -> 37.
    (Run(TORCHTUNE, micro_batches_per_epoch=300, grad_accum=8), 37, 296, 4),
    (Run(TORCHTUNE, micro_batches_per_epoch=300, grad_accum=8, epochs=2), 74, 592, 8),
    (Run(TORCHTUNE, micro_batches_per_epoch=300, grad_accum=8, max_steps_per_epoch=10), 10, 80, 0),
    (Run(TORCHTUNE, micro_batches_per_epoch=300, grad_accum=8, max_steps_per_epoch=50), 37, 296, 4),
    (Run(TORCHTUNE, max_steps_per_epoch=10, grad_accum=8, epochs=3), 30, 240, 0),
]


# The worked comparison of ../shared/research/TRAINERS.md §0 (300 micro-batches of one example an epoch,
# GA 8, one device), read there from each trainer's loop: (run, E=1 and E=3 as steps/examples/unapplied).
def _worked(semantics, **kw):
    return [Run(semantics, micro_batches_per_epoch=300, grad_accum=8, epochs=e, **kw) for e in (1, 3)]


WORKED = [
    (_worked(HF_EPOCH), [(38, 300, 0), (114, 900, 0)]),  # >= 4.52: a short step each epoch
    (_worked(HF_EPOCH, transformers=(5, 0)), [(38, 300, 0), (114, 900, 0)]),
    (_worked(HF_EPOCH, transformers=(4, 50)), [(37, 296, 0), (111, 880, 0)]),  # stops 35 steps into epoch 3
    (_worked(HF_EPOCH, transformers=(4, 46)), [(37, 296, 0), (111, 888, 0)]),  # carried, global counter
    (_worked(TORCHTUNE), [(37, 296, 4), (111, 888, 12)]),  # full recipes on main: tail skipped
    (_worked(TORCHTUNE, torchtune_carry=True), [(37, 296, 4), (111, 896, 4)]),  # 0.6.1 and LoRA recipes
    (_worked(LIGHTNING), [(38, 300, 0), (114, 900, 0)]),
    (_worked(DEEPSPEED), [(37, 296, 4), (112, 896, 4)]),  # the engine's micro-step count spans epochs
    (_worked(AXOLOTL), [(38, 300, 0), (113, 896, 0)]),  # ceil over the whole run, then HF's loop
]


@pytest.mark.parametrize("runs, expected", WORKED)
def test_worked_comparison_of_the_trainers(runs, expected):
    got = [exposure(r) for r in runs]
    assert [(e.optimizer_steps, e.examples, e.unapplied_micro_steps) for e in got] == expected


def test_megatron_and_rollouts():
    assert exposure(Run(MEGATRON, max_steps=100, grad_accum=4, world_size=8)) == Exposure(100, 3200, 0)
    assert exposure(Run(MEGATRON, train_samples=3210, grad_accum=4, world_size=8)).optimizer_steps == 100
    k = Run(ROLLOUTS, max_steps=20, updates_per_rollout=4, grad_accum=2, world_size=8)
    assert exposure(k) == Exposure(80, 1280, 0)
    assert convert(k, OPTIMIZER).max_steps == 80
    assert convert(Run(OPTIMIZER, max_steps=80, updates_per_rollout=4), ROLLOUTS).max_steps == 20
    with pytest.raises(StepMathError, match="not a whole number of RL iterations"):
        convert(Run(OPTIMIZER, max_steps=81, updates_per_rollout=4), ROLLOUTS)


def test_tail_policy_per_transformers_release():
    assert [hf_tail(v) for v in (None, (4, 52), (4, 51), (4, 47), (4, 46), (3, 0))] == [
        SHORT,
        SHORT,
        SHORT_FLOOR,
        SHORT_FLOOR,
        CARRIED,
        CARRIED,
    ]


@pytest.mark.parametrize("run, steps, examples, unapplied", EXPOSURES)
def test_exposure(run, steps, examples, unapplied):
    e = exposure(run)
    assert (e.optimizer_steps, e.examples, e.unapplied_micro_steps) == (steps, examples, unapplied)


@pytest.mark.parametrize(
    "run, message",
    [
        (Run(LEGACY_MICRO, max_steps=7, grad_accum=8), "no optimizer step"),
        (Run(LEGACY_MICRO, grad_accum=8), "max_steps is required"),
        (Run(OPTIMIZER, grad_accum=8), "max_steps is required"),
        (Run(HF_EPOCH, grad_accum=8), "needs max_steps or micro_batches_per_epoch"),
        (Run(TORCHTUNE, grad_accum=8), "needs micro_batches_per_epoch"),
        (Run(TORCHTUNE, micro_batches_per_epoch=7, grad_accum=8), "no optimizer step"),
        (Run("nemo-2", max_steps=3), "unknown semantics"),
        (Run(ROLLOUTS, max_steps=3), "updates_per_rollout is required"),
        (Run(MEGATRON, train_samples=7, grad_accum=8), "no optimizer step"),
        (Run(DEEPSPEED, micro_batches_per_epoch=3, grad_accum=8, epochs=2), "no optimizer step"),
        (Run(OPTIMIZER, max_steps=3, grad_accum=0), "grad_accum must be > 0"),
    ],
)
def test_exposure_refused(run, message):
    with pytest.raises(StepMathError, match=message):
        exposure(run)


CONVERSIONS = [
    # (run, to, expected max_steps, epochs, max_steps_per_epoch)
    (Run(LEGACY_MICRO, max_steps=300, grad_accum=8), OPTIMIZER, 37, 1, None),
    (Run(LEGACY_MICRO, max_steps=300, grad_accum=8), HF_EPOCH, 37, 1, None),
    (Run(OPTIMIZER, max_steps=37, grad_accum=8), LEGACY_MICRO, 296, 1, None),
    (Run(HF_EPOCH, micro_batches_per_epoch=300, grad_accum=8), OPTIMIZER, 38, 1, None),
    (Run(TORCHTUNE, micro_batches_per_epoch=300, grad_accum=8), OPTIMIZER, 37, 1, None),
    (Run(OPTIMIZER, max_steps=74, grad_accum=8, micro_batches_per_epoch=300), TORCHTUNE, None, 2, None),
    (Run(OPTIMIZER, max_steps=10, grad_accum=8, micro_batches_per_epoch=300), TORCHTUNE, None, 1, 10),
    (Run(OPTIMIZER, max_steps=10, grad_accum=8), TORCHTUNE, None, 1, 10),
]


@pytest.mark.parametrize("run, to, max_steps, epochs, cap", CONVERSIONS)
def test_convert(run, to, max_steps, epochs, cap):
    out = convert(run, to)
    assert (out.semantics, out.max_steps, out.epochs, out.max_steps_per_epoch) == (to, max_steps, epochs, cap)


def test_convert_refuses_what_torchtune_cannot_express():
    run = Run(OPTIMIZER, max_steps=40, grad_accum=8, micro_batches_per_epoch=300)
    with pytest.raises(StepMathError, match="neither a whole number of torchtune epochs"):
        convert(run, TORCHTUNE)


# --- Properties -------------------------------------------------------------------------------

sizes = st.integers(min_value=1, max_value=512)
counts = st.integers(min_value=1, max_value=100_000)


@given(m=counts, b=sizes)
def test_micro_steps_partition(m, b):
    if m < b:
        with pytest.raises(StepMathError):
            derive(StepInputs(batch_size=b, target_micro_steps=m))
        return
    r = derive(StepInputs(batch_size=b, target_micro_steps=m))
    assert r.max_steps * b + r.unapplied_micro_steps == m
    assert 0 <= r.unapplied_micro_steps < b
    assert r.max_steps * b <= m < (r.max_steps + 1) * b  # floor bounds
    assert r.decay_steps == r.max_steps


@given(t=counts, b=sizes)
def test_examples_ceil_bounds(t, b):
    steps = steps_for_examples(t, b)
    assert steps * b >= t > (steps - 1) * b
    assert derive(StepInputs(batch_size=b, target_examples=t)).effective_train_examples == steps * b


@given(m=counts, b=sizes)
def test_floor_never_exceeds_ceil(m, b):
    if m >= b:
        assert steps_for_micro_steps(m, b) <= steps_for_examples(m, b) <= steps_for_micro_steps(m, b) + 1


@given(
    steps=counts,
    ga=sizes,
    to=st.sampled_from([LEGACY_MICRO, HF_EPOCH, OPTIMIZER, AXOLOTL, LIGHTNING, DEEPSPEED, MEGATRON]),
)
def test_optimizer_round_trips(steps, ga, to):
    run = Run(OPTIMIZER, max_steps=steps, grad_accum=ga)
    there = convert(run, to)
    assert exposure(there).optimizer_steps == steps
    assert convert(there, OPTIMIZER) == run


@given(m=counts, ga=sizes)
def test_legacy_round_trip_drops_the_tail(m, ga):
    run = Run(LEGACY_MICRO, max_steps=m, grad_accum=ga)
    if m < ga:
        with pytest.raises(StepMathError):
            convert(run, OPTIMIZER)
        return
    e = exposure(run)
    back = convert(convert(run, OPTIMIZER), LEGACY_MICRO)
    assert back.max_steps == m - e.unapplied_micro_steps
    assert exposure(back).examples == e.examples


@given(
    n=counts,
    ga=sizes,
    epochs=st.integers(min_value=1, max_value=5),
    semantics=st.sampled_from([HF_EPOCH, AXOLOTL, LIGHTNING, DEEPSPEED, TORCHTUNE]),
    version=st.sampled_from([None, (4, 50), (4, 40)]),
    carry=st.booleans(),
)
def test_every_epoch_policy_keeps_to_the_data(n, ga, epochs, semantics, version, carry):
    """No policy applies more examples than the epochs hold, none makes an update of more than GA
    micro-batches except a carried tail's, and applied + unapplied never exceeds the data."""
    run = Run(
        semantics,
        micro_batches_per_epoch=n,
        grad_accum=ga,
        epochs=epochs,
        transformers=version,
        torchtune_carry=carry,
    )
    try:
        e = exposure(run)
    except StepMathError:
        assert n * (epochs if semantics == DEEPSPEED else 1) < ga
        return
    assert e.examples + e.unapplied_micro_steps <= n * epochs
    assert e.unapplied_micro_steps <= epochs * (ga - 1)
    assert e.optimizer_steps >= epochs * (n // ga)


@given(n=counts, ga=sizes, epochs=st.integers(min_value=1, max_value=5))
def test_hf_steps_tail_torchtune_drops_it(n, ga, epochs):
    hf = exposure(Run(HF_EPOCH, micro_batches_per_epoch=n, grad_accum=ga, epochs=epochs))
    assert hf.examples == n * epochs
    if n >= ga:
        tt = exposure(Run(TORCHTUNE, micro_batches_per_epoch=n, grad_accum=ga, epochs=epochs))
        assert hf.optimizer_steps - tt.optimizer_steps == (epochs if n % ga else 0)
        assert tt.examples + tt.unapplied_micro_steps == n * epochs


@given(b=sizes, micro=st.integers(1, 64), world=st.integers(1, 64), cp=st.integers(1, 8))
def test_grad_accum_is_exact_or_refused(b, micro, world, cp):
    try:
        ga = grad_accum(b, micro, world, cp)
    except StepMathError:
        assert b % micro or (b * cp) % (world * micro)
    else:
        assert ga * world * micro == b * cp
