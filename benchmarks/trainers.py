"""Benchmark: a local review of a pull request changing many trainer configs, as a ratio to its floor.

Builds a temporary git repository whose PR changes `gradient_accumulation_steps` 4 -> 8 in N trainer
configs (half HF TrainingArguments recipes, half axolotl configs, each naming a dataset `.github/bot.yml`
sizes) beside an accelerate config, then measures, best of `--repeat` runs:

- the floor: `git diff` of the PR, plus reading and YAML-parsing every changed config at head;
- the bot: `load_changeset` + `review` + rendering the comment (what `bot check` does), in this process.

No network; prints figures, it is not a timed test. Goal (issue 25): within the large-PR benchmark's
bot / floor <= 1.5 ... or say by how much it is not.

    python3 benchmarks/trainers.py [--configs 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml  # noqa: E402

from benchmarks.bench_env import git_env  # noqa: E402
from bot.git.local import load_changeset  # noqa: E402
from bot.review.engine import review  # noqa: E402
from bot.review.render import render_comment  # noqa: E402

ENV = git_env()
HF = """model_name_or_path: org/model-{i}
dataset_name: org/set-{i}
per_device_train_batch_size: 4
gradient_accumulation_steps: {ga}
num_train_epochs: 3
learning_rate: 2.0e-05
lr_scheduler_type: cosine
warmup_ratio: 0.1
output_dir: data/run-{i}
"""
AXOLOTL = """base_model: org/model-{i}
datasets:
  - path: org/set-{i}
    type: alpaca
val_set_size: 0.05
sequence_len: 4096
sample_packing: false
micro_batch_size: 2
gradient_accumulation_steps: {ga}
num_epochs: 2
warmup_ratio: 0.1
"""
ACCELERATE = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def write(repo: Path, n: int, ga: int) -> list[Path]:
    paths = []
    for i in range(n):
        kind, body = ("hf", HF) if i % 2 == 0 else ("axolotl", AXOLOTL)
        path = repo / "recipes" / kind / f"run-{i}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body.format(i=i, ga=ga), encoding="utf-8")
        paths.append(path)
    return paths


def build(repo: Path, n: int) -> list[Path]:
    git(repo, "init", "-q", "-b", "main")
    (repo / ".github").mkdir()
    sizes = "".join(f"    org/set-{i}: {10_000 + 37 * i}\n" for i in range(n))
    (repo / ".github/bot.yml").write_text(f"training:\n  datasets:\n{sizes}", encoding="utf-8")
    (repo / "recipes/accelerate_configs").mkdir(parents=True)
    (repo / "recipes/accelerate_configs/ddp.yaml").write_text(ACCELERATE, encoding="utf-8")
    write(repo, n, 4)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    paths = write(repo, n, 8)
    git(repo, "commit", "-qam", "head")
    return paths


def floor(repo: Path, paths: list[Path]) -> float:
    start = time.perf_counter()
    git(repo, "diff", "main...pr")
    for path in paths:
        yaml.safe_load(path.read_text(encoding="utf-8"))
    return time.perf_counter() - start


def bot(repo: Path) -> tuple[float, int]:
    start = time.perf_counter()
    report = review(load_changeset(repo, base="main", head="pr"))
    render_comment(report)
    return time.perf_counter() - start, len(report.profiles)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        paths = build(repo, args.configs)
        floors = [floor(repo, paths) for _ in range(args.repeat)]
        runs = [bot(repo) for _ in range(args.repeat)]
    rows = runs[0][1]
    best_floor, best_bot = min(floors), min(t for t, _ in runs)
    print(
        f"{args.configs} trainer configs changed: {rows} step-math rows; floor {best_floor * 1000:.0f} ms, "
        f"bot {best_bot * 1000:.0f} ms, bot / floor = {best_bot / best_floor:.2f} (best of {args.repeat})"
    )


if __name__ == "__main__":
    main()
