"""One-line harness for rule tests: build a repo, review it, compare rule codes."""

from __future__ import annotations

from bot.git.local import load_changeset
from bot.review.engine import review
from rules.core.lines import git_lines
from rules.core.models import ChangeSet, FileChange, FileStatus, Hunk, PullRequest, Report

AGENTS_AGT001 = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"


def review_change(make_repo, base: dict, head: dict, pr: PullRequest | None = None) -> Report:
    r = make_repo(base, head)
    return review(load_changeset(r.path, base="main", head="pr", pr=pr))


def codes(report: Report) -> list[str]:
    return [f.rule for f in report.findings]


class MemoryReader:
    """Files of two revisions held in memory: property tests run hundreds of reviews, git would be slow."""

    def __init__(self, base: dict[str, str], head: dict[str, str]) -> None:
        self.revs = {"base": base, "head": head}

    def read(self, rev: str, path: str) -> bytes | None:
        text = self.revs[rev].get(path)
        return None if text is None else text.encode("utf-8")

    def list_paths(self, rev: str) -> tuple[str, ...]:
        return tuple(self.revs[rev])


def memory_changeset(base: dict[str, str], added: dict[str, str], pr: int) -> ChangeSet:
    """A PR adding `added` on top of `base`, every line added, numbered as git's diff numbers them."""
    files = tuple(
        FileChange(
            path=path,
            status=FileStatus.ADDED,
            hunks=(Hunk(old_start=0, old_length=0, new_start=1, new_length=n, added=tuple(range(1, n + 1))),),
        )
        for path, text in added.items()
        for n in [len(git_lines(text))]
    )
    return ChangeSet(
        base_sha="base",
        head_sha="head",
        files=files,
        pr=PullRequest(number=pr, title="Fix things"),
        reader=MemoryReader(base, {**base, **added}),
    )
