"""Benchmark: how well the AGENTS.md recogniser reads real sentences, against a maintainer's labels.

Reads `tests/fixtures/agents_corpus/sentences.jsonl` (real sentences from public AGENTS.md/CLAUDE.md files,
each labelled with the rules it turns on, off or scopes), or the corpora given, and prints the precision and
recall of "turns a rule on", per rule and overall, how many sentences of the "tests fail without the fix"
family turn AGT005 on (and which others do), every sentence the recogniser reads as turning a rule off
(and whether the review's notes name it), and every sentence where the recogniser and the label disagree.

Records may carry a `split` (`tune` or `holdout`); a record without one counts as `tune`. With `--split
holdout` only the aggregate figures are printed, never a sentence: a hold-out is scored, not read.

    python3 benchmarks/agents_corpus.py [--corpus PATH ...] [--split SPLIT]   # SPLITS lists them
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.agents_md.reader import PolicyFile, Reading, Recogniser, policy_of, under_prohibition  # noqa: E402
from rules.catalog import REGISTRY  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "agents_corpus" / "sentences.jsonl"
CODES = ("AGT001", "AGT002", "AGT003", "AGT004")
SPLITS = (
    "tune",
    "holdout",
    "tune3",
    "holdout3",
    "tune4",
    "holdout4",
    "holdout5",
    "holdout6",
    "holdout7",
    "all",
)
# Splits whose sentences are never printed: a hold-out is scored, not read.
HOLDOUTS = ("holdout", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7")
# The family of sentences labelled by their `family` field rather than by a rule label (the corpus was
# labelled before AGT005 existed): "tests must fail without the fix", which turns AGT005 on.
KNOWN_FAMILY = "fail-without-fix"
FAMILY_RULE = "AGT005"


@dataclass
class Score:
    """Counts of "turns the rule on" for one rule, or for all of them."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass
class Result:
    """What one run over the corpus found."""

    sentences: int = 0
    repositories: int = 0
    scores: dict[str, Score] = field(default_factory=lambda: {c: Score() for c in (*CODES, "all")})
    # (record, code, note in the review or None) for every sentence read as turning a rule off
    offs: list[tuple[dict, str, str | None]] = field(default_factory=list)
    # (record, expected {code: effect}, read {code: effect})
    confusions: list[tuple[dict, dict[str, str], dict[str, str]]] = field(default_factory=list)
    # Sentences of the KNOWN_FAMILY (by their `family` field), and how many of them turn FAMILY_RULE on;
    # sentences that turn it on and are not of it.
    family: int = 0
    family_known: int = 0
    known_elsewhere: list[dict] = field(default_factory=list)
    family_missed: list[dict] = field(default_factory=list)


def load(path: Path = CORPUS, split: str = "all") -> list[dict]:
    """The records of a corpus file in one split (`all`: every record); no `split` field means `tune`."""
    records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return [r for r in records if split == "all" or r.get("split", "tune") == split]


def _expected(record: dict) -> dict[str, str]:
    out = {}
    for code, label in record.get("labels", {}).items():
        out[code] = label["effect"] if isinstance(label, dict) else label
    return out


def read(record: dict, recogniser: Recogniser) -> Reading:
    """The recogniser's reading of one record, in the context its file gives it."""
    under, heading = record.get("under"), record.get("heading", False)
    prohibited = under_prohibition(under)
    # The rules the heading above turns on, as read_file passes them to the items of its section.
    section = () if heading or not under else recogniser.read(0, under, True, under_prohibition(under)).on
    return recogniser.read(record["line"], record["sentence"], heading, prohibited, section)


def measure(records: list[dict]) -> Result:
    recogniser = Recogniser.of(REGISTRY.values())
    result = Result(sentences=len(records), repositories=len({r["repo"] for r in records}))
    for record in records:
        reading = read(record, recogniser)
        got = {c: "on" for c in reading.on} | {c: "off" for c in reading.off}
        want = _expected(record)
        if record.get("family") == KNOWN_FAMILY:
            want[FAMILY_RULE] = "on"
        for code in CODES:
            is_on, want_on = got.get(code) == "on", want.get(code) == "on"
            for key in (code, "all"):
                score = result.scores[key]
                score.tp += is_on and want_on
                score.fp += is_on and not want_on
                score.fn += want_on and not is_on
        if reading.off:
            policy = policy_of((PolicyFile(record["path"], "", (reading,)),))
            where = f"{record['path']}:{record['line']}"
            for code in reading.off:
                note = next((n for n in policy.notes() if where in n and code in n), None)
                result.offs.append((record, code, note))
        if got != want:
            result.confusions.append((record, want, got))
        if record.get("family") == KNOWN_FAMILY:
            result.family += 1
            result.family_known += FAMILY_RULE in reading.on
            if FAMILY_RULE not in reading.on:
                result.family_missed.append(record)
        elif FAMILY_RULE in reading.on:
            result.known_elsewhere.append(record)
    return result


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def aggregate(result: Result) -> str:
    """The figures alone: no sentence, no repository, no path (what a hold-out run may print)."""
    out = [f"{result.sentences} sentences from {result.repositories} repositories", ""]
    out.append(f"{'rule':<8} {'labelled on':>11} {'read on':>8} {'right':>6} {'precision':>10} {'recall':>7}")
    for key, s in result.scores.items():
        counts = f"{s.tp + s.fp:>8} {s.tp:>6}"
        out.append(f"{key:<8} {s.tp + s.fn:>11} {counts} {_ratio(s.precision):>10} {_ratio(s.recall):>7}")
    silent = sum(note is None for _, _, note in result.offs)
    out += [
        "",
        f"Opt-outs (sentences read as turning a rule off): {len(result.offs)}; without a note: {silent}",
        f'"{KNOWN_FAMILY}" sentences turning {FAMILY_RULE} on: {result.family_known} of {result.family}; '
        f"other sentences turning it on: {len(result.known_elsewhere)}",
    ]
    return "\n".join(out)


def report(result: Result) -> str:
    out = [aggregate(result)]
    out += ["", f"Sentences read as turning a rule off: {len(result.offs)}"]
    for record, code, note in result.offs:
        label = _expected(record).get(code, "nothing")
        out.append(f"  {code} off ({'noted' if note else 'NO NOTE'}; labelled {label}) {_where(record)}")
        out.append(f"      {record['sentence'][:150]}")
    out += ["", f"Confusions: {len(result.confusions)}"]
    for record, want, got in result.confusions:
        out.append(f"  labelled {_effects(want)}, read {_effects(got)}  {_where(record)}")
        out.append(f"      {record['sentence'][:150]}")
    out += ["", f'"{KNOWN_FAMILY}" sentences not turning {FAMILY_RULE} on, and others turning it on:']
    for record in result.family_missed:
        out.append(f"  not read as {FAMILY_RULE}  {_where(record)}")
        out.append(f"      {record['sentence'][:150]}")
    for record in result.known_elsewhere:
        out.append(f"  read as {FAMILY_RULE}, family {record.get('family') or 'none'}  {_where(record)}")
        out.append(f"      {record['sentence'][:150]}")
    return "\n".join(out)


def _where(record: dict) -> str:
    return f"{record['repo']}/{record['path']}:{record['line']}"


def _effects(effects: dict[str, str]) -> str:
    return ", ".join(f"{c} {e}" for c, e in sorted(effects.items())) or "nothing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        action="append",
        help="a corpus file (JSON lines); repeat for several, scored together (default: the fixture corpus)",
    )
    parser.add_argument(
        "--split",
        choices=SPLITS,
        default="all",
        help="score only the records of one split (no `split` field counts as tune); holdout prints only "
        "the aggregate figures",
    )
    args = parser.parse_args(argv)
    records = [r for path in args.corpus or [CORPUS] for r in load(path, args.split)]
    result = measure(records)
    print(aggregate(result) if args.split in HOLDOUTS else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
