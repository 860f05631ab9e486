"""The review run's shared parts: the handler context, the trusted config, the review of a pull request at
exact commits, and what the bot last published. Handlers for every event build on these."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.git.local import GitReader
from bot.github.api import Client, Comment, GitHubError, PullFile, PullInfo
from bot.github.checks import read_gate
from bot.github.linked import with_linked_issues
from bot.github.publish import (
    Publisher,
    State,
    decode_state,
    desired_labels,
    is_approved,
    ours,
    wants_review_label,
)
from bot.github.pull import (
    ApiReader,
    load_pull,
    local_checkout,
    prefetch,
    read_faults,
    unreviewed_that_matter,
)
from bot.github.waivers import apply_waivers
from bot.review.engine import incomplete_note, labels_for, read_config, review
from rules.catalog import REGISTRY
from rules.core.config import CONFIG_PATH, Config, ConfigError, load_config
from rules.core.models import ChangeSet, ReadFault, Report, UnreadableFile, Waiver

log = logging.getLogger(__name__)


@dataclass
class Context:
    """What a handler needs: the client, where a checkout may be, and how to publish."""

    client: Client
    checkout: Path | None = None
    dry_run: bool = False
    check_run: bool = False
    # The trusted config, always read at the pull request's base revision.
    config_path: str = CONFIG_PATH
    echo: Callable[[str], object] = print
    # Filled by the run: the report (for stdout and the exit code) and the one message about writing.
    report: Report | None = None
    messages: list[str] = field(default_factory=list)
    writes: int = 0
    # The run must end with exit 2 although a report exists: a malformed answer, or a publish left unverified.
    failed: bool = False
    # Files read through the API during this run, each fetched once (the config, then the review's reads).
    api_reader: ApiReader | None = None

    def reader(self) -> ApiReader:
        if self.api_reader is None:
            self.api_reader = ApiReader(self.client)
        return self.api_reader


def config_at(ctx: Context, base_sha: str) -> Config:
    """The trusted config at the base commit, from the checkout when it has it, else from the API."""
    top = local_checkout(ctx.checkout, base_sha)
    try:
        data = (
            GitReader(top).read(base_sha, ctx.config_path)
            if top
            else ctx.reader().read(base_sha, ctx.config_path)
        )
        return load_config(data, REGISTRY.values())
    except ReadFault as exc:
        # Defaults in place of a config GitHub failed to give would decide who may run commands: stop.
        raise GitHubError("unavailable", f"the config {ctx.config_path}: {exc.reason}") from None
    except (ConfigError, UnreadableFile) as exc:
        log.warning("config ignored, defaults used: %s", exc)
        return Config()


def _guard_partial(
    report: Report, missing: tuple[str, ...], faults: dict[str, str], config: Config, changed: set[str]
) -> Report:
    """A review that could not see files a rule reads is not complete: never ready, and it says which and why.

    Findings on a file whose read failed are withheld: they would blame the file for GitHub's fault.
    """
    if not missing:
        return report  # the review itself may be not complete (a test file it could not read): kept
    # One note for all: what the review itself could not read, then what the API did not give.
    every = report.incomplete + tuple(m for m in missing if m not in report.incomplete)
    notes = tuple(n for n in report.notes if not report.incomplete or n != incomplete_note(report.incomplete))
    findings = tuple(f for f in report.findings if f.path not in faults)
    coverage = report.coverage
    # Coverage counts the changed files: a failed read of AGENTS.md or of a file's base side is in the note.
    counted = set(coverage.not_reviewed)
    unread = tuple(p for p in faults if p in changed and p not in counted)
    if unread:
        coverage = coverage.model_copy(
            update={
                "not_reviewed": coverage.not_reviewed + unread,
                "files_reviewed": max(0, coverage.files_reviewed - len(unread)),
            }
        )
    return report.model_copy(
        update={
            "verdict": "needs-work",
            "labels": labels_for("needs-work", config),
            "findings": findings,
            "coverage": coverage,
            "notes": (*notes, incomplete_note(every)),
            "incomplete": every,
        }
    )


def finish(ctx: Context, publisher: Publisher) -> None:
    ctx.writes += publisher.writes
    if publisher.error is not None:
        ctx.messages.append(str(publisher.error))
        ctx.failed = ctx.failed or publisher.error.kind == "malformed"
    ctx.messages.extend(publisher.problems)
    if publisher.unverified is not None:
        ctx.messages.append(publisher.unverified)
        ctx.failed = True


def reviewed(
    ctx: Context, info: PullInfo, listed: tuple[PullFile, ...] | None = None
) -> tuple[ChangeSet, Config, Report]:
    """The review of the pull request at exactly info's base and head commits, before comment waivers.

    Without a checkout every file is read through the API; files are parsed, never run. listed: the changed
    files when they come from elsewhere than the pull request's files list (a merge queue's compare).
    """
    changeset = load_pull(ctx.client, info, ctx.checkout, ctx.reader(), listed)
    config = read_config(changeset, ctx.config_path)[0]
    fault = read_faults(changeset).get(ctx.config_path)
    if fault is not None:
        # Without its trusted config the bot cannot know which rules apply: it reviews nothing.
        raise GitHubError("unavailable", f"the config {ctx.config_path}: {fault}")
    changeset = with_linked_issues(ctx.client, changeset, config)
    prefetch(changeset, config)
    return changeset, config, review(changeset, config_path=ctx.config_path)


def settled(report: Report, changeset: ChangeSet, config: Config, waivers: tuple[Waiver, ...]) -> Report:
    """The report with the comment waivers applied and never ready when files a rule reads went unseen."""
    faults = read_faults(changeset)
    changed = {f.path for f in changeset.files}
    applied, lapsed = apply_waivers(report, waivers, changeset, config)
    if faults and lapsed:
        # Whether the waived code changed cannot be told from a partial view: the waivers are kept, unused,
        # for the next complete review to judge (dropping them would lose them for good).
        applied, _ = apply_waivers(report, tuple(w for w in waivers if w not in lapsed), changeset, config)
        applied = applied.model_copy(update={"waivers": applied.waivers + lapsed})
    return _guard_partial(applied, unreviewed_that_matter(changeset, config), faults, config, changed)


def published(client: Client, number: int) -> tuple[str, tuple[Comment, ...], State]:
    """The token's identity, the pull request's comments, and the state the bot's status comment holds."""
    identity = client.viewer()
    comments = client.comments(number)
    mine = ours(comments, identity)
    return identity, comments, decode_state(mine[0].body) if mine else State()


def labelled(client: Client, info: PullInfo, report: Report, config: Config) -> Report:
    """The report with the bot's labels for it, its gating checks and the repository it is published to."""
    # The checks decide only between ready and not: a review that needs work (or a draft) reads none.
    gate = (
        read_gate(client, config, info.base_ref, info.head_sha)
        if wants_review_label(report.verdict, info.draft)
        else None
    )
    # Approval only decides the review label, which rides with ready alone: otherwise skip the request.
    approved = wants_review_label(report.verdict, info.draft, gate) and is_approved(
        client.reviews(info.number), info.author, info.head_sha
    )
    desired = desired_labels(report.verdict, info.draft, approved, config, gate)
    return report.model_copy(update={"labels": desired, "repository": client.repo, "checks": gate})
