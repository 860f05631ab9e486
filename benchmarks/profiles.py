"""Prints how long the review takes on a pull request that changes many training profiles.

Run: python3 benchmarks/profiles.py [files] [python_profiles]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_env import git_env  # noqa: E402
from bot.git.local import load_changeset  # noqa: E402
from bot.review.engine import review  # noqa: E402
from rules.training.stepmath import StepInputs, derive  # noqa: E402

ENV = git_env()


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True)


def write(repo: Path, files: int, python_profiles: int, key: str) -> None:
    folder = repo / "training/compat_profiles"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (folder / f"p{i}.toml").write_text(f"{key} = {300 + i}\nbatch_size = 8\n", encoding="utf-8")
    body = ",\n".join(f'    "py{i}": {{"{key}": {300 + i}, "batch_size": 8}}' for i in range(python_profiles))
    (repo / "training/cli.py").write_text(f"COMPAT_PROFILES = {{\n{body}\n}}\n", encoding="utf-8")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    python_profiles = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    start = time.perf_counter()
    for m in range(1, 200_001):
        derive(StepInputs(batch_size=8, target_micro_steps=m + 8))
    per_derive = (time.perf_counter() - start) / 200_000 * 1e6
    print(f"derive(): {per_derive:.2f} µs per call")

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        git(repo, "init", "-q", "-b", "main")
        write(repo, files, python_profiles, "target_examples")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
        git(repo, "checkout", "-qb", "pr")
        write(repo, files, python_profiles, "target_micro_steps")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "head")
        changeset = load_changeset(repo, base="main", head="pr")
        tracemalloc.start()
        start = time.perf_counter()
        report = review(changeset)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(
        f"review of {files} profile files + {python_profiles} Python-literal profiles: "
        f"{len(report.profiles)} rows, {len(report.findings)} findings in {elapsed:.2f} s, "
        f"peak traced memory {peak / 2**20:.1f} MiB"
    )


if __name__ == "__main__":
    main()
