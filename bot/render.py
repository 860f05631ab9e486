"""The Report as the markdown status comment, from jinja2 templates beside this module."""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby
from pathlib import Path

import jinja2

from bot import sanitize
from bot.models import Finding, ProfileMath, Report, Severity

MARKER = "<!-- bot-review:status -->"
# GitHub refuses comment bodies over 65,536 characters; leave room for the truncation note.
COMMENT_LIMIT = 65_000

STEP_FIELDS = (
    ("semantics", "semantics"),
    ("config_path", "Prime-RL config"),
    ("batch_size", "batch size"),
    ("micro_batch_size", "micro batch size"),
    ("world_size", "world size"),
    ("grad_accum", "grad accumulation"),
    ("seq_len", "seq_len"),
    ("target_examples", "target_examples"),
    ("target_micro_steps", "target_micro_steps"),
    ("max_steps", "max_steps"),
    ("scheduler", "scheduler"),
    ("warmup_steps", "scheduler.warmup_steps"),
    ("decay_steps", "scheduler.decay_steps"),
    ("ckpt_interval", "ckpt.interval"),
    ("ckpt_keep_interval", "ckpt.keep_interval"),
    ("effective_train_examples", "effective examples"),
    ("unapplied_micro_steps", "unapplied micro steps"),
    ("tokens_per_step", "tokens per step"),
)
# Values read from a pull request's files: shown as inline code, never as markdown.
UNTRUSTED_FIELDS = frozenset({"config_path", "scheduler"})


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
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
    return env


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
        old = getattr(profile.base, key) if profile.base else None
        new = getattr(profile.head, key) if profile.head else None
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


def _groups(findings: tuple[Finding, ...]) -> list[tuple[str | None, list[Finding]]]:
    ordered = sorted(findings, key=lambda f: (f.path is not None, f.path or "", f.line or 0))
    return [(path, list(items)) for path, items in groupby(ordered, key=lambda f: f.path)]


def render_comment(report: Report, limit: int = COMMENT_LIMIT) -> str:
    """The status comment for a report, kept under GitHub's size limit."""
    template = _env().get_template("comment.md.j2")
    # A finding takes at least a dozen characters: more than limit // 12 can never fit, so never render them.
    shown = min(len(report.findings), limit // 12)
    while True:
        body = template.render(
            marker=MARKER,
            report=report,
            groups=_groups(report.findings[:shown]),
            hidden=len(report.findings) - shown,
            step_rows=step_rows,
            counts={s.value: report.count(s) for s in Severity},
        )
        if len(body) <= limit:
            return body
        if shown == 0:
            return _cut(body, limit)
        shown = shown // 2


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
