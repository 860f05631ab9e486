"""Frozen models of the GitHub objects the bot reads, and the client interface the edges share."""

from __future__ import annotations

from typing import Protocol

from bot.github.entry import DEFAULT_API_URL as DEFAULT_API_URL
from rules.core.models import Frozen, SourceFailure
from rules.core.readiness import CheckState


class GitHubError(SourceFailure):
    """A GitHub API failure, with a message fit for the user (never the token or request headers).

    kind is one of: auth (401), read-only (403 "Resource not accessible by integration"), forbidden,
    not-found, rate-limited, invalid (422), unavailable (5xx, timeouts, connection errors), malformed (a
    2xx answer that is not what GitHub documents: truncated JSON, an HTML page, null, wrong types).
    """

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status

    @property
    def fatal_for_writes(self) -> bool:
        """Errors that retrying or the next write cannot fix: stop writing and say so once."""
        # A malformed answer means something between the bot and GitHub is broken: write nothing more.
        return self.kind in ("auth", "read-only", "forbidden", "rate-limited", "malformed")


class PullInfo(Frozen):
    """A pull request as the REST API returns it, reduced to what the bot uses."""

    number: int
    title: str = ""
    body: str = ""
    author: str
    draft: bool = False
    state: str = "open"
    head_sha: str
    head_ref: str | None = None
    # OWNER/NAME of the head branch's repository: a fork's for pull requests from forks; None once deleted.
    head_repo: str | None = None
    base_sha: str
    base_ref: str | None = None
    labels: tuple[str, ...] = ()
    changed_files: int = 0
    url: str | None = None


class IssueInfo(Frozen):
    """An issue as the REST API returns it, reduced to what the bot uses: its labels and issue type."""

    number: int
    labels: tuple[str, ...] = ()
    # The issue type's name ("Bug", "Feature", "Task"); None where the repository has no issue types.
    type: str | None = None
    # GitHub's issues API answers for a pull request's number too: such an "issue" is a pull request.
    is_pull: bool = False


class PullFile(Frozen):
    """One entry of the pull request files list; patch is None when GitHub omits it."""

    path: str
    status: str
    previous_path: str | None = None
    patch: str | None = None
    changes: int = 0


class Comment(Frozen):
    """An issue comment on a pull request."""

    id: int
    author: str
    author_type: str = "User"
    body: str = ""
    created_at: str = ""
    # When the body was last edited (created_at for a comment never edited): what a reader saw at a time.
    updated_at: str = ""


class ReviewComment(Frozen):
    """A comment on a line of the pull request's diff (a review comment), reduced to what the bot uses."""

    id: int
    author: str
    author_type: str = "User"
    body: str = ""
    path: str = ""
    # The comment this one answers in its thread, or None for the first comment of a thread.
    in_reply_to: int | None = None


class ReviewInfo(Frozen):
    """A submitted pull request review."""

    id: int
    author: str
    state: str
    commit_id: str | None = None


class Blob(Frozen):
    """A file's content at one commit as GraphQL's Blob gives it; text is None for a binary file."""

    size: int
    text: str | None = None
    truncated: bool = False


class TreeEntry(Frozen):
    """One entry of a Git tree listing: a file ("blob"), a folder ("tree") or a submodule ("commit")."""

    path: str  # relative to the tree listed
    type: str
    sha: str


class Tree(Frozen):
    """A Git tree listing; truncated when GitHub stopped early (a recursive one past 100,000 entries)."""

    entries: tuple[TreeEntry, ...]
    truncated: bool = False


class Annotation(Frozen):
    """A check-run annotation."""

    path: str
    line: int
    level: str
    title: str
    message: str


class Client(Protocol):
    """Every GitHub call the bot makes; bot/github/client.py implements it with PyGithub."""

    repo: str

    def viewer(self) -> str: ...
    def pull(self, number: int) -> PullInfo: ...
    def open_pulls_from(self, head: str) -> tuple[PullInfo, ...]: ...
    def pull_files(self, number: int) -> tuple[PullFile, ...]: ...
    def reviews(self, number: int) -> tuple[ReviewInfo, ...]: ...
    def comments(self, number: int, since: str | None = None) -> tuple[Comment, ...]: ...
    def create_comment(self, number: int, body: str) -> Comment: ...
    def edit_comment(self, comment_id: int, body: str) -> None: ...
    def delete_comment(self, comment_id: int) -> None: ...
    def react(self, comment_id: int, content: str) -> None: ...
    def repo_labels(self) -> tuple[str, ...]: ...
    def issue(self, number: int) -> IssueInfo: ...
    def create_label(self, name: str, color: str, description: str) -> None: ...
    def add_labels(self, number: int, names: tuple[str, ...]) -> None: ...
    def remove_label(self, number: int, name: str) -> None: ...
    def review_comments(self, number: int) -> tuple[ReviewComment, ...]: ...
    def create_review(self, number: int, commit_id: str, comments: tuple[dict, ...]) -> None: ...
    def delete_review_comment(self, comment_id: int) -> None: ...
    def permission(self, login: str) -> str: ...
    def read_file(self, ref: str, path: str) -> bytes | None: ...
    def read_blobs(self, wanted: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], Blob | None]: ...
    def tree(self, ref: str, recursive: bool = True) -> Tree: ...
    def create_status(self, sha: str, state: str, description: str, context: str) -> None: ...
    def create_check_run(
        self,
        sha: str,
        name: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: tuple[Annotation, ...],
    ) -> int: ...
    def update_check_run(
        self, run_id: int, title: str, summary: str, annotations: tuple[Annotation, ...]
    ) -> None: ...
    def branch_rules_checks(self, branch: str) -> tuple[str, ...]: ...
    def protection_checks(self, branch: str) -> tuple[str, ...] | None: ...
    def check_runs(self, ref: str) -> tuple[CheckState, ...]: ...
    def statuses(self, ref: str) -> tuple[CheckState, ...]: ...
    def compare_files(self, base: str, head: str) -> tuple[PullFile, ...]: ...
