"""The fixed cost of a pre-commit hook run: `bot check --staged --format text` on a one-file change.

Builds a small repository (an AGENTS.md, one test file, one staged edit of it), then runs the command as the
hook does, in a fresh process each time, and prints the median and minimum wall time next to a bare
`python -c pass`; `--imports` also prints the modules that cost most to import (`python -X importtime`).

    python3 benchmarks/hook.py [--runs N] [--imports]
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


def _times(command: list[str], cwd: Path, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--imports", action="store_true", help="also list the costliest imports")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bot-hook-bench-") as tmp:
        top = Path(tmp, "repo")
        _repo(top)
        hook = [sys.executable, "-m", "bot", "check", "--staged", "--format", "text"]
        for name, command in (
            ("bot check --staged", hook),
            ("python -c pass", [sys.executable, "-c", "pass"]),
        ):
            t = _times(command, top, args.runs)
            print(f"{name:20} median {statistics.median(t) * 1000:4.0f} ms   min {min(t) * 1000:4.0f} ms")
        if args.imports:
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
