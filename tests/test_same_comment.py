"""`bot check` prints the comment `bot review` posts for the same change, byte for byte.

Only what GitHub alone knows may differ (an approval turns review:pending into review:approved; a draft drops
the labels); the hidden state line is the review's bookkeeping and is not shown by `bot check`.
"""

from __future__ import annotations

import pytest

from bot.cli.main import main
from bot.github.handlers import Context, review_pull
from bot.github.publish import STATE_PREFIX
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_publish import NEW_TEST, mine

GUARDED = NEW_TEST.replace("Checks a thing", "Guards PR #7: checks a thing")
CASES = {
    "needs work": ({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST}),
    "ready": ({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": GUARDED}),
}


def _check(capsys, path) -> str:
    capsys.readouterr()
    argv = ["check", "--repo", str(path), "--base", "main", "--head", "pr"]
    main([*argv, "--pr-number", "7", "--pr-title", "Change", "--base-branch", "main"])
    return capsys.readouterr().out


@pytest.mark.parametrize("checkout", [True, False], ids=["checkout", "api only"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_check_prints_the_comment_review_posts(gh, make_repo, capsys, case, checkout):
    base, head = CASES[case]
    r, st = ghapi.fake_pull(gh, make_repo, base, head)
    if not checkout:  # every file the review reads comes from the contents API at the exact commits
        st.trees = {st.base: dict(base), st.head: {**base, **head}}
    ctx = Context(client=github_client(gh), checkout=r.path if checkout else None)
    review_pull(ctx, 7)
    (posted,) = [c["body"] for c in mine(st)]
    state = posted.rindex(STATE_PREFIX)
    assert posted[state:].count("\n") == 1  # the state line is last: nothing else is cut off below
    assert posted[:state] == _check(capsys, r.path)
    assert ctx.report.verdict == ("ready" if case == "ready" else "needs-work")


def test_only_an_approval_known_to_github_tells_them_apart(gh, make_repo, capsys):
    base, head = CASES["ready"]
    r, st = ghapi.fake_pull(gh, make_repo, base, head)
    st.reviews = [ghapi.review(1, "bob", "APPROVED", st.head)]
    review_pull(Context(client=github_client(gh), checkout=r.path), 7)
    (posted,) = [c["body"] for c in mine(st)]
    printed = _check(capsys, r.path)
    assert posted.startswith(printed.replace("`review:pending`", "`review:approved`").rstrip("\n"))
    assert "`review:pending`" in printed
