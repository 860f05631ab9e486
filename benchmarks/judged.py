"""The judged cases of the signal benchmark, and how a Report is scored against one."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from bot.config import Config, RuleSetting
from bot.models import Report, Severity

CASES = Path(__file__).resolve().parent / "judged_cases.csv"

# pytest's AGENTS.md asks nothing of regression tests (no busy permissively licensed Python repository
# whose AGENTS.md does was found); its tests often cite the issue they guard, so the rules are turned on
# for it by a config override, as `.github/bot.yml` would.
OVERRIDE = Config(rules={"AGT001": RuleSetting(enabled=True), "AGT002": RuleSetting(enabled=True)})


@dataclass(frozen=True)
class Case:
    """One judged case: does the rule rightly fire on this test, line or profile?"""

    repo: str
    commit: str
    path: str
    test: str
    line: int | None
    rule: str
    expected: bool
    reason: str
    extract: str


def load_cases(path: Path = CASES) -> list[Case]:
    """The cases of the CSV file (lines starting with # are comments)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return [
            Case(
                repo=row["repository"],
                commit=row["commit"],
                path=row["path"],
                test=row["test"],
                line=int(row["line"]) if row["line"] else None,
                rule=row["rule"],
                expected={"yes": True, "no": False}[row["expected"]],
                reason=row["reason"],
                extract=row.get("extract", ""),
            )
            for row in csv.DictReader(line for line in fh if not line.startswith("#"))
        ]


# The Prime-RL check that is not a rule code: whether a changed config is shown as an SFT profile.
PROFILE_CHECK = "SFT-PROFILE"


def flagged(report: Report, case: Case) -> bool:
    """Whether the report says what the case is about (see benchmarks/README.md for each rule's test)."""
    if case.rule == PROFILE_CHECK:
        return any(case.path in (p.path, p.head and p.head.config_path) for p in report.profiles)
    for f in report.findings:
        if f.rule != case.rule or f.path != case.path:
            continue
        # AGT001's one notice for a whole PR is not a verdict on a test: only per-test findings count.
        if case.rule == "AGT001" and f.severity is Severity.NOTICE:
            continue
        if not case.test and case.line is None:
            return True
        if (case.test and f"`{case.test}`" in f.message) or (case.line is not None and f.line == case.line):
            return True
    return False
