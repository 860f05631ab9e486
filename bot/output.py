"""Machine outputs of a Report: JSON and the exit code."""

from __future__ import annotations

import json

from bot.models import Report, Severity

REPORT_SCHEMA_VERSION = 1


def to_dict(report: Report) -> dict:
    """The Report as documented in docs/report-json.md; keys are stable."""
    data = report.model_dump(mode="json")
    return {"schema_version": REPORT_SCHEMA_VERSION, **data}


def to_json(report: Report) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def exit_code(report: Report, fail_level: str) -> int:
    """1 when a finding at or above fail_level exists, else 0."""
    if fail_level == "none":
        return 0
    threshold = Severity(fail_level).rank
    return 1 if any(f.severity.rank >= threshold for f in report.findings) else 0
