"""Webhook payloads parsed once into frozen models: only the fields the bot reads."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# Payloads are tens of kilobytes; anything far bigger is not a GitHub delivery.
MAX_PAYLOAD_BYTES = 25 * 1024 * 1024


class EventError(Exception):
    """The event payload cannot be used; the message is one line for the user."""


class Payload(BaseModel):
    """Base for payload parts: immutable, and GitHub's many other fields are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class User(Payload):
    login: str
    type: str = "User"

    @property
    def is_bot(self) -> bool:
        return self.type == "Bot" or self.login.endswith("[bot]")


class Label(Payload):
    name: str


class Ref(Payload):
    sha: str
    ref: str | None = None


class PullRequestPayload(Payload):
    number: int
    title: str = ""
    body: str | None = None
    user: User
    draft: bool = False
    state: str = "open"
    head: Ref
    base: Ref
    labels: tuple[Label, ...] = ()
    changed_files: int | None = None


class IssuePayload(Payload):
    number: int
    user: User
    # Present only when the issue is a pull request.
    pull_request: dict | None = None

    @property
    def is_pull_request(self) -> bool:
        return self.pull_request is not None


class CommentPayload(Payload):
    id: int
    body: str | None = None
    user: User
    author_association: str | None = None
    created_at: str | None = None


class ReviewPayload(Payload):
    id: int
    user: User | None = None
    state: str
    commit_id: str | None = None


class Repository(Payload):
    full_name: str


class RunPull(Payload):
    """A pull request listed on a workflow run (GitHub lists none for runs from forks)."""

    number: int
    head: Ref


class WorkflowRun(Payload):
    """The run a `workflow_run` event is about: what triggered it and for which commit."""

    id: int
    event: str
    conclusion: str | None = None
    head_sha: str
    head_branch: str | None = None
    head_repository: Repository | None = None
    pull_requests: tuple[RunPull, ...] = ()


class App(Payload):
    slug: str | None = None


class CheckRunPayload(Payload):
    """A check run a `check_run` event is about (`pull_requests` lists none for a fork's head)."""

    name: str
    head_sha: str
    status: str
    conclusion: str | None = None
    pull_requests: tuple[RunPull, ...] = ()


class CheckSuitePayload(Payload):
    """A check suite a `check_suite` event is about: another app's checks of a commit."""

    head_sha: str
    head_branch: str | None = None
    pull_requests: tuple[RunPull, ...] = ()
    app: App | None = None


class Branch(Payload):
    name: str


class MergeGroup(Payload):
    """The commit a merge queue asks checks for (`merge_group` checks_requested), and its base."""

    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str


class Event(Payload):
    """One delivery: the event name from GITHUB_EVENT_NAME and the parts of its payload the bot uses."""

    name: str
    action: str | None = None
    repository: Repository | None = None
    pull_request: PullRequestPayload | None = None
    issue: IssuePayload | None = None
    comment: CommentPayload | None = None
    review: ReviewPayload | None = None
    workflow_run: WorkflowRun | None = None
    check_run: CheckRunPayload | None = None
    check_suite: CheckSuitePayload | None = None
    merge_group: MergeGroup | None = None
    # A `status` event's own fields: the commit, the context and the branches holding the commit.
    sha: str | None = None
    context: str | None = None
    state: str | None = None
    branches: tuple[Branch, ...] = ()
    changes: dict = Field(default_factory=dict)
    sender: User | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.name, self.action)

    @property
    def number(self) -> int | None:
        if self.pull_request is not None:
            return self.pull_request.number
        if self.issue is not None and self.issue.is_pull_request:
            return self.issue.number
        return None


def parse_event(name: str, data: bytes) -> Event:
    """Parse a webhook payload; raises EventError naming what is wrong, never echoing the payload."""
    if len(data) > MAX_PAYLOAD_BYTES:
        raise EventError(f"event payload is {len(data):,} bytes, over {MAX_PAYLOAD_BYTES:,}")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise EventError(f"event payload is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(raw, dict):
        raise EventError("event payload is not a JSON object")
    try:
        return Event.model_validate({**raw, "name": name})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise EventError(f"{name} payload: {where}: {err['msg']}") from None
