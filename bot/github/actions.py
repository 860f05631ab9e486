"""GitHub Actions sinks of a Report: step outputs, job summary, annotations and a safe log.

Pure helpers: the entry module passes in the file paths; nothing here reads the environment.
Workflow-command syntax: https://docs.github.com/actions/reference/workflow-commands-for-github-actions
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

from rules.core.models import Finding, Report
from rules.core.sanitize import visible
from rules.core.verification import Outcome, Verification, outcome_label

# GitHub refuses a step summary over 1 MiB; stay clearly below it, note included.
SUMMARY_LIMIT = 1024 * 1024 - 4096
TRUNCATED_NOTE = (
    "\n\n_Summary truncated to stay under GitHub's 1 MiB step-summary limit; the Report JSON holds all._\n"
)
_OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def escape_data(value: str) -> str:
    """The message part of a workflow command: a newline can no longer start a new command."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


_BREAK = re.compile(r"\r\n?|\n")


def log_line(text: str) -> str:
    """One line for the step log outside any fence: no line break, and no command syntax it could carry.

    The runner reads a line, after its leading spaces, as a command if it starts with `::`, and an old-style
    `##[name]` command anywhere in it. Line breaks become ` | ` (quoted input stays on this line and stays
    readable in a terminal, where `%0A` would not be), a `::` at the start loses its second colon's meaning
    as `: :`, and `##[` loses its bracket.
    """
    line = _BREAK.sub(" | ", text).replace("##[", "## [")
    body = line.lstrip()
    if body.startswith("::"):
        line = line[: len(line) - len(body)] + ": :" + body[2:]
    return line


class LogFormatter(logging.Formatter):
    """`bot: message` log records as single safe lines (log_line), tracebacks included."""

    def format(self, record: logging.LogRecord) -> str:
        return log_line(super().format(record))


def say(message: str, out: TextIO | None = None) -> None:
    """A `bot: ...` line on stderr (or out), as log_line makes it safe."""
    print(log_line(f"bot: {message}"), file=out or sys.stderr)


def escape_property(value: str) -> str:
    """A property value (file=, title=): additionally ':' and ',' cannot end it early."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: str | int | None) -> str:
    """One workflow command line, every value escaped."""
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None
    )
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(finding: Finding) -> str:
    """A finding as an error/warning/notice annotation on its file and line."""
    message = finding.message
    if finding.source:
        message += f" (per {finding.source})"
    # As in the comment, bidi and zero-width characters are shown, not obeyed. The file stays as it is: it
    # must name the file for GitHub to place the annotation.
    return command(
        finding.severity.value,
        visible(message),
        file=finding.path,
        line=finding.line if finding.path else None,
        title=visible(f"{finding.rule} {finding.name}"),
    )


def verification_annotation(v: Verification) -> str:
    """A verified test's outcome on its `def` line: an error where it fails at head, a notice otherwise (one
    another job reported is a notice, whatever it says)."""
    level = "error" if v.outcome is Outcome.BROKEN and not v.reported else "notice"
    return command(level, visible(v.reason), file=v.path, line=v.line, title=visible(outcome_label(v)))


def annotation_lines(report: Report) -> list[str]:
    return [*(annotation(f) for f in report.findings), *map(verification_annotation, report.verifications)]


def _token(avoid: str) -> str:
    while True:
        token = secrets.token_hex(16)
        if token not in avoid:
            return token


def stop_commands(text: str, token: str | None = None) -> str:
    """Untrusted text for the log, between `::stop-commands::TOKEN` and `::TOKEN::`, so it runs no command."""
    token = token or _token(text)
    if token in text:
        raise ValueError("the stop-commands token occurs in the text")
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


def output_entry(name: str, value: str) -> str:
    """One GITHUB_OUTPUT entry in the multi-line form, with a random delimiter absent from the value."""
    if not _OUTPUT_NAME.match(name):
        raise ValueError(f"invalid output name: {name!r}")
    delimiter = f"ghadelimiter_{_token(value)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append step outputs to the GITHUB_OUTPUT file."""
    with open(path, "a", encoding="utf-8", newline="\n") as fh:
        for name, value in outputs.items():
            fh.write(output_entry(name, value))


def cap_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """Markdown cut (at a line end, by UTF-8 bytes) so that it and a note fit under limit."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    room = limit - len(TRUNCATED_NOTE.encode("utf-8"))
    cut = data[: max(room, 0)].decode("utf-8", errors="ignore")
    if "\n" in cut:
        cut = cut[: cut.rindex("\n")]
    return cut + TRUNCATED_NOTE


def write_summary(path: Path, markdown: str, limit: int = SUMMARY_LIMIT) -> None:
    """Append markdown to the GITHUB_STEP_SUMMARY file, keeping the file under limit."""
    used = path.stat().st_size if path.exists() else 0
    with open(path, "a", encoding="utf-8", newline="\n") as fh:
        fh.write(cap_summary(markdown, max(limit - used, 0)))


def max_steps(report: Report) -> dict[str, dict[str, int | None]]:
    """max_steps of each changed profile, base and head, keyed by the profile's path."""
    return {
        p.path: {
            "base": p.base.max_steps if p.base else None,
            "head": p.head.max_steps if p.head else None,
        }
        for p in report.profiles
    }


def report_outputs(report: Report, report_path: Path | str) -> dict[str, str]:
    """The action's outputs for a Report saved at report_path."""
    return {
        "verdict": report.verdict,
        "labels": json.dumps(list(report.labels)),
        "findings": str(len(report.findings)),
        "max-steps": json.dumps(max_steps(report), sort_keys=True),
        "report": str(report_path),
    }


def lines(items: Iterable[str]) -> str:
    return "".join(f"{item}\n" for item in items)


def publish(
    report: Report,
    report_path: Path,
    out: TextIO,
    *,
    github_output: Path | None,
    step_summary: Path | None,
    log: str | None = None,
    annotate: bool = True,
) -> None:
    """Everything a step reports to the runner: safe log, annotations, outputs and summary."""
    from bot.review.render import render_comment

    comment = render_comment(report, limit=SUMMARY_LIMIT)
    out.write(stop_commands(comment if log is None else log))
    if annotate:
        out.write(lines(annotation_lines(report)))
    out.flush()
    if github_output is not None:
        write_outputs(github_output, report_outputs(report, report_path))
    if step_summary is not None:
        write_summary(step_summary, comment)
