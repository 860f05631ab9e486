"""`bot publish REPORT.json`: phase 2 of the fork-safe pair, posting a Report saved by a read-only review.

It runs in a `workflow_run` job that never checks out pull request code. The artifact is validated first
(bot/artifact.py); the pull request is read again; only then does the issue-5 Publisher write the status
comment, labels and status, rendered here from the validated Report by the trusted template.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from bot.app import (
    CONFIG_PATH,
    STATUS_KINDS,
    ReviewError,
    guarded,
    read_event,
    redact,
    save_report,
)

log = logging.getLogger("bot.publish")


def add_parser(sub: argparse._SubParsersAction, output_args) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "publish",
        help="post a Report saved by `bot review --dry-run --output` (fork-safe phase 2, workflow_run)",
        description="Runs on a workflow_run event: GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_TOKEN "
        "come from the environment. The Report is checked (size, schema, repository, pull request, head "
        "commit) before anything is written.",
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
    from bot.api import GitHubError
    from bot.artifact import ArtifactError, Stale, check_origin, check_pull, check_waivers, read_artifact
    from bot.handlers import Context, config_at
    from bot.output import exit_code, to_json
    from bot.publish import (
        Publisher,
        State,
        decode_state,
        describe,
        desired_labels,
        is_approved,
        ours,
        plan_publish,
        wants_review_label,
    )
    from bot.render import render_comment

    repo = settings.repository
    if not repo:
        raise ReviewError("no repository: GITHUB_REPOSITORY must name the repository to publish to")
    event = read_event(settings)
    token = settings.token.get_secret_value() if settings.token else None
    try:
        report = read_artifact(args.report)
        run = check_origin(report, repo, event)
    except ArtifactError as exc:
        raise ReviewError(f"the Report artifact was rejected, nothing was written: {exc}") from None
    if client is None:
        if not token:
            raise ReviewError("no token: set GITHUB_TOKEN (or GH_TOKEN)")
        from bot.github import connect

        client = connect(token, repo, settings.api_url)
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
        check_pull(report, info, run)
        config = config_at(ctx, info.base_sha)
        identity = client.viewer()
        comments = client.comments(number)
        mine = ours(comments, identity)
        state = decode_state(mine[0].body) if mine else State()
        check_waivers(report, state.waivers, state.head)
        approved = wants_review_label(report.verdict, info.draft) and is_approved(
            client.reviews(number), info.author, info.head_sha
        )
    except ArtifactError as exc:
        raise ReviewError(f"the Report artifact was rejected, nothing was written: {exc}") from None
    except Stale as exc:
        print(f"bot: not published: {exc}.", file=sys.stderr)
        return 0
    except GitHubError as exc:
        raise ReviewError(redact(str(exc), token)) from None
    # The labels follow the trusted config and the pull request as it is now, not the artifact.
    desired = desired_labels(report.verdict, info.draft, approved, config)
    report = report.model_copy(update={"labels": desired})
    plan = plan_publish(report, info, comments, identity, state, desired, config, ctx.check_run)
    if ctx.dry_run:
        ctx.echo(describe(plan))
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=lambda line: log.info("%s", line))
    publisher.apply(plan, identity, config)
    problems = [str(publisher.error)] if publisher.error else []
    for message in dict.fromkeys(problems + publisher.problems):
        print(f"bot: {redact(message, token)}", file=sys.stderr)
    if args.output is not None:
        save_report(args.output, report)
    if args.format == "json":
        sys.stdout.write(to_json(report))
    elif not args.dry_run:
        sys.stdout.write(render_comment(report))
    return exit_code(report, args.fail_level)


def cmd_publish(args: argparse.Namespace) -> int:
    return guarded(run, args)
