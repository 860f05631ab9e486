"""Machine outputs of a Report: JSON and the exit code."""

from __future__ import annotations

from pathlib import Path

from rules.core.models import Report, Severity
from rules.core.sanitize import one_line
from rules.core.verification import blocking

REPORT_SCHEMA_VERSION = 1


def to_dict(report: Report) -> dict:
    """The Report as documented in docs/report-json.md; keys are stable."""
    data = report.model_dump(mode="json")
    return {"schema_version": REPORT_SCHEMA_VERSION, **data}


def to_json(report: Report) -> str:
    import json  # here: `bot check` in text mode only asks exit_code

    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def exit_code(report: Report, fail_level: str) -> int:
    """1 when a finding at or above fail_level exists or the review is not complete, else 0."""
    if fail_level == "none":
        return 0
    if report.incomplete:
        return 1  # files a rule needed went unseen: whatever was found, this is no pass
    threshold = Severity(fail_level).rank
    if blocking(report.verifications) and Severity.ERROR.rank >= threshold:
        return 1  # a test the change adds or edits fails at head (`--verify-tests`): as an error
    return 1 if any(f.severity.rank >= threshold for f in report.findings) else 0


# A Report read back from a file (an artifact, another step's output) is untrusted input: bound it.
MAX_REPORT_BYTES = 8 * 1024 * 1024


class ReportError(Exception):
    """A saved Report cannot be used; the message says why."""


def read_report(path: Path, limit: int = MAX_REPORT_BYTES) -> Report:
    """A Report saved with to_json, validated against the model."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return parse_report(data, limit)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from None


def parse_report(data: bytes, limit: int = MAX_REPORT_BYTES) -> Report:
    """A Report from untrusted bytes (to_json's layout), or ReportError saying what is wrong."""
    import json

    from pydantic import ValidationError

    if len(data) > limit:
        raise ReportError(f"it is over the {limit:,}-byte limit for a Report")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ReportError(f"it is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(raw, dict) or raw.get("schema_version") != REPORT_SCHEMA_VERSION:
        raise ReportError(f"it is not a version-{REPORT_SCHEMA_VERSION} Report")
    raw.pop("schema_version")
    try:
        return Report.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        # The location may be a key the artifact chose: shown on one line, short, its invisible characters
        # made visible.
        where = one_line(".".join(str(p) for p in first["loc"]), 80) or "(top level)"
        raise ReportError(f"it is not a valid Report: {where}: {first['msg']}") from None
