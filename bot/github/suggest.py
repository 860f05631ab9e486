"""Suggested changes on the pull request's lines: which fixes the rules computed become review comments, how
each is rendered, and what to post and delete so that the pull request shows exactly those (pure)."""

from __future__ import annotations

import hashlib
import re
import urllib.parse

from bot.github.api import ReviewComment
from rules.core import sanitize
from rules.core.models import ChangeSet, Finding, Frozen, Report, Severity

# GitHub shows every suggestion in the conversation: more than this many in one run is noise, not help.
MAX_SUGGESTIONS = 20
MARK = "<!-- bot-review:suggestion "
_MARK = re.compile(r"<!-- bot-review:suggestion (\S+) ([0-9a-f]{16}) -->")


class Suggestion(Frozen):
    """One fix as a review comment: lines start_line..line of path at head, and the comment's body."""

    key: str
    path: str
    start_line: int
    line: int
    body: str
    digest: str


class Selection(Frozen):
    """The suggestions to show, and the fixes left to the status comment with why."""

    suggestions: tuple[Suggestion, ...] = ()
    left: tuple[str, ...] = ()


class SuggestionPlan(Frozen):
    """What makes the pull request show exactly the selected suggestions."""

    post: tuple[Suggestion, ...] = ()
    delete: tuple[int, ...] = ()
    kept: int = 0  # already shown unchanged
    answered: int = 0  # outdated, but someone replied: left for the conversation


def _in_diff(changeset: ChangeSet, path: str, start: int, end: int) -> bool:
    """Whether lines start..end lie in one hunk of path at head: GitHub takes comments only there."""
    change = changeset.file(path)
    if change is None:
        return False
    return any(h.new_start <= start and end < h.new_start + h.new_length for h in change.hunks)


def _fence(lines: tuple[str, ...]) -> str:
    """A backtick fence longer than any run inside the lines, so they cannot close it."""
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def render(finding: Finding) -> Suggestion:
    """The review comment of a finding with a fix: a hidden key, the finding, and the suggestion block."""
    fix = finding.fix
    assert fix is not None
    digest = hashlib.sha256(
        "\0".join((fix.path, str(fix.start_line), str(fix.end_line), *fix.lines, finding.message)).encode()
    ).hexdigest()[:16]
    key = urllib.parse.quote(fix.key, safe=":/._")
    fence = _fence(fix.lines)
    body = "\n".join(
        (
            f"{MARK}{key} {digest} -->",
            f"**{finding.rule}** {finding.name}: {sanitize.message(finding.message)}",
            "",
            f"{fence}suggestion",
            *fix.lines,
            fence,
        )
    )
    return Suggestion(
        key=key, path=fix.path, start_line=fix.start_line, line=fix.end_line, body=body + "\n", digest=digest
    )


def select(report: Report, changeset: ChangeSet, mode: str, cap: int = MAX_SUGGESTIONS) -> Selection:
    """The fixes to post (`suggestions` in the config: off, errors, all), at most cap, in report order."""
    if mode == "off":
        return Selection()
    chosen: list[Suggestion] = []
    left: list[str] = []
    for f in report.findings:
        if f.fix is None or (mode == "errors" and f.severity is not Severity.ERROR):
            continue
        where = f"{sanitize.code(f'{f.fix.path}:{f.fix.start_line}')} {f.rule}"
        if not _in_diff(changeset, f.fix.path, f.fix.start_line, f.fix.end_line):
            left.append(f"{where} (outside the diff)")
        elif any("\r" in line for line in f.fix.lines):
            # Markdown ends a line at a lone carriage return: GitHub would show, and commit, other lines.
            left.append(f"{where} (a line holds a carriage return)")
        elif len(chosen) >= cap:
            left.append(f"{where} (over the limit of {cap} a run)")
        else:
            chosen.append(render(f))
    return Selection(suggestions=tuple(chosen), left=tuple(left))


def note(selection: Selection) -> str | None:
    """The status comment's line naming the fixes not shown as suggestions."""
    if not selection.left:
        return None
    shown = ", ".join(selection.left[:10]) + (
        f" and {len(selection.left) - 10} more" if len(selection.left) > 10 else ""
    )
    return f"Fixes not shown as suggested changes: {shown}; `bot check --fix --pr-number N` applies them."


def marker(body: str) -> tuple[str, str] | None:
    """The key and digest hidden in one of the bot's suggestions, or None."""
    m = _MARK.search(body or "")
    return (m.group(1), m.group(2)) if m else None


def plan(
    wanted: tuple[Suggestion, ...], existing: tuple[ReviewComment, ...], mine: set[int]
) -> SuggestionPlan:
    """Post what is not shown yet; delete the bot's suggestions whose finding is gone or changed, unless
    someone replied to them (a conversation is never deleted). mine: ids of the comments the bot wrote."""
    replied = {c.in_reply_to for c in existing if c.in_reply_to is not None and c.id not in mine}
    shown: dict[tuple[str, str], int] = {}
    delete: list[int] = []
    answered = 0
    want = {(s.key, s.digest) for s in wanted}
    for c in existing:
        found = marker(c.body) if c.id in mine and c.in_reply_to is None else None
        if found is None:
            continue
        if found in want and found not in shown:
            shown[found] = c.id
        elif c.id in replied:
            answered += 1
        else:
            delete.append(c.id)
    post = tuple(s for s in wanted if (s.key, s.digest) not in shown)
    return SuggestionPlan(post=post, delete=tuple(delete), kept=len(shown), answered=answered)
