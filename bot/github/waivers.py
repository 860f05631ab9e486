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


def key(finding: Finding) -> str:
    """What a waiver names a finding by: its rule and file (lines move with every edit above them)."""
    return f"{finding.rule}:{finding.path or ''}"


def covers(waiver: Waiver, finding: Finding) -> bool:
    """Whether waiver hides finding: same rule, and one of the findings shown to its writer (if it says)."""
    return finding.rule == waiver.rule and (waiver.keys is None or key(finding) in waiver.keys)


def fingerprint(waiver: Waiver, findings: tuple[Finding, ...], changeset: ChangeSet) -> str:
    """A digest of the code the waiver's findings point at: the head text of their files, or their message."""
    parts = sorted(
        {
            f"{f.path}\0{_text_digest(changeset, f.path)}" if f.path else f"\0{f.message}"
            for f in findings
            if covers(waiver, f)
        }
    )
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def stamp(waiver: Waiver, report: Report, changeset: ChangeSet) -> Waiver:
    """A new waiver bound to the code its findings point at now."""
    return waiver.model_copy(update={"fingerprint": fingerprint(waiver, report.findings, changeset)})


def bind(
    waiver: Waiver, shown: tuple[str, ...] | None, earlier: tuple[str, ...] | None, seen: str
) -> Waiver | None:
    """The waiver bound to the findings of its rule its writer can have seen; None when there were none.

    shown are the keys the status comment lists now; earlier those of the version it replaced. seen says
    which the writer saw: "shown" (the comment did not change after the command was written), "either" (it
    changed once since: only keys in both versions were surely seen), or "" (unknown: nothing is bound).
    """
    if seen == "shown" and shown is not None:
        known = set(shown)
    elif seen == "either" and shown is not None and earlier is not None:
        known = set(shown) & set(earlier)
    else:
        return None
    keys = tuple(sorted(k for k in known if k.partition(":")[0] == waiver.rule))
    return waiver.model_copy(update={"keys": keys}) if keys else None


def not_covered(waiver: Waiver, report: Report) -> tuple[str, ...]:
    """The files (or messages) of the waiver's rule's findings it leaves standing: not shown to its writer."""
    return tuple(
        dict.fromkeys(
            f.path or f.message for f in report.findings if f.rule == waiver.rule and not covers(waiver, f)
        )
    )


def apply_waivers(
    report: Report, waivers: tuple[Waiver, ...], changeset: ChangeSet, config: Config
) -> tuple[Report, tuple[Waiver, ...]]:
    """The report with waived findings removed, and the waivers that lapsed because their code changed.

    waivers are the comment waivers (they carry a fingerprint); in-code waivers in the report stay.
    """
    active: dict[str, Waiver] = {}
    lapsed: list[Waiver] = []
    for w in waivers:
        if w.fingerprint == fingerprint(w, report.findings, changeset):
            # A later waiver of the same rule and findings replaces the earlier one.
            active[f"{w.rule}\0{w.keys}"] = w
        else:
            lapsed.append(w)
    findings = tuple(f for f in report.findings if not any(covers(w, f) for w in active.values()))
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
