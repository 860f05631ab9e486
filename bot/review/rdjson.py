"""The Report in reviewdog's Diagnostic Format (rdjson), for `reviewdog -f=rdjson` and its reporters.

The format: https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (a DiagnosticResult holding
Diagnostics; every field optional in its JSON schema, a Range's `start` required by its description).
"""

from __future__ import annotations

import json
from typing import Any

from rules.core import sanitize
from rules.core.models import Finding, Fix, Report, Severity
from rules.core.verification import Outcome, Verification, outcome_label

SEVERITIES = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.NOTICE: "INFO"}
SOURCE = {"name": "bot"}


def _location(path: str, line: int | None) -> dict[str, Any]:
    # A Range without columns is linewise: the whole line, as the bot's findings are placed.
    return {"path": path, **({"range": {"start": {"line": line}}} if line else {})}


def _suggestion(fix: Fix) -> dict[str, Any]:
    """A fix as a linewise suggestion: its lines replace lines start..end whole, as a GitHub suggestion does
    (reviewdog posts linewise suggestions as such)."""
    return {
        "range": {"start": {"line": fix.start_line}, "end": {"line": fix.end_line}},
        "text": "\n".join(fix.lines),
    }


def diagnostic(f: Finding) -> dict[str, Any]:
    """One Diagnostic: at the finding's file and line, else at the AGENTS.md line that asks for its rule,
    else without a location (reviewdog's diff filters drop it; `-filter-mode=nofilter` keeps it)."""
    # reviewdog posts the message into pull-request comments as markdown: PR text in it is sanitised.
    out: dict[str, Any] = {
        "message": sanitize.message(f.message, 4000),
        "severity": SEVERITIES[f.severity],
        "source": SOURCE,
        "code": {"value": f.rule},
    }
    # The policy line a finding cites: `AGENTS.md:6`.
    policy, colon, line = (f.source or "").rpartition(":")
    if f.path:
        out["location"] = _location(f.path, f.line)
    elif policy and colon and line.isascii() and line.isdigit() and int(line) > 0:
        out["location"] = _location(policy, int(line))
    if f.fix is not None and f.path == f.fix.path:
        out["suggestions"] = [_suggestion(f.fix)]
    return out


def verified(v: Verification) -> dict[str, Any]:
    """One Diagnostic for a verified test (`--verify-tests`) at its `def` line: an error where it fails at
    head (it keeps the change from ready), information otherwise (AGT005 says what a non-reproducing
    regression test is worth). An outcome another job reported is information, whatever it says."""
    severity = "ERROR" if v.outcome is Outcome.BROKEN and not v.reported else "INFO"
    said = f"{outcome_label(v)}: {v.reason}"
    return {
        "message": sanitize.message(said, 4000),
        "severity": severity,
        "source": SOURCE,
        "code": {"value": f"verified:{v.outcome.value}"},
        "location": _location(v.path, v.line),
    }


def to_rdjson(report: Report) -> dict[str, Any]:
    """A DiagnosticResult with a Diagnostic per finding, then one per verified test, paths relative to the
    repository's top."""
    return {
        "source": SOURCE,
        "diagnostics": [
            *(diagnostic(f) for f in report.findings),
            *(verified(v) for v in report.verifications),
        ],
    }


def to_rdjson_json(report: Report) -> str:
    return json.dumps(to_rdjson(report), indent=2, ensure_ascii=False) + "\n"
