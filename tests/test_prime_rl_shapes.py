"""Prime-RL configs as real repositories hold them: which are read as SFT configs, which are left alone,
and what the checks say about each. The fixtures are written for this project; they copy the shapes of
Prime-RL's configs (tables, nested tables, arrays of tables, keys the bot does not model), not their text."""

from __future__ import annotations

import pytest

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


def test_profile_pointing_at_an_rl_config_is_told_so(make_repo):
    config = "configs/rl/rl.toml"
    profile = "training/compat_profiles/rl.toml"
    body = f'config = "{config}"\ntarget_examples = 300\n'
    rl = RL.format(max_steps=40)
    report = review_change(make_repo, {config: rl}, {config: rl, profile: body})
    (f,) = report.findings
    assert f.rule == "TRN001" and "Prime-RL RL config (it has `orchestrator`)" in f.message
