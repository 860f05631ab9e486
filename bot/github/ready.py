"""Keeps `status:ready` in step with the checks: when a check finishes, relabel without reviewing again.

`workflow_run`, `check_suite`, `check_run` (completed) and `status` events name a commit. For each open pull
request whose head it is, the bot reads the gating checks and its own last verdict (its status or check run on
that head, else its status comment's hidden state), and rewrites only its labels and the top of its status
comment. Nothing of the pull request is checked out or run: these events run the base repository's workflow.
"""

from __future__ import annotations

import logging

from bot.github.checks import OWN, observed, own_verdict, read_gate
from bot.github.events import Event
from bot.github.publish import Publisher, desired_labels, is_approved, label_changes, ours, wants_review_label
from bot.github.reviewing import Context, config_at, finish, published
from bot.review.render import replace_top

log = logging.getLogger(__name__)

# Pull requests relabelled for one commit at most (a commit is the head of one, rarely of a few).
MAX_PULLS = 5
# Branches of a `status` event looked up (each one request): the commit's own branch comes first.
MAX_BRANCHES = 3


def _target(event: Event) -> tuple[str, tuple[int, ...], tuple[str, ...]] | None:
    """The commit an event is about, the pull requests it names, and `OWNER:BRANCH` heads to look up when it
    names none; None for the bot's own check or a run that is not finished."""
    owner = (event.repository.full_name if event.repository else "").partition("/")[0]
    if event.workflow_run is not None:
        run = event.workflow_run
        heads: tuple[str, ...] = ()
        if not run.pull_requests and run.head_repository and run.head_branch:
            heads = (f"{run.head_repository.full_name.partition('/')[0]}:{run.head_branch}",)
        return run.head_sha, tuple(p.number for p in run.pull_requests), heads
    if event.check_run is not None:
        if event.check_run.name in OWN:
            return None
        return event.check_run.head_sha, tuple(p.number for p in event.check_run.pull_requests), ()
    if event.check_suite is not None:
        suite = event.check_suite
        return suite.head_sha, tuple(p.number for p in suite.pull_requests), ()
    if event.sha is not None:
        if event.context in OWN:
            return None
        heads = tuple(f"{owner}:{b.name}" for b in event.branches[:MAX_BRANCHES]) if owner else ()
        return event.sha, (), heads
    return None


def on_checks(ctx: Context, event: Event) -> None:
    """A check finished on a commit: bring the labels and comment of its pull requests up to date."""
    target = _target(event)
    if target is None:
        log.info("%s about the bot's own check: nothing to do", event.name)
        return
    sha, numbers, heads = target
    if not numbers:
        found: dict[int, None] = {}
        for head in heads:
            for p in ctx.client.open_pulls_from(head):
                if p.head_sha == sha:
                    found.setdefault(p.number, None)
        numbers = tuple(found)
    if not numbers:
        log.info("no open pull request has %s as its head: nothing to do", sha[:12])
        return
    for number in numbers[:MAX_PULLS]:
        refresh(ctx, number, sha)


def refresh(ctx: Context, number: int, sha: str) -> None:
    """Relabel one pull request from its head's checks and the bot's last verdict; write only what differs."""
    client = ctx.client
    info = client.pull(number)
    if info.state != "open" or info.head_sha != sha:
        log.info("pull request #%d is closed or has moved on from %s: nothing to do", number, sha[:12])
        return
    if info.draft:
        log.info("pull request #%d is a draft: never ready, nothing to do", number)
        return
    config = config_at(ctx, info.base_sha)
    if config.ready.checks == "none":
        log.info("ready.checks is none: the checks do not decide the labels")
        return
    states = observed(client, sha)
    verdict = own_verdict(states)
    identity, comments, state = None, None, None
    if verdict is None:
        # No status or check run of the bot on this head yet: its comment's hidden state may know.
        identity, comments, state = published(client, number)
        verdict = state.verdict if state.head == sha else None
    if verdict != "ready":
        log.info(
            "pull request #%d: the review %s; the checks do not change its labels",
            number,
            "needs work" if verdict == "needs-work" else "of this head is not published yet",
        )
        return
    gate = read_gate(client, config, info.base_ref, sha, seen=states)
    approved = wants_review_label(verdict, info.draft, gate) and is_approved(
        client.reviews(number), info.author, sha
    )
    desired = desired_labels(verdict, info.draft, approved, config, gate)
    add, remove = label_changes(info.labels, desired, config)
    if comments is None:
        identity, comments, state = published(client, number)
    assert identity is not None and state is not None
    mine = ours(comments, identity)
    body = replace_top(mine[0].body, verdict, desired, gate) if mine else None
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=lambda line: log.info("%s", line))
    if ctx.dry_run:
        ctx.echo(f"Labels to add: {list(add) or 'none'}; to remove: {list(remove) or 'none'}\n")
    publisher.labels(number, add, remove, config)
    if mine and body is not None and body != mine[0].body:
        comment = mine[0]
        publisher.write(f"update status comment {comment.id}", lambda: client.edit_comment(comment.id, body))
    if not ctx.dry_run and publisher.writes == 0 and publisher.error is None:
        log.info("pull request #%d already shows these checks: nothing to write", number)
    finish(ctx, publisher)
