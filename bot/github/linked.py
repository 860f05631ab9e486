"""The issues a pull request closes (`Fixes #12`): their labels and issue type are AGT001's evidence of what
kind of change it is, read through the REST API.

Why `GET /repos/{owner}/{repo}/issues/{issue_number}`: one request per linked issue (capped at LINKED_CAP)
gives both the labels and the issue type (`type.name`, "Bug"); its answer is validated in the tests against
GitHub's own `issue` schema (tests/fixtures/github/api.github.com.supplement.json, from the same release of
GitHub's REST description as the subset), and it works without a token for a public repository, as
`bot review --dry-run` must. The labels endpoint (`.../issues/{n}/labels`, in the subset) costs the same and
has no type. One GraphQL query for `closingIssuesReferences { labels issueType }` would cost one request for
all, but the repository holds no GraphQL schema to validate such a query against (only JSON Schemas of the
two answers it reads), GraphQL needs a token, and it links what GitHub linked, not what the description
says when the review runs.

A read that fails (404 for a number that is no issue or was deleted, 403 without `issues: read`, a rate
limit, an answer GitHub does not document) gives no evidence for that issue, never a failed or incomplete
review: the review stands on what the pull request says of itself, as it did before. A rate limit or a
refused token stops the reads of the issues after it. A number that is a pull request's is no issue.
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
    """Whether the labels could matter: only AGT001 reads them, only where the config leaves it on and in a
    mode that weighs a PR's words (`evidence`, `fix-prs`), and only for a change to Python files (where its
    tests are; the repository's own pytest patterns are not known before the review). Whether an AGENTS.md
    turns AGT001 on is not known yet either, so the reads are made unless the config rules them out."""
    setting = config.setting("AGT001", "regression-test-without-reference")
    mode = setting.options.get("regression", "evidence")
    if setting.enabled is False or mode not in ("evidence", "fix-prs"):
        return False
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
            issue = client.issue(number)
        except GitHubError as exc:
            log.info("bot: issue #%d was not read (%s); no evidence from it", number, exc)
            if exc.kind in _STOP:
                break
            continue
        if not issue.is_pull:
            linked.append(LinkedIssue(number=number, labels=issue.labels, type=issue.type))
    if not linked:
        return changeset
    return changeset.model_copy(update={"pr": pr.model_copy(update={"linked_issues": tuple(linked)})})
