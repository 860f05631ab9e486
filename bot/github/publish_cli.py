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
    p.add_argument(
        "report",
        type=Path,
        help="the Report JSON artifact of the read-only review; when the file is missing (phase 1 failed or "
        "saved none) the pull request is found from the triggering run and reviewed all the same",
    )
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
    """Validate, re-read, publish; client is built from the settings unless given (tests pass one).

    Without a usable artifact (phase 1 failed, was cancelled or saved none, or what it saved is rejected) the
    pull request is found from the triggering run itself and reviewed through the API all the same: a head
    nobody reviewed must never keep the `ready` of an older one.
    """
    from bot.github.actions import say
    from bot.github.api import GitHubError
    from bot.github.artifact import (
        ArtifactError,
        MissingArtifact,
        Stale,
        check_origin,
        check_pull,
        check_run,
        check_waivers,
        read_artifact,
    )
    from bot.github.handlers import Context, published

    repo = settings.repository
    if not repo:
        raise ReviewError("no repository: GITHUB_REPOSITORY must name the repository to publish to")
    event = read_event(settings)
    token = settings.token.get_secret_value() if settings.token else None
    try:
        run_info = check_run(repo, event)
    except ArtifactError as exc:
        raise ReviewError(f"the Report artifact was rejected, nothing was written: {exc}") from None
    report: Report | None = None
    rejected: str | None = None
    try:
        report = read_artifact(args.report)
        check_origin(report, repo, event)
    except MissingArtifact as exc:
        report = None
        say(
            f"no Report artifact from the triggering run ({exc}; its conclusion: {run_info.conclusion}): the "
            "pull request is found from the run and reviewed through the API."
        )
    except ArtifactError as exc:
        report, rejected = None, str(exc)
    if client is None:
        client = client_for(settings, repo)

    def context() -> Context:
        return Context(
            client=client,
            dry_run=args.dry_run,
            check_run=args.status == "check-run",
            config_path=args.config,
            echo=sys.stdout.write,
        )

    if report is not None:
        number = report.pr_number
        assert number is not None
        try:
            info = client.pull(number)
            check_pull(report, info, run_info)
            shown = published(client, number)
            check_waivers(report, shown[2].waivers, shown[2].head)
        except ArtifactError as exc:
            rejected = str(exc)
        except Stale as exc:
            say(f"not published: {exc}.")
            return 0
        except GitHubError as exc:
            raise ReviewError(redact(str(exc), token)) from None
        else:
            return review_and_publish(context(), args, info, token, report, shown)
    if rejected is not None:
        say(
            f"the Report artifact was rejected: {rejected}; the pull request of the triggering run is "
            "reviewed through the API instead."
        )
    try:
        infos = pulls_of_run(client, run_info)
    except GitHubError as exc:
        raise ReviewError(redact(str(exc), token)) from None
    code = 0
    for info in infos:
        code = max(code, review_and_publish(context(), args, info, token))
    return 2 if rejected is not None else code


def pulls_of_run(client, run) -> tuple:  # type: ignore[no-untyped-def]
    """The open pull requests at the triggering run's head, found from the run alone (no artifact).

    GitHub lists them on a run from the base repository; for a fork's run that list is empty, so they are
    looked up by the run's head repository owner and branch, and each is read again to check its head.
    """
    from bot.github.actions import say

    head_repo = run.head_repository.full_name if run.head_repository else None
    if run.pull_requests:
        numbers = tuple(p.number for p in run.pull_requests)
    elif head_repo and run.head_branch:
        listed = client.open_pulls_from(f"{head_repo.split('/')[0]}:{run.head_branch}")
        numbers = tuple(i.number for i in listed)
    else:
        numbers = ()
    found = []
    for number in dict.fromkeys(numbers):
        info = client.pull(number)
        # GitHub's own list on the run names its pull requests; one found by owner and branch must match both.
        same_head = bool(run.pull_requests) or (
            (info.head_repo or "").lower() == (head_repo or "").lower() and info.head_ref == run.head_branch
        )
        if not same_head or info.state != "open":
            continue
        if info.head_sha != run.head_sha:
            say(
                f"not published: pull request #{number} moved from {run.head_sha[:12]} to "
                f"{info.head_sha[:12]}; the run for its new head publishes its own."
            )
            continue
        found.append(info)
    if not found and not numbers:
        say(f"no open pull request has the triggering run's head {run.head_sha[:12]}: nothing was written.")
    return tuple(found)


def review_and_publish(  # type: ignore[no-untyped-def]
    ctx, args: argparse.Namespace, info, token: str | None, artifact: Report | None = None, shown=None
) -> int:
    """Recompute the review of info's head through the API and publish it; when that cannot be done, take
    `ready` (and its review label) off the pull request, fail the head's status and mark the comment stale."""
    from bot.github.actions import say
    from bot.github.api import GitHubError
    from bot.github.handlers import labelled, publish, published, reviewed, settled

    client = ctx.client
    number = info.number
    try:
        identity, comments, state = shown or published(client, number)
        # The artifact only triggers and binds: the result published is the review recomputed here, with the
        # config and policy read at the base commit; the labels follow that config and the pull request now.
        changeset, config, recomputed = reviewed(ctx, info)
        recomputed = labelled(client, info, settled(recomputed, changeset, config, state.waivers), config)
        if artifact is not None:
            # The test outcomes phase 1 reported: shown as the pull request's own job's, after the verdict.
            from bot.review.reported import with_reported

            recomputed = with_reported(recomputed, artifact.verifications)
        fresh = client.pull(number)
    except GitHubError as exc:
        add, remove = withdraw_ready(ctx, info)
        tell(ctx.messages, token)
        changed = "; ".join(
            part
            for part in (f"removed {list(remove)}" if remove else "", f"added {list(add)}" if add else "")
            if part
        )
        raise ReviewError(
            redact(
                f"{exc} The head was not reviewed, so it is not marked ready "
                f"({changed or 'labels unchanged'}).",
                token,
            )
        ) from None
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
    if artifact is not None and disagrees(artifact, recomputed):
        say(disagreement(artifact, recomputed, args.dry_run))
    try:
        publish(ctx, recomputed, fresh, comments, identity, state, config, changeset)
    except GitHubError as exc:
        ctx.messages.append(str(exc))
        ctx.failed = True
    tell(ctx.messages, token)
    code = emit(args, recomputed)
    return 2 if ctx.failed else code


STALE_NOTE = (
    "> [!WARNING]\n> **Not current.** This result is for commit {old}; the pull request's head {new} could "
    "not be reviewed, so it is not marked ready. The next review replaces this comment."
)


def withdraw_ready(ctx, info) -> tuple[tuple[str, ...], tuple[str, ...]]:  # type: ignore[no-untyped-def]
    """For a head that could not be reviewed: the needs-work label in place of ready and its review label, a
    failed status on the head, and a note on the status comment that its result is for an older commit.

    Returns the labels added and removed."""
    from bot.github.api import GitHubError
    from bot.github.handlers import config_at, finish, published
    from bot.github.publish import Publisher, StatusPlan, label_changes, ours
    from bot.review.render import MARKER
    from rules.core.config import Config

    client = ctx.client
    try:
        config = config_at(ctx, info.base_sha)
    except GitHubError:
        config = Config()  # only the label names are taken from it
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=ctx.echo)
    add, remove = label_changes(info.labels, (config.labels.needs_work,), config)
    publisher.labels(info.number, add, remove, config)
    kind = "check-run" if ctx.check_run else "commit-status"
    text = "not reviewed: GitHub could not give what the review reads"
    publisher.status(info.head_sha, StatusPlan(kind=kind, state="failure", description=text, summary=text))
    try:
        identity, comments, state = published(client, info.number)
    except GitHubError as exc:
        publisher.failed("read the status comment", exc)
    else:
        mine = ours(comments, identity)
        if mine and state.head != info.head_sha:
            old = mine[0]
            note = STALE_NOTE.format(old=(state.head or "an older head")[:12], new=info.head_sha[:12])
            if note not in old.body:
                body = old.body.replace(MARKER, f"{MARKER}\n{note}\n", 1)
                publisher.write(
                    f"mark status comment {old.id} stale", lambda: client.edit_comment(old.id, body)
                )
    finish(ctx, publisher)
    return add, remove


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
