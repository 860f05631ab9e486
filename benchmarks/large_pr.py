"""Benchmark: a local review of a 3,000-file pull request, as a ratio to the floor measured in the same run.

Builds a temporary git repository whose PR (`pr` against `main`) changes 500 test files (20 new tests each)
and 2,500 source files, then measures:

- the floor: `git diff` of the PR, plus reading and `ast.parse` of every changed test file at head;
- the bot: `load_changeset` (with the review's warm-ups while it waits on git) + `review` + rendering the
  comment (what `bot check` does), in a fresh interpreter, with that process's peak memory (max RSS);
- the whole process: `python -m bot check main..pr --format markdown` as a user runs it (interpreter start,
  imports, review, output), from its start to its exit.

The interpreters use the bytecode cache as an installed bot does (pip compiles it): PYTHONDONTWRITEBYTECODE
is dropped from their environment and one untimed run writes the cache first.

No network; prints figures, it is not a timed test. Goal (issue 11): bot / floor <= 1.5.

    python3 benchmarks/large_pr.py [--tests 500] [--sources 2500] [--new-tests 20] [--repeat 7] [--profile]
        [--root PATH]    # review with another checkout of the bot, for a before/after figure
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_env import git_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

AGENTS = """# Working here

- Regression tests must name the PR/commit they guard in the docstring.
- No tautological tests.
- Don't rewrite passing tests to match new behavior.
"""

ENV = git_env({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})

# Run in a child interpreter so its peak RSS is the bot's alone; prints the review's wall time.
CHILD = """
import resource, sys, time
t0 = time.perf_counter()
from bot.review.engine import review
from bot.git.local import load_changeset
from bot.review.render import render_comment
try:  # as bot check does it; an older checkout (--root) has no warm_ups
    from bot.review.engine import warm_ups
    idle = {"idle": warm_ups()}
except ImportError:
    idle = {}
def cpu():
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, who))
t1 = time.perf_counter()
c1 = cpu()
changeset = load_changeset(sys.argv[1], base="main", head="pr", **idle)
report = review(changeset)
text = render_comment(report)
t2 = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
cov = report.coverage
used = cpu() - c1
print(t1 - t0, t2 - t1, rss, children, used, len(report.findings), cov.files_changed, cov.files_reviewed)
"""

PROFILE_CHILD = """
import cProfile, pstats, sys
from bot.review.engine import review, warm_ups
from bot.git.local import load_changeset
from bot.review.render import render_comment
def run():
    render_comment(review(load_changeset(sys.argv[1], base="main", head="pr", idle=warm_ups())))
cProfile.run("run()", sys.argv[2])
pstats.Stats(sys.argv[2]).sort_stats("cumulative").print_stats(35)
"""


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True).stdout


def test_file(index: int, first: int, count: int) -> list[str]:
    out = []
    for t in range(first, first + count):
        if t % 4 == 3:
            doc = f'"""Checks case {t} of module {index}."""'
        else:
            doc = f'"""Guards PR #{1000 + index}: case {t}."""'
        out += [
            f"def test_case_{t}():",
            f"    {doc}",
            f"    value = compute({index}, {t})",
            f"    assert value == {index * t}",
            "",
            "",
        ]
    return out


def source_file(index: int, functions: int) -> list[str]:
    out = []
    for n in range(functions):
        out += [
            f"def helper_{index}_{n}(a, b):",
            f'    """Combines a and b the way module {index} needs ({n})."""',
            "    total = 0",
            "    for i in range(a):",
            "        total += i * b",
            "    return total",
            "",
            "",
        ]
    return out


def build(root: Path, tests: int, sources: int, new_tests: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "AGENTS.md").write_text(AGENTS)
    header = ["from app import compute", "", ""]
    for i in range(tests):
        folder = repo / "tests" / f"pkg{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"test_mod{i}.py").write_text("\n".join(header + test_file(i, 0, 5)))
    for i in range(sources):
        folder = repo / "src" / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text("\n".join(source_file(i, 3)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    for i in range(tests):
        path = repo / "tests" / f"pkg{i // 50}" / f"test_mod{i}.py"
        path.write_text("\n".join(header + test_file(i, 0, 5 + new_tests)))
    for i in range(sources):
        path = repo / "src" / f"pkg{i // 100}" / f"mod{i}.py"
        path.write_text("\n".join(source_file(i, 9)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Add tests and helpers")
    return repo


def floor(repo: Path) -> tuple[float, int]:
    """`git diff` of the PR, then reading and parsing each changed test file: (seconds, diff lines)."""
    t0 = time.perf_counter()
    merge_base = git(repo, "merge-base", "main", "pr").decode().strip()
    diff = git(repo, "diff", "--no-color", "--no-ext-diff", "-M", merge_base, "pr")
    names = git(repo, "diff", "--name-only", "-z", merge_base, "pr").decode().split("\0")
    for name in names:
        if name.endswith(".py") and Path(name).name.startswith("test_"):
            ast.parse((repo / name).read_bytes(), name)
    return time.perf_counter() - t0, diff.count(b"\n")


def bot(repo: Path, root: Path) -> tuple[float, float, float, float, float, str]:
    """(import seconds, review seconds, peak RSS MiB, largest child's peak RSS MiB, CPU seconds of the
    review in the process and its children, summary) of one fresh-interpreter run."""
    env = {**ENV, "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(repo)],
        env=env,
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    imports, seconds, rss, children, cpu, findings, changed, reviewed = proc.stdout.split()
    return (
        float(imports),
        float(seconds),
        float(rss),
        float(children),
        float(cpu),
        f"{findings} findings, {reviewed}/{changed} files reviewed",
    )


def whole(repo: Path, root: Path) -> float:
    """Seconds of one `bot check` of the PR as a user runs it, in a fresh process."""
    env = {**ENV, "PYTHONPATH": str(root)}
    command = [sys.executable, "-m", "bot", "check", "main..pr", "--format", "markdown"]
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=repo, check=False, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--sources", type=int, default=2500)
    parser.add_argument("--new-tests", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one review instead")
    parser.add_argument("--root", type=Path, default=ROOT, help="the bot's source tree to run (before/after)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bot-large-pr-") as tmp:
        t0 = time.perf_counter()
        repo = build(Path(tmp), args.tests, args.sources, args.new_tests)
        print(f"built the PR in {time.perf_counter() - t0:.1f} s")
        if args.profile:
            env = {**ENV, "PYTHONPATH": str(ROOT)}
            out = Path(tmp) / "review.prof"
            subprocess.run(
                [sys.executable, "-c", PROFILE_CHILD, str(repo), str(out)], env=env, cwd=repo, check=True
            )
            return 0
        floors, bots, rss, child_rss, cpus, imports = [], [], [], [], [], []
        wholes, whole_floors = [], []
        summary = ""
        lines = 0
        whole(repo, args.root)  # writes the bytecode cache
        for _ in range(args.repeat):  # one after the other: a busy spell of the machine hits both
            seconds, lines = floor(repo)
            whole_floors.append(seconds)
            wholes.append(whole(repo, args.root))
            seconds, lines = floor(repo)
            floors.append(seconds)
            imp, seconds, peak, child_peak, cpu, summary = bot(repo, args.root)
            bots.append(seconds)
            imports.append(imp)
            rss.append(peak)
            child_rss.append(child_peak)
            cpus.append(cpu)
    f, b = statistics.median(floors), statistics.median(bots)
    print(
        f"PR: {args.tests + args.sources} files ({args.tests} test files x {args.new_tests} new tests), "
        f"{lines:,} diff lines"
    )
    print(f"floor (git diff + read and ast.parse of {args.tests} test files): median {f:.2f} s")
    print(
        f"bot (load_changeset + review + render): median {b:.2f} s; "
        f"imports {statistics.median(imports):.2f} s"
    )
    # Each bot run against the floor measured just before it: on a shared machine the speed drifts from
    # one second to the next, and a pair measured back to back shares it.
    runs = sorted(x / y for x, y in zip(bots, floors, strict=True))
    print(
        f"ratio bot / floor: {statistics.median(runs):.2f}, the median of {len(runs)} runs' ratios "
        f"(each run against the floor measured just before it); ratio of the medians {b / f:.2f}  "
        "(goal <= 1.5)"
    )
    print(f"ratio of each run to its own floor: {', '.join(f'{r:.2f}' for r in runs)}")
    whole_runs = sorted(x / y for x, y in zip(wholes, whole_floors, strict=True))
    print(
        f"whole process (`bot check main..pr`): median {statistics.median(wholes):.2f} s; ratio to the floor "
        f"{statistics.median(whole_runs):.2f}, the median of the runs' ratios "
        f"({', '.join(f'{r:.2f}' for r in whole_runs)})  (goal <= 1.5)"
    )
    print(
        f"CPU time of the review (the bot's process and its children): median {statistics.median(cpus):.2f} s"
    )
    print(
        f"peak memory (max RSS) of the bot's process: {max(rss):.0f} MiB; "
        f"of its largest child (git, or the forked diff parser): {max(child_rss):.0f} MiB"
    )
    print(f"report: {summary}; {args.repeat} runs; bot from {args.root}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
