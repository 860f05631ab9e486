"""The profile search started ahead in a thread answers as a search made when the rules ask for it."""

from __future__ import annotations

import threading

import pytest

import bot.git.local
from bot.git.local import GitReader, SourceError, load_changeset

WORDS = ("COMPAT_PROFILES",)
HOLDER = 'COMPAT_PROFILES = {\n    "run": {"max_steps": 100},\n}\n'


def _repo(make_repo):
    src = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(12)}
    return make_repo(
        {"train.py": HOLDER, "gone.py": HOLDER, **src},
        {"train.py": HOLDER.replace("100", "200"), "gone.py": None, "new.py": "# COMPAT_PROFILES\n", **src},
    )


def _counting(monkeypatch) -> list[tuple[str, ...]]:
    """The `git grep` commands run from now on, each with whether it ran in a thread of its own."""
    greps: list[tuple[str, ...]] = []
    real = bot.git.local._git

    def git(repo, *args, **kw):
        if "grep" in args:
            greps.append(
                (*args, "thread" if threading.current_thread() is not threading.main_thread() else "")
            )
        return real(repo, *args, **kw)

    monkeypatch.setattr(bot.git.local, "_git", git)
    return greps


@pytest.mark.parametrize("side", ["main", "pr"])
def test_the_search_ahead_finds_what_a_search_then_finds(make_repo, monkeypatch, side):
    r = _repo(make_repo)
    rev = r.git("rev-parse", side).strip()
    paths = ["train.py", "gone.py", "new.py", "missing.py", *(f"src/m{i}.py" for i in range(12))]
    now = GitReader(r.path).grep(rev, paths, WORDS)
    greps = _counting(monkeypatch)
    reader = GitReader(r.path)
    reader.grep_ahead(rev, paths, WORDS)
    assert len(greps) == 1  # started, not necessarily ended
    assert reader.grep(rev, paths, WORDS) == now
    assert reader.grep(rev, ["train.py", "src/m1.py"], WORDS) == now & {"train.py", "src/m1.py"}
    assert len(greps) == 1  # both answered by the search made ahead
    expected = {"train.py", "gone.py"} if side == "main" else {"train.py", "new.py"}
    assert now == expected


def test_paths_the_search_ahead_did_not_cover_are_searched_then(make_repo, monkeypatch):
    r = _repo(make_repo)
    rev = r.git("rev-parse", "pr").strip()
    reader = GitReader(r.path)
    reader.grep_ahead(rev, ["src/m1.py"], WORDS)
    greps = _counting(monkeypatch)
    assert reader.grep(rev, ["src/m1.py", "train.py"], WORDS) == {"train.py"}
    assert [g[-1] for g in greps] == [""]  # searched then, in the caller's thread


def test_a_failure_of_git_in_the_thread_is_raised_to_whoever_asks(make_repo, monkeypatch):
    r = _repo(make_repo)
    rev = r.git("rev-parse", "pr").strip()

    def broken(repo, *args, **kw):
        raise SourceError("git grep took longer than 120s")

    reader = GitReader(r.path)
    reader.remember(rev, "train.py", reader.info([f"{rev}:train.py"])[0])
    monkeypatch.setattr(bot.git.local, "_git", broken)
    reader.grep_ahead(rev, ["train.py"], WORDS)
    with pytest.raises(SourceError, match="longer than"):
        reader.grep(rev, ["train.py"], WORDS)


def test_a_review_searches_once_per_side_and_finds_the_profiles(make_repo, monkeypatch):
    from bot.review.engine import review

    r = _repo(make_repo)
    cs = load_changeset(r.path, base="main", head="pr")
    greps = _counting(monkeypatch)
    report = review(cs)
    assert [g[-1] for g in greps] == ["thread", "thread"]  # base and head, started before the rules ran
    assert {(p.path, p.name) for p in report.profiles} == {("train.py", "run"), ("gone.py", "run")}


def test_a_base_that_lies_within_its_head_is_searched_only_where_the_head_holds_a_word(
    make_repo, monkeypatch
):
    import rules.training.profiles
    from bot.review.engine import review

    grown = "def f():\n    return 1\n"
    base = {"grown.py": grown, "gains.py": grown, "loses.py": HOLDER + grown, "kept.py": HOLDER + grown}
    head = {
        "grown.py": grown + "\n\ndef g():\n    return 2\n",  # lines added only, no word: base not searched
        "gains.py": HOLDER + grown,  # the word added: its base is searched (and holds nothing)
        "loses.py": grown,  # lines removed: searched at base as before
        "kept.py": HOLDER + grown + "x = 1\n",  # the word at both sides, outside the change
    }
    r = make_repo(base, head)
    searched: list[tuple[str, tuple[str, ...]]] = []
    real = GitReader.grep

    def grep(self, rev, paths, words):
        searched.append((rev, tuple(sorted(paths))))
        return real(self, rev, paths, words)

    monkeypatch.setattr(GitReader, "grep", grep)
    cs = load_changeset(r.path, base="main", head="pr")
    narrowed = review(cs)
    at_base = {p for rev, paths in searched if rev == cs.base_sha for p in paths}
    assert at_base == {"loses.py", "gains.py", "kept.py"}
    # The same table as with every base searched.
    monkeypatch.setattr(rules.training.profiles, "_base_within_head", lambda review: frozenset())
    full = review(load_changeset(r.path, base="main", head="pr"))
    assert narrowed.profiles == full.profiles
    assert {(p.path, p.base is not None, p.head is not None) for p in narrowed.profiles} == {
        ("gains.py", False, True),
        ("loses.py", True, False),
    }  # kept.py's profile did not change
