"""Benchmark: `--verify-tests` replayed on real fix commits of public pure-Python repositories.

For each commit listed in `replay_verify.csv` (repository, commit, node id, the outcome judged by reading the
commit's code before any run, and why), the bot's own selection and runner verify the commit as a pull
request: its new and changed tests run at the commit and on its parent with the commit's tests, with the
given Python's pytest (a virtual environment holding the projects' test dependencies, installed from the
package index). It prints, per commit, each test's outcome beside the judgement, then the totals and the wall
time. Repositories are cloned with `git clone --shared` from CLONES into a temporary folder, so the clones
themselves are never written to (the runner's temporary work trees go into the copy).

    python3 benchmarks/replay_verify.py --python /path/to/venv/bin/python [--only REPO] [--list]

`--list` prints the tests the bot selects per commit without running anything (to write the judgements).
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.git.local import load_changeset  # noqa: E402
from bot.verify.runner import Limits, Plan, verify  # noqa: E402
from rules.core.base import Review  # noqa: E402
from rules.core.models import PullRequest  # noqa: E402
from rules.core.verification import Verification  # noqa: E402
from rules.testcode.verify_select import added_names, test_files, tests_to_verify  # noqa: E402

HERE = Path(__file__).resolve().parent
CASES = HERE / "replay_verify.csv"
CLONES = Path("/work/clones")
# The runner's environment: no token of any kind, no network use by the tests, and no user site.
ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def load_cases(path: Path = CASES) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return [row for row in csv.DictReader(fh) if row["repo"] and not row["repo"].startswith("#")]


def _copy(repo: str, into: Path, clones: Path = CLONES) -> Path:
    """A `git clone --shared` copy of the clone of repo (owner/name) in clones, without a work tree."""
    source = clones / repo.replace("/", "+")
    target = into / repo.replace("/", "+")
    if not target.exists():
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(source), str(target)],
            check=True,
            capture_output=True,
        )
    return target


def _plan(top: Path, commit: str) -> tuple[Plan, str, str]:
    changeset = load_changeset(top, base=f"{commit}^", head=commit, pr=PullRequest())
    review = Review(changeset=changeset)
    plan = Plan(tests=tests_to_verify(review), files=test_files(review), added=added_names(review))
    return plan, changeset.base_sha, changeset.head_sha


def runner_env() -> dict[str, str]:
    """The tests' environment: no token of any kind, and no user site."""
    return {**{k: v for k, v in os.environ.items() if k in ENV_KEEP}, "PYTHONNOUSERSITE": "1"}


def verify_commit(top: Path, commit: str, python: str, env: dict[str, str]) -> tuple[Verification, ...]:
    """The bot's verification of commit as a pull request against its first parent, in top (a copy that
    may be written to: the runner adds and removes work trees there), with python's pytest."""
    plan, base, head = _plan(top, commit)
    return verify(
        top,
        plan,
        base=base,
        read_head=lambda path: _show(top, head, path),
        env=env,
        command=[python, "-m", "pytest", "-p", "no:randomly"],
        limits=Limits(test=60, total=300),
        head=head,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--python", default=sys.executable, help="the Python whose pytest runs the tests")
    p.add_argument("--only", help="only this repository (owner/name)")
    p.add_argument("--list", action="store_true", help="print the tests selected per commit; run nothing")
    p.add_argument("--cases", type=Path, default=CASES)
    args = p.parse_args(argv)
    env = runner_env()
    cases = [c for c in load_cases(args.cases) if args.only is None or c["repo"] == args.only]
    commits = list(dict.fromkeys((c["repo"], c["commit"]) for c in cases))
    judged = {(c["repo"], c["commit"], c["node_id"]): c for c in cases}
    rows: list[tuple[str, str, str, str, str, float]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bot-replay-") as tmp:
        for repo, commit in commits:
            top = _copy(repo, Path(tmp))
            if args.list:
                plan, _, _ = _plan(top, commit)
                for t in plan.tests:
                    print(f"{repo},{commit},{t.node_id},{t.state}")
                continue
            t0 = time.monotonic()
            found = verify_commit(top, commit, args.python, env)
            seconds = time.monotonic() - t0
            outcomes = {v.node_id: v for v in found}
            keys = [k for k in judged if k[:2] == (repo, commit)]
            for key in keys:
                v = outcomes.get(key[2])
                got = v.outcome.value if v is not None else "not-selected"
                rows.append((repo, commit[:10], key[2], got, judged[key]["judgement"], seconds))
                why = v.reason if v is not None else ""
                mark = "=" if got == judged[key]["judgement"] else "!"
                want = judged[key]["judgement"]
                print(f"{mark} {repo} {commit[:10]} {key[2]}", flush=True)
                print(f"    bot: {got:<18} judged: {want:<18} ({seconds:.1f} s) {why[:150]}", flush=True)
            for node, v in outcomes.items():
                if (repo, commit, node) not in judged:
                    print(f"? {repo} {commit[:10]} {node}: {v.outcome.value} (not judged)", flush=True)
    if args.list:
        return 0
    wall = time.monotonic() - started
    print()
    print(f"{len(commits)} commits from {len({r for r, _ in commits})} repositories, {len(rows)} tests, "
          f"wall time {wall:.0f} s")  # fmt: skip
    agree = sum(r[3] == r[4] for r in rows)
    print(f"bot agrees with the judgement on {agree} of {len(rows)} tests")
    print("outcome              bot  judged")
    bot, mine = Counter(r[3] for r in rows), Counter(r[4] for r in rows)
    for outcome in sorted(set(bot) | set(mine)):
        print(f"{outcome:<20} {bot[outcome]:>3} {mine[outcome]:>7}")
    confusion = Counter((r[4], r[3]) for r in rows if r[3] != r[4])
    for (want, got), n in sorted(confusion.items()):
        print(f"  judged {want}, bot said {got}: {n}")
    return 0


def _show(top: Path, sha: str, path: str) -> bytes | None:
    proc = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=top, capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


if __name__ == "__main__":
    raise SystemExit(main())
