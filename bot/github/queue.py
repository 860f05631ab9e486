"""Merge queues: a `merge_group` (checks_requested) gets the bot's status on the queue's head commit.

The queue's commit is reviewed against its base as a pull request's head is (the same rules, config at base,
the comment waivers of the queued pull request), and the bot posts its status or check run on that commit
under the same name as on pull requests, so a ruleset that requires it can merge. There is no pull request
to label or comment on: nothing else is written.
"""

from __future__ import annotations

import logging
import re

from bot.github.api import PullInfo
from bot.github.events import Event
from bot.github.publish import Publisher, status_plan
from bot.github.reviewing import Context, finish, published, reviewed, settled

log = logging.getLogger(__name__)

# GitHub names a queue's branch `gh-readonly-queue/<base>/pr-<number>-<sha of the base>`: the last pull
# request it holds (https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/
# configuring-pull-request-merges/managing-a-merge-queue). The base's name may hold slashes: only the last
# segment is matched.
QUEUE_PREFIX = "gh-readonly-queue/"
_QUEUED = re.compile(r"pr-(\d{1,10})-[0-9a-f]{40}")


def queued_pull(head_ref: str) -> int | None:
    """The number of the pull request a merge queue's branch was made for, or None."""
    ref = head_ref.removeprefix("refs/heads/")
    if not ref.startswith(QUEUE_PREFIX):
        return None
    m = _QUEUED.fullmatch(ref.rpartition("/")[2])
    return int(m.group(1)) if m else None


def on_merge_group(ctx: Context, event: Event) -> None:
    """Review the queue's head commit against its base and post the status on it; no label, no comment."""
    group = event.merge_group
    if group is None:
        log.info("merge_group event without a merge group: nothing to do")
        return
    client = ctx.client
    number = queued_pull(group.head_ref)
    # The queued pull request's words and waivers judge its commit in the queue as they did on the pull
    # request; its files are the queue commit's own, compared with the queue's base.
    pull = client.pull(number) if number is not None else None
    listed = client.compare_files(group.base_sha, group.head_sha)
    info = PullInfo(
        number=number or 0,
        title=pull.title if pull else "",
        body=pull.body if pull else "",
        author=pull.author if pull else "ghost",
        head_sha=group.head_sha,
        head_ref=group.head_ref.removeprefix("refs/heads/"),
        base_sha=group.base_sha,
        base_ref=group.base_ref.removeprefix("refs/heads/"),
        changed_files=len(listed),
        url=pull.url if pull else None,
    )
    changeset, config, report = reviewed(ctx, info, listed)
    waivers = published(client, number)[2].waivers if number is not None else ()
    report = settled(report, changeset, config, waivers)
    ctx.report = report.model_copy(update={"repository": client.repo, "pr_number": number})
    plan = status_plan(ctx.report, ctx.check_run)
    if ctx.dry_run:
        head = group.head_sha[:12]
        ctx.echo(f"Merge queue commit {head}: status ({plan.kind}) {plan.state}: {plan.description}\n")
    publisher = Publisher(client, dry_run=ctx.dry_run, echo=lambda line: log.info("%s", line))
    publisher.status(group.head_sha, plan)
    finish(ctx, publisher)
