"""Waivers from `@bot waive`: which findings they hide, and when the waived code changed so they lapse."""

from __future__ import annotations

import hashlib

from bot.review.engine import labels_for
from rules.core.config import Config
from rules.core.models import ChangeSet, Finding, Report, Severity, UnreadableFile, Waiver


def _text_digest(changeset: ChangeSet, path: str) -> str:
    try:
        text = changeset.head_text(path)
    except UnreadableFile as exc:
        text = f"unreadable: {exc.reason}"
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


def fingerprint(rule: str, findings: tuple[Finding, ...], changeset: ChangeSet) -> str:
    """A digest of the code a rule's findings point at: the head text of their files, or their message."""
    parts = sorted(
        {
            f"{f.path}\0{_text_digest(changeset, f.path)}" if f.path else f"\0{f.message}"
            for f in findings
            if f.rule == rule
        }
    )
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def stamp(waiver: Waiver, report: Report, changeset: ChangeSet) -> Waiver:
    """A new waiver bound to the code its rule's findings point at now."""
    return waiver.model_copy(update={"fingerprint": fingerprint(waiver.rule, report.findings, changeset)})


def apply_waivers(
    report: Report, waivers: tuple[Waiver, ...], changeset: ChangeSet, config: Config
) -> tuple[Report, tuple[Waiver, ...]]:
    """The report with waived findings removed, and the waivers that lapsed because their code changed.

    waivers are the comment waivers (they carry a fingerprint); in-code waivers in the report stay.
    """
    active: dict[str, Waiver] = {}
    lapsed: list[Waiver] = []
    for w in waivers:
        if w.fingerprint == fingerprint(w.rule, report.findings, changeset):
            active[w.rule] = w  # a later waiver of the same rule replaces the earlier one
        else:
            lapsed.append(w)
    findings = tuple(f for f in report.findings if f.rule not in active)
    # Waivers take away findings, never the files the review could not see.
    errors = any(f.severity is Severity.ERROR for f in findings)
    verdict = "needs-work" if errors or report.incomplete else "ready"
    notes = tuple(
        f"The waiver of {w.rule} by {w.by or 'someone'} lapsed: the code it covered changed." for w in lapsed
    )
    updated = report.model_copy(
        update={
            "findings": findings,
            "verdict": verdict,
            "labels": labels_for(verdict, config),
            "waivers": report.waivers + tuple(active.values()),
            "notes": report.notes + notes,
        }
    )
    return updated, tuple(lapsed)
