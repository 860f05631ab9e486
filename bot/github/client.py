"""The one module that imports PyGithub: a client with bounded retries, and every call the bot makes."""

from __future__ import annotations

import logging
import re
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

import requests
from github import (
    Auth,
    BadAttributeException,
    Github,
    GithubException,
    GithubRetry,
    RateLimitExceededExceedsMaxWait,
)

from bot.github.api import (
    DEFAULT_API_URL,
    Annotation,
    Blob,
    Comment,
    GitHubError,
    IssueInfo,
    PullFile,
    PullInfo,
    ReviewComment,
    ReviewInfo,
    Tree,
    TreeEntry,
)
from rules.core.models import MAX_TEXT_BYTES, oversized
from rules.core.readiness import CheckState, run_outcome, status_outcome

T = TypeVar("T")
REVIEW_BODY = "Suggested changes for the review's findings: each applies with one click."
log = logging.getLogger(__name__)

# No single wait may exceed this: a run ends in bounded time; a reset an hour away is reported instead.
MAX_WAIT = 120.0
SECONDARY_WAIT = 60.0
TIMEOUT = 30
READ_ONLY = "Resource not accessible by integration"
# Blobs asked for in one GraphQL query: one request for up to this many files of a review.
BLOBS_PER_QUERY = 50
# What a 2xx answer that is not GitHub's documented shape raises while PyGithub or the bot reads it:
# truncated JSON (ValueError), an HTML page or null (KeyError, TypeError, AttributeError), wrong types
# (PyGithub's BadAttributeException, pydantic's ValidationError, itself a ValueError).
MALFORMED = (ValueError, TypeError, KeyError, AttributeError, IndexError, BadAttributeException)


def _header_seconds(headers: Any, name: str) -> float | None:
    value = headers.get(name) if headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class BoundedRetry(GithubRetry):
    """PyGithub's retry with a cap on every wait: a Retry-After or reset beyond it raises instead."""

    def __init__(self, max_wait: float = MAX_WAIT, **kwargs: Any) -> None:
        self.max_wait = max_wait
        kwargs.setdefault("secondary_rate_wait", min(SECONDARY_WAIT, max_wait))
        kwargs.setdefault("max_rate_limit_wait", max_wait)
        kwargs.setdefault("total", 3)
        kwargs.setdefault("backoff_factor", 2.0)
        kwargs.setdefault("backoff_max", max_wait)
        # 429 is retried too: PyGithub alone does not treat it as a rate limit.
        kwargs.setdefault("status_forcelist", [*range(500, 600), 429])
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> BoundedRetry:
        kw["max_wait"] = self.max_wait
        return super().new(**kw)  # type: ignore[return-value]

    def wait_for(self, status: int, headers: Any) -> float:
        """Seconds to wait before retrying a response, or RateLimitExceededExceedsMaxWait past the cap."""
        after = _header_seconds(headers, "Retry-After")
        if after is None and status in (403, 429):
            if _header_seconds(headers, "X-RateLimit-Remaining") == 0:
                reset = _header_seconds(headers, "X-RateLimit-Reset") or 0.0
                after = max(0.0, reset - time.time()) + 1
            elif status == 429:
                after = self.secondary_rate_wait
        if after is None:
            return 0.0
        if after > self.max_wait:
            raise RateLimitExceededExceedsMaxWait(
                status, {"message": "rate limited"}, dict(headers or {}), wait=after
            )
        return after

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):  # type: ignore[no-untyped-def,override]
        if response is not None and response.status in (403, 429):
            wait = self.wait_for(response.status, response.headers)
            retry = super().increment(method, url, response, error, _pool, _stacktrace)
            if wait and response.status == 429:
                retry.get_backoff_time = lambda: wait  # type: ignore[method-assign]
            log.info(
                "%s %s: GitHub rate limit (%d); retrying in %.0fs",
                method,
                _path(url),
                response.status,
                wait or retry.get_backoff_time(),
            )
            return retry
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        why = f"GitHub answered {response.status}" if response is not None else type(error).__name__
        log.info("%s %s: %s; retrying", method, _path(url), why)
        return retry

    def get_retry_after(self, response: Any) -> float | None:
        value = super().get_retry_after(response)
        return None if value is None else min(value, self.max_wait)


def _path(url: str | None) -> str:
    return urllib.parse.urlsplit(url or "").path


def _message(exc: GithubException) -> str:
    data = exc.data
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return data["message"]
    return exc.message or ""


def _reset_time(headers: Any) -> str:
    reset = _header_seconds(headers, "X-RateLimit-Reset")
    if reset is None:
        return "later"
    return datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _permission(what: str) -> str:
    """The workflow permission a request needs, named as in a workflow's `permissions:` block."""
    if "/statuses/" in what:
        return "`statuses: write`"
    if "/check-runs" in what:
        return "`checks: read`" if what.startswith("GET ") else "`checks: write`"
    if what.startswith("GET ") and what.endswith("/status"):
        return "`statuses: read`"
    if "/collaborators/" in what:
        return "`metadata: read`"
    if not what.startswith("GET "):  # comments, labels and reactions on the pull request
        return "`issues: write` or `pull-requests: write`"
    if re.fullmatch(r"GET /repos/[^/]+/[^/]+/issues/\d+", what):
        return "`issues: read`"  # an issue the pull request closes
    if what.startswith(("GET contents", "GET tree")):
        return "`contents: read`"
    return "`pull-requests: read`"


def translate(exc: Exception, what: str) -> GitHubError:
    """A GitHubError with one clear sentence; never the token, headers or request body."""
    if isinstance(exc, RateLimitExceededExceedsMaxWait):
        return GitHubError(
            "rate-limited",
            f"{what}: GitHub rate limit; waiting would take longer than {MAX_WAIT:.0f}s "
            f"(resets {_reset_time(exc.headers)}). Nothing more was written; run again after the reset.",
            exc.status,
        )
    if isinstance(exc, GithubException):
        status, msg = exc.status, _message(exc)
        if status == 401:
            return GitHubError(
                "auth",
                f"{what}: GitHub rejected the token (401 {msg or 'Bad credentials'}); check GITHUB_TOKEN.",
                401,
            )
        if status == 403 and READ_ONLY in msg:
            return GitHubError(
                "read-only",
                f"{what}: the token may not do this (403 {READ_ONLY}); it needs {_permission(what)} "
                "in the workflow's permissions. On a pull request from a fork the workflow token is "
                "read-only whatever the workflow grants: use the fork-safe pair (docs/github.md).",
                403,
            )
        if status in (403, 429) and "rate limit" in msg.lower():
            return GitHubError(
                "rate-limited",
                f"{what}: GitHub rate limit ({msg}); resets {_reset_time(exc.headers)}.",
                status,
            )
        if status == 403:
            return GitHubError("forbidden", f"{what}: GitHub refused the request (403 {msg}).", 403)
        if status == 404:
            return GitHubError("not-found", f"{what}: not found (404).", 404)
        if status == 422:
            return GitHubError("invalid", f"{what}: GitHub refused the data (422 {msg}).", 422)
        return GitHubError("unavailable", f"{what}: GitHub answered {status} {msg}".rstrip() + ".", status)
    if isinstance(exc, requests.exceptions.RequestException):
        return GitHubError(
            "unavailable", f"{what}: GitHub did not answer ({type(exc).__name__}) after retries."
        )
    raise exc


class GitHubClient:
    """Every GitHub API call the bot makes, for one repository."""

    def __init__(self, gh: Github, repo: str, anonymous: bool = False) -> None:
        self.gh = gh
        self.repo = repo
        # Without a token: REST reads of a public repository only (GitHub's GraphQL API refuses them).
        self.anonymous = anonymous
        self._repo = gh.get_repo(repo)
        self._path = f"/repos/{repo}"

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """fn's result; every failure, a malformed answer included, as one GitHubError naming the request."""
        try:
            return fn()
        except (GithubException, requests.exceptions.RequestException) as exc:
            raise translate(exc, what) from None
        except MALFORMED as exc:
            raise malformed(what, exc) from None

    def _json(
        self,
        verb: str,
        path: str,
        body: dict[str, Any] | None = None,
        params: dict | None = None,
        parse: Callable[[Any], T] | None = None,
    ) -> T:
        """One request and the reading of its answer, so a malformed answer fails as the request it was."""
        what = f"{verb} {path}"
        req = self.gh.requester
        read = parse or partial(_json_answer, verb)
        return self._call(
            what, lambda: read(req.requestJsonAndCheck(verb, path, parameters=params, input=body)[1])
        )

    def viewer(self) -> str:
        """The token's own login (workflow tokens cannot read GET /user; GraphQL viewer works); "" without a
        token, an identity no comment has."""
        if self.anonymous:
            return ""

        def ask() -> str:
            data = self.gh.requester.graphql_query("query { viewer { login } }", {})[1]
            login = data["data"]["viewer"]["login"]
            if not isinstance(login, str) or not login:
                raise TypeError("viewer.login is not a string")
            return login

        return self._call("POST /graphql (viewer)", ask)

    def pull(self, number: int) -> PullInfo:
        return self._json("GET", f"{self._path}/pulls/{number}", parse=_pull_info)

    def open_pulls_from(self, head: str) -> tuple[PullInfo, ...]:
        """The open pull requests whose head is head ("OWNER:BRANCH", the head repository's owner)."""
        return self._list(f"{self._path}/pulls", _pull_info, {"state": "open", "head": head})

    def _list(
        self, path: str, item: Callable[[Any], T], params: dict[str, str] | None = None
    ) -> tuple[T, ...]:
        """Every page of a REST list, 100 a page, each item read by item(); one GitHubError on any fault.

        Paged here rather than by PyGithub, which reads a `null` page as an empty one: a list must be a
        JSON list, and each of its items what item() can read, or the answer is malformed.
        """
        req = self.gh.requester

        def pages() -> tuple[T, ...]:
            out: list[T] = []
            url: str | None = path
            query: dict[str, Any] | None = {**(params or {}), "per_page": 100}
            while url is not None:
                headers, data = req.requestJsonAndCheck("GET", url, parameters=query)
                if not isinstance(data, list):
                    raise TypeError("a page of a list is not a JSON list")
                out.extend(item(entry) for entry in data)
                url, query = _next_page(headers), None  # the next link carries the query itself
            return tuple(out)

        return self._call(f"GET {path}", pages)

    def pull_files(self, number: int) -> tuple[PullFile, ...]:
        return self._list(f"{self._path}/pulls/{number}/files", _pull_file)

    def reviews(self, number: int) -> tuple[ReviewInfo, ...]:
        return self._list(f"{self._path}/pulls/{number}/reviews", _review)

    def comments(self, number: int, since: str | None = None) -> tuple[Comment, ...]:
        """The pull request's comments, or only those updated at or after since (an ISO 8601 time)."""
        path = f"{self._path}/issues/{number}/comments"
        return self._list(path, _comment, {"since": since} if since else None)

    def create_comment(self, number: int, body: str) -> Comment:
        return self._json("POST", f"{self._path}/issues/{number}/comments", {"body": body}, parse=_comment)

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._json("PATCH", f"{self._path}/issues/comments/{comment_id}", {"body": body})

    def delete_comment(self, comment_id: int) -> None:
        try:
            self._json("DELETE", f"{self._path}/issues/comments/{comment_id}")
        except GitHubError as exc:
            if exc.kind != "not-found":  # already gone: a concurrent run removed it
                raise

    def react(self, comment_id: int, content: str) -> None:
        self._json("POST", f"{self._path}/issues/comments/{comment_id}/reactions", {"content": content})

    def repo_labels(self) -> tuple[str, ...]:
        return self._list(f"{self._path}/labels", _label_name)

    def issue(self, number: int) -> IssueInfo:
        """One issue: its labels (all of them, in the one answer) and its issue type."""
        return self._json("GET", f"{self._path}/issues/{number}", parse=_issue_info)

    def create_label(self, name: str, color: str, description: str) -> None:
        try:
            self._json(
                "POST", f"{self._path}/labels", {"name": name, "color": color, "description": description}
            )
        except GitHubError as exc:
            if exc.kind != "invalid":  # 422 already_exists: created meanwhile, which is what we wanted
                raise

    def add_labels(self, number: int, names: tuple[str, ...]) -> None:
        self._json("POST", f"{self._path}/issues/{number}/labels", {"labels": list(names)})

    def remove_label(self, number: int, name: str) -> None:
        quoted = urllib.parse.quote(name, safe="")
        try:
            self._json("DELETE", f"{self._path}/issues/{number}/labels/{quoted}")
        except GitHubError as exc:
            if exc.kind != "not-found":  # not there: already the state we want
                raise

    def review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        """Every comment on the pull request's lines, 100 a page."""
        return self._list(f"{self._path}/pulls/{number}/comments", _review_comment)

    def create_review(self, number: int, commit_id: str, comments: tuple[dict, ...]) -> None:
        """One review holding every comment: an event of COMMENT, never an approval or a change request."""
        # GitHub requires a body with COMMENT: one line saying what the comments are.
        body = {"commit_id": commit_id, "event": "COMMENT", "body": REVIEW_BODY, "comments": list(comments)}
        self._json("POST", f"{self._path}/pulls/{number}/reviews", body)

    def delete_review_comment(self, comment_id: int) -> None:
        try:
            self._json("DELETE", f"{self._path}/pulls/comments/{comment_id}")
        except GitHubError as exc:
            if exc.kind != "not-found":  # already gone
                raise

    def permission(self, login: str) -> str:
        what = f"GET {self._path}/collaborators/{login}/permission"
        return self._call(what, lambda: self._repo.get_collaborator_permission(login))

    def read_file(self, ref: str, path: str) -> bytes | None:
        def read() -> bytes | None:
            found = self._repo.get_contents(path, ref=ref)
            if isinstance(found, list) or found.type not in ("file", "symlink"):
                return None
            if found.type == "symlink":
                return (found.target or "").encode()
            if found.size > MAX_TEXT_BYTES or found.encoding != "base64":
                raise oversized(path, found.size)  # not an API fault: _call lets it through
            data = found.decoded_content
            if len(data) != found.size:  # a cut answer decodes to fewer bytes than GitHub says the file has
                raise ValueError(f"content is {len(data):,} bytes, the file {found.size:,}")
            return data

        try:
            return self._call(f"GET contents of {path}", read)
        except GitHubError as exc:
            if exc.kind == "not-found":
                return None
            raise

    def read_blobs(self, wanted: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], Blob | None]:
        """Files at commits, up to BLOBS_PER_QUERY per GraphQL request; None where the path is no file.

        Paths go in as variables, never into the query text. Schema: GitHub's GraphQL reference,
        `Repository.object(expression: "REV:PATH")` and the `Blob` fields (tests/fixtures/github/README.md).
        """
        if self.anonymous:
            return {}  # GraphQL needs a token: each file is read through the contents API when needed
        owner, name = self.repo.split("/")
        out: dict[tuple[str, str], Blob | None] = {}
        for start in range(0, len(wanted), BLOBS_PER_QUERY):
            chunk = wanted[start : start + BLOBS_PER_QUERY]
            what = f"POST /graphql (blobs of {len(chunk)} files, first {chunk[0][1]})"
            out.update(self._call(what, partial(self._blobs, owner, name, chunk)))
        return out

    def _blobs(
        self, owner: str, name: str, chunk: tuple[tuple[str, str], ...]
    ) -> dict[tuple[str, str], Blob | None]:
        params = "".join(f", $e{i}: String!" for i in range(len(chunk)))
        fields = " ".join(
            f"f{i}: object(expression: $e{i}) {{ ... on Blob {{ byteSize isTruncated text }} }}"
            for i in range(len(chunk))
        )
        query = (
            f"query($owner: String!, $name: String!{params}) "
            f"{{ repository(owner: $owner, name: $name) {{ {fields} }} }}"
        )
        variables = {
            "owner": owner,
            "name": name,
            **{f"e{i}": f"{rev}:{path}" for i, (rev, path) in enumerate(chunk)},
        }
        repo = self.gh.requester.graphql_query(query, variables)[1]["data"]["repository"]
        out: dict[tuple[str, str], Blob | None] = {}
        for i, key in enumerate(chunk):
            node = repo[f"f{i}"]  # a missing alias is a malformed answer (KeyError)
            # null: nothing at that path; {}: a tree or submodule there, which is no file either.
            out[key] = Blob.model_validate(_blob_fields(node)) if node else None
        return out

    def tree(self, ref: str, recursive: bool = True) -> Tree:
        """The tree at ref (a commit or tree SHA): every entry below it when recursive, else its own entries.

        GitHub lists at most 100,000 entries (7 MB) of a recursive tree and then says `truncated`; the
        caller decides what a partial listing means (bot.github.pull.ApiReader.list_paths).
        """

        def listing() -> Tree:
            tree = self._repo.get_git_tree(ref, recursive=recursive)
            entries = tuple(TreeEntry(path=e.path, type=e.type, sha=e.sha) for e in tree.tree)
            truncated = tree.raw_data["truncated"]  # required by the schema
            if not isinstance(truncated, bool):
                raise TypeError("`truncated` is not a boolean")
            return Tree(entries=entries, truncated=truncated)

        return self._call(f"GET tree {ref[:12]}{'' if recursive else ' (one folder)'}", listing)

    def create_status(self, sha: str, state: str, description: str, context: str) -> None:
        body = {"state": state, "description": description[:140], "context": context}
        self._json("POST", f"{self._path}/statuses/{sha}", body)

    def create_check_run(
        self,
        sha: str,
        name: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: tuple[Annotation, ...],
    ) -> int:
        output = {"title": title, "summary": summary, "annotations": [_annotation(a) for a in annotations]}
        body = {
            "name": name,
            "head_sha": sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": output,
        }
        return self._json("POST", f"{self._path}/check-runs", body, parse=lambda data: int(data["id"]))

    def update_check_run(
        self, run_id: int, title: str, summary: str, annotations: tuple[Annotation, ...]
    ) -> None:
        output = {"title": title, "summary": summary, "annotations": [_annotation(a) for a in annotations]}
        self._json("PATCH", f"{self._path}/check-runs/{run_id}", {"output": output})

    def branch_rules_checks(self, branch: str) -> tuple[str, ...]:
        """The status checks the active rulesets of branch require (the repository's and its owner's)."""
        path = f"{self._path}/rules/branches/{urllib.parse.quote(branch, safe='')}"
        rules = self._list(path, _rule_checks)
        return tuple(dict.fromkeys(name for names in rules for name in names))

    def protection_checks(self, branch: str) -> tuple[str, ...] | None:
        """The required status checks of branch's classic protection; None when there is none or the token
        may not read it (reading protection needs administration rights the workflow token lacks)."""
        quoted = urllib.parse.quote(branch, safe="")
        try:
            data = self._json(
                "GET",
                f"{self._path}/branches/{quoted}/protection/required_status_checks",
                parse=_policy_checks,
            )
        except GitHubError as exc:
            if exc.kind in ("not-found", "forbidden", "read-only"):
                return None
            raise
        return data

    def _pages_of(
        self, path: str, key: str, item: Callable[[Any], T], params: dict[str, str]
    ) -> tuple[T, ...]:
        """Every page of a list GitHub wraps in an object (`{"total_count": n, key: [...]}`), 100 a page."""
        req = self.gh.requester

        def pages() -> tuple[T, ...]:
            out: list[T] = []
            url: str | None = path
            query: dict[str, Any] | None = {**params, "per_page": 100}
            while url is not None:
                headers, data = req.requestJsonAndCheck("GET", url, parameters=query)
                entries = data[key]
                if not isinstance(entries, list):
                    raise TypeError(f"`{key}` is not a JSON list")
                out.extend(item(entry) for entry in entries)
                url, query = _next_page(headers), None
            return tuple(out)

        return self._call(f"GET {path}", pages)

    def check_runs(self, ref: str) -> tuple[CheckState, ...]:
        """The latest check run of each name on the commit ref (every app's, the bot's own included)."""
        path = f"{self._path}/commits/{ref}/check-runs"
        return self._pages_of(path, "check_runs", _check_state, {"filter": "latest"})

    def statuses(self, ref: str) -> tuple[CheckState, ...]:
        """The latest commit status of each context on ref (GitHub's combined status)."""
        return self._pages_of(f"{self._path}/commits/{ref}/status", "statuses", _status_state, {})

    def compare_files(self, base: str, head: str) -> tuple[PullFile, ...]:
        """The files changed from base to head (a merge queue's commit against its base), as a pull request's
        files list gives them; GitHub lists at most 300 files here."""
        return self._json(
            "GET",
            f"{self._path}/compare/{base}...{head}",
            params={"per_page": 100},
            parse=lambda data: tuple(_pull_file(f) for f in data.get("files") or ()),
        )


def _rule_checks(data: Any) -> tuple[str, ...]:
    if data["type"] != "required_status_checks":
        return ()
    return tuple(_text(c["context"]) for c in data["parameters"]["required_status_checks"])


def _policy_checks(data: Any) -> tuple[str, ...]:
    # `contexts` is the older list and `checks` the newer one; GitHub fills both.
    names = [_text(c) for c in data["contexts"]] + [_text(c["context"]) for c in data["checks"]]
    return tuple(dict.fromkeys(names))


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("a check name is not a string")
    return value


def _check_state(data: Any) -> CheckState:
    return CheckState(
        name=_text(data["name"]),
        kind="check-run",
        outcome=run_outcome(data["status"], data["conclusion"]),
        url=data.get("html_url") or data.get("details_url"),
    )


def _status_state(data: Any) -> CheckState:
    return CheckState(
        name=_text(data["context"]),
        kind="status",
        outcome=status_outcome(data["state"]),
        url=data.get("target_url"),
    )


def malformed(what: str, exc: BaseException) -> GitHubError:
    """The error for a 2xx answer the bot cannot read; names the request and what was wrong, not the body."""
    detail = type(exc).__name__
    if isinstance(exc, KeyError):
        detail = f"missing field {exc.args[0]!r}"[:80] if exc.args else detail
    return GitHubError(
        "malformed",
        f"{what}: GitHub's answer was not what its API documents ({detail}: truncated, an HTML page, null or "
        "wrong types); a proxy or GitHub itself may be failing. Stopped before writing anything more.",
    )


def _json_answer(verb: str, data: Any) -> Any:
    """An answer the bot does not read further must still be GitHub's JSON: an object or a list.

    A DELETE may answer 204 without a body; anything else (an HTML page PyGithub wraps as {"data": "<..."},
    null) is malformed.
    """
    if data is None and verb == "DELETE":
        return data
    if not isinstance(data, dict | list) or (isinstance(data, dict) and set(data) == {"data"}):
        raise TypeError("not a JSON object or list")
    return data


def _pull_info(data: Any) -> PullInfo:
    return PullInfo(
        number=data["number"],
        title=data.get("title") or "",
        body=data.get("body") or "",
        author=(data.get("user") or {}).get("login", "ghost"),
        draft=bool(data.get("draft")),
        state=data.get("state", "open"),
        head_sha=data["head"]["sha"],
        head_ref=data["head"].get("ref"),
        head_repo=(data["head"].get("repo") or {}).get("full_name"),
        base_sha=data["base"]["sha"],
        base_ref=data["base"].get("ref"),
        labels=tuple(lb["name"] for lb in data.get("labels") or ()),
        changed_files=data.get("changed_files") or 0,
        url=data.get("html_url"),
    )


def _issue_info(data: Any) -> IssueInfo:
    # A label is an object with a name, or (as the schema allows) the name alone.
    labels = tuple(lb if isinstance(lb, str) else lb.get("name") for lb in data["labels"])
    kind = data.get("type")
    return IssueInfo(
        number=data["number"],
        labels=tuple(lb for lb in labels if isinstance(lb, str)),
        type=kind["name"] if kind is not None else None,
        is_pull=data.get("pull_request") is not None,
    )


def _next_page(headers: Any) -> str | None:
    """The `rel="next"` address of a Link header, or None on the last page."""
    link = next((v for k, v in (headers or {}).items() if k.lower() == "link"), None)
    if not link:
        return None
    return next((p["url"] for p in requests.utils.parse_header_links(link) if p.get("rel") == "next"), None)


def _login(user: Any) -> tuple[str, str]:
    # A deleted account shows as null; GitHub renders it as "ghost".
    if user is None:
        return "ghost", "User"
    return user["login"], user.get("type") or "User"


def _comment(data: Any) -> Comment:
    login, kind = _login(data.get("user"))
    return Comment(
        id=data["id"],
        author=login,
        author_type=kind,
        body=data.get("body") or "",
        created_at=data.get("created_at") or "",
        updated_at=data.get("updated_at") or data.get("created_at") or "",
    )


def _review_comment(data: Any) -> ReviewComment:
    login, kind = _login(data.get("user"))
    reply = data.get("in_reply_to_id")
    return ReviewComment(
        id=data["id"],
        author=login,
        author_type=kind,
        body=data.get("body") or "",
        path=data.get("path") or "",
        in_reply_to=reply if isinstance(reply, int) else None,
    )


def _pull_file(data: Any) -> PullFile:
    return PullFile(
        path=data["filename"],
        status=data["status"],
        previous_path=data.get("previous_filename"),
        patch=data.get("patch"),
        changes=data.get("changes") or 0,
    )


def _review(data: Any) -> ReviewInfo:
    return ReviewInfo(
        id=data["id"],
        author=_login(data.get("user"))[0],
        state=data["state"],
        commit_id=data.get("commit_id"),
    )


def _label_name(data: Any) -> str:
    name = data["name"]
    if not isinstance(name, str):
        raise TypeError("a label's name is not a string")
    return name


def _blob_fields(node: Any) -> dict[str, Any]:
    return {"size": node["byteSize"], "text": node["text"], "truncated": node["isTruncated"]}


def _annotation(a: Annotation) -> dict[str, Any]:
    return {
        "path": a.path,
        "start_line": a.line,
        "end_line": a.line,
        "annotation_level": a.level,
        "title": a.title,
        "message": a.message,
    }


def connect(
    token: str | None,
    repo: str,
    base_url: str = DEFAULT_API_URL,
    retry: GithubRetry | None = None,
    timeout: int = TIMEOUT,
    throttle: bool = True,
) -> GitHubClient:
    """A client for one repository; base_url is GITHUB_API_URL (GitHub Enterprise Server: https://HOST/api/v3).
    Without a token it reads a public repository as anyone may, at GitHub's lower rate limit."""
    # PyGithub logs each refused request and retry to stderr itself; BoundedRetry says it in the bot's words.
    logging.getLogger("github").setLevel(logging.WARNING)
    gh = Github(
        auth=Auth.Token(token) if token else None,
        base_url=base_url.rstrip("/"),
        timeout=timeout,
        per_page=100,
        retry=retry if retry is not None else BoundedRetry(),
        lazy=True,
        # PyGithub's pacing keeps a busy repository under the secondary limits; tests turn it off.
        seconds_between_requests=0.25 if throttle else None,
        seconds_between_writes=1.0 if throttle else None,
    )
    return GitHubClient(gh, repo, anonymous=not token)
