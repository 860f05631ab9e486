"""Local mode over a range of merged PRs: each first-parent commit is its own small PR (issue 23, item 6)."""

from __future__ import annotations

import pytest

from bot.git.local import commit_units, load_changeset, pr_number_of
from bot.review.engine import review
from rules.core.models import PullRequest, Report
from tests.conftest import GitRepo
from tests.helpers import AGENTS_AGT001

BASE = {
    "AGENTS.md": AGENTS_AGT001,
    "src/pointer.py": "SHAPES = ()\n",
    "src/shapes.py": "def area(x):\n    return x\n",
}
# A feature PR squashed onto main, then a fix PR; the fix PR is the newest commit.
FEATURE = {
    "src/pointer.py": "SHAPES = ('arrow', 'hand')\n",
    "tests/test_pointer.py": "from src.pointer import SHAPES\n\n\n"
    "def test_pointer_shapes():\n    assert SHAPES\n",
}
FIX = {
    "src/shapes.py": "def area(x):\n    return x or 0\n",
    "tests/test_shapes.py": "from src.shapes import area\n\n\n"
    "def test_area_of_none():\n    assert area(None) == 0\n",
}


@pytest.mark.parametrize(
    "subject, number",
    [
        ("Fix the parser on empty input (#958)", 958),
        ("Fix the parser (#958)  ", 958),
        ("Merge pull request #6339 from Textualize/pointer", 6339),
        ("Fix #958 in the parser", None),  # closes an issue; names no merged PR
        ("Bump the version (1.2.3)", None),
        ("", None),
    ],
)
def test_pr_number_of(subject, number):
    assert pr_number_of(subject) == number


def _agt001(report: Report) -> dict[str, tuple[str, str]]:
    return {(f.path or ""): (f.severity.value, f.message) for f in report.findings if f.rule == "AGT001"}


def _range(tmp_path, feature_subject: str, fix_subject: str) -> tuple[GitRepo, str]:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(BASE, "base")
    repo.commit(FEATURE, feature_subject)
    repo.commit(FIX, fix_subject)
    return repo, base


def test_each_merged_pr_of_a_range_is_judged_by_its_own_words(tmp_path):
    repo, base = _range(tmp_path, "Add a pointer rule (#10)", "Fix the area of None (#11)")
    changeset = load_changeset(repo.path, base=base, head="HEAD")
    assert [(u.number, u.paths) for u in changeset.pr.units] == [
        (11, ("src/shapes.py", "tests/test_shapes.py")),
        (10, ("src/pointer.py", "tests/test_pointer.py")),
    ]
    found = _agt001(review(changeset))
    # The fix's test is an error that proposes its own PR's number; the feature's test is not taken for
    # a regression test on the strength of the newer fix's subject.
    severity, message = found["tests/test_shapes.py"]
    assert severity == "error" and "Guards PR #11" in message
    assert found["tests/test_pointer.py"][0] == "notice"


def test_a_branch_whose_commits_name_no_pr_stays_one_pr(tmp_path):
    """A branch's "review comments" commit adding the test is part of the fix its other commit makes."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(BASE, "base")
    repo.commit({"src/shapes.py": FIX["src/shapes.py"]}, "Fix the area of None")
    repo.commit({"tests/test_shapes.py": FIX["tests/test_shapes.py"]}, "Review comments")
    changeset = load_changeset(repo.path, base=base, head="HEAD")
    assert changeset.pr.units == ()
    assert _agt001(review(changeset))["tests/test_shapes.py"][0] == "error"


def test_the_pr_number_of_one_squash_commit_reviewed(tmp_path):
    repo, base = _range(tmp_path, "Add a pointer rule (#10)", "Fix the area of None (#11)")
    changeset = load_changeset(repo.path, base="HEAD~1", head="HEAD")
    assert changeset.pr.number == 11 and changeset.pr.units == ()
    assert "Guards PR #11" in _agt001(review(changeset))["tests/test_shapes.py"][1]
    # --pr-number, when given, wins.
    given = load_changeset(repo.path, base="HEAD~1", head="HEAD", pr=PullRequest(number=5))
    assert given.pr.number == 5


def test_commit_units_of_a_merge_are_its_changes_against_the_first_parent(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(BASE, "base")
    repo.branch("pointer")
    repo.commit(FEATURE, "pointer shapes")
    repo.git("checkout", "-q", "main")
    repo.commit(FIX, "Fix the area of None (#11)")
    repo.git(
        "merge", "-q", "--no-ff", "pointer", "-m", "Merge pull request #12 from me/pointer\n\nPointer rule"
    )
    units = commit_units(repo.path, base, "HEAD")
    assert [(u.number, u.paths) for u in units] == [
        (12, ("src/pointer.py", "tests/test_pointer.py")),
        (11, ("src/shapes.py", "tests/test_shapes.py")),
    ]
    assert units[0].message.endswith("Pointer rule")
