"""Start-up of the action: from a fresh runner-like environment to a finished local review, cold and warm.

Runs action.yml's steps the way a runner does (tests/actionrunner.py) in `check` mode on the bundled example:

- cold: empty HOME and pip cache, nothing to restore; the install step creates a clean venv and installs
  every dependency from requirements/action.txt (hash-checked wheels from PyPI); then the review runs;
- warm: the environment the cold run built is packed as actions/cache would save it, removed, and unpacked
  again (timed, standing in for the cache restore), then every step runs.

setup-python is not timed (on hosted runners it finds the interpreter in the tool cache), nor is
actions/cache's download of the archive. Also prints the wall time of `python -m bot --help` in the venv the
install step built (a fresh install) and its import time of bot.cli.main. The cold run downloads the wheels
with pip's own configuration (its index).

    python3 benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.cli.examples import build_repo  # noqa: E402
from tests.actionrunner import ActionRun, run_action  # noqa: E402

# pip uses its own configuration (the index this machine's pip is set up for); only prompts are refused.
PIP_ENV = {"PIP_NO_INPUT": "1"}


def _once(work: Path, home: Path, archive: Path | None) -> tuple[float, float, ActionRun]:
    restore_seconds = 0.0

    def setup_python(with_: dict, env: dict) -> dict:
        return {"python-path": sys.executable, "python-version": sys.version.split()[0]}

    def cache(with_: dict, env: dict) -> dict:
        nonlocal restore_seconds
        if archive is None:
            return {"cache-hit": "false"}
        start = time.perf_counter()
        with tarfile.open(archive) as tar:
            tar.extractall(Path(with_["path"]).parent, filter="tar")
        restore_seconds = time.perf_counter() - start
        return {"cache-hit": "true"}

    repo = build_repo(ROOT / "examples" / "mobile300", work)
    env = {**PIP_ENV, "PIP_CACHE_DIR": str(home / ".cache" / "pip")}
    start = time.perf_counter()
    run = run_action(
        inputs={"mode": "check"},
        workspace=repo,
        temp=work / "run",
        home=home,
        uses={"actions/setup-python": setup_python, "actions/cache": cache},
        github={"event_name": "pull_request", "event": {}},
        base_env=env,
    )
    total = time.perf_counter() - start
    if run.outputs.get("verdict") not in ("ready", "needs-work"):
        failed = next((s for s in run.steps if s.returncode not in (0, 1)), run.steps[-1])
        raise SystemExit(
            f"the action did not finish the review: {failed.name}\n"
            f"{failed.stdout[-2000:]}\n{failed.stderr[-2000:]}"
        )
    return total, restore_seconds, run


def _venv_of(run: ActionRun) -> Path:
    return Path(run.step("install").outputs["python"]).parent.parent


def _help_figures(python: Path, cwd: Path, runs: int = 21) -> tuple[float, float]:
    """Median wall time of `python -m bot --help` (ms) and the cumulative import time of bot.cli.main (ms).

    python is the fresh install's interpreter (the venv the action's install step built), run from a
    folder outside the repository so that it imports the installed bot.
    """
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([python, "-m", "bot", "--help"], capture_output=True, cwd=cwd, check=True)
        walls.append((time.perf_counter() - start) * 1000)
    proc = subprocess.run(
        [python, "-X", "importtime", "-m", "bot", "--help"], capture_output=True, text=True, cwd=cwd
    )
    match = re.search(r"^import time:\s+\d+ \|\s+(\d+) \| +bot\.cli$", proc.stderr, re.M)
    return statistics.median(walls), int(match.group(1)) / 1000 if match else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs (default 3)")
    args = parser.parse_args()
    cold, warm, restore = [], [], []
    with tempfile.TemporaryDirectory(prefix="bot-startup-") as tmp:
        base = Path(tmp)
        home = base / "home"
        total, _, run = _once(base / "cold", home, None)
        cold.append(total)
        steps = {s.name: s.seconds for s in run.steps if s.ran}
        venv = _venv_of(run)
        archive = base / "venv.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(venv, arcname=venv.name)
        size_mb = archive.stat().st_size / 1e6
        for i in range(args.runs):
            shutil.rmtree(venv)
            total, seconds, run = _once(base / f"warm{i}", home, archive)
            warm.append(total)
            restore.append(seconds)
        warm_steps = {s.name: s.seconds for s in run.steps if s.ran}
        wall, cli = _help_figures(_venv_of(run) / "bin" / "python", base)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores")
    print(f"cold start to finished review: {cold[0]:.2f} s")
    for name, seconds in steps.items():
        print(f"  {name:<32} {seconds:6.2f} s")
    print(
        f"warm start to finished review: median {statistics.median(warm):.2f} s of {len(warm)} "
        f"(min {min(warm):.2f}, max {max(warm):.2f}), "
        f"of which cache unpack {statistics.median(restore):.2f} s ({size_mb:.1f} MB archive)"
    )
    for name, seconds in warm_steps.items():
        print(f"  {name:<32} {seconds:6.2f} s")
    print(
        f"`python -m bot --help` in the fresh venv: {wall:.0f} ms wall (median of 21), "
        f"importing bot.cli.main {cli:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
