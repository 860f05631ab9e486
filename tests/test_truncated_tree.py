"""A truncated tree listing (issue 22, item 3): the policy is never read from a partial listing.

GitHub stops a recursive tree listing at 100,000 entries and says `truncated: true`. Before, the policy
(every AGENTS.md) was read from what it listed, an AGENTS.md past the cut was never seen, and the review was
complete and ready. Now the folders of every changed path are read one by one (one request each, no
recursion); past the budget, or when such a read fails, the review is "not complete", never ready.
Every mocked answer validates against the OpenAPI subset (tests/ghapi.py).
"""

from __future__ import annotations

import pytest

from bot.github import pull
from tests import ghapi
from tests.helpers import AGENTS_AGT001
from tests.test_api_faults import no_wait
from tests.test_publish import run as review

# A regression test by its own words without the PR it guards: AGT001's error, wherever AGENTS.md asks.
TEST = "pkg/sub/tests/test_crash.py"
TEXT = "def test_crash():\n    # used to crash\n    assert compute() == 3\n"
PATCH = "@@ -0,0 +1,3 @@\n+def test_crash():\n+    # used to crash\n+    assert compute() == 3"
TREE = "/repos/{owner}/{repo}/git/trees/{tree_sha}"


def _pull(gh, cut: int | None) -> ghapi.PullState:
    """A pull request adding TEST; the AGENTS.md that governs it sits in pkg/sub, after 30 other files."""
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(TEST, patch=PATCH, status="added", changes=3)]
    others = {f"aaa/mod{i:02}.py": "x = 1\n" for i in range(30)}
    base = {"README.md": "hi\n", **others, "pkg/sub/AGENTS.md": AGENTS_AGT001, "pkg/sub/x.py": "y = 2\n"}
    st.trees = {st.base: base, st.head: {**base, TEST: TEXT}}
    if cut is not None:
        st.tree_cut[st.base] = cut
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    return st


def _tree_reads(gh) -> list[str]:
    return [path for method, path in gh.calls() if method == "GET" and "/git/trees/" in path]


def test_the_whole_listing_finds_the_agents_md_and_its_finding(gh):
    # The baseline: GitHub lists everything, in one request.
    st = _pull(gh, cut=None)
    ctx = review(gh, None)
    assert [f.rule for f in ctx.report.findings] == ["AGT001"] and ctx.report.verdict == "needs-work"
    assert len(_tree_reads(gh)) == 1 and ctx.report.incomplete == ()
    assert st.statuses[0]["state"] == "failure"


def test_an_agents_md_past_the_cut_is_found_by_reading_the_changed_files_folders(gh):
    # Before: the listing stopped at aaa/, pkg/sub/AGENTS.md was never seen, AGT001 was off, and ready.
    st = _pull(gh, cut=20)
    ctx = review(gh, None)
    assert [f.rule for f in ctx.report.findings] == ["AGT001"] and ctx.report.verdict == "needs-work"
    assert ctx.report.policy_files == ("pkg/sub/AGENTS.md",) and ctx.report.incomplete == ()
    assert "status:ready" not in st.labels
    # The recursive listing, then the root, pkg and pkg/sub on their own (pkg/sub/tests is not at base).
    assert len(_tree_reads(gh)) == 4


def test_too_many_folders_to_read_make_the_review_not_complete(gh, monkeypatch):
    monkeypatch.setattr(pull, "TREE_READS", 3)  # root, pkg, pkg/sub, pkg/sub/tests: four folders
    st = _pull(gh, cut=20)
    ctx = review(gh, None)
    assert ctx.report.verdict == "needs-work" and "status:ready" not in st.labels
    (missing,) = ctx.report.incomplete
    assert missing.startswith(f"the file list at {st.base[:12]} (GitHub listed only part of it")
    assert "more than the 3" in missing and len(_tree_reads(gh)) == 1
    assert "not complete" in st.statuses[0]["description"]
    assert any(n.startswith("Review not complete") for n in ctx.report.notes)


def test_a_folder_read_that_fails_makes_the_review_not_complete(gh):
    st = _pull(gh, cut=20)
    # The recursive listing is answered, cut; every read after it (the root folder, retried) fails.
    cut = ghapi.tree(st.base, tuple(st.trees[st.base])[:20])
    cut["truncated"] = True
    st.fail[("GET", TREE)] = [(200, cut, {})] + [(502, ghapi.error("Server Error"), {})] * 3
    ctx = review(gh, None, retry=no_wait())
    assert ctx.report.verdict == "needs-work" and "status:ready" not in st.labels
    (missing,) = ctx.report.incomplete
    assert "GitHub listed only part of it, and reading `/` failed" in missing


def test_nothing_is_read_folder_by_folder_when_github_lists_everything(gh):
    # The budget test's view: a whole listing costs exactly one request, as before.
    _pull(gh, cut=None)
    review(gh, None)
    assert [
        call.request.url.endswith("recursive=1")
        for call in gh.rsps.calls
        if "/git/trees/" in call.request.url
    ] == [True]


@pytest.mark.parametrize(
    "path, folders",
    [("a.py", ()), ("a/b/c.py", ("a", "a/b")), ("pkg/sub/tests/t.py", ("pkg", "pkg/sub", "pkg/sub/tests"))],
)
def test_folders_of(path, folders):
    assert pull.folders_of(path) == folders


PRIME_RL = 'max_steps = 100\n\n[model]\nname = "Qwen/Qwen3-0.6B"\n\n[data]\nbatch_size = {batch}\n'
CONFIG = "configs/sft/mobile300.toml"


def test_profiles_past_the_cut_that_may_follow_a_changed_config_leave_the_review_not_complete(gh):
    # An unchanged profile pointing at the changed config moves with it (its step math, its findings);
    # past the cut it is never seen, so the review cannot say nothing moved.
    st = ghapi.PullState()
    patch = '@@ -7 +7 @@ name = "Qwen/Qwen3-0.6B"\n-batch_size = 8\n+batch_size = 16'
    st.files = [ghapi.pr_file(CONFIG, patch=patch, status="modified", changes=2)]
    base = {f"aaa/mod{i:02}.py": "x = 1\n" for i in range(30)}
    base[CONFIG] = PRIME_RL.format(batch=8)
    base["training/compat_profiles/m300.toml"] = (
        f'name = "m300"\nconfig = "{CONFIG}"\ntarget_micro_steps = 300\n'
    )
    st.trees = {st.base: base, st.head: {**base, CONFIG: PRIME_RL.format(batch=16)}}
    st.repo_labels = list(ghapi.BOT_LABELS)
    st.tree_cut[st.base] = 10
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    assert ctx.report.incomplete == (
        f"profiles that may point at a changed Prime-RL config (GitHub listed only part of the files at "
        f"{st.base[:12]} (over 100,000))",
    )
    assert ctx.report.verdict == "needs-work" and "status:ready" not in st.labels


def test_a_guide_in_dot_github_past_the_cut_is_found(gh):
    # No AGENTS.md anywhere: the root's .github/copilot-instructions.md is the policy, and the cut hides it.
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(TEST, patch=PATCH, status="added", changes=3)]
    others = {f"aaa/mod{i:02}.py": "x = 1\n" for i in range(30)}
    base = {"README.md": "hi\n", **others, "pkg/sub/x.py": "y = 2\n"}
    base[".github/copilot-instructions.md"] = AGENTS_AGT001
    base[".github/workflows/ci.yml"] = "on: push\n"
    st.trees = {st.base: base, st.head: {**base, TEST: TEXT}}
    st.tree_cut[st.base] = 20
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    found = [(f.rule, f.source) for f in ctx.report.findings]
    assert found == [("AGT001", ".github/copilot-instructions.md:3")]
    assert ctx.report.incomplete == ()
    # The recursive listing, the root, .github, pkg and pkg/sub (.github/workflows is not read).
    assert len(_tree_reads(gh)) == 5


def test_a_configured_guide_two_folders_down_past_the_cut_is_found(gh):
    # `agent_guides` names a guide kept in docs/ai/ of the folder it governs; before, a truncated listing
    # was filled with the default guides' folders only (.github/, .claude/), so this guide went unseen and
    # the review was complete and ready.
    st = ghapi.PullState()
    st.files = [ghapi.pr_file(TEST, patch=PATCH, status="added", changes=3)]
    others = {f"aaa/mod{i:02}.py": "x = 1\n" for i in range(30)}
    base = {"README.md": "hi\n", **others, "pkg/sub/x.py": "y = 2\n"}
    base[".github/bot.yml"] = "agent_guides: [docs/ai/GUIDE.md]\n"
    base["docs/ai/GUIDE.md"] = AGENTS_AGT001
    base["docs/index.md"] = "# Docs\n"
    st.trees = {st.base: base, st.head: {**base, TEST: TEXT}}
    st.tree_cut[st.base] = 20
    st.repo_labels = list(ghapi.BOT_LABELS)
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    assert [(f.rule, f.source) for f in ctx.report.findings] == [("AGT001", "docs/ai/GUIDE.md:3")]
    assert ctx.report.incomplete == () and "status:ready" not in st.labels


@pytest.mark.parametrize(
    "guides, folders",
    [
        (("CLAUDE.md", ".github/copilot-instructions.md"), {".github"}),
        (("docs/ai/GUIDE.md",), {"docs", "docs/ai"}),
        (("AGENTS.md",), set()),
    ],
)
def test_guide_folders(guides, folders):
    assert pull.guide_folders(guides) == folders
