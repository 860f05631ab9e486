"""The request budget of a review through the API, counted on schema-checked mocks (docs/performance.md).

For F changed files, C issue comments and N file sides (a file at one commit) the rules need:
file-list requests <= ceil(F/100); comment-list requests <= max(1, ceil(C/100)), plus one listing of the last
six hours' comments after creating the status comment (the duplicate check); content requests (GraphQL blob
queries and contents reads) <= ceil(N/50), none with a checkout; at most one write per thing that changed.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import pytest

from tests import ghapi
from tests.helpers import AGENTS_AGT001
from tests.test_api_faults import NEW_TEST, OLD_TEST, TEST_PATCH
from tests.test_publish import mine
from tests.test_publish import run as review

SOURCE = "x = 1\n"
SOURCE_PATCH = "@@ -0,0 +1 @@\n+x = 1"  # an added file's patch: all of it
MODIFIED_PATCH = "@@ -1 +1 @@\n-x = 1\n+x = 2"


@dataclass(frozen=True)
class Scenario:
    sources: int  # added source files
    tests: int  # modified test files
    comments: int  # other people's comments already on the pull request
    # modified source files: a profile dict may change anywhere in them, so both sides are needed
    modified: int = 0

    @property
    def files(self) -> int:
        return self.sources + self.tests + self.modified

    @property
    def needed(self) -> int:
        """File sides the rules read: test files and modified modules at both commits, each added module,
        AGENTS.md at base."""
        return 2 * (self.tests + self.modified) + self.sources + 1


def _pull(gh, s: Scenario) -> ghapi.PullState:
    st = ghapi.PullState()
    st.repo_labels = list(ghapi.BOT_LABELS)
    sources = [f"src/pkg{i // 100}/mod{i}.py" for i in range(s.sources)]
    tests = [f"tests/test_{i}.py" for i in range(s.tests)]
    st.files = [ghapi.pr_file(p, patch=SOURCE_PATCH, status="added", changes=1) for p in sources]
    st.files += [ghapi.pr_file(p, patch=TEST_PATCH, status="modified", changes=5) for p in tests]
    modified = [f"lib/pkg{i // 100}/mod{i}.py" for i in range(s.modified)]
    st.files += [ghapi.pr_file(p, patch=MODIFIED_PATCH, status="modified", changes=2) for p in modified]
    base = {"AGENTS.md": AGENTS_AGT001, **dict.fromkeys(tests, OLD_TEST), **dict.fromkeys(modified, SOURCE)}
    st.trees = {
        st.base: base,
        st.head: {
            **base,
            **dict.fromkeys(sources, SOURCE),
            **dict.fromkeys(tests, NEW_TEST),
            **dict.fromkeys(modified, "x = 2\n"),
        },
    }
    st.comments = [ghapi.comment(100 + i, f"comment {i}") for i in range(s.comments)]
    ghapi.serve(gh, st)
    return st


def _count(gh, since: int) -> Counter:
    kinds: Counter = Counter()
    for method, path in gh.calls()[since:]:
        if path.endswith("/pulls/7/files"):
            kinds["file list"] += 1
        elif path.endswith("/issues/7/comments") and method == "GET":
            kinds["comment list"] += 1
        elif "/contents/.github/bot.yml" in path:
            kinds["config"] += 1
        elif "/contents/" in path:
            kinds["content"] += 1
        elif "/git/trees/" in path:
            kinds["tree"] += 1
        elif not path.endswith("/graphql") and method != "GET":
            kinds["write"] += 1
        kinds["all"] += 1
    kinds["content"] += sum(1 for q in gh.graphql(since) if q.startswith("blobs"))
    return kinds


def _within_budget(k: Counter, s: Scenario, first: bool) -> None:
    assert k["file list"] <= math.ceil(s.files / 100)
    assert k["comment list"] <= max(1, math.ceil(s.comments / 100)) + (1 if first else 0)
    assert k["content"] <= math.ceil(s.needed / 50)
    assert k["config"] <= 1 and k["tree"] <= 1
    # first run: add the labels, set the status, create the comment; an unchanged re-run writes nothing
    assert k["write"] <= (3 if first else 0)


SCENARIOS = {
    "1 source file": Scenario(1, 0, 0),
    "250 source files": Scenario(250, 0, 0),
    "1 source file, 250 comments": Scenario(1, 0, 250),
    "3,000 files, 500 tests": Scenario(2500, 500, 0),
    "3,000 files, 500 tests, 250 comments": Scenario(2500, 500, 250),
    "3,000 modified files, 500 tests": Scenario(0, 500, 0, modified=2500),
}
# Every request of the first run and of an unchanged re-run (the table in docs/performance.md); each ready
# result reads the base branch's rulesets and classic protection (`ready.checks: required`, nothing required).
EXPECTED = {
    "1 source file": (16, 11),
    "250 source files": (18, 13),
    "1 source file, 250 comments": (18, 13),
    "3,000 files, 500 tests": (55, 50),
    "3,000 files, 500 tests, 250 comments": (57, 52),
    "3,000 modified files, 500 tests": (105, 100),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_request_budget_first_run_and_unchanged_rerun(gh, name):
    s = SCENARIOS[name]
    st = _pull(gh, s)
    ctx = review(gh, None)
    first = _count(gh, 0)
    _within_budget(first, s, first=True)
    assert len(ghapi.BOT_LABELS) and ctx.report.coverage.files_changed == s.files
    before = len(gh.calls())
    again_ctx = review(gh, None)
    again = _count(gh, before)
    _within_budget(again, s, first=False)
    assert again_ctx.writes == 0 and len(mine(st)) == 1
    assert (first["all"], again["all"]) == EXPECTED[name]


def test_250_source_files_cost_one_file_plus_two_file_list_pages(gh):
    one = _pull(gh, SCENARIOS["1 source file"])
    review(gh, None)
    single = len(gh.calls())
    gh.rsps.reset()
    _pull(gh, SCENARIOS["250 source files"])
    review(gh, None)
    assert len(gh.calls()) == single + 2 and one.number == 7
    assert not any("/contents/" in p and "bot.yml" not in p for _, p in gh.calls())


def test_with_a_checkout_no_file_is_read_through_the_api(gh, make_repo):
    head = {f"src/mod{i}.py": SOURCE for i in range(30)}
    head.update({"tests/test_a.py": NEW_TEST, "AGENTS.md": AGENTS_AGT001})
    r, st = ghapi.fake_pull(gh, make_repo, {"tests/test_a.py": OLD_TEST, "AGENTS.md": AGENTS_AGT001}, head)
    review(gh, r.path)
    assert not [p for _, p in gh.calls() if "/contents/" in p or "/git/trees/" in p]
    assert [q for q in gh.graphql() if q.startswith("blobs")] == []


# A one-page pull request modifying one test file, reviewed without a checkout: first run, unchanged re-run.
ONE_TEST = (16, 11)


@pytest.mark.parametrize(("closes", "reads"), [(0, 0), (2, 2), (8, 5)])
def test_linked_issues_cost_one_request_each_and_at_most_five(gh, closes, reads):
    """The issues the description closes (AGT001's evidence), one request per issue, capped."""
    st = _pull(gh, Scenario(0, 1, 0))
    st.body = "\n".join(f"Fixes #{n}" for n in range(20, 20 + closes))
    st.issues = {n: ghapi.issue(n, ("bug",)) for n in range(20, 20 + closes)}
    review(gh, None)
    first = len(gh.calls())
    review(gh, None)
    again = len(gh.calls()) - first
    issues = [p for m, p in gh.calls() if m == "GET" and re.search(r"/issues/\d+$", p)]
    assert len(issues) == 2 * reads
    assert (first, again) == (ONE_TEST[0] + reads, ONE_TEST[1] + reads)
