"""Signal benchmark: replays pinned commit ranges of real repositories and scores the findings.

Every commit of each range is reviewed against its first parent with the bot's Python API
(`bot.git.local.load_changeset` + `bot.review.engine.review`), as a pull request with no title or body:
the local evidence is the commit itself. It prints findings per rule and per commit (median, max) and the
time taken, then scores the findings against the judged cases in `benchmarks/judged_cases.csv` (precision
and recall per rule; for Prime-RL, "no profile shown that is not an SFT run" is its own check). No network.

    python3 benchmarks/signal_ranges.py [--clones /work/clones] [--json] [--only OWNER/NAME] [--cases-only]

Clones are read from `<clones>/<owner>+<name>` (default `/work/clones`, or `$SIGNAL_CLONES`), with git
plumbing only: their checkout is never changed. A missing clone or commit is skipped, and the script prints
how to get it:

    git clone https://github.com/pytest-dev/pytest /work/clones/pytest-dev+pytest
    git -C /work/clones/pytest-dev+pytest cat-file -e df87db7b0462fb764ef73fa00561adf8ad047572

(a clone of the default branch made after the pinned head holds every pinned commit).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.judged import (  # noqa: E402
    CASES,
    OVERRIDE,
    PROFILE_CHECK,
    REAL,
    Case,
    build_extract,
    flagged,
    load_cases,
)
from bot.git.local import SourceError, load_changeset  # noqa: E402
from bot.review.engine import review  # noqa: E402
from rules.core.config import Config  # noqa: E402
from rules.core.models import PullRequest, Report  # noqa: E402

DEFAULT_CLONES = Path(os.environ.get("SIGNAL_CLONES", "/work/clones"))


@dataclass(frozen=True)
class Range:
    """A pinned stretch of first-parent history: the commits of base..head (touching paths, if given)."""

    repo: str
    base: str
    head: str
    licence: str
    paths: tuple[str, ...] = ()
    override: bool = False
    note: str = ""

    @property
    def clone(self) -> str:
        return self.repo.replace("/", "+")


RANGES = (
    Range(
        "pytest-dev/pytest",
        "e2dbcb27f9d44ec510dae964672499c93f78bbc1",
        "df87db7b0462fb764ef73fa00561adf8ad047572",
        "MIT",
        override=True,
        note="150 merges; AGT001/AGT002 on by config override (its AGENTS.md does not ask for references)",
    ),
    Range(
        "PrimeIntellect-ai/prime-rl",
        "7576e9a4f5afad1497638127415cffe4c3a6be37",
        "559b44772e471d1538537b8805cc77f3824a5e64",
        "Apache-2.0",
        paths=("configs/*.toml", "examples/*.toml"),
        note="the 200 commits up to head touching training configs",
    ),
    Range(
        "basnijholt/unidep",
        "d1af869b16a9d23709e04bef555f721922672387",
        "da0243fc1bce2d22ad741c00abd3b2a46735ddb5",
        "BSD-3-Clause",
        override=True,
        note="one feature PR with placeholder tests; AGT001/AGT002 by config override (no AGENTS.md)",
    ),
    Range(
        "openai/openai-agents-python",
        "9432f7ed30b9554ab5eaa84a4c0977059f96d5f0",
        "7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7",
        "MIT",
        note="last 30 commits, its own AGENTS.md",
    ),
    Range(
        "huggingface/smolagents",
        "52833b46820365746e658479d900d5213593efb4",
        "e3a5b8994b301983b91c0325546e9dc82eab8cf0",
        "Apache-2.0",
        note="last 30 commits, its own AGENTS.md",
    ),
    Range(
        "pydantic/pydantic-ai",
        "43f982f75f838f4c126cb77f2900842e18877dc8",
        "4fda38988f2939fa6ea9cdefcf120693e10ef491",
        "MIT",
        note="last 30 commits, its own AGENTS.md",
    ),
    Range(
        "Textualize/textual",
        "48b0f131b8d8b9dd108e343f2413c5029746c76a",
        "1d99508b928a771b51e1a527319c6b87dcff9e05",
        "MIT",
        override=True,
        note="150 first-parent commits; AGT001/AGT002 by config override",
    ),
    Range(
        "urllib3/urllib3",
        "c4b5917e911a90c8bf279448df8952a682294135",
        "6a8536b6e1b0cbe69ae801337c599951e527ae29",
        "MIT",
        override=True,
        note="150 first-parent commits; AGT001/AGT002 by config override",
    ),
    Range(
        "pallets/werkzeug",
        "9dca707dce906ba18ff2f78489808fe497f76fb7",
        "1b00618e787f40dfb21eba29caf8f8be7c8e1d93",
        "BSD-3-Clause",
        override=True,
        note="150 first-parent commits, a hand-written changelog; AGT001/AGT002 by config override",
    ),
    Range(
        "marshmallow-code/marshmallow",
        "9146621c696a81446fc0c6fbab4dc071cb72d5f8",
        "341b927f219205704728c05cd61f04d7e9727523",
        "MIT",
        override=True,
        note="450 first-parent commits, a hand-written changelog; AGT001/AGT002 by config override",
    ),
    Range(
        "psf/black",
        "5758da6e3cda4ec037c5dbb7867373cf694edd03",
        "8947c48ef2077c3a301b03c1e814dc2e3f78436e",
        "MIT",
        override=True,
        note="600 first-parent commits, a hand-written changelog; AGT001/AGT002 by config override",
    ),
)


def _git(clone: Path, *args: str) -> str:
    proc = subprocess.run(["git", "--no-pager", *args], cwd=clone, capture_output=True, check=False)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(lines[-1] if lines else f"git {args[0]} failed")
    return proc.stdout.decode()


def _has(clone: Path, sha: str) -> bool:
    """Whether the clone exists and holds the commit."""
    if not clone.is_dir():
        return False
    probe = ["git", "cat-file", "-e", f"{sha}^{{commit}}"]
    return subprocess.run(probe, cwd=clone, capture_output=True, check=False).returncode == 0


def commits(clone: Path, rng: Range) -> list[str]:
    """The range's commits, oldest first."""
    out = _git(clone, "rev-list", "--first-parent", "--reverse", f"{rng.base}..{rng.head}", "--", *rng.paths)
    return out.split()


@dataclass
class Outcome:
    """One reviewed commit."""

    repo: str
    commit: str
    counts: dict[str, int] = field(default_factory=dict)
    report: Report | None = None
    error: str | None = None


def config_for(repo: str) -> Config | None:
    """The override for a repository whose AGENTS.md does not turn the rules on, else None (its own)."""
    return OVERRIDE if any(r.repo == repo and r.override for r in RANGES) else None


def review_commit(clone: Path, repo: str, sha: str) -> Outcome:
    """Review sha against its first parent as a PR with no title or body."""
    try:
        changeset = load_changeset(clone, base=f"{sha}^1", head=sha, pr=PullRequest(head_ref=None))
        report = review(changeset, config=config_for(repo))
    except SourceError as exc:
        return Outcome(repo, sha, error=str(exc))
    counts: dict[str, int] = {}
    for f in report.findings:
        counts[f.rule] = counts.get(f.rule, 0) + 1
    return Outcome(repo, sha, counts=counts, report=report)


def _summary(outcomes: list[Outcome]) -> dict[str, object]:
    ok = [o for o in outcomes if o.error is None]
    rules = sorted({r for o in ok for r in o.counts})
    per_rule = {}
    for rule in rules:
        values = [o.counts.get(rule, 0) for o in ok]
        kinds: dict[str, int] = {}
        for o in ok:
            for f in o.report.findings if o.report else ():
                if f.rule == rule:
                    kinds[f.severity.value] = kinds.get(f.severity.value, 0) + 1
        per_rule[rule] = {
            "findings": sum(values),
            "by_severity": kinds,
            "commits_with": sum(1 for v in values if v),
            "per_pr_median": statistics.median(values) if values else 0,
            "per_pr_max": max(values, default=0),
        }
    totals = [sum(o.counts.values()) for o in ok]
    severities: dict[str, int] = {}
    for o in ok:
        for f in o.report.findings if o.report else ():
            severities[f.severity.value] = severities.get(f.severity.value, 0) + 1
    # Errors are what block a PR; notices and warnings do not, so noise is read from errors alone.
    errors = [sum(1 for f in o.report.findings if f.severity.value == "error") if o.report else 0 for o in ok]
    with_errors = [n for n in errors if n]
    shown = [len(o.report.profiles) if o.report else 0 for o in ok]
    return {
        "commits": len(ok),
        "profiles_shown": sum(shown),
        "commits_with_profiles": sum(1 for n in shown if n),
        "failed": [{"commit": o.commit, "error": o.error} for o in outcomes if o.error],
        "findings": sum(totals),
        "by_severity": severities,
        "per_pr_median": statistics.median(totals) if totals else 0,
        "per_pr_max": max(totals, default=0),
        "errors": sum(errors),
        "commits_with_errors": len(with_errors),
        "errors_per_pr_median": statistics.median(errors) if errors else 0,
        "errors_per_pr_max": max(errors, default=0),
        "errors_per_erring_pr_median": statistics.median(with_errors) if with_errors else 0,
        "rules": per_rule,
    }


def _label(case: Case) -> str:
    return f"{case.repo}@{case.commit[:10]} {case.path} {case.test}".strip()


def score(pairs: list[tuple[Case, bool]]) -> dict[str, dict[str, object]]:
    """Precision and recall per rule, with the cases each got wrong."""
    out: dict[str, dict[str, object]] = {}
    for rule in sorted({c.rule for c, _ in pairs}):
        mine = [(c, got) for c, got in pairs if c.rule == rule]
        tp = sum(1 for c, got in mine if c.expected and got)
        fp = sum(1 for c, got in mine if not c.expected and got)
        fn = sum(1 for c, got in mine if c.expected and not got)
        out[rule] = {
            "cases": len(mine),
            "yes": sum(1 for c, _ in mine if c.expected),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "wrong": [_label(c) for c, got in mine if got != c.expected],
        }
    return out


def _case_report(
    case: Case, clones: Path, reviewed: dict[tuple[str, str], Outcome], tmp: Path, missing: list[str]
) -> Report | None:
    """The report for a case's commit: from the clone, else from its committed extract, else None."""
    key = (case.repo, case.commit)
    clone = clones / case.repo.replace("/", "+")
    if key not in reviewed and _has(clone, case.commit):
        reviewed[key] = review_commit(clone, case.repo, case.commit)
    if key in reviewed:
        return reviewed[key].report
    missing.append(how_to_get(case.repo, case.commit, clones))
    if not case.extract or not (REAL / case.extract).is_dir():
        return None
    dest = tmp / case.extract
    if dest not in _BUILT:  # several cases share an extract: build it once
        _BUILT[dest] = build_extract(REAL / case.extract, dest)
    base, head = _BUILT[dest]
    return review(load_changeset(dest, base=base, head=head, pr=PullRequest()))


_BUILT: dict[Path, tuple[str, str]] = {}


def _head_text(case: Case, clones: Path, reviewed: dict[tuple[str, str], Outcome]) -> str | None:
    """The case's file at head, from the clone or else from the extract (to find the test's lines)."""
    if not case.test:
        return None
    if (case.repo, case.commit) in reviewed:
        proc = subprocess.run(
            ["git", "show", f"{case.commit}:{case.path}"],
            cwd=clones / case.repo.replace("/", "+"),
            capture_output=True,
            check=False,
        )
        return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None
    extracted = REAL / case.extract / "head" / case.path
    return extracted.read_text(encoding="utf-8") if extracted.is_file() else None


def how_to_get(repo: str, sha: str, clones: Path) -> str:
    dest = clones / repo.replace("/", "+")
    if not dest.is_dir():
        return f"git clone https://github.com/{repo} {dest}   # must hold commit {sha}"
    return f"git -C {dest} fetch https://github.com/{repo}   # for commit {sha}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=Path, default=DEFAULT_CLONES)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", help="only this OWNER/NAME")
    parser.add_argument("--cases-only", action="store_true", help="only the judged cases, not the ranges")
    parser.add_argument("--dump", type=Path, help="write every finding of every commit as JSON lines here")
    args = parser.parse_args(argv)
    say = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    reviewed: dict[tuple[str, str], Outcome] = {}
    missing: list[str] = []
    ranges_out = []
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    started = time.perf_counter()
    for rng in RANGES if not args.cases_only else ():
        if args.only and rng.repo != args.only:
            continue
        clone = args.clones / rng.clone
        if not _has(clone, rng.head):
            missing.append(how_to_get(rng.repo, rng.head, args.clones))
            continue
        if not _has(clone, rng.base):
            missing.append(how_to_get(rng.repo, rng.base, args.clones))
            continue
        t0 = time.perf_counter()
        outcomes = []
        for sha in commits(clone, rng):
            key = (rng.repo, sha)
            if key not in reviewed:
                reviewed[key] = review_commit(clone, rng.repo, sha)
            outcome = reviewed[key]
            outcomes.append(outcome)
            if dump and outcome.report:
                _dump(dump, rng.repo, sha, outcome.report)
        summary = {
            "repo": rng.repo,
            "base": rng.base,
            "head": rng.head,
            "paths": list(rng.paths),
            "note": rng.note,
            "override": rng.override,
            "seconds": round(time.perf_counter() - t0, 1),
            **_summary(outcomes),
        }
        ranges_out.append(summary)
        _print_range(say, summary)
    cases = [c for c in load_cases() if not args.only or c.repo == args.only]
    pairs: list[tuple[Case, bool]] = []
    skipped = from_extracts = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            report = _case_report(case, args.clones, reviewed, Path(tmp), missing)
            if report is None:
                skipped += 1
                continue
            from_extracts += (case.repo, case.commit) not in reviewed
            pairs.append((case, flagged(report, case, _head_text(case, args.clones, reviewed))))
    scores = score(pairs)
    not_sft = [_label(c) for c, got in pairs if c.rule == PROFILE_CHECK and got and not c.expected]
    elapsed = round(time.perf_counter() - started, 1)
    _print_scores(say, scores, not_sft, len(pairs), skipped, elapsed)
    if from_extracts:
        say(f"   {from_extracts} cases scored from their extracts in tests/fixtures/real/ (no clone)")
    missing = list({line.split("   #")[0]: line for line in reversed(missing)}.values())[::-1]
    for line in missing:
        say(f"missing: {line}")
    if args.json:
        print(
            json.dumps(
                {
                    "ranges": ranges_out,
                    "cases": {
                        "judged": len(pairs),
                        "from_extracts": from_extracts,
                        "skipped": skipped,
                        "rules": scores,
                    },
                    "profiles_shown_not_sft": not_sft,
                    "missing": missing,
                    "seconds": elapsed,
                },
                indent=2,
            )
        )
    return 0


def _dump(out, repo: str, sha: str, report: Report) -> None:
    for f in report.findings:
        out.write(json.dumps({"repo": repo, "commit": sha, **f.model_dump(mode="json")}) + "\n")
    for p in report.profiles:
        out.write(json.dumps({"repo": repo, "commit": sha, "profile": p.path, "kind": p.kind}) + "\n")


def _print_range(say, s: dict) -> None:
    say(f"\n== {s['repo']} {s['base'][:10]}..{s['head'][:10]} {' '.join(s['paths'])}")
    say(f"   {s['note']}")
    say(
        f"   {s['commits']} commits in {s['seconds']}s; {s['findings']} findings {s['by_severity']}; "
        f"per commit median {s['per_pr_median']}, max {s['per_pr_max']}"
    )
    say(
        f"   errors: {s['errors']} in {s['commits_with_errors']} commits; per commit median "
        f"{s['errors_per_pr_median']}, max {s['errors_per_pr_max']}; "
        f"median {s['errors_per_erring_pr_median']} where there is one"
    )
    if s["profiles_shown"]:
        say(f"   step table: {s['profiles_shown']} profile rows in {s['commits_with_profiles']} commits")
    for f in s["failed"]:
        say(f"   could not review {f['commit'][:10]}: {f['error']}")
    for rule, r in s["rules"].items():
        say(
            f"   {rule:8} {r['findings']:5} findings in {r['commits_with']:3} commits; "
            f"per commit median {r['per_pr_median']}, max {r['per_pr_max']}; {r['by_severity']}"
        )


def _print_scores(say, scores: dict, not_sft: list[str], judged: int, skipped: int, elapsed: float) -> None:
    say(f"\n== judged cases: {judged} scored, {skipped} skipped ({CASES.name})")
    for rule, s in scores.items():
        p = "-" if s["precision"] is None else f"{s['precision']:.3f}"
        r = "-" if s["recall"] is None else f"{s['recall']:.3f}"
        say(
            f"   {rule:12} {s['cases']:3} cases ({s['yes']} yes): precision {p}, recall {r} "
            f"(tp {s['tp']}, fp {s['fp']}, fn {s['fn']})"
        )
        for w in s["wrong"]:
            say(f"      wrong: {w}")
    say(f"   Prime-RL profiles shown that are not SFT runs: {len(not_sft)}")
    say(f"\n   total {elapsed}s")


if __name__ == "__main__":
    raise SystemExit(main())
