"""Benchmark: review a PR that adds 500 test functions across 100 files, with every AGENTS.md rule on.

Builds a real temporary git repository (base on `main`, the PR on `pr`) and prints how long loading the
change set and analysing it take. It prints figures; it is not a timed test.

    python3 benchmarks/agents_bench.py [--files 100] [--tests-per-file 5] [--repeat 5]
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.git.local import load_changeset  # noqa: E402
from bot.review.engine import review  # noqa: E402
from rules.core.models import PullRequest  # noqa: E402

AGENTS = """# Working here

- Regression tests must name the PR/commit they guard in the docstring.
- No tautological tests.
- Don't rewrite passing tests to match new behavior.
- Trunk-based: branch off main, PR back to main.
"""


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _test_file(index: int, tests: int) -> str:
    out = ["import pytest", "", ""]
    for t in range(tests):
        # A mix: most tests name their PR, some do not, some cannot fail, one is waived.
        if t % 5 == 4:
            doc = f'"""Checks case {t} of module {index}."""'
        else:
            doc = f'"""Guards PR #{1000 + index}: case {t}."""'
        body = "    assert True" if t in (2, 3) else f"    assert compute({index}, {t}) == {index * t}"
        waiver = "  # bot: ignore[AGT002] smoke test" if t == 2 else ""
        if t % 3 == 0:
            out.append(f"@pytest.mark.parametrize('n', [1, 2, {t}])")
            out += [f"def test_case_{t}(n):{waiver}", f"    {doc}", body, "", ""]
        else:
            out += [f"async def test_case_{t}():{waiver}", f"    {doc}", body, "", ""]
    return "\n".join(out)


def build(root: Path, files: int, tests: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "AGENTS.md").write_text(AGENTS)
    (repo / "src").mkdir()
    (repo / "src/app.py").write_text("def compute(a, b):\n    return a * b\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    for i in range(files):
        folder = repo / "tests" / f"pkg{i // 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"test_mod{i}.py").write_text(_test_file(i, tests))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Add tests")
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--tests-per-file", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bot-bench-") as tmp:
        repo = build(Path(tmp), args.files, args.tests_per_file)
        pr = PullRequest(number=4242, title="Add tests", base_ref="main")
        loads, analyses, totals, warm = [], [], [], []
        report = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            changeset = load_changeset(repo, base="main", head="pr", pr=pr)
            t1 = time.perf_counter()
            report = review(changeset)
            t2 = time.perf_counter()
            # Same change set again: file texts are cached, so this is parsing and rules alone.
            review(changeset)
            warm.append(time.perf_counter() - t2)
            loads.append(t1 - t0)
            analyses.append(t2 - t1)
            totals.append(t2 - t0)
    assert report is not None
    by_rule: dict[str, int] = {}
    for f in report.findings:
        by_rule[f.rule] = by_rule.get(f.rule, 0) + 1
    print(f"PR: {args.files} files, {args.files * args.tests_per_file} test functions; {args.repeat} runs")
    print(f"load_changeset (git diff):           median {statistics.median(loads) * 1000:7.1f} ms")
    spread = f"   min {min(analyses) * 1000:.1f} ms   max {max(analyses) * 1000:.1f} ms"
    print(f"review (reads files, all rules):     median {statistics.median(analyses) * 1000:7.1f} ms{spread}")
    print(f"review again, texts cached (analysis): median {statistics.median(warm) * 1000:5.1f} ms")
    print(f"total:                               median {statistics.median(totals) * 1000:7.1f} ms")
    print(f"findings: {dict(sorted(by_rule.items()))}; waivers: {len(report.waivers)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
