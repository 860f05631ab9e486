"""Score AGT001 (and AGT002's false positives) on the issue-23 judged sets of `benchmarks/holdout/`.

Each row of `agt001-*.csv` in the chosen split is a new test of one commit. The commit is reviewed against
its first parent as `bot check` does it locally (in-process, as `benchmarks/signal_ranges.py`: no PR
title, so the commit messages stand in for it, and AGT001/AGT002 on by the config override), and AGT001
counts as raised when it gives an error (or warning) on that test (`benchmarks/judged.py` `flagged`).

    python benchmarks/holdout/score_agt001.py [--split SPLIT] [--clones DIR] [--json]   # SPLITS lists them
    python benchmarks/holdout/score_agt001.py --split SPLIT --verify [--venvs DIR]

`--verify` reviews each commit as `bot check --verify-tests` does: the commit's new and changed tests run
at the commit and on its first parent with the commit's tests (benchmarks/replay_verify.py's runner), with
the pytest of the repository's own virtual environment, `VENVS/<owner>+<name>/bin/python` (the README
section of each set says how it was made); a repository without one is reviewed without verification and
counted under `unverified`. `--cache FILE` keeps the outcomes by commit and reads them back on the next
run instead of running the tests again.

Every split here has been scored as a hold-out once and is spent (`holdout` in the first round, `holdout2`
in the second, `holdout3` in the third, `holdout4` in the fourth, all 2026-12-05): their rows are shown one
by one like the tune rows. A new hold-out gets a new split name, listed in UNSCORED, whose rows are never
shown (only aggregates), so scoring it cannot teach anyone what it holds.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from benchmarks.judged import (  # noqa: E402
    OVERRIDE,  # noqa: E402
    Case,
    case_of,
    flagged,
)
from benchmarks.replay_verify import _copy, runner_env, verify_commit  # noqa: E402
from benchmarks.signal_ranges import DEFAULT_CLONES, Outcome, _git, _has  # noqa: E402
from bot.git.local import SourceError, load_changeset  # noqa: E402
from bot.review.engine import review  # noqa: E402
from rules.core.models import PullRequest  # noqa: E402
from rules.core.verification import Verification  # noqa: E402

DEFAULT_VENVS = Path("/work/venvs")

# `all` is the first round (tune + holdout, both read or scored already); `holdout2` is the second
# hold-out, sampled for the next round of changes and selected only by name so no run reads it by accident.
SPLITS = (
    "tune",
    "holdout",
    "holdout2",
    "tune3",
    "holdout3",
    "tune4",
    "holdout4",
    "holdout5",
    "holdout6",
    "holdout7",
    "all",
)
# The third round (2026-12-05): `tune3` was read while changing the rules, `holdout3` scored once after
# them and is spent too. A new hold-out gets a new name here.
# The fourth round (2026-12-05): `tune4` was read while changing the rules, `holdout4` scored once after
# them and is spent too. `holdout5` measured the code after round four, with no tuning part; scored
# once (2026-12-06, before and after that session's changes) and spent: round five tunes on it.
# `holdout6` measured the code after round five: scored once (2026-12-06: 0.782/0.782 at the session's
# start, 0.772/0.782 after round five) and spent: round six tunes on it. `holdout7` measures the code
# after round six: scored once (0.500/0.207 at every point of the session) and spent: gitmoji was
# tuned on it. No hold-out is left unscored; the next round needs a new one.
UNSCORED: tuple[str, ...] = ()  # hold-outs not scored yet: aggregates only
ROUND_ONE = ("tune", "holdout")


def load(split: str, folder: Path = HERE) -> list[Case]:
    """The AGT001 rows of the split; rows of the other split are dropped unread."""
    cases = []
    for path in sorted(folder.glob("agt001-*.csv")):
        with path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(line for line in fh if not line.startswith("#")):
                if row["split"] != split and not (split == "all" and row["split"] in ROUND_ONE):
                    continue
                cases.append(case_of(row))
    return cases


def review_commit(clone: Path, repo: str, sha: str, verifications: tuple[Verification, ...] = ()) -> Outcome:
    """Review sha against its first parent as local mode does, with AGT001/AGT002 on, and the outcomes
    of its tests where they were measured."""
    try:
        changeset = load_changeset(clone, base=f"{sha}^1", head=sha, pr=PullRequest(head_ref=None))
        report = review(changeset, config=OVERRIDE, verifications=verifications)
    except SourceError as exc:
        return Outcome(repo, sha, error=str(exc))
    return Outcome(repo, sha, report=report)


class Verifier:
    """Runs a commit's tests as `--verify-tests` does, in a shared copy of the clone (the runner adds work
    trees to the repository it is given; the clones are never written to)."""

    def __init__(self, venvs: Path, scratch: Path, cache: Path | None = None) -> None:
        self.venvs = venvs
        self.scratch = scratch
        self.env = runner_env()
        self.unverified: set[str] = set()
        # Outcomes of earlier runs by "repo@sha" (`--cache`): rules can be changed and scored again without
        # running the tests again. Only outcomes are kept; the bot decides from them as from a fresh run.
        self.cache = cache
        self.saved: dict[str, list[dict[str, object]]] = (
            json.loads(cache.read_text(encoding="utf-8")) if cache is not None and cache.exists() else {}
        )

    def python(self, repo: str) -> Path | None:
        python = self.venvs / repo.replace("/", "+") / "bin" / "python"
        return python if python.exists() else None

    def run(self, clone: Path, repo: str, sha: str) -> tuple[Verification, ...]:
        key = f"{repo}@{sha}"
        if key in self.saved:
            return tuple(Verification.model_validate(v) for v in self.saved[key])
        python = self.python(repo)
        if python is None:
            self.unverified.add(repo)
            return ()
        copy = _copy(repo, self.scratch, clone.parent)
        found = verify_commit(copy, sha, str(python), self.env)
        if self.cache is not None:
            self.saved[key] = [v.model_dump(mode="json") for v in found]
            self.cache.write_text(json.dumps(self.saved, indent=1), encoding="utf-8")
        return found


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    agt002: int = 0  # AGT002 findings on these tests
    missing: int = 0

    def add(self, expected: bool, got: bool) -> None:
        if expected and got:
            self.tp += 1
        elif expected:
            self.fn += 1
        elif got:
            self.fp += 1
        else:
            self.tn += 1

    def figures(self) -> dict[str, object]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        return {
            "cases": self.tp + self.fp + self.fn + self.tn,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": None if p is None else round(p, 3),
            "recall": None if r is None else round(r, 3),
            "agt002": self.agt002,
            "missing": self.missing,
        }


def _head_text(clone: Path, case: Case) -> str | None:
    try:
        return _git(clone, "show", f"{case.commit}:{case.path}")
    except SourceError:
        return None


def score(
    cases: list[Case], clones: Path, show_cases: bool, say=print, verifier: Verifier | None = None
) -> dict[str, dict[str, object]]:
    tallies: dict[str, Tally] = {}
    reviewed: dict[tuple[str, str], Outcome] = {}
    overall = Tally()
    for case in cases:
        tally = tallies.setdefault(case.repo, Tally())
        clone = clones / case.repo.replace("/", "+")
        key = (case.repo, case.commit)
        if key not in reviewed:
            if not _has(clone, case.commit):
                tally.missing += 1
                overall.missing += 1
                continue
            found = verifier.run(clone, case.repo, case.commit) if verifier else ()
            if found and show_cases:
                outcomes = ", ".join(f"{v.qualname}: {v.outcome.value}" for v in found)
                say(f"  verified {case.repo}@{case.commit[:10]}: {outcomes}"[:400])
            reviewed[key] = review_commit(clone, case.repo, case.commit, found)
        report = reviewed[key].report
        if report is None:
            tally.missing += 1
            overall.missing += 1
            continue
        text = _head_text(clone, case)
        got = flagged(report, case, text)
        other = Case(**{**case.__dict__, "rule": "AGT002"})
        agt002 = flagged(report, other, text)
        for t in (tally, overall):
            t.add(case.expected, got)
            t.agt002 += int(agt002)
        if show_cases and (got != case.expected or agt002):
            kind = "FP" if got and not case.expected else "FN" if got != case.expected else "AGT002"
            say(f"  {kind} {case.repo}@{case.commit[:10]} {case.path} {case.test}  [{case.reason[:100]}]")
    out = {repo: t.figures() for repo, t in sorted(tallies.items())}
    out["overall"] = overall.figures()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--clones", type=Path, default=DEFAULT_CLONES)
    parser.add_argument("--json", action="store_true", help="print one JSON object of the aggregates")
    parser.add_argument("--verify", action="store_true", help="run each commit's tests as --verify-tests")
    parser.add_argument("--venvs", type=Path, default=DEFAULT_VENVS)
    parser.add_argument("--cache", type=Path, help="a JSON file of outcomes, read first and added to")
    parser.add_argument("--only", action="append", metavar="REPO", help="only this repository (repeatable)")
    args = parser.parse_args(argv)
    cases = [c for c in load(args.split) if not args.only or c.repo in args.only]
    # Rows of a hold-out not scored yet are never shown one by one.
    show = args.split not in UNSCORED and not args.json
    with tempfile.TemporaryDirectory(prefix="bot-score-") as scratch:
        verifier = Verifier(args.venvs, Path(scratch), args.cache) if args.verify else None
        figures = score(cases, args.clones, show_cases=show, verifier=verifier)
    if verifier is not None and verifier.unverified:
        figures["overall"]["unverified"] = sorted(verifier.unverified)
    if args.json:
        print(json.dumps({"split": args.split, "figures": figures}, indent=2))
        return 0
    print(f"AGT001 on the issue-23 sets, split {args.split}{' (verified)' if args.verify else ''}")
    print(f"{'repository':32} {'cases':>5} {'TP':>3} {'FP':>3} {'FN':>3} {'P':>6} {'R':>6} {'AGT002':>6}")
    for repo, f in figures.items():
        p = "-" if f["precision"] is None else f"{f['precision']:.3f}"
        r = "-" if f["recall"] is None else f"{f['recall']:.3f}"
        extra = f"  ({f['missing']} not reviewed)" if f["missing"] else ""
        counts = f"{f['cases']:>5} {f['tp']:>3} {f['fp']:>3} {f['fn']:>3}"
        print(f"{repo:32} {counts} {p:>6} {r:>6} {f['agt002']:>6}{extra}")
    if verifier is not None and verifier.unverified:
        print(
            f"not verified (no virtual environment in {args.venvs}): {', '.join(sorted(verifier.unverified))}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
