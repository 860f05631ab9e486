"""Suggested changes on GitHub: one COMMENT review per run, kept in step with the code across pushes.

The real client (PyGithub) runs against the stateful fake GitHub; every request and answer is checked
against GitHub's OpenAPI description (tests/fixtures/github). The request counts are those in docs/github.md.
"""

from __future__ import annotations

import logging

from bot.github.handlers import Context, review_pull
from bot.github.suggest import MARK
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001

BOT = "github-actions[bot]"
REVIEWS = "/repos/octo/repo/pulls/7/reviews"
CONFIG = "suggestions: {mode}\nrules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"


def _tests(names: list[str]) -> str:
    return "".join(f"def test_{n}():\n    assert {i}\n\n\n" for i, n in enumerate(names, 1))


def _added(text: str) -> dict:
    """The files-list entry of an added file, with the patch GitHub gives for it."""
    lines = text.splitlines()
    patch = f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + line for line in lines)
    return ghapi.pr_file("tests/test_a.py", patch=patch, status="added", changes=len(lines))


def _pull(gh, make_repo, names: list[str], mode: str = "errors"):
    base = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": CONFIG.format(mode=mode)}
    r, st = ghapi.fake_pull(gh, make_repo, base, {"tests/test_a.py": _tests(names)})
    st.files = [_added(_tests(names))]
    return r, st


def _push(r, st, text: str) -> None:
    st.head = r.commit({"tests/test_a.py": text}, "push")
    st.files = [_added(text)]


def _run(gh, r) -> Context:
    ctx = Context(client=github_client(gh), checkout=r.path, echo=lambda _: None)
    review_pull(ctx, 7)
    return ctx


def _suggestions(st) -> list[dict]:
    return [c for c in st.review_comments if c["body"].startswith(MARK)]


def _named(st) -> set[str]:
    return {c["body"].split()[2].rsplit(":", 1)[1] for c in _suggestions(st)}


def test_first_run_posts_three_suggestions_in_one_comment_review(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one", "two", "three"])
    ctx = _run(gh, r)
    assert ctx.messages == []
    assert [w for w in gh.writes() if w[1] == REVIEWS] == [("POST", REVIEWS)]
    (sent,) = st.created_reviews
    assert sent["event"] == "COMMENT" and sent["commit_id"] == st.head and len(sent["comments"]) == 3
    first = sent["comments"][0]
    assert (first["path"], first["line"], first["side"]) == ("tests/test_a.py", 2, "RIGHT")
    assert '```suggestion\n    """Guards PR #7: one."""\n    assert 1\n```' in first["body"]
    assert _named(st) == {"test_one", "test_two", "test_three"}
    # The review comments were listed once, 100 a page, before the one write.
    assert gh.calls().count(("GET", "/repos/octo/repo/pulls/7/comments")) == 1


def test_an_unchanged_rerun_writes_nothing(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one", "two", "three"])
    _run(gh, r)
    before = len(gh.calls())
    _run(gh, r)
    after = gh.calls()[before:]
    assert [c for c in after if c[0] in ghapi.WRITE_METHODS and c[1] != "/graphql"] == []
    assert after.count(("GET", "/repos/octo/repo/pulls/7/comments")) == 1
    assert len(_suggestions(st)) == 3


def test_a_push_that_fixes_one_and_breaks_another(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one", "two"])
    _run(gh, r)
    # The push names what `two` guards (the last test, so `one` keeps its lines) and adds `three`.
    pushed = _tests(["one", "two", "three"]).replace(
        "def test_two():\n", 'def test_two():\n    """Guards PR #7."""\n'
    )
    _push(r, st, pushed)
    before = len(gh.calls())
    _run(gh, r)
    writes = [c for c in gh.calls()[before:] if c[0] in ghapi.WRITE_METHODS and c[1] != "/graphql"]
    suggestion_writes = [w for w in writes if "/pulls/" in w[1]]
    assert suggestion_writes[0] == ("POST", REVIEWS) and len(st.created_reviews) == 2
    assert [len(rv["comments"]) for rv in st.created_reviews] == [2, 1]
    assert [w[0] for w in suggestion_writes[1:]] == ["DELETE"]  # the suggestion for `two`, now fixed
    assert _named(st) == {"test_one", "test_three"}


def test_a_suggestion_with_a_human_reply_is_never_deleted(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one", "two"])
    _run(gh, r)
    target = next(c for c in _suggestions(st) if "test_two" in c["body"])
    st.review_comments.append(
        ghapi.review_comment(
            st.next_id(),
            "Not a regression test, see the issue.",
            "alice",
            target["path"],
            5,
            "User",
            target["id"],
        )
    )
    pushed = _tests(["one", "two"]).replace("def test_two():\n", 'def test_two():\n    """Guards PR #7."""\n')
    _push(r, st, pushed)
    before = len(gh.calls())
    _run(gh, r)
    assert [c for c in gh.calls()[before:] if c[0] == "DELETE" and "/pulls/" in c[1]] == []
    assert target in st.review_comments


def test_more_fixes_than_the_cap_post_twenty_and_name_the_rest(gh, make_repo):
    r, st = _pull(gh, make_repo, [f"n{i}" for i in range(23)], mode="all")
    ctx = _run(gh, r)
    assert ctx.messages == []
    (sent,) = st.created_reviews
    assert len(sent["comments"]) == 20
    status = next(c["body"] for c in st.comments if c["user"]["login"] == BOT)
    assert "Fixes not shown as suggested changes:" in status and "over the limit of 20 a run" in status


def test_suggestions_off_lists_and_posts_nothing(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one"], mode="off")
    _run(gh, r)
    assert not any("/pulls/7/comments" in c[1] or c[1] == REVIEWS for c in gh.calls())


def test_a_read_only_token_attempts_nothing_and_says_why_once(gh, make_repo, caplog):
    r, st = _pull(gh, make_repo, ["one", "two", "three"])
    denied = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels")] = [denied]
    with caplog.at_level(logging.INFO, logger="bot"):
        ctx = _run(gh, r)
    assert len(ctx.messages) == 1 and "Resource not accessible by integration" in ctx.messages[0]
    assert not any("/pulls/7/comments" in c[1] or c[1] == REVIEWS for c in gh.calls())
    said = [
        rec.getMessage() for rec in caplog.records if "suggested changes not attempted" in rec.getMessage()
    ]
    assert said == ["suggested changes not attempted: read-only"]


def test_review_comments_are_listed_100_a_page(gh, make_repo):
    r, st = _pull(gh, make_repo, ["one"])
    # 150 comments people left on the diff: the bot's suggestion is found on the second page.
    st.review_comments = [
        ghapi.review_comment(st.next_id(), f"note {i}", "alice", "tests/test_a.py", 1) for i in range(150)
    ]
    _run(gh, r)
    assert len(st.created_reviews) == 1
    before = len(gh.calls())
    _run(gh, r)
    again = gh.calls()[before:]
    assert (
        again.count(("GET", "/repos/octo/repo/pulls/7/comments")) == 2
    )  # pages of 100 (the fake asserts it)
    assert [c for c in again if c[0] in ghapi.WRITE_METHODS and c[1] != "/graphql"] == []
