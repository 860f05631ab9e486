"""The Report as plain terminal text: one `path:line: CODE message` line per finding, the step math as an
aligned table, and a one-line summary; ANSI colour only when the caller says the terminal wants it.

Every value that came from a pull request goes through sanitize.one_line: newlines collapse and control or
invisible characters (an ESC that would drive the terminal, a bidi override) show as `<U+XXXX>`. Nothing here
is markdown: no escapes, no HTML, no word joiners, so what is copied from the terminal is what the file holds.
"""

from __future__ import annotations

from bot.review.render import KIND_LABELS, STEP_FIELDS, shown_value
from rules.core.models import Finding, ProfileMath, Report, Severity
from rules.core.sanitize import one_line
from rules.training.lr_schedule import chart_of, sparkline

_RESET = "\033[0m"
_STYLES = {
    "error": "\033[31m",  # red
    "warning": "\033[33m",  # yellow
    "notice": "\033[36m",  # cyan
    "bold": "\033[1m",
    "dim": "\033[2m",
    "ready": "\033[32m",  # green
    "needs-work": "\033[31m",
}
# A pull request's own text, shown in full up to this length (the Report JSON has the rest).
_MESSAGE_LIMIT = 2000


class _Paint:
    """Wraps text in ANSI styles, or leaves it alone when colour is off."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, style: str) -> str:
        return f"{_STYLES[style]}{text}{_RESET}" if self.colour and text else text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def finding_line(f: Finding, paint: _Paint) -> str:
    """`path:line: CODE message (severity, per AGENTS.md:N)`: the shape editors and terminals link."""
    where = ""
    if f.path:
        where = one_line(f.path, 500) + (f":{f.line}" if f.line else "") + ": "
    extra = f.severity.value + (f", per {one_line(f.source, 200)}" if f.source else "")
    code = paint(one_line(f.rule, 40), f.severity.value)
    return f"{paint(where, 'bold')}{code} {one_line(f.message, _MESSAGE_LIMIT)} {paint(f'({extra})', 'dim')}"


def _value(value: object) -> str:
    if value is None:
        return "-"
    try:
        return one_line(str(value), 200)
    except ValueError:  # an integer too long to print; parsing refuses these, but output must not fail
        return "(too large to show)"


def profile_table(p: ProfileMath, paint: _Paint) -> list[str]:
    """One profile's derived values, base and head in aligned columns; a changed value is marked `*`."""
    where = one_line(p.path, 500) + (f":{p.line}" if p.line else "")
    title = f"{paint(where, 'bold')}  {one_line(p.name, 200)} ({KIND_LABELS.get(p.kind, 'config')})"
    if p.ported_from:
        source = KIND_LABELS.get(p.base_kind or "", "config")
        title += f", ported from {one_line(p.ported_from, 500)} ({source})"
    rows = [("value", "base", "head", "")]
    for key, label in STEP_FIELDS:
        old, new = shown_value(p.base, key), shown_value(p.head, key)
        if old is None and new is None:
            continue
        changed = p.base is not None and old != new
        rows.append((label, _value(old), _value(new), "*" if changed else ""))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    out = [title]
    for i, (label, base, head, mark) in enumerate(rows):
        cells = f"  {label:<{widths[0]}}  {base:<{widths[1]}}  "
        if i == 0:
            out.append(paint(f"{cells}{head}", "dim"))
        elif mark:
            out.append(f"{cells}{paint(f'{head:<{widths[2]}}', 'bold')}  {mark}")
        else:
            out.append(f"{cells}{head}".rstrip())
    for side, error in (("base", p.base_error), ("head", p.head_error)):
        if error:
            out.append(f"  {paint(side + ':', 'warning')} {one_line(error, _MESSAGE_LIMIT)}")
    out += lr_lines(p)
    return out


def lr_lines(p: ProfileMath) -> list[str]:
    """One sparkline per side that can be drawn, on the two sides' shared step axis; nothing otherwise."""
    chart = chart_of(p.base, p.head)
    width = len("learning rate")
    return [
        f"  {'learning rate' if i == 0 else '':<{width}}  {side:<4}  {sparkline(s)}"
        for i, (side, s) in enumerate(
            (side, s) for side, s in (("base", chart.base), ("head", chart.head)) if s.rates
        )
    ]


# How each verification outcome reads in the terminal, with its colour.
_OUTCOMES = {
    "reproduces": ("reproduces", "ready"),
    "does-not-reproduce": ("does not reproduce", "warning"),
    "broken": ("broken", "error"),
    "new-api": ("new API", "notice"),
    "not-run": ("not run", "dim"),
}


def verification_lines(report: Report, paint: _Paint) -> list[str]:
    """`--verify-tests`: one line per test, `outcome  node id: reason`, outcomes aligned."""
    if not report.verifications:
        return []
    width = max(len(_OUTCOMES[v.outcome.value][0]) for v in report.verifications)
    if any(v.reported for v in report.verifications):
        how = "reported by the pull request's own job, not run here: shown, never trusted"
    else:
        how = "run at head and on the base code with the head's tests"
    out = [paint("Verified tests", "bold") + f" ({how})"]
    for v in report.verifications:
        label, style = _OUTCOMES[v.outcome.value]
        node = one_line(v.node_id, 500)
        out.append(f"  {paint(f'{label:<{width}}', style)}  {node}: {one_line(v.reason, _MESSAGE_LIMIT)}")
    return [*out, ""]


def summary_line(report: Report, paint: _Paint, scope: str | None = None) -> str:
    """`needs work: 1 error, 0 warnings, 1 notice; 3 of 3 changed files reviewed (main..HEAD)`."""
    verdict = "ready for review" if report.verdict == "ready" else "needs work"
    if report.incomplete:
        verdict = "not complete"  # which files and why are in the note above
    counts = ", ".join(_plural(report.count(s), s.value) for s in Severity)
    cov = report.coverage
    files = f"{cov.files_reviewed} of {_plural(cov.files_changed, 'changed file')} reviewed"
    if cov.files_excluded:
        files += f", {cov.files_excluded} excluded by config"
    parts = [f"{paint(verdict, report.verdict)}: {counts}; {files}"]
    if scope:
        parts.append(f"({one_line(scope, 200)})")
    elif report.base_sha and report.head_sha:
        parts.append(f"({report.base_sha[:7]}..{report.head_sha[:7]})")
    if report.labels:
        parts.append("labels: " + ", ".join(one_line(label, 100) for label in report.labels))
    return " ".join(parts[:2]) + "".join(f"; {p}" for p in parts[2:])


def render_text(
    report: Report, colour: bool = False, scope: str | None = None, summary: str | None = None
) -> str:
    """The whole Report for a terminal: step math, findings in file order, waivers, notes, and the summary
    line (or the given one, e.g. that the range holds no changes)."""
    paint = _Paint(colour)
    out: list[str] = []
    if report.profiles:
        out.append(paint("Training step math", "bold") + " (base -> head; * marks a value this change moves)")
        for p in report.profiles:
            out += profile_table(p, paint)
        out.append("")
    out += verification_lines(report, paint)
    ordered = sorted(report.findings, key=lambda f: (f.path is None, f.path or "", f.line or 0, f.rule))
    out += [finding_line(f, paint) for f in ordered]
    for w in report.waivers:
        where = (" " + one_line(w.path, 500) + (f":{w.line}" if w.line else "")) if w.path else ""
        by = f" (by {one_line(w.by, 100)})" if w.by else ""
        out.append(f"waived {one_line(w.rule, 40)}{where}: {one_line(w.reason, _MESSAGE_LIMIT)}{by}")
    out += [f"{paint('note:', 'dim')} {one_line(n, _MESSAGE_LIMIT)}" for n in report.notes]
    if ordered or report.waivers or report.notes:
        out.append("")
    out.append(summary if summary is not None else summary_line(report, paint, scope))
    return "\n".join(out) + "\n"
