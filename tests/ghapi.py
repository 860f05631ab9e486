"""A fake GitHub for tests: `responses` mocks whose bodies are validated against GitHub's published schemas.

Every mocked response body is checked against the OpenAPI subset in tests/fixtures/github (plus its small
supplement), and every JSON request body the bot sends against the operation's requestBody, so the mocks
cannot drift from the real API. Webhook payloads are validated against octokit's payload schemas.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

import jsonschema
import responses
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT7
from responses import matchers

FIXTURES = Path(__file__).parent / "fixtures" / "github"
OPENAPI_URI = "urn:github-openapi"
WRITE_METHODS = ("POST", "PATCH", "PUT", "DELETE")


def _translate(node: Any) -> Any:
    """OpenAPI 3.0 schemas as JSON Schema: `nullable` becomes a null type; `discriminator` is dropped."""
    if isinstance(node, list):
        return [_translate(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _translate(v) for k, v in node.items() if k not in ("nullable", "discriminator", "example")}
    if node.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        elif "type" not in out:
            out = {"anyOf": [out, {"type": "null"}]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


@lru_cache(maxsize=1)
def openapi() -> dict:
    """The subset and the supplement merged into one document, translated to JSON Schema terms."""
    doc = json.loads((FIXTURES / "api.github.com.subset.json").read_text())
    extra = json.loads((FIXTURES / "api.github.com.supplement.json").read_text())
    for path, item in extra["paths"].items():
        doc["paths"].setdefault(path, {}).update(item)
    doc["components"]["schemas"].update(extra["components"]["schemas"])
    doc["components"]["examples"].update(extra["components"].get("examples", {}))
    return _translate(doc)


@lru_cache(maxsize=1)
def _registry() -> Registry:
    return Registry().with_resource(
        OPENAPI_URI, Resource.from_contents(openapi(), default_specification=DRAFT4)
    )


def _pointer(*parts: str) -> str:
    return "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


# (schema, repr of the instance) of every instance found valid. The schemas are fixed files, so the same
# instance against the same schema needs no second check: the suite serves the same pulls, labels, file
# pages and payloads again and again, and jsonschema took a third of the API tests' time re-checking them.
# repr, not JSON: a tuple where a list belongs is not an array to jsonschema, and keeps its own entry.
_VALID: set[tuple[str, str]] = set()


def _checked(schema_key: str, instance: Any, validate: Callable[[Any], None]) -> None:
    key = (schema_key, repr(instance))
    if key in _VALID:
        return
    validate(instance)
    _VALID.add(key)


def _validate(pointer: str, instance: Any) -> None:
    schema = {"$ref": f"{OPENAPI_URI}#/{pointer}"}
    _checked(pointer, instance, jsonschema.Draft4Validator(schema, registry=_registry()).validate)


def operation(method: str, template: str) -> dict:
    try:
        return openapi()["paths"][template][method.lower()]
    except KeyError:
        raise AssertionError(f"{method} {template} is not in the OpenAPI subset") from None


def validate_response(method: str, template: str, status: int, body: Any) -> None:
    """A mocked response body against the operation's schema for that status (errors: basic-error)."""
    op = operation(method, template)
    declared = op["responses"].get(str(status))
    if declared and "$ref" in declared:  # shared responses such as not_found
        name = declared["$ref"].rsplit("/", 1)[-1]
        declared = openapi()["components"]["responses"][name]
    if declared is not None and "content" not in declared:
        assert body is None, f"{method} {template} {status} has no body"
        return
    if declared is not None:
        media = (
            "application/json"
            if "application/json" in declared["content"]
            else next(iter(declared["content"]))
        )
        parts = ("paths", template, method.lower(), "responses", str(status), "content", media, "schema")
        if "$ref" in op["responses"][str(status)]:
            parts = ("components", "responses", name, "content", media, "schema")
        _validate(_pointer(*parts), body)
        return
    assert status >= 400, f"{method} {template} does not declare {status}"
    _validate(_pointer("components", "schemas", "basic-error"), body)


def validate_request(method: str, template: str, body: Any) -> None:
    op = operation(method, template)
    if "requestBody" not in op:
        assert body is None, f"{method} {template} takes no body"
        return
    pointer = _pointer(
        "paths", template, method.lower(), "requestBody", "content", "application/json", "schema"
    )
    _validate(pointer, body)


@lru_cache(maxsize=1)
def _webhook_registry() -> Registry:
    resources = []
    for path in (FIXTURES / "webhooks" / "schemas").rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema, default_specification=DRAFT7)))
    return Registry().with_resources(resources)


def validate_payload(event: str, action: str, payload: dict) -> None:
    """A webhook payload against octokit's schema for the event and action."""
    schema = {"$ref": f"{event}${action}"}
    validator = jsonschema.Draft7Validator(schema, registry=_webhook_registry())
    _checked(f"webhook:{event}${action}", payload, validator.validate)


def payload(event: str, name: str) -> dict:
    return json.loads((FIXTURES / "webhooks" / event / name).read_text())


@lru_cache(maxsize=1)
def _examples() -> dict:
    examples = json.loads((FIXTURES / "api.github.com.subset.json").read_text())["components"]["examples"]
    extra = json.loads((FIXTURES / "api.github.com.supplement.json").read_text())["components"]
    return {**examples, **extra.get("examples", {})}


def example(name: str) -> Any:
    # The subset is parsed once; each caller gets its own copy to change.
    return copy.deepcopy(_examples()[name]["value"])


# --- schema-valid bodies, built from GitHub's own examples -------------------------------------------------


def user(login: str, kind: str = "User") -> dict:
    u = example("issue-comment")["user"]
    u.update(login=login, type=kind, url=f"https://api.github.com/users/{quote(login)}")
    return u


def pull(
    number: int = 7,
    head: str = "h" * 40,
    base: str = "b" * 40,
    author: str = "alice",
    labels: tuple[str, ...] = (),
    draft: bool = False,
    changed_files: int = 1,
    title: str = "Change",
    body: str | None = "",
    head_repo: str = "octo/repo",
    state: str = "open",
) -> dict:
    p = example("pull-request")
    p["requested_teams"] = []  # GitHub's example lacks the required `type` here
    p.update(number=number, title=title, body=body, draft=draft, changed_files=changed_files, state=state)
    p["head"]["repo"]["full_name"] = head_repo
    p["base"]["repo"]["full_name"] = "octo/repo"
    p["user"] = user(author)
    p["head"]["sha"], p["base"]["sha"] = head, base
    p["head"]["ref"], p["base"]["ref"] = "feature", "main"
    p["labels"] = [label(name) for name in labels]
    return p


def pr_file(
    path: str, patch: str | None = "@@ -1 +1 @@\n-a\n+b", status: str = "modified", changes: int = 2
) -> dict:
    f = example("diff-entry-items")[0]
    f.update(filename=path, status=status, changes=changes)
    if patch is None:
        f.pop("patch", None)
    else:
        f["patch"] = patch
    return f


def comment(
    cid: int, body: str, login: str = "alice", kind: str = "User", created: str = "2026-01-01T00:00:00Z"
) -> dict:
    c = example("issue-comment")
    c.update(id=cid, body=body, created_at=created, updated_at=created, user=user(login, kind))
    return c


def review(rid: int, login: str, state: str, commit_id: str | None) -> dict:
    return {
        "id": rid,
        "node_id": f"PRR_{rid}",
        "user": user(login),
        "body": "",
        "state": state,
        "html_url": f"https://github.com/octo/repo/pull/7#pullrequestreview-{rid}",
        "pull_request_url": "https://api.github.com/repos/octo/repo/pulls/7",
        "_links": {
            "html": {"href": f"https://github.com/octo/repo/pull/7#pullrequestreview-{rid}"},
            "pull_request": {"href": "https://api.github.com/repos/octo/repo/pulls/7"},
        },
        "submitted_at": "2026-01-02T00:00:00Z",
        "commit_id": commit_id,
        "author_association": "COLLABORATOR",
    }


def review_comment(  # noqa: PLR0913 - the fields a test sets
    cid: int,
    body: str,
    login: str,
    path: str,
    line: int,
    kind: str = "User",
    in_reply_to: int | None = None,
    start_line: int | None = None,
    commit_id: str = "h" * 40,
) -> dict:
    """A comment on a line of the diff, as `GET /pulls/{n}/comments` lists it (schema-checked there)."""
    url = f"https://api.github.com/repos/octo/repo/pulls/comments/{cid}"
    html = f"https://github.com/octo/repo/pull/7#discussion_r{cid}"
    c = {
        "url": url,
        "pull_request_review_id": 4000 + cid,
        "id": cid,
        "node_id": f"PRRC_{cid}",
        "diff_hunk": "@@ -0,0 +1,2 @@",
        "path": path,
        "commit_id": commit_id,
        "original_commit_id": commit_id,
        "user": user(login, kind),
        "body": body,
        "created_at": "2026-02-01T00:00:00Z",
        "updated_at": "2026-02-01T00:00:00Z",
        "html_url": html,
        "pull_request_url": "https://api.github.com/repos/octo/repo/pulls/7",
        "author_association": "NONE" if kind == "Bot" else "CONTRIBUTOR",
        "_links": {
            "self": {"href": url},
            "html": {"href": html},
            "pull_request": {"href": "https://api.github.com/repos/octo/repo/pulls/7"},
        },
        "start_line": start_line,
        "original_start_line": start_line,
        "start_side": "RIGHT" if start_line else None,
        "line": line,
        "original_line": line,
        "side": "RIGHT",
        "subject_type": "line",
    }
    if in_reply_to is not None:
        c["in_reply_to_id"] = in_reply_to
    return c


def label(name: str) -> dict:
    lb = example("label")
    lb.update(name=name, url=f"https://api.github.com/repos/octo/repo/labels/{quote(name)}")
    return lb


def issue(number: int, labels: tuple[str, ...] = (), kind: str | None = None, pull: bool = False) -> dict:
    """An issue as `GET .../issues/{issue_number}` gives it (GitHub's example), with its labels and its
    issue type (kind: "Bug", "Feature"...; None where the repository has no issue types); pull: the number
    is a pull request's (GitHub's issues API serves those too, with a `pull_request` member)."""
    i = example("issue")
    i.update(number=number, url=f"https://api.github.com/repos/octo/repo/issues/{number}")
    i["labels"] = [label(name) for name in labels]
    i["type"] = None
    if kind is not None:
        i["type"] = {"id": 410, "node_id": "IT_kwDNAd3NAZo", "name": kind, "description": f"A {kind.lower()}"}
    if not pull:
        i.pop("pull_request", None)
    return i


def permission(login: str, level: str) -> dict:
    p = example("repository-collaborator-permission-response-if-user-has-admin-permissions")
    p["permission"], p["role_name"] = level, level
    p["user"].update(login=login, role_name=level)
    return p


def content(path: str, text: str | bytes) -> dict:
    c = example("content-file-response-if-content-is-a-file")
    data = text.encode() if isinstance(text, str) else text
    c.update(path=path, name=path.rsplit("/", 1)[-1], size=len(data), encoding="base64")
    c["content"] = base64.b64encode(data).decode()
    return c


def tree(sha: str, paths: tuple[str, ...]) -> dict:
    t = example("git-tree-default-response")
    entry = t["tree"][0]
    t["sha"] = sha
    t["tree"] = [{**entry, "path": p, "type": "blob", "mode": "100644"} for p in paths]
    t["truncated"] = False
    return t


def check_run(
    rid: int, name: str, sha: str, status: str = "completed", conclusion: str | None = "success"
) -> dict:
    """A check run as `GET /commits/{ref}/check-runs` lists it (GitHub's example, with the named fields)."""
    run = example("check-run")
    run.update(
        id=rid,
        name=name,
        head_sha=sha,
        status=status,
        conclusion=conclusion if status == "completed" else None,
        html_url=f"https://github.com/octo/repo/runs/{rid}",
        url=f"https://api.github.com/repos/octo/repo/check-runs/{rid}",
    )
    if status != "completed":
        run["completed_at"] = None
    return run


def commit_status(sid: int, context: str, state: str, target_url: str | None = None) -> dict:
    """One entry of a combined status (`simple-commit-status`): GitHub's example with the named fields."""
    s = {k: v for k, v in example("status").items() if k != "creator"}
    s.update(id=sid, context=context, state=state, target_url=target_url, description=f"{context}: {state}")
    return s


def combined_status(sha: str, statuses: list[dict]) -> dict:
    """`GET /commits/{ref}/status`: the latest status of each context, and their combined state."""
    states = {s["state"] for s in statuses}
    state = (
        "failure"
        if states & {"failure", "error"}
        else "pending"
        if "pending" in states or not states
        else "success"
    )
    repo = {
        "id": 1,
        "node_id": "R_1",
        "name": "repo",
        "full_name": "octo/repo",
        "owner": user("octo", "Organization"),
        "private": False,
        "html_url": "https://github.com/octo/repo",
        "url": "https://api.github.com/repos/octo/repo",
    }
    return {
        "state": state,
        "statuses": statuses,
        "sha": sha,
        "total_count": len(statuses),
        "repository": repo,
        "commit_url": f"https://api.github.com/repos/octo/repo/commits/{sha}",
        "url": f"https://api.github.com/repos/octo/repo/commits/{sha}/status",
    }


def required_rule(*contexts: str) -> dict:
    """A `required_status_checks` rule of a repository ruleset, as `GET /rules/branches/{branch}` lists it."""
    return {
        "type": "required_status_checks",
        "ruleset_source_type": "Repository",
        "ruleset_source": "octo/repo",
        "ruleset_id": 42,
        "parameters": {
            "required_status_checks": [{"context": c} for c in contexts],
            "strict_required_status_checks_policy": False,
        },
    }


def protection_checks(*contexts: str) -> dict:
    """Classic branch protection's required status checks (`status-check-policy`)."""
    url = "https://api.github.com/repos/octo/repo/branches/main/protection/required_status_checks"
    return {
        "url": url,
        "contexts_url": url + "/contexts",
        "strict": False,
        "contexts": list(contexts),
        "checks": [{"context": c, "app_id": None} for c in contexts],
    }


def error(message: str) -> dict:
    return {"message": message, "documentation_url": "https://docs.github.com/rest"}


# --- the fake ---------------------------------------------------------------------------------------------


class FakeGitHub:
    """Registers schema-checked mocks at the URLs PyGithub really calls (with the explicit :443 port)."""

    def __init__(
        self, rsps: responses.RequestsMock, base_url: str = "https://api.github.com", repo: str = "octo/repo"
    ):
        self.rsps = rsps
        self.repo = repo
        self.base_url = base_url
        o = urlparse(base_url)
        prefix = o.path.rstrip("/")
        self.root = f"{o.scheme}://{o.hostname}:{o.port or 443}{prefix}"
        graphql = prefix.removesuffix("/v3") + "/graphql"
        self.graphql_url = f"{o.scheme}://{o.hostname}:{o.port or 443}{graphql}"

    def url(self, template: str, **params: Any) -> str:
        owner, name = self.repo.split("/")
        path = template.replace("{owner}", owner).replace("{repo}", name)
        for key, value in params.items():
            path = path.replace("{" + key + "}", quote(str(value), safe=""))
        assert "{" not in path, path
        return self.root + path

    def add(
        self,
        method: str,
        template: str,
        body: Any = None,
        status: int = 200,
        headers: dict[str, str] | None = None,
        query: dict[str, str] | None = None,
        **params: Any,
    ) -> None:
        """Mock one response; the body must validate, and so must the request body the bot sends."""
        validate_response(method, template, status, body)

        def reply(request: Any) -> tuple[int, dict, str]:
            sent = json.loads(request.body) if request.body else None
            validate_request(method, template, sent)
            return status, dict(headers or {}), "" if body is None else json.dumps(body)

        match = [matchers.query_param_matcher(query, strict_match=True)] if query is not None else []
        self.rsps.add_callback(method, self.url(template, **params), callback=reply, match=match)

    def viewer(self, login: str = "github-actions[bot]") -> None:
        body = {"data": {"viewer": {"login": login}}}
        schema = json.loads((FIXTURES / "graphql-viewer.schema.json").read_text())
        jsonschema.Draft4Validator(schema).validate(body)
        self.rsps.add(responses.POST, self.graphql_url, json=body)

    def page(self, template: str, items: list, page: int = 1, last: int = 1, **params: Any) -> None:
        """One page of a list endpoint, asked for with per_page=100 (asserted); a Link header to the next."""
        query = {"per_page": "100", **({"page": str(page)} if page > 1 else {})}
        headers = {}
        if page < last:
            # GitHub's Link URLs carry no port; PyGithub refuses one that differs from its base URL's.
            public = self.url(template, **params).replace(":443", "", 1)
            headers["Link"] = f'<{public}?per_page=100&page={page + 1}>; rel="next"'
        self.add("GET", template, items, headers=headers, query=query, **params)

    # shortcuts for the calls of a review, each one request
    def pull(self, number: int = 7, **kw: Any) -> None:
        self.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", pull(number, **kw), pull_number=number)

    def files(self, number: int, files: list[dict], page: int = 1, last: int = 1) -> None:
        self.page("/repos/{owner}/{repo}/pulls/{pull_number}/files", files, page, last, pull_number=number)

    def comments(self, number: int, items: list[dict], page: int = 1, last: int = 1) -> None:
        self.page(
            "/repos/{owner}/{repo}/issues/{issue_number}/comments", items, page, last, issue_number=number
        )

    def reviews(self, number: int, items: list[dict]) -> None:
        self.page("/repos/{owner}/{repo}/pulls/{pull_number}/reviews", items, pull_number=number)

    def repo_labels(self, names: tuple[str, ...]) -> None:
        self.page("/repos/{owner}/{repo}/labels", [label(n) for n in names])

    def calls(self) -> list[tuple[str, str]]:
        """(method, path) of every request made, query strings dropped, host and port dropped."""
        out = []
        for call in self.rsps.calls:
            u = urlparse(call.request.url)
            out.append((call.request.method, u.path))
        return out

    def graphql(self, since: int = 0) -> list[str]:
        """What each GraphQL request from call `since` on asked: "viewer" or "blobs:N" (N files)."""
        out = []
        for call in list(self.rsps.calls)[since:]:
            if call.request.method == "POST" and urlparse(call.request.url).path.endswith("/graphql"):
                sent = json.loads(call.request.body)
                blobs = [k for k in sent.get("variables") or {} if re.fullmatch(r"e\d+", k)]
                out.append(f"blobs:{len(blobs)}" if blobs else "viewer")
        return out

    def writes(self) -> list[tuple[str, str]]:
        """Requests that change something on GitHub (the GraphQL identity query is a read)."""
        return [(m, p) for m, p in self.calls() if m in WRITE_METHODS and not p.endswith("/graphql")]


def strip_query(url: str) -> str:
    return re.sub(r"\?.*$", "", url)


# --- a stateful pull request: comments and labels persist across requests and runs ---------------------


class PullState:
    """One pull request's server-side state, served by `serve` through schema-checked responses."""

    def __init__(self, number: int = 7, head: str = "h" * 40, base: str = "b" * 40, author: str = "alice"):
        self.number, self.head, self.base, self.author = number, head, base, author
        self.head_repo = "octo/repo"  # a fork's OWNER/NAME for pull requests from forks
        self.state = "open"
        self.draft = False
        self.title, self.body = "Change", ""
        # Other issues of the repository, as `issue()` builds them, by number (any other number answers 404).
        self.issues: dict[int, dict] = {}
        self.labels: list[str] = []
        self.repo_labels: list[str] = ["bug"]
        self.comments: list[dict] = []
        self.reviews: list[dict] = []
        self.files: list[dict] = []
        self.changed_files: int | None = None
        self.permissions: dict[str, str] = {}
        self.heads_after: list[str] = []  # head SHAs the following pull reads return (a push mid-run)
        self.statuses: list[dict] = []
        self.check_runs: list[dict] = []
        self.reactions: list[tuple[int, str]] = []
        self.fail: dict[
            tuple[str, str], list[tuple[int, dict, dict]]
        ] = {}  # (method, template) -> error replies
        self.lost_posts = 0  # comment POSTs that are stored but answered 502 (the write went through)
        self.race: list[dict] = []  # comments a concurrent run posts just before ours
        self.trees: dict[str, dict[str, str]] = {}  # commit SHA -> {path: text}, for reads without a checkout
        # commit SHA -> how many entries a recursive listing of it gives before GitHub says `truncated`.
        self.tree_cut: dict[str, int] = {}
        self.folder_trees: dict[str, tuple[str, str]] = {}  # a folder's tree SHA -> (commit SHA, folder)
        # Error replies that take effect once the status comment is POSTed (a listing failing after it).
        self.fail_after_post: dict[tuple[str, str], list[tuple[int, dict, dict]]] = {}
        # Raw GraphQL replies (status, body text) served before any answer from trees (faults, malformed).
        self.graphql_replies: list[tuple[int, str]] = []
        # Comments on the diff's lines (suggested changes and replies), and the reviews the bot created.
        self.review_comments: list[dict] = []
        self.created_reviews: list[dict] = []
        # Readiness: the base branch's rules (as `required_rule` builds them), its classic protection's
        # required checks (None: the token may not read it, answered 404), and the checks of other apps and
        # external CI on commits: check runs (as `check_run` builds them) and statuses (`commit_status`).
        self.rules: list[dict] = []
        self.protection: list[str] | None = None
        self.protection_status = 404
        self.ci_runs: list[dict] = []
        self.ci_statuses: list[dict] = []
        self._id = 1000

    def next_id(self) -> int:
        self._id += 1
        return self._id


# Fields of a full pull request that the list's "pull-request-simple" items do not carry.
PULL_ONLY = frozenset(
    {"merged", "mergeable", "rebaseable", "mergeable_state", "merged_by", "comments", "review_comments",
     "maintainer_can_modify", "commits", "additions", "deletions", "changed_files"}
)  # fmt: skip


def _regex(root: str, template: str, repo: str) -> re.Pattern[str]:
    owner, name = repo.split("/")
    path = template.replace("{owner}", owner).replace("{repo}", name)
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/?]+)", re.escape(path)).replace(
        "(?P<path>[^/?]+)", "(?P<path>[^?]+)"
    )
    return re.compile("^" + re.escape(root) + pattern + r"(\?.*)?$")


def serve(fake: FakeGitHub, st: PullState, identity: str = "github-actions[bot]") -> None:
    """Register every endpoint the bot uses for one pull request, answering from st (and changing it)."""
    from urllib.parse import parse_qs, unquote

    def route(method: str, template: str, handler: Any) -> None:
        rx = _regex(fake.root, template, fake.repo)

        def reply(request: Any) -> tuple[int, dict, str]:
            sent = json.loads(request.body) if request.body else None
            validate_request(method, template, sent)
            m = rx.match(request.url)
            params = {k: unquote(v) for k, v in m.groupdict().items()}
            query = {k: v[0] for k, v in parse_qs(urlparse(request.url).query).items()}
            if st.fail.get((method, template)):
                status, body, headers = st.fail[(method, template)].pop(0)
            else:
                status, body, headers = handler(params, query, sent)
            validate_response(method, template, status, body)
            return status, headers, "" if body is None else json.dumps(body)

        fake.rsps.add_callback(method, rx, callback=reply)

    def paged(template: str, items: list, query: dict, **params: Any) -> tuple[int, list, dict]:
        assert query.get("per_page") == "100", "lists are read 100 per page"
        page = int(query.get("page", "1"))
        chunk = items[(page - 1) * 100 : page * 100]
        headers = {}
        if page * 100 < len(items):
            public = fake.url(template, **params).replace(":443", "", 1)
            headers["Link"] = f'<{public}?per_page=100&page={page + 1}>; rel="next"'
        return 200, chunk, headers

    def get_pull(p: dict, q: dict, body: Any) -> tuple[int, dict, dict]:
        if st.heads_after:
            st.head = st.heads_after.pop(0)
        changed = st.changed_files if st.changed_files is not None else len(st.files)
        data = pull(
            st.number,
            st.head,
            st.base,
            st.author,
            tuple(st.labels),
            st.draft,
            changed,
            head_repo=st.head_repo,
            state=st.state,
            title=st.title,
            body=st.body,
        )
        return 200, data, {}

    def get_issue(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        found = st.issues.get(int(p["issue_number"]))
        return (200, found, {}) if found is not None else (404, error("Not Found"), {})

    def create_comment(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        st.comments.extend(st.race)
        st.race = []
        when = datetime(2026, 2, 1, tzinfo=UTC) + timedelta(seconds=len(st.comments))
        c = comment(st.next_id(), body["body"], identity, "Bot", when.strftime("%Y-%m-%dT%H:%M:%SZ"))
        st.comments.append(c)
        for key, replies in st.fail_after_post.items():
            st.fail.setdefault(key, []).extend(replies)
        st.fail_after_post = {}
        if st.lost_posts:
            st.lost_posts -= 1
            return 502, error("Server Error"), {}
        return 201, c, {}

    def find_comment(cid: str) -> dict | None:
        return next((c for c in st.comments if str(c["id"]) == cid), None)

    def edit_comment(p: dict, q: dict, body: dict) -> tuple[int, Any, dict]:
        c = find_comment(p["comment_id"])
        if c is None:
            return 422, error("Validation Failed"), {}
        c["body"] = body["body"]
        # GitHub stamps every edit: a second after the latest time the fake has shown, so times only grow.
        latest = max(max(x["created_at"], x["updated_at"]) for x in st.comments)
        when = datetime.strptime(latest, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) + timedelta(seconds=1)
        c["updated_at"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        return 200, c, {}

    def delete_comment(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        c = find_comment(p["comment_id"])
        if c is None:
            return 404, error("Not Found"), {}
        st.comments.remove(c)
        return 204, None, {}

    def create_label(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        if body["name"] in st.repo_labels:
            return 422, {**error("Validation Failed"), "errors": [{"code": "already_exists"}]}, {}
        st.repo_labels.append(body["name"])
        return 201, {**label(body["name"]), "color": body["color"], "description": body["description"]}, {}

    def add_labels(p: dict, q: dict, body: dict) -> tuple[int, list, dict]:
        for name in body["labels"]:
            if name not in st.labels:
                st.labels.append(name)
            if name not in st.repo_labels:  # GitHub creates it, grey
                st.repo_labels.append(name)
        return 200, [label(n) for n in st.labels], {}

    def remove_label(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        if p["name"] not in st.labels:
            return 404, error("Label does not exist"), {}
        st.labels.remove(p["name"])
        return 200, [label(n) for n in st.labels], {}

    def create_status(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        st.statuses.append({"sha": p["sha"], **body})
        s = example("status")
        s.update(
            state=body["state"], description=body.get("description"), context=body.get("context", "default")
        )
        return 201, s, {}

    def create_check(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        run = example("check-run")
        run.update(
            id=st.next_id(), head_sha=body["head_sha"], name=body["name"], conclusion=body["conclusion"]
        )
        st.check_runs.append({"id": run["id"], **body})
        return 201, run, {}

    def update_check(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        run = next(r for r in st.check_runs if str(r["id"]) == p["check_run_id"])
        run["output"]["annotations"] = run["output"]["annotations"] + body["output"]["annotations"]
        return 200, {**example("check-run"), "id": run["id"]}, {}

    def react(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        st.reactions.append((int(p["comment_id"]), body["content"]))
        return 201, example("reaction"), {}

    def get_permission(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        level = st.permissions.get(p["username"])
        if level is None:
            return 404, error("Not Found"), {}
        return 200, permission(p["username"], level), {}

    def get_content(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        text = st.trees.get(q.get("ref", ""), {}).get(p["path"])
        if text is None:
            return 404, error("Not Found"), {}
        return 200, content(p["path"], text), {}

    def folder_sha(commit: str, folder: str) -> str:
        sha = hashlib.sha1(f"{commit}:{folder}".encode()).hexdigest()
        st.folder_trees[sha] = (commit, folder)
        return sha

    def get_tree(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        sha = p["tree_sha"]
        if sha in st.trees and "recursive" in q:
            listed = tree(sha, tuple(st.trees[sha]))
            cut = st.tree_cut.get(sha)
            if cut is not None:  # GitHub's order: each folder before its files, by path
                folders = {f[:i] for f in st.trees[sha] for i, c in enumerate(f) if c == "/"}
                every = [*listed["tree"], *(folder_entry(sha, d, d) for d in folders)]
                every.sort(key=lambda e: e["path"])
                listed.update(tree=every[:cut], truncated=True)
            return 200, listed, {}
        commit, folder = (sha, "") if sha in st.trees else st.folder_trees.get(sha, ("", ""))
        if commit not in st.trees:
            return 404, error("Not Found"), {}
        # One folder: its files and its folders (with their tree SHAs), not what is below them.
        prefix = folder + "/" if folder else ""
        below = [f[len(prefix) :] for f in st.trees[commit] if f.startswith(prefix)]
        files = tuple(f for f in below if "/" not in f)
        listed = tree(sha, files)
        names = sorted({f.split("/", 1)[0] for f in below if "/" in f})
        listed["tree"] += [folder_entry(commit, prefix + n, n) for n in names]
        return 200, listed, {}

    def folder_entry(commit: str, folder: str, shown: str) -> dict:
        sha = folder_sha(commit, folder)
        return {
            "path": shown,
            "mode": "040000",
            "type": "tree",
            "sha": sha,
            "url": f"{fake.root}/git/trees/{sha}",
        }

    def create_review(p: dict, q: dict, body: dict) -> tuple[int, dict, dict]:
        st.created_reviews.append(body)
        rid = st.next_id()
        for c in body.get("comments", []):
            st.review_comments.append(
                review_comment(
                    st.next_id(), c["body"], identity, c["path"], c["line"], "Bot", None, c.get("start_line")
                )
            )
        made = review(rid, identity, "COMMENTED", body.get("commit_id"))
        made["user"] = user(identity, "Bot")
        return 200, made, {}

    def delete_review_comment(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        c = next((c for c in st.review_comments if str(c["id"]) == p["comment_id"]), None)
        if c is None:
            return 404, error("Not Found"), {}
        st.review_comments.remove(c)
        return 204, None, {}

    def list_pulls(p: dict, q: dict, body: Any) -> tuple[int, list, dict]:
        # `head=OWNER:BRANCH` (the head repository's owner, the branch) and `state`, as GitHub filters them.
        labels = tuple(st.labels)
        data = pull(st.number, st.head, st.base, st.author, labels, st.draft, 0, head_repo=st.head_repo)
        data["state"] = st.state
        simple = {k: v for k, v in data.items() if k not in PULL_ONLY}
        owner = st.head_repo.split("/")[0]
        match = q.get("head") in (None, f"{owner}:{data['head']['ref']}") and q.get("state", "open") in (
            st.state,
            "all",
        )
        return paged("/repos/{owner}/{repo}/pulls", [simple] if match else [], q)

    def branch_rules(p: dict, q: dict, body: Any) -> tuple[int, list, dict]:
        return paged("/repos/{owner}/{repo}/rules/branches/{branch}", st.rules, q, branch=p["branch"])

    def protection(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        if st.protection is None:
            return (
                st.protection_status,
                error(
                    "Branch not protected"
                    if st.protection_status == 404
                    else "Resource not accessible by integration"
                ),
                {},
            )
        return 200, protection_checks(*st.protection), {}

    def list_check_runs(p: dict, q: dict, body: Any) -> tuple[int, dict, dict]:
        assert q.get("per_page") == "100" and q.get("filter") == "latest"
        ours = [
            check_run(r["id"], r["name"], r["head_sha"], r.get("status", "completed"), r.get("conclusion"))
            for r in st.check_runs
        ]
        # filter=latest: the newest run of each name (the later one in the list) stands for it.
        latest: dict[str, dict] = {}
        for run in [*ours, *st.ci_runs]:
            if run["head_sha"] == p["ref"]:
                latest[run["name"]] = run
        runs = list(latest.values())
        return 200, {"total_count": len(runs), "check_runs": runs}, {}

    def combined(p: dict, q: dict, body: Any) -> tuple[int, dict, dict]:
        assert q.get("per_page") == "100"
        latest: dict[str, dict] = {}
        for i, s in enumerate(st.statuses):
            if s["sha"] == p["ref"]:
                latest[s["context"]] = commit_status(9000 + i, s["context"], s["state"])
        for s in st.ci_statuses:
            if s.get("sha", p["ref"]) == p["ref"]:
                latest[s["context"]] = {k: v for k, v in s.items() if k != "sha"}
        return 200, combined_status(p["ref"], list(latest.values())), {}

    def compare(p: dict, q: dict, body: Any) -> tuple[int, Any, dict]:
        base, _, head = p["basehead"].partition("...")
        c = example("commit-comparison")
        c["files"] = st.files
        c.update(status="ahead", ahead_by=1, behind_by=0, total_commits=1)
        c["merge_base_commit"]["sha"] = base
        return 200, c, {}

    pulls = "/repos/{owner}/{repo}/pulls/{pull_number}"
    issue = "/repos/{owner}/{repo}/issues/{issue_number}"
    route("GET", "/repos/{owner}/{repo}/rules/branches/{branch}", branch_rules)
    route("GET", "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks", protection)
    route("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", list_check_runs)
    route("GET", "/repos/{owner}/{repo}/commits/{ref}/status", combined)
    route("GET", "/repos/{owner}/{repo}/compare/{basehead}", compare)
    route("GET", "/repos/{owner}/{repo}/pulls", list_pulls)
    route(
        "GET",
        pulls + "/comments",
        lambda p, q, b: paged(pulls + "/comments", st.review_comments, q, pull_number=st.number),
    )
    route("POST", pulls + "/reviews", create_review)
    route("DELETE", "/repos/{owner}/{repo}/pulls/comments/{comment_id}", delete_review_comment)
    route("GET", pulls, get_pull)
    route(
        "GET", pulls + "/files", lambda p, q, b: paged(pulls + "/files", st.files, q, pull_number=st.number)
    )
    route(
        "GET",
        pulls + "/reviews",
        lambda p, q, b: paged(pulls + "/reviews", st.reviews, q, pull_number=st.number),
    )

    def list_comments(p: dict, q: dict, body: Any) -> tuple[int, list, dict]:
        # `since`: only comments updated at or after that time (ISO 8601 strings of one format compare).
        items = [c for c in st.comments if c["updated_at"] >= q["since"]] if "since" in q else st.comments
        return paged(issue + "/comments", items, q, issue_number=st.number)

    route("GET", issue + "/comments", list_comments)
    route("POST", issue + "/comments", create_comment)
    route("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}", edit_comment)
    route("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}", delete_comment)
    route("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", react)
    route(
        "GET",
        "/repos/{owner}/{repo}/labels",
        lambda p, q, b: paged("/repos/{owner}/{repo}/labels", [label(n) for n in st.repo_labels], q),
    )
    route("POST", "/repos/{owner}/{repo}/labels", create_label)
    route("POST", issue + "/labels", add_labels)
    route("GET", issue, get_issue)
    route("DELETE", issue + "/labels/{name}", remove_label)
    route("POST", "/repos/{owner}/{repo}/statuses/{sha}", create_status)
    route("POST", "/repos/{owner}/{repo}/check-runs", create_check)
    route("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}", update_check)
    route("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", get_permission)
    route("GET", "/repos/{owner}/{repo}/contents/{path}", get_content)
    route("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", get_tree)
    viewer = {"data": {"viewer": {"login": identity}}}
    jsonschema.Draft4Validator(json.loads((FIXTURES / "graphql-viewer.schema.json").read_text())).validate(
        viewer
    )

    def graphql(request: Any) -> tuple[int, dict, str]:
        sent = json.loads(request.body)
        if "viewer" in sent["query"]:
            return 200, {}, json.dumps(viewer)
        if st.graphql_replies:
            status, text = st.graphql_replies.pop(0)
            return status, {}, text
        return 200, {}, json.dumps(blobs_answer(sent, st.trees, fake.repo))

    fake.rsps.add_callback(responses.POST, fake.graphql_url, callback=graphql)


def blobs_answer(sent: dict, trees: dict[str, dict[str, str]], repo: str) -> dict:
    """The answer GitHub gives the bot's blob query, from trees; checked against the schema fixture."""
    variables = sent["variables"]
    assert (variables["owner"], variables["name"]) == tuple(repo.split("/"))
    found = {}
    for key, expression in variables.items():
        if not re.fullmatch(r"e\d+", key):
            continue
        alias = "f" + key[1:]
        # The query must ask for this alias with this variable, and for exactly the fields the schema has.
        assert f"{alias}: object(expression: ${key})" in sent["query"], key
        rev, _, path = expression.partition(":")
        text = trees.get(rev, {}).get(path)
        data = text.encode() if isinstance(text, str) else text
        if isinstance(text, bytes):  # bytes that are no UTF-8 (a Latin-1 source): GitHub's text is Unicode
            text = text.decode("utf-8", "replace")
        found[alias] = None if data is None else {"byteSize": len(data), "isTruncated": False, "text": text}
    assert "... on Blob { byteSize isTruncated text }" in sent["query"]
    body = {"data": {"repository": found}}
    validate_blobs(body)
    return body


@lru_cache(maxsize=1)
def _blobs_validator() -> jsonschema.Draft4Validator:
    return jsonschema.Draft4Validator(json.loads((FIXTURES / "graphql-blobs.schema.json").read_text()))


def validate_blobs(body: Any) -> None:
    _checked("graphql-blobs", body, _blobs_validator().validate)


# --- webhook deliveries, derived from GitHub's examples and validated against the schemas ------------------


def pr_event(action: str, st: PullState, changes: dict | None = None) -> dict:
    name = "synchronize" if action == "synchronize" else "opened"
    p = payload("pull_request", f"{name}.payload.json")
    p["action"] = action
    p["number"] = st.number
    p["pull_request"].update(number=st.number, draft=st.draft)
    p["pull_request"]["head"]["sha"], p["pull_request"]["base"]["sha"] = st.head, st.base
    p["pull_request"]["user"]["login"] = st.author
    if action == "edited":
        p["changes"] = changes or {}
    validate_payload("pull_request", action, p)
    return p


def comment_event(
    body: str,
    login: str = "alice",
    st: PullState | None = None,
    on_pr: bool = True,
    kind: str = "User",
    created: str = "2026-03-01T00:00:00Z",
) -> dict:
    """An issue_comment delivery; created defaults to after every status comment the fake writes in a test."""
    p = payload("issue_comment", "created.payload.json")
    number = st.number if st else 7
    p["issue"]["number"] = number
    if on_pr:
        p["issue"]["pull_request"] = {
            "url": f"https://api.github.com/repos/octo/repo/pulls/{number}",
            "html_url": f"https://github.com/octo/repo/pull/{number}",
            "diff_url": f"https://github.com/octo/repo/pull/{number}.diff",
            "patch_url": f"https://github.com/octo/repo/pull/{number}.patch",
            "merged_at": None,
        }
    p["comment"]["body"] = body
    p["comment"]["created_at"] = p["comment"]["updated_at"] = created
    p["comment"]["user"]["login"] = login
    p["comment"]["user"]["type"] = kind
    validate_payload("issue_comment", "created", p)
    return p


def review_event(action: str, st: PullState, login: str, state: str) -> dict:
    p = payload("pull_request_review", "submitted.payload.json")
    p["action"] = action
    p["review"].update(state=state, commit_id=st.head)
    p["review"]["user"]["login"] = login
    p["pull_request"].update(number=st.number)
    p["pull_request"]["head"]["sha"], p["pull_request"]["base"]["sha"] = st.head, st.base
    p["pull_request"]["user"]["login"] = st.author
    validate_payload("pull_request_review", action, p)
    return p


def _repo(full_name: str, rid: int = 1) -> dict:
    return {"id": rid, "name": full_name.split("/")[1], "full_name": full_name, "private": False}


def run_event(
    st: PullState,
    head_sha: str | None = None,
    head_repo: str | None = None,
    head_branch: str = "feature",
    repository: str = "octo/repo",
    event: str = "pull_request",
    conclusion: str = "success",
) -> dict:
    """A `workflow_run` completed delivery for the run that reviewed st's head; GitHub lists no pull requests
    on it when the head repository is a fork, and the one pull request otherwise."""
    head_sha = head_sha or st.head
    head_repo = head_repo or st.head_repo
    pulls = []
    if head_repo == repository:
        ref_repo = {"id": 1, "url": f"https://api.github.com/repos/{repository}", "name": "repo"}
        pulls.append(
            {
                "url": f"https://api.github.com/repos/{repository}/pulls/{st.number}",
                "id": 1000 + st.number,
                "number": st.number,
                "head": {"ref": head_branch, "sha": head_sha, "repo": ref_repo},
                "base": {"ref": "main", "sha": st.base, "repo": ref_repo},
            }
        )
    p = {
        "action": "completed",
        "repository": _repo(repository),
        "sender": {"login": st.author, "id": 7, "type": "User"},
        "workflow_run": {
            "id": 4242,
            "name": "bot review",
            "event": event,
            "status": "completed",
            "conclusion": conclusion,
            "head_sha": head_sha,
            "head_branch": head_branch,
            "head_repository": _repo(head_repo, 2),
            "repository": _repo(repository),
            "run_attempt": 1,
            "pull_requests": pulls,
        },
    }
    schema = json.loads((FIXTURES / "webhooks" / "workflow_run" / "completed.fields.schema.json").read_text())
    jsonschema.Draft7Validator(schema).validate(p)
    return p


BOT_LABELS = ["status:ready", "review:pending", "status:needs-work", "review:approved"]


def fake_pull(
    fake: FakeGitHub,
    make_repo: Any,
    base: dict,
    head: dict,
    identity: str = "github-actions[bot]",
    permissions: dict[str, str] | None = None,
) -> tuple[Any, PullState]:
    """A pull request whose commits exist in a local checkout, served by the stateful fake GitHub."""
    r = make_repo(base, head)
    st = PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files = [pr_file(path, status="added" if path not in base else "modified") for path in head]
    st.repo_labels = ["bug", *BOT_LABELS]
    if permissions:
        st.permissions = permissions
    serve(fake, st, identity)
    return r, st
