"""One-line harness for rule tests: build a repo, review it, compare rule codes."""

from __future__ import annotations

from bot.git.local import load_changeset
from bot.review.engine import review
from rules.core.models import PullRequest, Report

AGENTS_AGT001 = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"


def review_change(make_repo, base: dict, head: dict, pr: PullRequest | None = None) -> Report:
    r = make_repo(base, head)
    return review(load_changeset(r.path, base="main", head="pr", pr=pr))


def codes(report: Report) -> list[str]:
    return [f.rule for f in report.findings]
