"""The Report as the markdown status comment, from jinja2 templates beside this module."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.core import sanitize
from rules.core.models import Finding, ProfileMath, Report, Severity, StepValues
from rules.core.readiness import Gate, GateCheck, Readiness, readiness
from rules.training.lr_schedule import chart_of

if TYPE_CHECKING:
    import jinja2

MARKER = "<!-- bot-review:status -->"
# The top of the status comment: heading, labels and counts, the gating checks. Events about checks rewrite
# that part alone (bot/github/ready.py) and leave the review below it as it was. Every untrusted value in it
# is one sanitised line, so its shape is known.
_TOP = re.compile(
    r"\A(?P<marker>.*\n)### [^\n]*\n\n[^\n]* · (?P<counts>\d+ errors?, \d+ warnings?, \d+ notices?)\n"
    r"(?:\nchecks: [^\n]*\n(?:(?:failed|waiting for): [^\n]*\n)*)?"
)
HEADINGS: dict[Readiness, str] = {
    "ready": "### ✅ bot: ready for review",
    "needs-work": "### ❌ bot: needs work",
    "checks-pending": "### ⏳ bot: waiting for checks",
}
CHECK_ICONS = {"success": "✅", "failure": "❌", "pending": "⏳"}
# At most this many checks on the gating line, and names on the "waiting for" and "failed" lines.
SHOWN_CHECKS = 12
# GitHub refuses comment bodies over 65,536 characters; leave room for the truncation note.
COMMENT_LIMIT = 65_000

STEP_FIELDS = (
    ("trainer", "trainer"),
    ("semantics", "semantics"),
    ("config_path", "Prime-RL config"),
    ("batch_size", "batch size"),
    ("micro_batch_size", "micro batch size"),
    ("world_size", "world size"),
    ("grad_accum", "grad accumulation"),
    ("seq_len", "seq_len"),
    ("target_examples", "target_examples"),
    ("target_micro_steps", "target_micro_steps"),
    ("train_examples", "training examples"),
    ("max_steps", "max_steps"),
    ("optimizer_steps", "optimizer steps"),
    ("epochs", "epochs"),
    ("scheduler", "scheduler"),
    ("warmup_ratio", "warmup ratio"),
    ("warmup_steps", "scheduler.warmup_steps"),
    ("decay_steps", "scheduler.decay_steps"),
    ("ckpt_interval", "ckpt.interval"),
    ("ckpt_keep_interval", "ckpt.keep_interval"),
    ("effective_train_examples", "effective examples"),
    ("unapplied_micro_steps", "unapplied micro steps"),
    ("tokens_per_step", "tokens per step"),
    ("tail", "tail"),
    ("estimate", "estimate"),
    ("formula", "formula"),
    ("assumptions", "assumptions"),
)
# Values read from a pull request's files (or holding its words): shown as inline code, never as markdown.
UNTRUSTED_FIELDS = frozenset({"config_path", "scheduler", "trainer", "tail", "formula", "assumptions"})
# Up to this many changed profiles, the comment shows every derived value inline. Beyond it, one summary
# row per profile whose numbers change, the other profiles by name, and every value in a collapsed block.
INLINE_PROFILES = 3
SUMMARY_FIELDS = (
    ("semantics", "semantics"),
    ("max_steps", "max_steps"),
    ("optimizer_steps", "optimizer steps"),
    ("effective_train_examples", "effective examples"),
    ("decay_steps", "scheduler.decay_steps"),
    ("unapplied_micro_steps", "unapplied micro steps"),
)
# How each verification outcome reads in the comment (`bot check --verify-tests`), and how many are listed.
OUTCOME_LABELS = {
    "reproduces": "✅ **reproduces**",
    "does-not-reproduce": "⚠️ **does not reproduce**",
    "broken": "❌ **broken**",
    "new-api": "ℹ️ **new API**",
    "not-run": "⏸️ **not run**",
}
MAX_VERIFICATIONS = 50
# Caps that keep a pull request touching hundreds of profiles readable (the rest is in the Report JSON).
MAX_SUMMARY_ROWS = 50
MAX_SAME_NAMES = 20
# How a step-math row names the kind of file it came from (ProfileMath.kind), in every output.
KIND_LABELS = {
    "prime-rl": "Prime-RL config",
    "python": "Python literal",
    "profile": "profile",
    "hf-trainer": "HF TrainingArguments config",
    "axolotl": "axolotl config",
    "torchtune": "torchtune recipe config",
    "llama-factory": "LLaMA-Factory config",
    "verl": "verl launch script",
    "verl-yaml": "verl config",
    "openrlhf": "OpenRLHF launch script",
    "lightning": "Lightning trainer config",
    "nemo": "NeMo Megatron config",
}


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    # Imported here: the terminal, JSON and SARIF outputs (a pre-commit hook's every run) need no template.
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # markdown, not HTML: every untrusted value goes through sanitize instead
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["text"] = sanitize.text
    env.filters["code"] = sanitize.code
    env.filters["message"] = sanitize.message
    env.globals["kind_labels"] = KIND_LABELS
    return env


def shown_value(values: StepValues | None, key: str) -> object:
    """A derived value as the tables show it: None for an absent side, a false flag or no assumptions;
    a list of assumptions joined into one cell."""
    if values is None:
        return None
    value = getattr(values, key)
    if value is False or value == ():
        return None
    if value is True:
        return "yes"
    if isinstance(value, tuple):
        return "; ".join(map(str, value))
    return value


def _cell(value: object, untrusted: bool = False) -> str:
    if value is None:
        return "—"
    try:
        shown = str(value)
    except ValueError:  # an integer too long to print; parsing refuses these, but rendering must not fail
        return "(too large to show)"
    return sanitize.code(shown, table=True) if untrusted else shown


def step_rows(profile: ProfileMath) -> list[dict[str, object]]:
    """The table rows of one profile: each derived value base -> head, changes marked."""
    rows = []
    for key, label in STEP_FIELDS:
        old, new = shown_value(profile.base, key), shown_value(profile.head, key)
        if old is None and new is None:
            continue
        untrusted = key in UNTRUSTED_FIELDS
        rows.append(
            {
                "label": label,
                "base": _cell(old, untrusted),
                "head": _cell(new, untrusted),
                "changed": profile.base is not None and old != new,
            }
        )
    return rows


def _arrow(old: object, new: object, untrusted: bool, has_base: bool) -> str:
    """One summary cell: the head value, or "base → **head**" when it changes."""
    if not has_base or old == new:
        return _cell(new, untrusted)
    return f"{_cell(old, untrusted)} → **{_cell(new, untrusted)}**"


def summary_row(profile: ProfileMath) -> list[str]:
    """The summary cells of one profile (after its name): each key value, base → head where it changes."""
    cells = []
    for key, _ in SUMMARY_FIELDS:
        old, new = shown_value(profile.base, key), shown_value(profile.head, key)
        cells.append(_arrow(old, new, key in UNTRUSTED_FIELDS, profile.base is not None))
    return cells


def _moves(profile: ProfileMath) -> bool:
    """Whether a profile's summary says anything: a value changes, a side is new or gone, or broken."""
    if profile.base_error or profile.head_error or profile.base is None or profile.head is None:
        return True
    return any(key in profile.changed for key, _ in SUMMARY_FIELDS)


def step_layout(profiles: tuple[ProfileMath, ...], detail: int) -> dict[str, object]:
    """What the step-math section shows: inline detail for a few profiles; else a summary of the ones
    whose numbers move, the names of the rest, and the detail of the first `detail` that move."""
    if len(profiles) <= INLINE_PROFILES:
        return {"inline": True, "detail": profiles[:detail], "detail_hidden": len(profiles) - detail}
    moving = [p for p in profiles if _moves(p)]
    same = [p for p in profiles if not _moves(p)]
    return {
        "inline": False,
        "summary": moving[:MAX_SUMMARY_ROWS],
        "summary_hidden": max(len(moving) - MAX_SUMMARY_ROWS, 0),
        "same": same[:MAX_SAME_NAMES],
        "same_count": len(same),
        "fields": [label for _, label in SUMMARY_FIELDS],
        "detail": moving[:detail],
        "detail_hidden": len(moving) - min(detail, len(moving)),
    }


def lr_charts(profiles: tuple[ProfileMath, ...]) -> list[dict[str, object]]:
    """The learning-rate chart of each run, or why it is not drawn. Only numbers reach the Mermaid block;
    names and scheduler kinds (PR text) go through sanitize outside it."""
    out: list[dict[str, object]] = []
    for p in profiles:
        # A format that names no scheduler (a legacy profile) has nothing to draw and nothing worth saying.
        if not any(v is not None and v.scheduler for v in (p.base, p.head)):
            continue
        c = chart_of(p.base, p.head)
        lines = [(side, s.rates) for side, s in (("base", c.base), ("head", c.head)) if s.rates]
        missing = [
            f"{side}: {sanitize.text(s.unknown, 100)}"
            for side, s in (("base", c.base), ("head", c.head))
            if s.unknown and s.unknown != "absent"
        ]
        out.append(
            {
                "profile": p,
                # Quoted: xychart's category grammar takes quoted text of any shape.
                "steps": ", ".join(f'"{s}"' for s in c.steps) if lines else "",
                "lines": [(side, ", ".join(f"{r:g}" for r in rates)) for side, rates in lines],
                "missing": missing,
            }
        )
    return out


def counts_text(report: Report) -> str:
    """The counts of the heading's line: "1 error, 0 warnings, 0 notices"."""
    return ", ".join(
        f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in ((s, report.count(s)) for s in Severity)
    )


def _names(checks: tuple[GateCheck, ...], linked: bool) -> str:
    shown = [
        sanitize.link(c.name, c.url) if linked else sanitize.text(c.name, 100) for c in checks[:SHOWN_CHECKS]
    ]
    more = len(checks) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def gate_lines(gate: Gate | None) -> list[str]:
    """The gating checks in one compact line, then what failed (linked) and what is awaited."""
    if gate is None or not (gate.checks or gate.unread):
        return []
    if gate.unread:
        return [f"checks: not readable ({sanitize.text(gate.unread, 200)}); waiting for them"]
    shown = [f"{CHECK_ICONS[c.outcome]} {sanitize.text(c.name, 100)}" for c in gate.checks[:SHOWN_CHECKS]]
    more = len(gate.checks) - len(shown)
    lines = ["checks: " + " · ".join(shown) + (f" · and {more} more" if more else "")]
    if gate.failed:
        lines.append(f"failed: {_names(gate.failed, linked=True)}")
    if gate.waiting:
        lines.append(f"waiting for: {_names(gate.waiting, linked=False)}")
    return lines


def render_top(verdict: str, labels: tuple[str, ...], counts: str, gate: Gate | None) -> str:
    """The comment's top: heading (the review with its gating checks), labels and counts, the checks."""
    head = HEADINGS[readiness(verdict, gate)]
    shown = " ".join(sanitize.code(label) for label in labels)
    lines = [head, "", f"{shown} · {counts}"]
    extra = gate_lines(gate)
    if extra:
        lines += ["", *extra]
    return "\n".join(lines)


def replace_top(body: str, verdict: str, labels: tuple[str, ...], gate: Gate | None) -> str | None:
    """The status comment with its top rendered anew for these labels and checks; None when body is not
    shaped as the bot renders it (then it is left alone)."""
    m = _TOP.match(body)
    if m is None:
        return None
    top = render_top(verdict, labels, m["counts"], gate)
    return m["marker"] + top + "\n" + body[m.end() :]


def _groups(findings: tuple[Finding, ...]) -> list[tuple[str | None, list[Finding]]]:
    ordered = sorted(findings, key=lambda f: (f.path is not None, f.path or "", f.line or 0))
    return [(path, list(items)) for path, items in groupby(ordered, key=lambda f: f.path)]


def _template() -> jinja2.Template:
    return _env().get_template("comment.md.j2")  # compiled once: jinja keeps it


def prepare() -> None:
    """Compile the comment's template now: for a caller with time to spare before it renders, such as a
    loader waiting on git (bot.review.engine.warm_ups)."""
    _template()


def render_comment(report: Report, limit: int = COMMENT_LIMIT) -> str:
    """The status comment for a report, kept under GitHub's size limit."""
    return render_comment_counted(report, limit)[0]


def _render(template: Any, report: Report, shown: int, detail: int) -> str:
    return str(
        template.render(
            marker=MARKER,
            top=render_top(report.verdict, report.labels, counts_text(report), report.checks),
            report=report,
            groups=_groups(report.findings[:shown]),
            hidden=len(report.findings) - shown,
            step_rows=step_rows,
            steps=step_layout(report.profiles, detail),
            summary_row=summary_row,
            lr_charts=lr_charts,
            counts={s.value: report.count(s) for s in Severity},
            verifications=report.verifications[:MAX_VERIFICATIONS],
            # Outcomes read from another job's Report (the fork-safe pair): said so, above them all.
            reported=any(v.reported for v in report.verifications),
            verifications_hidden=max(len(report.verifications) - MAX_VERIFICATIONS, 0),
            outcomes=OUTCOME_LABELS,
        )
    )


def render_comment_counted(report: Report, limit: int = COMMENT_LIMIT) -> tuple[str, int]:
    """The status comment and how many of the report's first findings it shows (the rest are cut for size)."""
    template = _template()
    # A finding takes at least a dozen characters: more than limit // 12 can never fit, so never render them.
    shown = min(len(report.findings), limit // 12)
    # Every derived value of a profile takes a few hundred characters: the detail gives way first, then
    # the findings.
    detail = min(len(report.profiles), limit // 300)
    estimated = False
    while True:
        body = _render(template, report, shown, detail)
        if len(body) <= limit:
            return body, shown
        if detail > 1 and not estimated:
            # Once: how many profiles' details fit, from what they took here against a body without any
            # (two renders, where halving took five on a pull request changing 200 trainer configs).
            estimated = True
            bare = len(_render(template, report, shown, 0))
            each = max((len(body) - bare) / detail, 1.0)
            detail = max(min(int((limit - bare) / each * 0.95), detail // 2), 0)
        elif detail > 0:
            detail = detail // 2
        elif shown > 0:
            shown = shown // 2
        else:
            return _cut(body, limit), 0


TRUNCATED = (
    "\n\n_Comment truncated to stay under GitHub's comment size limit; run `bot check` locally for the "
    "full report._\n"
)


def _cut(body: str, limit: int) -> str:
    """Body cut at a line end so that it and the truncation note fit in limit; the marker line stays first."""
    if limit <= len(MARKER) + len(TRUNCATED):
        return body[:limit]
    cut = body[: limit - len(TRUNCATED)]
    # Lines are whole markdown units (untrusted text never spans lines): cutting at one keeps the structure.
    return cut[: cut.rindex("\n")] + TRUNCATED
