"""Verification outcomes another job measured (the fork-safe pair's phase 1): shown, never trusted.

The pull request's own job ran its tests; it could report any outcome. Such outcomes are marked `reported`,
added to a Report after its verdict is decided, and never reach a rule: they can neither make a pull request
ready nor keep it from ready.
"""

from __future__ import annotations

from pathlib import Path

from bot.review.output import ReportError, parse_report
from rules.core.models import Report
from rules.core.verification import Verification, trusted

# A Report lists at most this many reported outcomes; the comment shows 50 of them.
MAX_REPORTED = 500


def with_reported(report: Report, verifications: tuple[Verification, ...]) -> Report:
    """report with verifications shown as reported by the pull request's own job (its verdict unchanged)."""
    if not verifications:
        return report
    marked = tuple(v.model_copy(update={"reported": True}) for v in verifications[:MAX_REPORTED])
    return report.model_copy(update={"verifications": (*trusted(report.verifications), *marked)})


def read_reported(path: Path) -> tuple[Verification, ...]:
    """The verifications of a Report JSON saved by `bot check --verify-tests --output` (untrusted)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(8 * 1024 * 1024 + 1)
    except OSError as exc:
        raise ReportError(f"cannot read {path.name}: {exc.strerror}") from None
    return parse_report(data).verifications
