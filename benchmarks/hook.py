"""The fixed cost of a pre-commit hook run: `bot check --staged --format text` on a one-file change.

Builds a small repository (an AGENTS.md, one test file, one staged edit of it), then runs the command as the
hook does, in a fresh process each time, and prints the median and minimum wall time and the minimum CPU
time (the process and its git children) next to a bare `python -c pass`; `--imports` also prints the modules
that cost most to import (`python -X importtime`) and those a one-file check imports that it should not.

The runs use the bytecode cache as an installed bot does (pip compiles it): PYTHONDONTWRITEBYTECODE is
dropped from their environment and one untimed run writes the cache first.

    python3 benchmarks/hook.py [--runs N] [--imports] [--root PATH]  # --root: another checkout, before/after
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENTS = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
TEST = 'def test_a():\n    """Guards PR #1."""\n    assert {}\n'
# Packages a text-format check of a one-file change has no use for (tests/test_import_budget.py asserts it).
HEAVY = {"jinja2", "yaml", "github", "requests", "cmarkgfm", "hypothesis", "libcst"}
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@invalid", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@invalid", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def _repo(top: Path) -> None:
    env = {**os.environ, **GIT_ENV, "HOME": str(top)}
    (top / "tests").mkdir(parents=True)
    (top / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    (top / "tests/test_a.py").write_text(TEST.format(1), encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=top, env=env, check=True)
    (top / "tests/test_a.py").write_text(TEST.format(2), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=top, env=env, check=True)


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(root)}


def _times(command: list[str], cwd: Path, runs: int, root: Path) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (user + system, with the git processes it waited for) of each run."""
    env = _env(root)
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)  # writes the cache
    wall, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        wall.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        proc.returncode = 0  # reaped by wait4 above
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--imports", action="store_true", help="also list the costliest imports")
    parser.add_argument("--root", type=Path, default=ROOT, help="the bot's source tree to run (before/after)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bot-hook-bench-") as tmp:
        top = Path(tmp, "repo")
        _repo(top)
        hook = [sys.executable, "-m", "bot", "check", "--staged", "--format", "text"]
        for name, command in (
            ("bot check --staged", hook),
            ("python -c pass", [sys.executable, "-c", "pass"]),
        ):
            t, cpu = _times(command, top, args.runs, args.root)
            print(
                f"{name:20} median {statistics.median(t) * 1000:4.0f} ms   min {min(t) * 1000:4.0f} ms   "
                f"CPU min {min(cpu) * 1000:4.0f} ms"
            )
        if args.imports:
            env = _env(args.root)
            proc = subprocess.run(
                [sys.executable, "-X", "importtime", *hook[1:]],
                cwd=top,
                env=env,
                capture_output=True,
                text=True,
            )
            rows = [line.split("|") for line in proc.stderr.splitlines() if line.startswith("import time:")]
            own = sorted(((int(r[0].split(":")[1]), r[2].strip()) for r in rows[1:]), reverse=True)[:15]
            print("costliest imports (own time):")
            for micros, name in own:
                print(f"  {micros / 1000:5.1f} ms  {name}")
            loaded = {r[2].strip().split(".")[0] for r in rows[1:]}
            print(f"imported, and not needed by this check: {sorted(loaded & HEAVY) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
