"""Ports (rules/training/ports.py): a run moved from one trainer's config to another's is one row, base ->
head, with the examples/updates delta, and TRN006 names the unit change; real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from rules.core.models import ProfileMath, StepValues
from rules.training.ports import join_ports

FIXTURES = Path(__file__).parent / "fixtures" / "trainers"
BOT_YML = "training:\n  world_size: 1\n  datasets:\n    org/chat: 300\n"
PRIME_RL = 'max_steps = {n}\n\n[model]\nname = "m"\n\n[data]\nbatch_size = 8\nseq_len = 1024\n'
LEGACY = 'name = "env0-mobile300"\ntarget_micro_steps = 300\nbatch_size = 8\n'
HF = """per_device_train_batch_size: 1
gradient_accumulation_steps: 8
num_train_epochs: 1
dataset_name: org/chat
learning_rate: 2.0e-05
"""
AXOLOTL = """base_model: org/model
datasets:
  - path: org/chat
    type: chat_template
sequence_len: 2048
micro_batch_size: 1
gradient_accumulation_steps: 8
num_epochs: 1
warmup_steps: 10
"""
TORCHTUNE = """model:
  _component_: torchtune.models.llama3_2.lora_llama3_2_1b
dataset:
  _component_: torchtune.datasets.chat_dataset
  source: org/chat
batch_size: 1
gradient_accumulation_steps: 8
epochs: 1
max_steps_per_epoch: null
lr_scheduler:
  _component_: torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup
  num_warmup_steps: 10
"""
GSM8K = "$HOME/data/gsm8k/train.parquet"
OPENRLHF = """python3 -m openrlhf.cli.train_ppo_ray \\
   --actor.num_nodes 1 --actor.num_gpus_per_node 8 \\
   --data.prompt_dataset $HOME/data/gsm8k/train.parquet \\
   --rollout.batch_size 1024 --rollout.n_samples_per_prompt 5 \\
   --train.batch_size 1280 --train.micro_batch_size 40 \\
   --train.num_episodes 15 --train.max_epochs 1
"""


def _check(make_repo, capsys, base: dict, head: dict) -> dict:
    repo = make_repo(base, head).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "json"])
    return json.loads(capsys.readouterr().out)


def _port(report: dict) -> tuple[dict, dict]:
    (row,) = report["profiles"]
    (finding,) = [f for f in report["findings"] if f["rule"] == "TRN006"]
    return row, finding


def test_legacy_micro_steps_ported_to_a_prime_rl_config(make_repo, capsys):
    """The mission's run, moved from a legacy micro-step profile (300 micro-batches of 1, an update every
    8: 37 updates, 296 examples) to a Prime-RL config of 38 optimizer steps of 8 (304 examples)."""
    base = {"training/compat_profiles/mobile300.toml": LEGACY}
    head = {
        "training/compat_profiles/mobile300.toml": None,
        "configs/sft/mobile300.toml": PRIME_RL.format(n=38),
    }
    row, finding = _port(_check(make_repo, capsys, base, head))
    assert (row["path"], row["ported_from"]) == (
        "configs/sft/mobile300.toml",
        "training/compat_profiles/mobile300.toml",
    )
    assert (row["base"]["semantics"], row["head"]["semantics"]) == ("legacy-micro", "optimizer")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (37, 38)
    assert (row["base"]["effective_train_examples"], row["head"]["effective_train_examples"]) == (296, 304)
    assert "from prime-rl (micro-batches) to prime-rl (optimizer steps)" in finding["message"]
    assert "optimizer updates 37 → 38, examples 296 → 304" in finding["message"]


def test_an_hf_recipe_ported_to_a_prime_rl_config(make_repo, capsys):
    """300 examples, b=1, GA=8: the HF loop makes 38 updates (the last of 4 micro-batches) on all 300; the
    Prime-RL config written with max_steps 37 applies 296."""
    base = {".github/bot.yml": BOT_YML, "configs/sft/run.yaml": HF}
    head = {"configs/sft/run.yaml": None, "configs/sft/run.toml": PRIME_RL.format(n=37)}
    row, finding = _port(_check(make_repo, capsys, base, head))
    assert (row["base"]["trainer"], row["head"]["trainer"], row["base_kind"]) == (
        "hf-trainer",
        "prime-rl",
        "hf-trainer",
    )
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (38, 37)
    assert (row["base"]["effective_train_examples"], row["head"]["effective_train_examples"]) == (300, 296)
    assert "moves from hf-trainer (optimizer steps) to prime-rl (optimizer steps)" in finding["message"]


def test_an_axolotl_config_ported_to_torchtune(make_repo, capsys):
    """The same 300 examples: axolotl steps the short last window (38 updates, 300 examples); torchtune
    never steps the epoch's last 4 micro-batches (37, 296). The markdown shows the port."""
    base = {".github/bot.yml": BOT_YML, "configs/sft.yml": AXOLOTL}
    head = {"configs/sft.yml": None, "recipes/sft.yaml": TORCHTUNE}
    row, finding = _port(_check(make_repo, capsys, base, head))
    assert (row["base"]["trainer"], row["head"]["trainer"]) == ("axolotl", "torchtune")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (38, 37)
    assert (row["base"]["effective_train_examples"], row["head"]["effective_train_examples"]) == (300, 296)
    assert {"optimizer_steps", "effective_train_examples", "trainer"} <= set(row["changed"])
    assert "optimizer updates 38 → 37, examples 300 → 296" in finding["message"]


def test_a_verl_script_ported_to_openrlhf(make_repo, capsys):
    """GSM8K's 7,473 prompts, 5 responses each, 15 epochs: verl makes 105 rollouts of 1,024 prompts, 4
    updates each (420); OpenRLHF with a train batch of 1,280 responses makes ⌊7473·5/1280⌋·15 = 435."""
    verl = (FIXTURES / "verl" / "verl-grpo_trainer-run_qwen2-7b.sh").read_text(encoding="utf-8")
    bot_yml = f"training:\n  datasets:\n    {GSM8K}: 7473\n"
    base = {".github/bot.yml": bot_yml, "scripts/verl/grpo.sh": verl}
    head = {"scripts/verl/grpo.sh": None, "scripts/openrlhf/grpo.sh": OPENRLHF}
    row, finding = _port(_check(make_repo, capsys, base, head))
    assert (row["base"]["trainer"], row["head"]["trainer"]) == ("verl", "openrlhf")
    assert (row["base"]["optimizer_steps"], row["head"]["optimizer_steps"]) == (420, 435)
    assert "moves from verl (rollouts) to openrlhf (optimizer steps)" in finding["message"]


def test_the_markdown_table_shows_one_row_for_a_port(make_repo, capsys):
    base = {".github/bot.yml": BOT_YML, "configs/sft.yml": AXOLOTL}
    repo = make_repo(base, {"configs/sft.yml": None, "recipes/sft.yaml": TORCHTUNE}).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", "markdown"])
    out = capsys.readouterr().out
    assert "| optimizer steps | 38 | **37** |" in out
    assert "ported from `configs/sft.yml` (axolotl config)" in out
    assert "**TRN006** step-unit-changed" in out


def test_bot_yml_pairs_a_port_whose_names_differ(make_repo, capsys):
    bot_yml = BOT_YML + "  ports:\n    configs/old-run.yml: recipes/new-run.yaml\n"
    base = {".github/bot.yml": bot_yml, "configs/old-run.yml": AXOLOTL}
    row, _ = _port(
        _check(make_repo, capsys, base, {"configs/old-run.yml": None, "recipes/new-run.yaml": TORCHTUNE})
    )
    assert row["ported_from"] == "configs/old-run.yml"


def test_an_unpaired_removal_and_addition_stay_two_rows(make_repo, capsys):
    base = {".github/bot.yml": BOT_YML, "configs/a.yml": AXOLOTL}
    report = _check(make_repo, capsys, base, {"configs/a.yml": None, "recipes/b.yaml": TORCHTUNE})
    assert sorted(r["path"] for r in report["profiles"]) == ["configs/a.yml", "recipes/b.yaml"]
    assert [f for f in report["findings"] if f["rule"] == "TRN006"] == []


def test_an_in_place_change_of_one_trainer_is_no_port(make_repo, capsys):
    changed = AXOLOTL.replace("gradient_accumulation_steps: 8", "gradient_accumulation_steps: 4")
    base = {".github/bot.yml": BOT_YML, "configs/a.yml": AXOLOTL}
    report = _check(make_repo, capsys, base, {"configs/a.yml": changed})
    (row,) = report["profiles"]
    # The warmup of 10 updates now takes a smaller share of the run: TRN007's, not a port's TRN006.
    assert row["ported_from"] is None and [f["rule"] for f in report["findings"]] == ["TRN007"]


def test_a_config_rewritten_in_place_for_another_trainer_is_a_unit_change(make_repo, capsys):
    base = {".github/bot.yml": BOT_YML, "configs/sft.yaml": AXOLOTL}
    report = _check(make_repo, capsys, base, {"configs/sft.yaml": TORCHTUNE})
    (finding,) = report["findings"]
    assert (
        finding["rule"] == "TRN006"
        and "moves from axolotl (optimizer steps) to torchtune" in finding["message"]
    )


def _row(path: str, kind: str, removed: bool) -> ProfileMath:
    v = StepValues(semantics="hf-epoch", trainer=kind, optimizer_steps=3)
    base, head = (v, None) if removed else (None, v)
    return ProfileMath(path=path, name=path.rsplit("/", 1)[-1], base=base, head=head, kind=kind)


@pytest.mark.parametrize(
    "added, rows_out",
    [
        ((("b/run.yaml", "torchtune"),), 1),  # one removed, one added, same name: one row
        ((("b/run.yaml", "torchtune"), ("c/run.yaml", "torchtune")), 3),  # two of that name: ambiguous
        ((("b/other.yaml", "torchtune"),), 2),  # different names
        ((("b/run.yaml", "axolotl"),), 2),  # the same format elsewhere: a new run, not a port
    ],
)
def test_join_ports_pairs_only_unambiguous_names_of_another_format(added, rows_out):
    rows = (_row("a/run.yml", "axolotl", True), *(_row(path, kind, False) for path, kind in added))
    assert len(join_ports(rows, {})) == rows_out
