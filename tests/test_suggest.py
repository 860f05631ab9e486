"""Suggested changes: which fixes become review comments, how they read, and what a run posts and deletes."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.github.api import ReviewComment
from bot.github.suggest import MARK, Selection, marker, note, plan, render, select
from bot.review.engine import review
from rules.core.models import ChangeSet, PullRequest, Report
from tests.helpers import AGENTS_AGT001

ALL_NEW = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
BOT = "github-actions[bot]"


def _tests(names: list[str]) -> str:
    return "".join(f"def test_{n}():\n    assert {i}\n\n\n" for i, n in enumerate(names, 1))


def _reviewed(make_repo, base_tests: str | None, head_tests: str) -> tuple[Report, ChangeSet]:
    base = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}
    if base_tests is not None:
        base["tests/test_a.py"] = base_tests
    r = make_repo(base, {"tests/test_a.py": head_tests})
    changeset = load_changeset(r.path, base="main", head="pr", pr=PullRequest(number=828))
    return review(changeset), changeset


def _shown(selection: Selection, first_id: int = 100) -> tuple[ReviewComment, ...]:
    """The review comments GitHub holds after the selection was posted."""
    return tuple(
        ReviewComment(id=first_id + i, author=BOT, author_type="Bot", body=s.body, path=s.path)
        for i, s in enumerate(selection.suggestions)
    )


def test_first_run_posts_three_and_an_unchanged_rerun_posts_nothing(make_repo):
    report, changeset = _reviewed(make_repo, None, _tests(["one", "two", "three"]))
    selection = select(report, changeset, "errors")
    assert len(selection.suggestions) == 3 and selection.left == ()
    first = plan(selection.suggestions, (), set())
    assert len(first.post) == 3 and first.delete == ()
    shown = _shown(selection)
    again = plan(select(report, changeset, "errors").suggestions, shown, {c.id for c in shown})
    assert again.post == () and again.delete == () and again.kept == 3


def test_a_suggestion_reads_as_the_finding_and_a_suggestion_block_with_a_hidden_key(make_repo):
    report, changeset = _reviewed(make_repo, None, _tests(["steps_round_down"]))
    (s,) = select(report, changeset, "errors").suggestions
    lines = s.body.splitlines()
    assert lines[0].startswith(MARK) and marker(s.body) == (s.key, s.digest)
    assert s.key == "AGT001:tests/test_a.py:test_steps_round_down"
    assert lines[1].startswith("**AGT001** regression-test-without-reference: New test")
    assert lines[-4:] == [
        "```suggestion",
        '    """Guards PR #828: steps round down."""',
        "    assert 1",
        "```",
    ]
    assert (s.path, s.start_line, s.line) == ("tests/test_a.py", 2, 2)


def test_a_push_deletes_the_gone_and_posts_the_new(tmp_path):
    from tests.conftest import GitRepo

    r = GitRepo(tmp_path / "r")
    r.commit({"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}, "base")
    r.branch("pr")
    r.commit({"tests/test_a.py": _tests(["one", "two"])}, "head")
    pr = PullRequest(number=828)
    cs = load_changeset(r.path, base="main", head="pr", pr=pr)
    before = select(review(cs), cs, "errors")
    shown = _shown(before)
    # The push names what `one` guards, removes nothing else, and adds `three`.
    pushed = _tests(["one", "two", "three"]).replace(
        "def test_one():\n", 'def test_one():\n    """Guards PR #828."""\n'
    )
    r.commit({"tests/test_a.py": pushed}, "push")
    cs2 = load_changeset(r.path, base="main", head="pr", pr=pr)
    after = select(review(cs2), cs2, "errors")
    keys = {s.key.rsplit(":", 1)[1] for s in after.suggestions}
    assert keys == {"test_two", "test_three"}
    todo = plan(after.suggestions, shown, {c.id for c in shown})
    gone = next(c.id for c in shown if "test_one" in c.body)
    moved = next(c.id for c in shown if "test_two" in c.body)
    # test_two moved down a line: its old suggestion would now replace the wrong line, so it is renewed.
    assert set(todo.delete) == {gone, moved}
    assert {s.key.rsplit(":", 1)[1] for s in todo.post} == {"test_two", "test_three"}


def test_a_suggestion_with_a_human_reply_is_never_deleted(make_repo):
    report, changeset = _reviewed(make_repo, None, _tests(["one"]))
    shown = _shown(select(report, changeset, "errors"))
    reply = ReviewComment(
        id=900, author="alice", body="Not a regression test, see #3.", in_reply_to=shown[0].id
    )
    todo = plan((), (*shown, reply), {shown[0].id})
    assert todo.delete == () and todo.answered == 1
    # Without the reply, the outdated suggestion goes.
    assert plan((), shown, {shown[0].id}).delete == (shown[0].id,)


def test_only_the_bots_own_comments_count_as_its_suggestions(make_repo):
    report, changeset = _reviewed(make_repo, None, _tests(["one"]))
    (s,) = select(report, changeset, "errors").suggestions
    copied = ReviewComment(id=5, author="mallory", body=s.body)
    todo = plan((s,), (copied,), set())
    assert todo.post == (s,) and todo.delete == ()  # a copy by someone else is neither trusted nor deleted


def test_more_fixes_than_the_cap_are_named_in_the_status_comment(make_repo):
    names = [f"n{i}" for i in range(23)]
    report, changeset = _reviewed(make_repo, None, _tests(names))
    selection = select(report, changeset, "all")
    assert len(selection.suggestions) == 20 and len(selection.left) == 3
    assert all("over the limit of 20 a run" in item for item in selection.left)
    text = note(selection)
    assert text is not None and text.startswith("Fixes not shown as suggested changes: `tests/test_a.py:")
    assert select(report, changeset, "off") == Selection()
    assert note(Selection()) is None


def test_a_fix_outside_the_diff_stays_in_the_status_comment(make_repo):
    # The test is new (a helper became a test), but a long signature keeps its body over three lines from
    # the changed `def` line: the body's first line, where the docstring goes, is outside every hunk.
    signature = "".join(f"    p{i},\n" for i in range(5)) + "):\n    assert 1\n"
    base = "def helper(\n" + signature
    report, changeset = _reviewed(make_repo, base, "def test_new_regression(\n" + signature)
    (f,) = [f for f in report.findings if f.fix is not None]
    change = changeset.file("tests/test_a.py")
    assert change is not None and f.fix.start_line not in change.added_lines
    selection = select(report, changeset, "errors")
    assert selection.suggestions == () and selection.left == (
        "`tests/test_a.py:8` AGT001 (outside the diff)",
    )


@pytest.mark.parametrize("inside", ["```", "````x"])
def test_the_fence_is_longer_than_any_backticks_in_the_lines(make_repo, inside):
    from rules.core.models import Finding, Fix, Severity

    fix = Fix(key="K", path="p.py", start_line=1, end_line=1, original=("a",), lines=(f"s = '{inside}'",))
    f = Finding(rule="TRN001", name="n", severity=Severity.ERROR, message="m", path="p.py", line=1, fix=fix)
    body = render(f).body
    fence = "`" * (inside.count("`") + 1)
    assert f"{fence}suggestion\n" in body and body.rstrip("\n").endswith(fence)
