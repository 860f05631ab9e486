"""`bot publish REPORT.json`: phase 2 of the fork-safe pair, publishing the review of a fork's pull request.

It runs in a `workflow_run` job that never checks out pull request code. The artifact of the read-only review
is the trigger and names what to publish for (repository, pull request, head commit); it is validated first
(bot/github/artifact.py) and the pull request is read again. Its findings are not trusted: phase 1 ran the
fork's own workflow file, which can save any Report. The review is recomputed here through the API at the pull
request's exact base and head commits (files are parsed, never run), with the base config and policy and the
waivers of the bot's status comment; the issue-5 Publisher writes that result, rendered by the trusted
template.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from bot.github.app import (
    CONFIG_PATH,
    STATUS_KINDS,
    ReviewError,
    client_for,
    emit,
    guarded,
    read_event,
    redact,
    tell,
)

if TYPE_CHECKING:
    from rules.core.models import Report


def add_parser(sub: argparse._SubParsersAction, output_args) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "publish",
        help="publish the review of the pull request a saved Report names (fork-safe phase 2, workflow_run)",
        description="Runs on a workflow_run event: GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_TOKEN "
        "come from the environment. The Report is checked (size, schema, repository, pull request, head "
        "commit); the review is then recomputed through the API at that commit (no checkout) and the "
        "recomputed result is published, whatever the Report's own findings say.",
    )
    p.add_argument("report", type=Path, help="the Report JSON artifact of the read-only review")
    p.add_argument("--dry-run", action="store_true", help="validate and print what would be written")
    p.add_argument(
        "--config",
        default=CONFIG_PATH,
        help="config file, read at the pull request's base revision (default: %(default)s)",
    )
    p.add_argument(
        "--status",
        choices=STATUS_KINDS,
        default="commit-status",
        help="publish a commit status (default) or a check run with annotations (needs checks: write)",
    )
    output_args(p)


def run(args: argparse.Namespace, settings, client=None) -> int:  # type: ignore[no-untyped-def]
    """Validate, re-read, publish; client is built from the settings unless given (tests pass one)."""
    from bot.github.actions import say
    from bot.github.api import GitHubError
    from bot.github.artifact import (
        ArtifactError,
        Stale,
        check_origin,
        check_pull,
        check_waivers,
        read_artifact,
    )
    from bot.github.handlers import Context, labelled, publish, published, reviewed, settled

    repo = settings.repository
    if not repo:
        raise ReviewError("no repository: GITHUB_REPOSITORY must name the repository to publish to")
    event = read_event(settings)
    token = settings.token.get_secret_value() if settings.token else None
    try:
        report = read_artifact(args.report)
        origin = check_origin(report, repo, event)
    except ArtifactError as exc:
        raise ReviewError(f"the Report artifact was rejected, nothing was written: {exc}") from None
    if client is None:
        client = client_for(settings, repo)
    ctx = Context(
        client=client,
        dry_run=args.dry_run,
        check_run=args.status == "check-run",
        config_path=args.config,
        echo=sys.stdout.write,
    )
    number = report.pr_number
    assert number is not None
    try:
        info = client.pull(number)
        check_pull(report, info, origin)
        identity, comments, state = published(client, number)
        check_waivers(report, state.waivers, state.head)
        # The artifact only triggers and binds: the result published is the review recomputed here, with the
        # config and policy read at the base commit; the labels follow that config and the pull request now.
        changeset, config, recomputed = reviewed(ctx, info)
        recomputed = labelled(client, info, settled(recomputed, changeset, config, state.waivers), config)
        fresh = client.pull(number)
    except ArtifactError as exc:
        raise ReviewError(f"the Report artifact was rejected, nothing was written: {exc}") from None
    except Stale as exc:
        say(f"not published: {exc}.")
        return 0
    except GitHubError as exc:
        raise ReviewError(redact(str(exc), token)) from None
    if fresh.head_sha != info.head_sha or fresh.state != "open":
        moved = (
            f"moved from {info.head_sha[:12]} to {fresh.head_sha[:12]}"
            if fresh.head_sha != info.head_sha
            else f"was {fresh.state}"
        )
        say(
            f"not published: pull request #{number} {moved} during this run; the run for its new "
            "state publishes its own."
        )
        return 0
    if disagrees(report, recomputed):
        say(disagreement(report, recomputed, args.dry_run))
    try:
        publish(ctx, recomputed, fresh, comments, identity, state, config, changeset)
    except GitHubError as exc:
        ctx.messages.append(str(exc))
        ctx.failed = True
    tell(ctx.messages, token)
    code = emit(args, recomputed)
    return 2 if ctx.failed else code


def _found(report: Report) -> Counter[tuple[str, str | None, int | None]]:
    return Counter((f.rule, f.path, f.line) for f in report.findings)


def disagrees(artifact: Report, recomputed: Report) -> bool:
    """Whether the artifact's verdict or findings (rule, path, line) are not the recomputed review's."""
    return artifact.verdict != recomputed.verdict or _found(artifact) != _found(recomputed)


def disagreement(artifact: Report, recomputed: Report, dry_run: bool = False) -> str:
    """One log line; it quotes only the verdicts (validated) and counts, nothing of the artifact's text."""
    extra = sum((_found(artifact) - _found(recomputed)).values())
    missing = sum((_found(recomputed) - _found(artifact)).values())
    published = "would be published" if dry_run else "was published"
    return (
        f"the artifact disagreed with the review recomputed through the API (artifact: {artifact.verdict}, "
        f"{len(artifact.findings)} findings; recomputed: {recomputed.verdict}, {len(recomputed.findings)} "
        f"findings; {missing} missing from the artifact, {extra} not found again); the recomputed result "
        f"{published}, not the artifact's."
    )


def cmd_publish(args: argparse.Namespace) -> int:
    return guarded(run, args)
