"""Benchmark: a local review of a PR adding one large file of short lines (issue 10: size caps before work).

Builds a temporary git repository whose PR adds one file of `--mb` megabytes ("ab" lines) beside a small
change, then runs `load_changeset` + `review` in a fresh interpreter and prints its wall time, peak memory
(max RSS) and how the file was reported. Goal: 50 MB in under 5 s and 200 MB.

    python3 benchmarks/big_file.py [--mb 50] [--root PATH]

`--root` reviews with another checkout of the bot (e.g. an older commit, for a before/after figure).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_env import git_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = git_env()

CHILD = """
import resource, sys, time
from bot.review.engine import review
from bot.git.local import load_changeset
t0 = time.perf_counter()
report = review(load_changeset(sys.argv[1], base="main", head="pr"))
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
said = [f.message for f in report.findings if f.path == "data/big.txt"]
print(f"{seconds:.2f} {rss:.0f} {list(report.coverage.not_reviewed)} {said}")
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--root", type=Path, default=ROOT, help="the bot's source tree to run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bot-big-file-") as tmp:
        repo = Path(tmp)
        git(repo, "init", "-q", "-b", "main")
        (repo / "a.py").write_text("a = 1\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
        git(repo, "checkout", "-qb", "pr")
        (repo / "a.py").write_text("a = 2\n")
        (repo / "data").mkdir()
        lines = int(args.mb * 1_000_000 / 3)
        (repo / "data/big.txt").write_bytes(b"ab\n" * lines)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "add a big file")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(repo)],
            env={**ENV, "PYTHONPATH": str(args.root)},
            cwd=tmp,  # `python -c` puts the working folder first on the path: keep --root the bot imported
            check=True,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
    seconds, rss, report = proc.stdout.split(" ", 2)
    print(f"PR adding data/big.txt: {lines * 3 / 1e6:.0f} MB in {lines:,} lines, bot from {args.root}")
    print(
        f"load_changeset + review: {seconds} s (process wall {wall:.2f} s with imports); peak RSS {rss} MiB"
    )
    print(f"not reviewed, and findings on the file: {report.strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
