"""The labels of the issues a pull request closes (`Fixes #12`): AGT001's evidence of what kind of change
it is, read through the REST API.

Why REST and labels only. `GET /repos/{owner}/{repo}/issues/{issue_number}/labels` is in the OpenAPI subset
the tests validate every mocked answer against (tests/fixtures/github/README.md); it works without a token
for a public repository, as `bot review --dry-run` must; and it costs one request per linked issue, capped at
LINKED_CAP. One GraphQL query for `closingIssuesReferences { labels issueType }` would cost one request for
all, but the repository holds no GraphQL schema to validate such a query against (only JSON Schemas of the
two answers it reads), and GraphQL needs a token. Issue types (`Bug`) come only from GraphQL or from
`GET .../issues/{n}`, which the subset lacks: they are not read.

A read that fails (404 for a number that is no issue or was deleted, 403 without `issues: read`, a rate
limit, a malformed answer) gives no evidence for that issue, never a failed or incomplete review: the
review stands on what the pull request says of itself, as it did before. A rate limit or a refused token
stops the reads of the issues after it.
"""

from __future__ import annotations

import logging

from bot.github.api import Client, GitHubError
from rules.core.closing_refs import closing_issues
from rules.core.config import Config
from rules.core.models import ChangeSet, FileStatus, LinkedIssue

log = logging.getLogger(__name__)

# At most this many linked issues are read, one request each: a description closing dozens of issues (a
# release PR) would otherwise cost as much as the rest of the review.
LINKED_CAP = 5
# Failures after which the next read would fail the same way.
_STOP = frozenset({"rate-limited", "auth", "read-only", "forbidden"})


def wants_linked(changeset: ChangeSet, config: Config) -> bool:
    """Whether the labels could matter: only AGT001 reads them, and only for a change to Python files
    (where its tests are; the repository's own pytest patterns are not known before the review)."""
    cs = changeset.without(config.exclude)
    return any(f.status is not FileStatus.REMOVED and f.path.endswith(".py") for f in cs.files)


def with_linked_issues(client: Client, changeset: ChangeSet, config: Config) -> ChangeSet:
    """The change set with the labels of the issues its description closes, when they could matter."""
    pr = changeset.pr
    numbers = closing_issues(pr.body, client.repo, own=pr.number, limit=LINKED_CAP)
    if not numbers or not wants_linked(changeset, config):
        return changeset
    linked: list[LinkedIssue] = []
    for number in numbers:
        try:
            labels = client.issue_labels(number)
        except GitHubError as exc:
            log.info("bot: the labels of issue #%d were not read (%s); no evidence from it", number, exc)
            if exc.kind in _STOP:
                break
            continue
        linked.append(LinkedIssue(number=number, labels=labels))
    if not linked:
        return changeset
    return changeset.model_copy(update={"pr": pr.model_copy(update={"linked_issues": tuple(linked)})})
