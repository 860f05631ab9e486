"""Prime-RL configs as real repositories hold them: which are read as SFT configs, which are left alone,
and what the checks say about each. The fixtures are written for this project; they copy the shapes of
Prime-RL's configs (tables, nested tables, arrays of tables, keys the bot does not model), not their text."""

from __future__ import annotations

import tomllib

import pytest

from rules.training.primerl import classify
from tests.helpers import codes, review_change

# An SFT config with the tables a real one carries, most of which the bot does not model.
SFT = """# Supervised fine-tuning of a small model on the mobile set.
max_steps = {max_steps}
dist_timeout_seconds = 3600

[deployment]
num_train_gpus = {gpus}
num_infer_gpus = 1

[ckpt]
interval = 50
keep_last = 3

[ckpt.weights]
save_adapter_separately = true

[model]
name = "org/small-instruct"
{model_extra}

[model.lora]
rank = 32
alpha = 64.0

[model.ac]
freq = 1

[data]
name = "org/mobile-sft"
seq_len = {seq_len}
batch_size = {batch}
micro_batch_size = {micro}
splits = ["train"]

[[data.source]]
dataset = "org/mobile-sft-extra"

[data.loss_mask]
assistant = true

[optim]
lr = 2e-5
weight_decay = 0.0

[scheduler]
{scheduler}

[eval]
interval = 25

[eval.sampling]
max_completion_tokens = 512

[inference]

[monitors.wandb]
project = "mobile"
"""
LINEAR = 'type = "linear"\nwarmup_steps = 5\ndecay_steps = 30'


def sft(max_steps="300", gpus=2, batch=8, micro=1, seq_len=8192, scheduler=LINEAR, model_extra=""):
    return SFT.format(
        max_steps=max_steps,
        gpus=gpus,
        batch=batch,
        micro=micro,
        seq_len=seq_len,
        scheduler=scheduler,
        model_extra=model_extra,
    )


# A combined RL config: top-level max_steps and seq_len, [orchestrator] and [trainer.*] sections.
RL = """max_steps = {max_steps}
seq_len = 2048

[deployment]
num_train_gpus = 1
num_infer_gpus = 1

[model]
name = "org/small-instruct"

[orchestrator]
batch_size = 128
group_size = 16

[[orchestrator.train.env]]
name = "reverse"

[trainer.optim]
lr = 3e-6

[trainer.scheduler]
type = "linear"
warmup_steps = 20
decay_steps = 30

[ckpt]

[inference]
"""
# An orchestrator config on its own: top-level batch and sequence length.
ORCH = (
    'max_steps = {max_steps}\nbatch_size = 64\nseq_len = 4096\n\n[model]\nname = "m"\n\n'
    "[sampling]\ntemperature = 1.0\n"
)
# An RL trainer config on its own: a loss table, which no SFT config has.
RL_TRAINER = (
    'max_steps = {max_steps}\n\n[model]\nname = "m"\n\n[loss]\nkl_tau = 0.001\n\n'
    '[scheduler]\ntype = "linear"\nwarmup_steps = 50\ndecay_steps = 50\n'
)
# A config that inherits its values from other TOML files.
INHERITS = 'toml_files = ["base.toml"]\nmax_steps = {max_steps}\n\n[data]\nbatch_size = 8\n'


# The kinds of file Prime-RL has kept in configs/ and examples/ over time, as small TOML of the same shape.
# 2025 split layout: one directory per RL run with a trainer, an orchestrator and an inference config.
SPLIT_TRAINER = (
    'max_steps = {max_steps}\n\n[model]\nname = "m"\n\n[optim]\nlr = 1e-6\n\n[ckpt]\ninterval = 100\n'
)
SPLIT_ORCH = (
    "batch_size = 512\nrollouts_per_example = 16\nseq_len = 2048\nmax_steps = {max_steps}\n\n"
    '[model]\nname = "m"\n\n[sampling]\nmax_tokens = 4096\n\n[environment]\nid = "math"\n'
)
SPLIT_INFER = '[model]\nname = "m"\nmax_model_len = 4096\n\n[parallel]\ndp = 3\ntp = 2\n'
# The RL trainer's debug config: fake data with its own batch, under [data.fake].
FAKE_RL_TRAINER = "max_steps = {max_steps}\nasync_level = 2\n\n[data.fake]\nbatch_size = 16\nseq_len = 128\n"
FAKE_RL_TRAINER_NO_MARK = (
    "max_steps = {max_steps}\n\n[data.fake]\nbatch_size = 2\n\n[model]\nseq_len = 1024\n"
)
# SFT on fake data, as older releases wrote it (a string) and as current ones do (a type).
FAKE_SFT_OLD = (
    "max_steps = {max_steps}\n\n[data]\nbatch_size = 16\nmicro_batch_size = 8\n"
    'seq_len = 128\nfake = "fixed"\n'
)
FAKE_SFT = 'max_steps = {max_steps}\n\n[data]\ntype = "fake"\nbatch_size = 4\nseq_len = 512\n'
# A 2025 combined RL config: GPU split at the top, sections per component.
RL_2025 = (
    'inference_gpu_ids = [0]\ntrainer_gpu_ids = [1]\nmax_steps = {max_steps}\n\n[model]\nname = "m"\n\n'
    "[trainer.optim]\nlr = 1e-5\n\n[orchestrator]\nbatch_size = 128\nseq_len = 4096\n"
)
# A current inference config and an orchestrator config of the multi-run CI layout.
INFER = '[server]\nport = 8000\n\n[model]\nname = "m"\n\n[vllm]\nenforce_eager = true\n'
ORCH_NOW = 'max_steps = {max_steps}\ngroup_size = 8\n\n[model]\nname = "m"\n\n[[env]]\nid = "reverse-text"\n'
# Files composed on the command line (`rl @ rl.toml @ slurm.toml`): fragments, no config on their own.
SLURM_OVERLAY = 'output_dir = "outputs/run"\n\n[slurm]\njob_name = "run"\n'

KINDS = [
    # (id, text, kind)
    ("sft", SFT, "SFT"),
    ("sft-fake-old", FAKE_SFT_OLD, "SFT"),
    ("sft-fake", FAKE_SFT, "SFT"),
    ("rl-combined", RL, "RL"),
    ("rl-combined-2025", RL_2025, "RL"),
    ("orchestrator", ORCH, "orchestrator"),
    ("orchestrator-2025", SPLIT_ORCH, "orchestrator"),
    ("orchestrator-env-array", ORCH_NOW, "orchestrator"),
    ("inference", INFER, "inference"),
    ("inference-2025", SPLIT_INFER, "inference"),
    ("rl-trainer-loss", RL_TRAINER, "RL trainer"),
    ("rl-trainer-fake-data", FAKE_RL_TRAINER, "RL trainer"),
    ("rl-trainer-fake-data-only", FAKE_RL_TRAINER_NO_MARK, "RL trainer"),
    # Edge: a trainer config with no [data] at all is no SFT config (its batch is not in the file).
    ("trainer-without-data", SPLIT_TRAINER, "trainer"),
    ("inherits", INHERITS, None),
    ("slurm-overlay", SLURM_OVERLAY, None),
    ("compat-profile", "target_examples = 300\nbatch_size = 8\n", None),
]


@pytest.mark.parametrize("case, text, kind", KINDS, ids=[k[0] for k in KINDS])
def test_classify(case, text, kind):
    data = tomllib.loads(sft() if text is SFT else text.replace("{max_steps}", "40"))
    assert classify(data)[0] == kind


@pytest.mark.parametrize("path", ["configs/sft/mobile.toml", "experiments/mobile/sft.toml"])
def test_a_realistic_sft_config_is_read_by_glob_and_by_shape(make_repo, path):
    report = review_change(make_repo, {path: sft(max_steps="300")}, {path: sft(max_steps="320")})
    (row,) = report.profiles
    assert row.kind == "prime-rl"
    head = row.head
    # 8 rows a step on 2 GPUs with micro-batches of 1: 4 micro-batches per rank per step.
    assert (head.max_steps, head.batch_size, head.world_size, head.grad_accum) == (320, 8, 2, 4)
    assert (head.effective_train_examples, head.tokens_per_step, head.decay_steps) == (2560, 65536, 30)
    assert (head.ckpt_interval, head.scheduler, head.warmup_steps) == (50, "linear", 5)
    # Keys and tables the bot does not model are not findings; only the exposure notice is.
    assert codes(report) == ["TRN004"]


SHAPES = [
    # (id, path, base, head, rows expected, finding codes expected)
    ("rl-combined-under-glob", "configs/rl/rl.toml", RL, RL, 0, []),
    ("rl-combined-by-shape", "rl/rl.toml", RL, RL, 0, []),
    ("orchestrator", "configs/rl/orch.toml", ORCH, ORCH, 0, []),
    ("rl-trainer", "configs/rl/train.toml", RL_TRAINER, RL_TRAINER, 0, []),
    ("inherits", "configs/sft/child.toml", INHERITS, INHERITS, 0, []),
    ("rl-trainer-split", "configs/math/7b/rl/train.toml", SPLIT_TRAINER, SPLIT_TRAINER, 0, []),
    ("rl-trainer-split-by-shape", "math/rl/train.toml", SPLIT_TRAINER, SPLIT_TRAINER, 0, []),
    ("orchestrator-split", "configs/math/7b/rl/orch.toml", SPLIT_ORCH, SPLIT_ORCH, 0, []),
    ("rl-trainer-fake", "configs/debug/rl/train.toml", FAKE_RL_TRAINER, FAKE_RL_TRAINER, 0, []),
    (
        "rl-trainer-fake-named-rl",
        "configs/debug/fake/rl.toml",
        FAKE_RL_TRAINER_NO_MARK,
        FAKE_RL_TRAINER_NO_MARK,
        0,
        [],
    ),
    ("rl-2025", "configs/wiki/rl.toml", RL_2025, RL_2025, 0, []),
    ("orchestrator-now", "configs/ci/multi-run/orchestrator.toml", ORCH_NOW, ORCH_NOW, 0, []),
    ("sft-fake-old", "configs/debug/sft.toml", FAKE_SFT_OLD, FAKE_SFT_OLD, 1, ["TRN004"]),
    ("sft-fake", "configs/debug/fake/sft.toml", FAKE_SFT, FAKE_SFT, 1, ["TRN004"]),
    # Edge: an SFT config becomes an RL one; neither side is read against the other.
    ("sft-becomes-rl-trainer", "configs/run/train.toml", FAKE_SFT, SPLIT_TRAINER, 1, []),
    ("sft", "configs/sft/mobile.toml", sft(), sft(max_steps="301"), 1, ["TRN004"]),
    # Edge: without max_steps Prime-RL trains until stopped; that is valid, and shown, not reported.
    (
        "unbounded",
        "configs/sft/mobile.toml",
        sft(),
        sft(max_steps='"None"').replace('max_steps = "None"\n', ""),
        1,
        ["TRN002"],
    ),
    (
        "unbounded-constant",
        "configs/sft/mobile.toml",
        sft(scheduler=""),
        sft(scheduler="").replace("max_steps = 300\n", ""),
        1,
        [],
    ),
    (
        "fake-data",
        "configs/sft/fake.toml",
        sft(),
        sft(max_steps="301").replace("[data]\n", '[data]\ntype = "fake"\n'),
        1,
        ["TRN004"],
    ),
    # Batch arithmetic Prime-RL refuses: 3 GPUs do not divide 8 rows; cp needs micro-batches of 1 and a
    # sequence length it divides.
    ("world-size-indivisible", "configs/sft/mobile.toml", sft(), sft(gpus=3), 1, ["TRN003"]),
    ("cp-micro-batch", "configs/sft/mobile.toml", sft(), sft(micro=2, model_extra="cp = 2"), 1, ["TRN003"]),
    ("cp-seq-len", "configs/sft/mobile.toml", sft(), sft(seq_len=8191, model_extra="cp = 2"), 1, ["TRN003"]),
]


@pytest.mark.parametrize("case, path, base, head, rows, expected", SHAPES, ids=[s[0] for s in SHAPES])
def test_config_shapes(make_repo, case, path, base, head, rows, expected):
    base_text = base.format(max_steps=40) if "{max_steps}" in base else base
    head_text = head.format(max_steps=50) if "{max_steps}" in head else head
    report = review_change(make_repo, {path: base_text}, {path: head_text})
    assert len(report.profiles) == rows
    assert codes(report) == expected, [f.message for f in report.findings]


def test_unbounded_config_row_says_why(make_repo):
    path = "configs/sft/mobile.toml"
    head = sft().replace("max_steps = 300\n", "")
    report = review_change(make_repo, {path: sft()}, {path: head})
    (row,) = report.profiles
    assert row.head is None and "trains until the run is stopped" in (row.head_error or "")
    (f,) = report.findings
    assert f.rule == "TRN002" and "needs `max_steps`" in f.message


def test_multi_node_world_size(make_repo):
    path = "configs/sft/big.toml"
    deploy = '[deployment]\ntype = "multi_node"\nnum_train_nodes = 4\n'
    base = f"max_steps = 20\n\n{deploy}\n[data]\nbatch_size = 64\n"
    head = f"max_steps = 20\n\n{deploy}\n[data]\nbatch_size = 48\n"
    report = review_change(make_repo, {path: base}, {path: head})
    (row,) = report.profiles
    # 4 nodes of 8 GPUs (Prime-RL's default per node): 64 rows give 2 micro-batches per rank, 48 none whole.
    assert (row.base.world_size, row.base.grad_accum) == (32, 2)
    (f,) = [f for f in report.findings if f.rule == "TRN003"]
    assert "world_size * micro_batch_size = 32" in f.message


def test_profile_takes_world_size_from_its_config(make_repo):
    config = "configs/sft/mobile.toml"
    profile = "training/compat_profiles/mobile.toml"
    body = f'config = "{config}"\ntarget_micro_steps = 300\nsync_scheduler_to_max_steps = false\n'
    report = review_change(make_repo, {config: sft()}, {config: sft(), profile: body})
    (row,) = report.profiles
    assert (row.head.max_steps, row.head.world_size, row.head.grad_accum) == (37, 2, 4)


POINTED_AT = [
    # (id, config text, TRN001 message part, or None when the profile is read with it)
    ("rl", RL, "Prime-RL RL config (it has `orchestrator`)"),
    ("orchestrator", SPLIT_ORCH, "Prime-RL orchestrator config (it has `batch_size`)"),
    ("inference", SPLIT_INFER, "Prime-RL inference config (it has `parallel`)"),
    ("rl-trainer", FAKE_RL_TRAINER, "Prime-RL RL trainer config (it has `async_level`)"),
    ("rl-trainer-fake-data", FAKE_RL_TRAINER_NO_MARK, "Prime-RL RL trainer config (it has `data.fake`)"),
    # Edge: a trainer config without [data] is not read on its own, but the profile vouches for it.
    ("trainer-without-data", SPLIT_TRAINER, None),
]


@pytest.mark.parametrize("case, text, problem", POINTED_AT, ids=[c[0] for c in POINTED_AT])
def test_profile_pointing_at_a_config_that_is_not_sft(make_repo, case, text, problem):
    config = "configs/run/train.toml"
    profile = "training/compat_profiles/run.toml"
    body = (
        f'config = "{config}"\ntarget_examples = 300\nbatch_size = 8\nsync_scheduler_to_max_steps = false\n'
    )
    text = text.format(max_steps=40)
    report = review_change(make_repo, {config: text}, {config: text, profile: body})
    if problem is None:
        (row,) = report.profiles
        assert (row.head.max_steps, row.head.config_path) == (38, config) and codes(report) == []
    else:
        (f,) = report.findings
        assert f.rule == "TRN001" and problem in f.message, f.message
