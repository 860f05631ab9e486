"""A saved Report as an untrusted artifact: what `bot publish` checks before it writes anything.

In the fork-safe pair the Report comes from a run on the pull request's own code (its workflow file included),
so every byte of it is untrusted data. It must be small, a valid Report naming the repository, pull request
and head commit it was computed for, and every value the comment shows unescaped must be one the bot itself
produces (rule codes and names, step semantics). The comment is rendered afterwards by the trusted template.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.github.api import PullInfo
from bot.github.events import Event, WorkflowRun
from bot.review.output import ReportError, parse_report
from rules.catalog import REGISTRY
from rules.core.models import Report, Severity, StepValues, Waiver
from rules.training.stepmath import SEMANTICS

# A real Report is tens of kilobytes; a few thousand findings stay well under this.
MAX_ARTIFACT_BYTES = 4 * 1024 * 1024
_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_REPOSITORY = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_CODE = re.compile(r"^[A-Za-z]{2,10}[0-9]{1,4}$")


class ArtifactError(Exception):
    """The artifact is not a Report this run may publish; the message is one line naming why."""


class MissingArtifact(ArtifactError):
    """No artifact at all: phase 1 failed, was cancelled, or saved none."""


class Stale(Exception):
    """The artifact is genuine but no longer current (the pull request moved on): nothing to publish."""


def _names() -> dict[str, str]:
    return {code: rule.name for code, rule in REGISTRY.items()}


def read_artifact(path: Path, limit: int = MAX_ARTIFACT_BYTES) -> Report:
    """Read at most limit + 1 bytes of the file and validate them (load_artifact)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise MissingArtifact(f"there is no {path.name}") from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {path.name}: {exc.strerror}") from None
    return load_artifact(data, limit)


def load_artifact(data: bytes, limit: int = MAX_ARTIFACT_BYTES) -> Report:
    """A Report from untrusted bytes, with what publishing needs; ArtifactError otherwise."""
    try:
        report = parse_report(data, limit)
    except ReportError as exc:
        raise ArtifactError(str(exc)) from None
    _check_identity(report)
    _check_shown_values(report)
    return report


def _check_identity(report: Report) -> None:
    if report.repository is None or not _REPOSITORY.match(report.repository):
        raise ArtifactError("it names no repository (OWNER/NAME); save it with `bot review --output`")
    if report.pr_number is None or report.pr_number < 1:
        raise ArtifactError("it names no pull request number")
    if report.head_sha is None or not _SHA.match(report.head_sha):
        raise ArtifactError("it names no head commit SHA")


def _check_shown_values(report: Report) -> None:
    # The template shows these as they are (they are the bot's own words): only the bot's own values pass.
    names = _names()
    for f in report.findings:
        if names.get(f.rule) != f.name:
            raise ArtifactError(f"finding {_short(f.rule)} {_short(f.name)} is not one of the bot's rules")
    for w in report.waivers:
        _waiver_code(w)
    for p in report.profiles:
        for side in (p.base, p.head):
            _semantics(side)
    if report.verdict == "ready" and report.count(Severity.ERROR):
        raise ArtifactError("it says ready although it holds error findings")


def _waiver_code(w: Waiver) -> None:
    if not _CODE.match(w.rule):
        raise ArtifactError(f"waiver {_short(w.rule)} does not name a rule code")


def _semantics(values: StepValues | None) -> None:
    if values is not None and values.semantics not in SEMANTICS:
        raise ArtifactError(f"step semantics {_short(values.semantics)} are not known")


def _short(value: str) -> str:
    # Error messages quote untrusted values: printable, short, and unable to start a workflow command.
    shown = "".join(ch if ch.isprintable() else "?" for ch in value[:40]).replace("::", ": :")
    return repr(shown)


class WrongEvent(ArtifactError):
    """The event itself is not a pull request run of this repository: there is nothing to publish for."""


def check_run(repository: str, event: Event) -> WorkflowRun:
    """The event is a workflow_run of a pull request run in this repository (with or without an artifact)."""
    run = event.workflow_run
    if event.name != "workflow_run" or run is None:
        raise WrongEvent(f"`bot publish` runs on a workflow_run event, not {event.name}")
    if run.event not in ("pull_request", "pull_request_target"):
        raise WrongEvent(f"the triggering run was for a {run.event} event, not a pull request")
    if event.repository is not None and event.repository.full_name.lower() != repository.lower():
        raise WrongEvent("the event is for another repository than GITHUB_REPOSITORY")
    return run


def check_origin(report: Report, repository: str, event: Event) -> WorkflowRun:
    """The artifact belongs to this repository and to the pull request run that triggered this workflow."""
    run = check_run(repository, event)
    assert report.repository is not None and report.head_sha is not None
    if report.repository.lower() != repository.lower():
        raise ArtifactError(f"it was computed for {_short(report.repository)}, not {repository}")
    if report.head_sha != run.head_sha:
        raise ArtifactError(
            f"it was computed for commit {report.head_sha[:12]}, but the triggering run reviewed "
            f"{run.head_sha[:12]}"
        )
    listed = {pr.number for pr in run.pull_requests}
    if listed and report.pr_number not in listed:
        shown = ", ".join(f"#{n}" for n in sorted(listed))
        raise ArtifactError(f"it is for pull request #{report.pr_number}, but the run was for {shown}")
    return run


def check_pull(report: Report, info: PullInfo, run: WorkflowRun) -> None:
    """The pull request, read again through the API, is still the one and at the head the Report reviewed."""
    if info.number != report.pr_number:
        raise ArtifactError(f"GitHub answered pull request #{info.number} for #{report.pr_number}")
    if not run.pull_requests:
        # GitHub lists no pull requests on runs from forks: the pull request's head must be the run's.
        head_repo = run.head_repository.full_name if run.head_repository else None
        if info.head_repo is None or head_repo is None or info.head_repo.lower() != head_repo.lower():
            raise ArtifactError(
                f"pull request #{info.number} does not come from the repository the triggering run was for"
            )
        if run.head_branch is not None and info.head_ref != run.head_branch:
            raise ArtifactError(
                f"pull request #{info.number} does not come from the branch the triggering run was for"
            )
    if info.state != "open":
        raise Stale(f"pull request #{info.number} is {info.state}")
    assert report.head_sha is not None
    if info.head_sha != report.head_sha:
        raise Stale(
            f"pull request #{info.number} moved from {report.head_sha[:12]} to {info.head_sha[:12]} since "
            "the review; the review of the new head publishes its own"
        )


def check_waivers(report: Report, recorded: tuple[Waiver, ...], recorded_head: str | None) -> None:
    """Comment waivers in the artifact must be ones the bot's own status comment records.

    Only `@bot waive` (run by the trusted comment workflow) creates them; an artifact cannot add one. When the
    comment records more waivers for this same head, it holds a newer result than the artifact: Stale.
    """
    claimed = {w for w in report.waivers if w.fingerprint is not None}
    known = set(recorded)
    unknown = sorted(w.rule for w in claimed - known)
    if unknown:
        raise ArtifactError(f"its waiver of {_short(unknown[0])} is not recorded in the bot's status comment")
    if recorded_head == report.head_sha and known - claimed:
        raise Stale("the status comment already holds a newer result for this head (a waiver added since)")
