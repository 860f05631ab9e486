"""Event routing: an explicit table from (event, action) to a handler, and the review run they share."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from bot.github.api import Comment, GitHubError, PullInfo
from bot.github.commands import HELP, Command, addressed, authorize, needs_permission, parse_commands
from bot.github.events import Event
from bot.github.publish import (
    Publisher,
    State,
    describe,
    is_approved,
    is_identity,
    label_changes,
    ours,
    plan_publish,
    review_labels,
)
from bot.github.queue import on_merge_group
from bot.github.ready import on_checks
from bot.github.reviewing import (
    Context,
    config_at,
    finish,
    labelled,
    published,
    reviewed,
    settled,
)
from bot.github.suggest import Selection, note, select
from bot.github.suggest import plan as plan_suggestions
from bot.github.waivers import bind, not_covered, stamp
from bot.review.render import MARKER
from rules.core.config import Config
from rules.core.models import ChangeSet, Report, Waiver

# Re-exported: the app and `bot publish` build on the shared parts through this module.
__all__ = [
    "Context",
    "config_at",
    "dispatch",
    "finish",
    "labelled",
    "published",
    "review_pull",
    "reviewed",
    "settled",
]

log = logging.getLogger(__name__)

REPLY_MARKER = "<!-- bot-review:reply -->"
PR_EDITS = frozenset({"title", "body", "base"})


def _when(stamp: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp) if stamp else None
    except ValueError:
        return None


def _seen(waiver: Waiver, status: Comment | None, state: State) -> str:
    """Which version of the status comment the waiver's writer saw: "shown", "either" or "" (unknown).

    GitHub's own times decide: the command's creation against the comment's last edit, and against when the
    version that edit replaced was written (kept in the state). Anything older or unreadable is unknown.
    """
    written = _when(waiver.at)
    if status is None or written is None:
        return ""
    edited = _when(status.updated_at or status.created_at)
    if edited is not None and written >= edited:
        return "shown"
    earlier = _when(state.earlier_at)
    return "either" if earlier is not None and written >= earlier else ""


def _bind_new(
    new_waivers: tuple[Waiver, ...], status: Comment | None, state: State
) -> tuple[tuple[Waiver, ...], list[str]]:
    """The new waivers bound to the findings their writers were shown, and a line for each that binds none."""
    bound: list[Waiver] = []
    lines: list[str] = []
    for w in new_waivers:
        seen = _seen(w, status, state)
        b = bind(w, state.shown, state.earlier, seen)
        if b is not None:
            bound.append(b)
            continue
        why = (
            f"the status comment showed no {w.rule} finding when it was written"
            if seen
            else "the findings shown when it was written are not known (the status comment changed since, "
            "or there was none)"
        )
        lines.append(f"The waiver of {w.rule} waived nothing: {why}. Read the review and waive again.")
    return tuple(bound), lines


def review_pull(
    ctx: Context, number: int, new_waivers: tuple[Waiver, ...] = (), start: PullInfo | None = None
) -> list[str]:
    """Review a pull request and publish the result, unless its head moved on meanwhile.

    new_waivers (from `@bot waive`) cover only the findings their writer was shown; the lines returned say
    which findings of their rules they left standing, for the reply to the command.
    """
    client = ctx.client
    info = start or client.pull(number)
    changeset, config, report = reviewed(ctx, info)
    identity, comments, state = published(client, number)
    mine = ours(comments, identity)
    bound, lines = _bind_new(new_waivers, mine[0] if mine else None, state)
    stamped = tuple(stamp(w, report, changeset) for w in bound)
    report = labelled(client, info, settled(report, changeset, config, state.waivers + stamped), config)
    ctx.report = report
    for w in stamped:
        left = not_covered(w, report)
        if left:
            shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
            lines.append(
                f"The waiver of {w.rule} does not cover {shown}: not shown in the status comment when it was "
                "written (pushed since?). Read the review and waive again to cover it."
            )
    fresh = client.pull(number)
    if fresh.head_sha != info.head_sha:
        ctx.messages.append(
            f"pull request #{number} moved from {info.head_sha[:12]} to {fresh.head_sha[:12]} during this "
            "run; this result was not published (the run for the new head publishes its own)."
        )
        return lines
    publish(ctx, report, fresh, comments, identity, state, config, changeset)
    return lines


def publish(
    ctx: Context,
    report: Report,
    fresh: PullInfo,
    comments: tuple[Comment, ...],
    identity: str,
    state: State,
    config: Config,
    changeset: ChangeSet | None = None,
) -> None:
    """Write what differs between the labelled report and the pull request as fresh shows it.

    The suggested changes are this run's own review's (in the fork-safe pair, the publish job's), never
    taken from an artifact; the fixes they cannot show are named in the status comment.
    """
    selection = select(report, changeset, config.suggestions) if changeset is not None else Selection()
    left = note(selection)
    if left:
        report = report.model_copy(update={"notes": (*report.notes, left)})
    plan = plan_publish(report, fresh, comments, identity, state, config, ctx.check_run)
    if ctx.dry_run:
        ctx.echo(describe(plan))
    publisher = Publisher(ctx.client, dry_run=ctx.dry_run, echo=lambda line: log.info("%s", line))
    publisher.apply(plan, identity, config)
    if changeset is not None and config.suggestions != "off":
        _suggest(ctx, publisher, fresh, identity, selection)
    finish(ctx, publisher)


def _suggest(
    ctx: Context, publisher: Publisher, fresh: PullInfo, identity: str, selection: Selection
) -> None:
    """Make the pull request's suggested changes those of the selection (nothing when nothing differs)."""
    if publisher.error is not None:
        # Read-only token (or a fault no retry fixes): a review would be refused too, so none is tried.
        log.info("suggested changes not attempted: %s", publisher.error.kind)
        return
    try:
        existing = ctx.client.review_comments(fresh.number)
    except GitHubError as exc:
        publisher.failed("list the review comments", exc)
        return
    mine = {c.id for c in existing if is_identity(c, identity)}
    todo = plan_suggestions(selection.suggestions, existing, mine)
    if ctx.dry_run:
        ctx.echo(
            f"Suggested changes: {len(todo.post)} to post, {len(todo.delete)} to delete, {todo.kept} shown\n"
        )
    publisher.suggestions(fresh.number, fresh.head_sha, todo)


def on_pull_request(ctx: Context, event: Event) -> None:
    assert event.pull_request is not None
    review_pull(ctx, event.pull_request.number)


def on_edited(ctx: Context, event: Event) -> None:
    if not PR_EDITS & set(event.changes):
        log.info("pull request edited without a title, body or base change: nothing to do")
        return
    on_pull_request(ctx, event)


def on_review(ctx: Context, event: Event) -> None:
    """A review was submitted or dismissed: recompute the review label only."""
    pr = event.pull_request
    assert pr is not None
    client = ctx.client
    config = config_at(ctx, pr.base.sha)
    fresh = client.pull(pr.number)
    if fresh.head_sha != pr.head.sha:
        ctx.messages.append(
            f"pull request #{pr.number} moved on since the review; labels left to the next run."
        )
        return
    if config.labels.ready not in fresh.labels:
        log.info("pull request #%d is not marked ready: no review label to update", pr.number)
        return
    approved = is_approved(client.reviews(pr.number), fresh.author, fresh.head_sha)
    add, remove = label_changes(fresh.labels, review_labels(fresh.labels, approved, config), config)
    if ctx.dry_run:
        ctx.echo(f"Labels to add: {list(add) or 'none'}; to remove: {list(remove) or 'none'}\n")
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=lambda line: log.info("%s", line))
    publisher.labels(pr.number, add, remove, config)
    finish(ctx, publisher)


def _reply(ctx: Context, publisher: Publisher, number: int, text: str) -> None:
    publisher.write(
        "reply to the command", lambda: ctx.client.create_comment(number, f"{REPLY_MARKER}\n{text}")
    )


def on_comment(ctx: Context, event: Event) -> None:
    """`@bot review|help|waive` on a pull request, from someone allowed to ask."""
    issue, comment = event.issue, event.comment
    if issue is None or comment is None or not issue.is_pull_request:
        log.info("comment on a plain issue: ignored")
        return
    body = comment.body or ""
    if comment.user.is_bot or MARKER in body or REPLY_MARKER in body:
        log.info("comment by a bot or by this bot: ignored")
        return
    if not addressed(body):
        log.info("comment holds no command: ignored")
        return
    client = ctx.client
    info = client.pull(issue.number)
    config = config_at(ctx, info.base_sha)
    commands = parse_commands(body, config.handle)
    if not commands:
        log.info("comment holds no command for @%s: ignored", config.handle)
        return
    actor = comment.user.login
    permission: str | None = None
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=ctx.echo)
    allowed: list[Command] = []
    denied: dict[str, None] = {}  # each reason once, in order
    for cmd in commands:
        if needs_permission(cmd, actor, info.author) and permission is None:
            try:
                permission = client.permission(actor)
            except GitHubError as exc:  # fail closed: any failure denies
                log.warning("permission look-up for %s failed, denied: %s", actor, exc)
                permission = ""
        decision = authorize(cmd, actor, info.author, permission or None)
        if decision.allowed:
            allowed.append(cmd)
        else:
            denied.setdefault(f"`@{config.handle} {cmd.name}` was not run: {decision.reason}.", None)
    if allowed:
        publisher.write("react to the command", lambda: client.react(comment.id, "+1"))
    # One reply per comment, whatever it holds: five denied commands ping their author once, not five times.
    parts = []
    if denied:
        lines = list(denied)
        parts.append(
            f"@{actor} {lines[0]}" if len(lines) == 1 else f"@{actor}\n" + "\n".join(f"- {x}" for x in lines)
        )
    if any(c.name == "help" for c in allowed):
        parts.append(HELP.format(handle=config.handle))
    waivers = tuple(
        Waiver(rule=c.rule or "", reason=c.reason or "", by=actor, at=comment.created_at)
        for c in allowed
        if c.name == "waive"
    )
    try:
        if waivers or any(c.name == "review" for c in allowed):
            lines = review_pull(ctx, info.number, new_waivers=waivers, start=info)
            if lines:
                parts.append(f"@{actor}\n" + "\n".join(f"- {x}" for x in lines))
    finally:
        # After the review, so what a waiver left standing is in the same one reply as any refusal.
        if parts:
            _reply(ctx, publisher, info.number, "\n\n".join(parts))
        finish(ctx, publisher)


Handler = Callable[[Context, Event], None]

ROUTES: dict[tuple[str, str], Handler] = {
    ("pull_request", "opened"): on_pull_request,
    ("pull_request", "synchronize"): on_pull_request,
    ("pull_request", "reopened"): on_pull_request,
    ("pull_request", "ready_for_review"): on_pull_request,
    ("pull_request", "edited"): on_edited,
    # Same payloads, base-branch workflow with a writable token (the PR's code is never checked out there).
    ("pull_request_target", "opened"): on_pull_request,
    ("pull_request_target", "synchronize"): on_pull_request,
    ("pull_request_target", "reopened"): on_pull_request,
    ("pull_request_target", "ready_for_review"): on_pull_request,
    ("pull_request_target", "edited"): on_edited,
    ("issue_comment", "created"): on_comment,
    ("pull_request_review", "submitted"): on_review,
    ("pull_request_review", "dismissed"): on_review,
    # A check finished: labels and the comment's top follow the checks, no review (bot/github/ready.py).
    ("workflow_run", "completed"): on_checks,
    ("check_suite", "completed"): on_checks,
    ("check_run", "completed"): on_checks,
    # A `status` delivery has no action: the payload's state is what changed.
    ("status", ""): on_checks,
    ("merge_group", "checks_requested"): on_merge_group,
}


def dispatch(ctx: Context, event: Event) -> bool:
    """Run the handler for an event; False (logged) when the event is not one the bot handles."""
    handler = ROUTES.get((event.name, event.action or ""))
    if handler is None:
        log.info("event %s/%s is not handled: nothing to do", event.name, event.action)
        return False
    if event.name.startswith("pull_request") and event.pull_request is None:
        log.info("event %s/%s has no pull request: nothing to do", event.name, event.action)
        return False
    handler(ctx, event)
    return True
