"""Applies a Report to a pull request: one status comment, the bot's labels, a commit status or check run.

Writes happen only when something differs from what GitHub already shows, and never for a head that moved on.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial

from pydantic import ValidationError

from bot.github.api import Annotation, Client, Comment, GitHubError, PullInfo, ReviewComment, ReviewInfo
from bot.github.suggest import SuggestionPlan
from bot.github.waivers import key
from bot.review.render import COMMENT_LIMIT, MARKER, render_comment, render_comment_counted
from rules.core.config import Config
from rules.core.models import Finding, Frozen, Report, Severity, Waiver
from rules.core.readiness import Gate, readiness

log = logging.getLogger(__name__)

STATUS_CONTEXT = "bot/review"
CHECK_NAME = "bot review"
ANNOTATION_BATCH = 50
# Listings of the comments after creating the status comment, to find a duplicate a retried POST left.
DEDUPE_LISTINGS = 2
CHECK_TEXT_LIMIT = 65_000
STATE_PREFIX = "<!-- bot-review:state "
# Characters of finding keys the hidden state holds per version (two versions): the comment keeps most room.
KEYS_BUDGET = 6_000
_STATE = re.compile(r"<!-- bot-review:state ([A-Za-z0-9+/=]+) -->")

# Colour and description of each label the bot creates; keys are Labels field names.
LABEL_STYLE = {
    "ready": ("0e8a16", "bot: no blocking findings; ready for human review"),
    "needs_work": ("d93f0b", "bot: findings must be fixed or waived"),
    "pending": ("fbca04", "bot: waiting for an approving review on the current head"),
    "approved": ("1d76db", "bot: approved on the current head by someone other than the author"),
    "checks_pending": ("c5def5", "bot: review clean; waiting for the checks that gate readiness"),
}


class State(Frozen):
    """What the bot last published, kept hidden in its own comment (only trusted from that comment)."""

    head: str | None = None
    status: str | None = None
    # The review's own verdict for that head (before the gating checks): what events about checks build on.
    verdict: str | None = None
    waivers: tuple[Waiver, ...] = ()
    # The findings ("RULE:path") this version of the comment shows, what `@bot waive` may bind to; None in a
    # comment written before keys were kept.
    shown: tuple[str, ...] | None = None
    # Those of the version this one replaced, and when GitHub says that version was written: a command
    # written between then and this version's edit saw the earlier keys (bot/github/handlers.py).
    earlier: tuple[str, ...] | None = None
    earlier_at: str | None = None


class StatusPlan(Frozen):
    kind: str  # "check-run" or "commit-status"
    state: str  # success / failure
    description: str
    summary: str = ""
    annotations: tuple[Annotation, ...] = ()

    @property
    def digest(self) -> str:
        data = json.dumps(self.model_dump(mode="json"), sort_keys=True).encode("utf-8")
        return hashlib.sha256(data).hexdigest()[:16]


class Plan(Frozen):
    """Every write a publish would make (what --dry-run prints)."""

    number: int
    head_sha: str
    comment_body: str
    comment_action: str  # create / update / none
    comment_id: int | None = None
    duplicates: tuple[int, ...] = ()
    add_labels: tuple[str, ...] = ()
    remove_labels: tuple[str, ...] = ()
    status: StatusPlan | None = None
    # The state line's status before this run: restored if the status write fails, so the next run retries.
    previous_status: str | None = None


def encode_state(state: State) -> str:
    data = json.dumps(state.model_dump(mode="json", exclude_none=True), sort_keys=True, separators=(",", ":"))
    return f"{STATE_PREFIX}{base64.b64encode(data.encode('utf-8')).decode('ascii')} -->"


def decode_state(body: str) -> State:
    """The hidden state of one of the bot's own comments; anything unreadable counts as no state."""
    m = _STATE.search(body or "")
    if not m:
        return State()
    try:
        return State.model_validate_json(base64.b64decode(m.group(1), validate=True))
    except (ValueError, ValidationError, binascii.Error):
        log.warning("the status comment's hidden state could not be read; starting afresh")
        return State()


def is_identity(comment: Comment | ReviewComment, identity: str) -> bool:
    """Whether the token's identity wrote comment; an app may be named with or without REST's "[bot]"."""
    author, me = comment.author.lower(), identity.lower()
    if author == me:
        return True
    # Only an app account may match by its bare name: a person named like the app is never the bot.
    return comment.author_type == "Bot" and author.removesuffix("[bot]") == me.removesuffix("[bot]")


def ours(comments: tuple[Comment, ...], identity: str) -> list[Comment]:
    """The bot's status comments, oldest first: the marker AND the token's own identity, never one alone."""
    found = [c for c in comments if MARKER in c.body and is_identity(c, identity)]
    return sorted(found, key=lambda c: (c.created_at, c.id))


def is_approved(reviews: tuple[ReviewInfo, ...], author: str, head_sha: str) -> bool:
    """An approving review of the current head by someone other than the author, not since withdrawn."""
    latest: dict[str, ReviewInfo] = {}
    for r in reviews:  # chronological; comments do not change a reviewer's verdict
        if r.author.lower() != author.lower() and r.state.upper() in (
            "APPROVED",
            "CHANGES_REQUESTED",
            "DISMISSED",
        ):
            latest[r.author.lower()] = r
    verdicts = list(latest.values())
    if any(r.state.upper() == "CHANGES_REQUESTED" for r in verdicts):
        return False
    return any(r.state.upper() == "APPROVED" and r.commit_id == head_sha for r in verdicts)


def namespace(config: Config) -> frozenset[str]:
    n = config.labels
    return frozenset({n.ready, n.needs_work, n.pending, n.approved, n.checks_pending})


def wants_review_label(verdict: str, draft: bool, gate: Gate | None = None) -> bool:
    """Whether the labels depend on approval (then the reviews must be read): ready with its gating checks
    green, and not a draft."""
    return readiness(verdict, gate) == "ready" and not draft


def desired_labels(
    verdict: str, draft: bool, approved: bool, config: Config, gate: Gate | None = None
) -> tuple[str, ...]:
    """The bot's labels for a verdict and the gating checks: drafts are never ready; a failed check needs
    work; checks still running wait; the review label rides only with ready."""
    n = config.labels
    if verdict != "ready":
        return (n.needs_work,)
    if draft:
        return ()
    state = readiness(verdict, gate)
    if state == "needs-work":
        return (n.needs_work,)
    if state == "checks-pending":
        return (n.checks_pending,)
    return (n.ready, n.approved if approved else n.pending)


def review_labels(current: tuple[str, ...], approved: bool, config: Config) -> tuple[str, ...]:
    """After a review event: the status label stays as it is; the review label follows the approval."""
    n = config.labels
    keep = tuple(label for label in current if label in (n.ready, n.needs_work, n.checks_pending))
    if n.ready in keep:
        return (*keep, n.approved if approved else n.pending)
    return keep


def label_changes(current: tuple[str, ...], desired: tuple[str, ...], config: Config) -> tuple[tuple, tuple]:
    """Labels to add and to remove; labels outside the bot's namespace are never touched."""
    space = namespace(config)
    have = {label for label in current if label in space}
    add = tuple(label for label in desired if label not in have)
    remove = tuple(sorted(have - set(desired)))
    return add, remove


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def status_plan(report: Report, check_run: bool) -> StatusPlan:
    # The words of the comment's heading and counts line, so the status and the comment read alike.
    counts = ", ".join(_plural(report.count(s), s.value) for s in Severity)
    head = "ready for review" if report.verdict == "ready" else "needs work"
    if report.incomplete:
        head = "not complete (files unseen)"  # which and why are in the comment's note
    state = "success" if report.verdict == "ready" else "failure"
    if not check_run:
        return StatusPlan(kind="commit-status", state=state, description=f"{head}: {counts}")
    level = {Severity.ERROR: "failure", Severity.WARNING: "warning", Severity.NOTICE: "notice"}
    annotations = tuple(
        Annotation(
            path=f.path,
            line=f.line,
            level=level[f.severity],
            title=f"{f.rule} {f.name}",
            message=f.message[:4000],
        )
        for f in report.findings
        if f.path and f.line
    )
    summary = render_comment(report, limit=CHECK_TEXT_LIMIT)
    return StatusPlan(
        kind="check-run",
        state=state,
        description=f"{head}: {counts}",
        summary=summary,
        annotations=annotations,
    )


def shown_keys(findings: tuple[Finding, ...]) -> tuple[str, ...]:
    """The keys of findings, first ones first, within the state's budget (a waiver binds to no more)."""
    keys: list[str] = []
    used = 0
    for k in dict.fromkeys(key(f) for f in findings):
        used += len(k) + 3
        if used > KEYS_BUDGET:
            break
        keys.append(k)
    return tuple(sorted(keys))


def comment_body(report: Report, state: State) -> str:
    """The status comment: the rendered report, then the hidden state line, together under GitHub's limit.

    The state's shown keys are those of the findings the rendered comment shows, never of ones cut for size.
    """
    tail = "\n" + encode_state(state.model_copy(update={"shown": shown_keys(report.findings)})) + "\n"
    body, count = render_comment_counted(report, limit=COMMENT_LIMIT - len(tail))
    final = state.model_copy(update={"shown": shown_keys(report.findings[:count])})
    return body.rstrip("\n") + "\n" + encode_state(final) + "\n"


_PAST = {"create": "created", "update": "updated", "add": "added", "remove": "removed", "set": "set"}
_PAST |= {"append": "appended", "delete": "deleted", "react": "reacted", "reply": "replied"}


def _done(what: str) -> str:
    """A write's description in the past tense, for the log: "create the status comment" -> "created ..."."""
    verb, _, rest = what.partition(" ")
    return f"{_PAST.get(verb, verb)} {rest}".strip()


class Publisher:
    """Makes the writes of a Plan, stopping at the first error that retrying cannot fix."""

    def __init__(self, client: Client, dry_run: bool = False, echo: Callable[[str], object] = print) -> None:
        self.client = client
        self.dry_run = dry_run
        self.echo = echo
        self.writes = 0
        self.error: GitHubError | None = None
        self.problems: list[str] = []
        # Set when the new status comment could not be checked for a duplicate: the run must say so and fail.
        self.unverified: str | None = None

    def write(self, what: str, fn: Callable[[], object]) -> bool:
        """Run one write unless a fatal error happened before; in dry-run, print it instead."""
        if self.dry_run:
            self.echo(f"would {what}")
            return True
        if self.error is not None:
            return False
        try:
            fn()
        except GitHubError as exc:
            self.failed(what, exc)
            return False
        self.writes += 1
        log.info("%s", _done(what))
        return True

    def failed(self, what: str, exc: GitHubError) -> None:
        if exc.fatal_for_writes:
            self.error = exc
        else:
            self.problems.append(str(exc))
        # The reason is printed once at the end of the run; here only what did not happen.
        log.warning("could not %s", what)

    def _existing_labels(self) -> set[str] | None:
        """The repository's label names, lower-cased; None when they could not be listed."""
        if self.error is not None:
            return None
        try:
            return {name.lower() for name in self.client.repo_labels()}
        except GitHubError as exc:
            # Adding a label the repository lacks creates it (uncoloured): the rest of the publish goes on.
            self.failed("list the repository's labels", exc)
            return None

    def labels(self, number: int, add: tuple[str, ...], remove: tuple[str, ...], config: Config) -> None:
        if add:
            existing = self._existing_labels()
            styles = {getattr(config.labels, key): style for key, style in LABEL_STYLE.items()}
            for name in add:
                if existing is not None and name.lower() not in existing:
                    color, description = styles.get(name, ("ededed", "bot"))
                    self.write(
                        f"create label {name!r}",
                        partial(self.client.create_label, name, color, description),
                    )
            self.write(f"add labels {list(add)}", lambda: self.client.add_labels(number, add))
        for name in remove:
            self.write(f"remove label {name!r}", partial(self.client.remove_label, number, name))

    def status(self, sha: str, plan: StatusPlan) -> bool:
        if plan.kind == "commit-status":
            return self.write(
                f"set commit status {STATUS_CONTEXT}={plan.state} ({plan.description})",
                lambda: self.client.create_status(sha, plan.state, plan.description, STATUS_CONTEXT),
            )
        batches = [
            plan.annotations[i : i + ANNOTATION_BATCH]
            for i in range(0, len(plan.annotations), ANNOTATION_BATCH)
        ]
        first = batches[0] if batches else ()
        run_id: list[int] = []
        ok = self.write(
            f"create check run {CHECK_NAME!r} {plan.state} with {len(first)} annotations",
            lambda: run_id.append(
                self.client.create_check_run(
                    sha, CHECK_NAME, plan.state, plan.description, plan.summary, first
                )
            ),
        )
        for batch in batches[1:]:
            ok = ok and self.write(
                f"append {len(batch)} annotations to the check run",
                partial(self._append_annotations, run_id, plan, batch),
            )
        return ok

    def _append_annotations(self, run_id: list[int], plan: StatusPlan, batch: tuple[Annotation, ...]) -> None:
        self.client.update_check_run(run_id[0], plan.description, plan.summary, batch)

    def apply(self, plan: Plan, identity: str, config: Config) -> None:
        """Labels, then the status, then the comment (which records what was written)."""
        self.labels(plan.number, plan.add_labels, plan.remove_labels, config)
        if plan.status is not None and not self.status(plan.head_sha, plan.status):
            plan = _without_status(plan)
        self.comment(plan, identity)
        if not self.dry_run and self.writes == 0 and self.error is None and not self.problems:
            log.info("pull request #%d already shows this result: nothing to write", plan.number)

    def comment(self, plan: Plan, identity: str) -> None:
        if plan.comment_action == "update" and plan.comment_id is not None:
            self.write(
                f"update status comment {plan.comment_id}",
                partial(self.client.edit_comment, plan.comment_id, plan.comment_body),
            )
        elif plan.comment_action == "create":
            made: list[Comment] = []
            created = self.write(
                "create the status comment",
                lambda: made.append(self.client.create_comment(plan.number, plan.comment_body)),
            )
            if created and not self.dry_run:
                self._dedupe(plan, identity, made[0].created_at if made else "")
        for dup in plan.duplicates:
            self.write(f"delete duplicate status comment {dup}", partial(self.client.delete_comment, dup))

    def _listed_since(self, number: int, since: str | None) -> tuple[Comment, ...] | None:
        """The comments updated since then, listed again when a listing fails; None if none succeeded."""
        failure: GitHubError | None = None
        for _ in range(DEDUPE_LISTINGS):
            try:
                return self.client.comments(number, since=since)
            except GitHubError as exc:
                failure = exc
                if exc.fatal_for_writes:
                    break
                log.warning("could not list the comments to look for a duplicate status comment: %s", exc)
        assert failure is not None
        self.unverified = (
            "the status comment was created, but the comments could not be listed again to remove a "
            f"duplicate (a retried POST may have posted twice): {failure} Run the review again to remove it."
        )
        return None

    def _dedupe(self, plan: Plan, identity: str, created_at: str) -> None:
        # A concurrent run (or a retried POST that had gone through) may have left another: keep the oldest.
        # Either was posted after this run's first listing, so during this run: the shipped workflows stop a
        # run after 10 minutes and GitHub-hosted jobs after six hours, so the comments updated in the six
        # hours before this one's creation hold any duplicate.
        listed = self._listed_since(plan.number, _window_before(created_at))
        if listed is None:
            return
        mine = ours(listed, identity)
        if not mine:  # not listed yet, or written under another name than the identity query gave
            log.warning("the new status comment is not listed as %s's; duplicates not checked", identity)
            return
        keep, extra = mine[0], mine[1:]
        if keep.body != plan.comment_body:
            self.write(
                f"update status comment {keep.id}",
                lambda: self.client.edit_comment(keep.id, plan.comment_body),
            )
        for c in extra:
            self.write(f"delete duplicate status comment {c.id}", partial(self.client.delete_comment, c.id))

    def suggestions(self, number: int, head_sha: str, plan: SuggestionPlan) -> None:
        """All new suggestions in one review (event COMMENT), then the outdated ones deleted."""
        if plan.post:
            comments = tuple(
                {"path": s.path, "line": s.line, "side": "RIGHT", "body": s.body}
                | ({"start_line": s.start_line, "start_side": "RIGHT"} if s.start_line < s.line else {})
                for s in plan.post
            )
            self.write(
                f"create a review with {_plural(len(plan.post), 'suggested change')}",
                partial(self.client.create_review, number, head_sha, comments),
            )
        for comment_id in plan.delete:
            self.write(
                f"delete outdated suggestion {comment_id}",
                partial(self.client.delete_review_comment, comment_id),
            )


def _window_before(stamp: str) -> str | None:
    """An ISO 8601 time six hours before stamp (GitHub's `since`), or None to list everything."""
    try:
        when = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return (when - timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _without_status(plan: Plan) -> Plan:
    state = decode_state(plan.comment_body).model_copy(update={"status": plan.previous_status})
    return plan.model_copy(
        update={"comment_body": _STATE.sub(lambda _: encode_state(state), plan.comment_body)}
    )


def plan_publish(
    report: Report,
    info: PullInfo,
    comments: tuple[Comment, ...],
    identity: str,
    state: State,
    config: Config,
    check_run: bool,
) -> Plan:
    """Decide every write by comparing the report, labels included, with what the pull request shows now."""
    status = status_plan(report, check_run)
    same_status = state.head == info.head_sha and state.status == status.digest
    # Only waivers from comment commands live in the state; in-code waivers are found in the code each run.
    kept = tuple(w for w in report.waivers if w.fingerprint is not None)
    new_state = State(head=info.head_sha, status=status.digest, verdict=report.verdict, waivers=kept)
    mine = ours(comments, identity)
    add, remove = label_changes(info.labels, report.labels, config)
    if mine:
        keep = mine[0]
        # Unchanged, the comment keeps its history; an edit records the version it replaces and since when
        # GitHub showed it, so a waive command written before this edit binds to what its writer saw.
        same = new_state.model_copy(update={"earlier": state.earlier, "earlier_at": state.earlier_at})
        body = comment_body(report, same)
        action = "none" if keep.body == body else "update"
        if action == "update":
            body = comment_body(
                report,
                new_state.model_copy(
                    update={"earlier": state.shown, "earlier_at": keep.updated_at or keep.created_at or None}
                ),
            )
        return Plan(
            number=info.number,
            head_sha=info.head_sha,
            comment_body=body,
            comment_action=action,
            comment_id=keep.id,
            duplicates=tuple(c.id for c in mine[1:]),
            add_labels=add,
            remove_labels=remove,
            status=None if same_status else status,
            previous_status=state.status,
        )
    return Plan(
        number=info.number,
        head_sha=info.head_sha,
        comment_body=comment_body(report, new_state),
        comment_action="create",
        add_labels=add,
        remove_labels=remove,
        status=None if same_status else status,
        previous_status=state.status,
    )


def describe(plan: Plan) -> str:
    """The plan as text for --dry-run: the comment, the label changes and the status."""
    lines = [f"Pull request #{plan.number} at {plan.head_sha[:12]}"]
    lines.append(
        f"Status comment: {plan.comment_action}"
        + (f" (comment {plan.comment_id})" if plan.comment_id else "")
    )
    if plan.duplicates:
        lines.append(f"Duplicate status comments to delete: {list(plan.duplicates)}")
    lines.append(
        f"Labels to add: {list(plan.add_labels) or 'none'}; to remove: {list(plan.remove_labels) or 'none'}"
    )
    if plan.status is None:
        lines.append("Status: unchanged")
    else:
        lines.append(
            f"Status ({plan.status.kind}): {plan.status.state}: {plan.status.description}"
            + (f", {len(plan.status.annotations)} annotations" if plan.status.kind == "check-run" else "")
        )
    lines.append("--- comment body ---")
    lines.append(plan.comment_body.rstrip("\n"))
    return "\n".join(lines) + "\n"
