"""TRN007 warmup-fraction-moved and TRN008 max-steps-overrides-epochs on real git repositories."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main

BOT_YML = "training:\n  world_size: 1\n  datasets:\n    org/chat: {n}\n"


def hf(ga: int = 4, b: int = 4, extra: str = "warmup_steps: 10\n", dataset: str = "org/chat") -> str:
    return (
        f"per_device_train_batch_size: {b}\n"
        f"gradient_accumulation_steps: {ga}\n"
        "num_train_epochs: 1\n"
        f"dataset_name: {dataset}\n"
        "learning_rate: 2.0e-05\n"
        f"{extra}"
    )


AXOLOTL = """base_model: org/model
datasets:
  - path: org/chat
    type: chat_template
sequence_len: 2048
micro_batch_size: 1
gradient_accumulation_steps: {ga}
num_epochs: 2
warmup_steps: 10
"""


def _findings(make_repo, capsys, base: dict, head: dict, code: str, n: int = 1200) -> list[dict]:
    repo = make_repo({".github/bot.yml": BOT_YML.format(n=n), **base}, head).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    return [f for f in report["findings"] if f["rule"] == code]


def test_trn007_accumulation_doubled_under_a_fixed_warmup(make_repo, capsys):
    """1200 examples, b=4: GA 4 gives 75 updates, GA 8 ceil(300 / 8) = 38; warmup stays 10."""
    (finding,) = _findings(make_repo, capsys, {"sft.yaml": hf(ga=4)}, {"sft.yaml": hf(ga=8)}, "TRN007")
    assert "warmup stays 10 updates while gradient_accumulation_steps 4 → 8" in finding["message"]
    assert "10 of 75 updates (13.3%) → 10 of 38 updates (26.3%)" in finding["message"]
    assert (finding["path"], finding["line"]) == ("sft.yaml", 6)


def test_trn007_unknown_dataset_says_what_the_warmup_covers(make_repo, capsys):
    base, head = hf(ga=4, dataset="org/other"), hf(ga=8, dataset="org/other")
    (finding,) = _findings(make_repo, capsys, {"sft.yaml": base}, {"sft.yaml": head}, "TRN007")
    assert "covers 320 examples instead of 160" in finding["message"]


def test_trn007_axolotl_micro_batch_changed(make_repo, capsys):
    """axolotl: ceil(1200 × 2 / 8) = 300 updates, then ceil(1200 × 2 / 4) = 600; warmup stays 10."""
    base = {"configs/sft.yml": AXOLOTL.format(ga=8)}
    (finding,) = _findings(make_repo, capsys, base, {"configs/sft.yml": AXOLOTL.format(ga=4)}, "TRN007")
    assert "10 of 300 updates (3.3%) → 10 of 600 updates (1.7%)" in finding["message"]
    assert finding["line"] == 9


@pytest.mark.parametrize(
    "base, head",
    [
        (hf(ga=4), hf(ga=8, extra="warmup_steps: 5\n")),  # the warmup moved with the batch
        (hf(ga=4, extra="warmup_ratio: 0.1\n"), hf(ga=8, extra="warmup_ratio: 0.1\n")),  # a ratio follows
        (hf(ga=4, extra=""), hf(ga=8, extra="")),  # no warmup
        (hf(ga=4), hf(ga=4, extra="warmup_steps: 10\nmax_steps: 50\n")),  # the batch stays
    ],
)
def test_trn007_near_misses(make_repo, capsys, base, head):
    assert _findings(make_repo, capsys, {"sft.yaml": base}, {"sft.yaml": head}, "TRN007") == []


def test_trn008_max_steps_added_beside_epochs(make_repo, capsys):
    """1000 examples, b=2, GA 4: 125 updates an epoch, so 60 updates are 0.48 of an epoch."""
    head = hf(ga=4, b=2, extra="max_steps: 60\n")
    (finding,) = _findings(make_repo, capsys, {"sft.yaml": hf(b=2)}, {"sft.yaml": head}, "TRN008", n=1000)
    assert "`max_steps: 60` overrides `num_train_epochs: 1`" in finding["message"]
    assert "0.48 epochs of 1000 examples" in finding["message"]
    assert (finding["path"], finding["line"]) == ("sft.yaml", 6)


def test_trn008_unknown_dataset_as_a_formula(make_repo, capsys):
    base, head = hf(dataset="org/other"), hf(dataset="org/other", extra="max_steps: 60\n")
    (finding,) = _findings(make_repo, capsys, {"sft.yaml": base}, {"sft.yaml": head}, "TRN008")
    assert "about 60 × 16 / N epochs of N training examples" in finding["message"]


def test_trn008_axolotl(make_repo, capsys):
    head = AXOLOTL.format(ga=8) + "max_steps: 20\n"
    base = {"configs/sft.yml": AXOLOTL.format(ga=8)}
    (finding,) = _findings(make_repo, capsys, base, {"configs/sft.yml": head}, "TRN008")
    assert "`max_steps: 20` overrides `num_epochs: 2`" in finding["message"]


@pytest.mark.parametrize(
    "base, head",
    [
        (hf(), hf(extra="max_steps: -1\n")),  # -1 leaves the length to the epochs
        (hf(extra="max_steps: 60\n"), hf(ga=8, extra="max_steps: 60\n")),  # the pair was there, unchanged
        (hf(), hf(ga=8)),  # no max_steps
    ],
)
def test_trn008_near_misses(make_repo, capsys, base, head):
    assert _findings(make_repo, capsys, {"sft.yaml": base}, {"sft.yaml": head}, "TRN008") == []


def _trn009(make_repo, capsys, pin: str | None, base_extra: str, head_extra: str) -> list[dict]:
    pins = {"requirements.txt": f"torch\ntransformers=={pin}\n"} if pin else {}
    base = {**pins, "sft.yaml": hf(ga=4, extra=base_extra)}
    return _findings(make_repo, capsys, base, {"sft.yaml": hf(ga=8, extra=head_extra)}, "TRN009")


def test_trn009_warmup_ratio_on_transformers_5(make_repo, capsys):
    (finding,) = _trn009(make_repo, capsys, "5.2.0", "warmup_ratio: 0.1\n", "warmup_ratio: 0.1\n")
    assert "`warmup_ratio: 0.1` with transformers==5.2 in requirements.txt" in finding["message"]
    assert "Write `warmup_steps: 0.1`" in finding["message"]
    assert (finding["path"], finding["line"]) == ("sft.yaml", 6)


def test_trn009_ratio_replaces_an_absolute_warmup_on_5(make_repo, capsys):
    both = "warmup_steps: 10\nwarmup_ratio: 0.1\n"
    (finding,) = _trn009(make_repo, capsys, "5.0.0", both, both)
    assert "beside `warmup_steps: 10` it replaces that warmup" in finding["message"]
    assert finding["line"] == 7


def test_trn009_fractional_warmup_steps_on_transformers_4(make_repo, capsys):
    (finding,) = _trn009(make_repo, capsys, "4.57.1", "warmup_ratio: 0.1\n", "warmup_steps: 0.1\n")
    assert "transformers 4 counts warmup_steps in whole updates" in finding["message"]
    assert "Write `warmup_ratio: 0.1`" in finding["message"]


@pytest.mark.parametrize(
    "pin, extra",
    [
        ("4.57.1", "warmup_ratio: 0.1\n"),  # the ratio is 4.x's own key
        ("5.2.0", "warmup_steps: 0.1\n"),  # 5.x's spelling of a ratio
        ("5.2.0", "warmup_steps: 10\n"),  # an absolute warmup reads the same in both
        (None, "warmup_ratio: 0.1\n"),  # no pin: which release runs is unknown
    ],
)
def test_trn009_near_misses(make_repo, capsys, pin, extra):
    assert _trn009(make_repo, capsys, pin, extra, extra) == []


def test_trn009_pin_moved_to_5_reads_unchanged_configs_again(make_repo, capsys):
    """Only requirements.txt changes (4.57 -> 5.2): the unchanged recipe's warmup_ratio is now deprecated."""
    recipe = hf(extra="warmup_ratio: 0.1\n")
    base = {"requirements.txt": "transformers==4.57.1\n", "recipes/sft.yaml": recipe}
    head = {"requirements.txt": "transformers==5.2.0\n"}
    (finding,) = _findings(make_repo, capsys, base, head, "TRN009")
    assert "with transformers==5.2 in requirements.txt (transformers 4.57 at base)" in finding["message"]
    assert (finding["path"], finding["line"]) == ("recipes/sft.yaml", 6)


def test_trn009_pin_moved_within_4_reads_nothing_again(make_repo, capsys):
    base = {"requirements.txt": "transformers==4.52.0\n", "recipes/sft.yaml": hf(extra="warmup_ratio: 0.1\n")}
    head = {"requirements.txt": "transformers==4.57.1\n"}
    assert _findings(make_repo, capsys, base, head, "TRN009") == []


PROFILE = """name = "decay"
target_examples = 640
batch_size = {b}
sync_scheduler_to_max_steps = false

[scheduler]
type = "linear"
warmup_steps = 0
decay_steps = 10
"""


def test_trn007_a_fixed_decay_takes_a_larger_share_when_the_batch_doubles(make_repo, capsys):
    """The decay path: a profile's absolute `decay_steps` stays 10 while its batch 8 -> 16 (micro-batch 1,
    so the accumulation) halves the run (80 -> 40 updates), so the decay's share doubles; a warmup of 0
    says nothing."""
    path = "training/compat_profiles/decay.toml"
    (finding,) = _findings(
        make_repo, capsys, {path: PROFILE.format(b=8)}, {path: PROFILE.format(b=16)}, "TRN007"
    )
    assert finding["message"] == (
        "`decay`: decay stays 10 updates while gradient_accumulation_steps 8 → 16: "
        "10 of 80 updates (12.5%) → 10 of 40 updates (25.0%)."
    )
    assert finding["path"] == path and finding["line"] == 9


def test_trn007_a_fixed_decay_under_an_unchanged_batch_says_nothing(make_repo, capsys):
    path = "training/compat_profiles/decay.toml"
    same = PROFILE.format(b=8).replace("640", "1280")
    assert _findings(make_repo, capsys, {path: PROFILE.format(b=8)}, {path: same}, "TRN007") == []
