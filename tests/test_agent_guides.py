"""Agent guides other than AGENTS.md (CLAUDE.md, GEMINI.md, .github/copilot-instructions.md, ...): read as a
folder's policy where no AGENTS.md governs it, locally and through the GitHub API; `agent_guides` in the
config chooses which; `bot rules --explain --format json` shows every sentence."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main
from rules.core.models import PullRequest
from tests import ghapi
from tests.helpers import codes, review_change
from tests.test_api_faults import OLD_TEST
from tests.test_publish import run as review

GUIDE = "# Testing\n\n- No tautological tests.\n"
TAUTOLOGICAL = OLD_TEST + "\n\ndef test_new():\n    assert True\n"
TAUTOLOGICAL_PATCH = "@@ -3,0 +4,4 @@ def test_old():\n+\n+\n+def test_new():\n+    assert True"


@pytest.mark.parametrize(
    "guide", ["CLAUDE.md", ".claude/CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md"]
)
def test_a_repository_whose_only_guide_is_not_agents_md_gets_its_policy(make_repo, guide):
    report = review_change(
        make_repo, {guide: GUIDE, "tests/test_a.py": OLD_TEST}, {"tests/test_a.py": TAUTOLOGICAL}
    )
    assert [(f.rule, f.path, f.source) for f in report.findings] == [
        ("AGT002", "tests/test_a.py", f"{guide}:3")
    ]


def test_a_guide_in_a_folder_governs_that_folder_only(make_repo):
    report = review_change(
        make_repo,
        {"lib/CLAUDE.md": GUIDE, "lib/tests/test_a.py": OLD_TEST, "tests/test_b.py": OLD_TEST},
        {"lib/tests/test_a.py": TAUTOLOGICAL, "tests/test_b.py": TAUTOLOGICAL},
    )
    assert [(f.path, f.source) for f in report.findings] == [("lib/tests/test_a.py", "lib/CLAUDE.md:3")]


def test_where_an_agents_md_governs_a_guide_that_does_not_defer_is_ignored(make_repo):
    report = review_change(
        make_repo,
        {
            "AGENTS.md": "# Rules\n\n- Use uv.\n",
            "CLAUDE.md": GUIDE,
            "lib/GEMINI.md": GUIDE,
            "tests/test_a.py": OLD_TEST,
            "lib/tests/test_b.py": OLD_TEST,
        },
        {"tests/test_a.py": TAUTOLOGICAL, "lib/tests/test_b.py": TAUTOLOGICAL},
    )
    assert codes(report) == []


def test_agent_guides_in_the_config_choose_the_guides(make_repo):
    config = {".github/bot.yml": "agent_guides: [docs/AI.md]\n", "tests/test_a.py": OLD_TEST}
    chosen = review_change(make_repo, {**config, "docs/AI.md": GUIDE}, {"tests/test_a.py": TAUTOLOGICAL})
    assert [f.source for f in chosen.findings] == ["docs/AI.md:3"]


def test_a_list_of_agent_guides_replaces_the_default(make_repo):
    config = {".github/bot.yml": "agent_guides: [docs/AI.md]\n", "tests/test_a.py": OLD_TEST}
    left_out = review_change(make_repo, {**config, "CLAUDE.md": GUIDE}, {"tests/test_a.py": TAUTOLOGICAL})
    assert codes(left_out) == []


def test_a_bad_agent_guides_entry_is_a_config_error_at_its_line(make_repo):
    report = review_change(
        make_repo, {".github/bot.yml": "handle: bot\nagent_guides: [../AGENTS.md]\n"}, {"a.py": "1\n"}
    )
    (problem,) = [f for f in report.findings if f.rule == "BOT001"]
    assert (problem.path, problem.line) == (
        ".github/bot.yml",
        2,
    ) and "relative to the folder" in problem.message


def test_github_mode_finds_a_guide_in_the_tree_listing_within_the_request_budget(gh):
    st = ghapi.PullState()
    st.repo_labels = list(ghapi.BOT_LABELS)
    st.files = [ghapi.pr_file("tests/test_a.py", patch=TAUTOLOGICAL_PATCH, status="modified", changes=4)]
    base = {".github/copilot-instructions.md": GUIDE, "tests/test_a.py": OLD_TEST, "README.md": "x\n"}
    st.trees = {st.base: base, st.head: {**base, "tests/test_a.py": TAUTOLOGICAL}}
    ghapi.serve(gh, st)
    ctx = review(gh, None)
    assert [(f.rule, f.source) for f in ctx.report.findings] == [
        ("AGT002", ".github/copilot-instructions.md:3")
    ]
    # The guide is read with the test file's two sides: one batch of content reads, one tree listing.
    blobs = [q for q in gh.graphql() if q.startswith("blobs")]
    contents = [p for _, p in gh.calls() if "/contents/" in p and "bot.yml" not in p]
    trees = [p for _, p in gh.calls() if "/git/trees/" in p]
    assert len(blobs) + len(contents) <= 1 and len(trees) <= 1


def test_explain_json_lists_every_sentence_with_what_it_does(make_repo, capsys):
    guide = (
        "# Working here\n\n"
        "- **Never weaken tests** to make them pass.\n"
        "- Confirm the new test fails before the fix.\n"
        "- Use uv to run Python.\n"
        "- Tautological tests are fine in `legacy/`.\n"
        "- The default branch is `master`, not `main`.\n"
    )
    r = make_repo({"CLAUDE.md": guide}, {})
    assert main(["rules", "--explain", "--format", "json", "--repo", str(r.path), "--base", "main"]) == 0
    data = json.loads(capsys.readouterr().out)
    (f,) = data["files"]
    assert f["path"] == "CLAUDE.md" and f["governs"] == "" and f["defers_to"] is None
    by_line = {s["line"]: s for s in f["sentences"]}
    assert by_line[1]["status"] == "heading"
    assert by_line[3]["file"] == "CLAUDE.md" and by_line[3]["text"].startswith("**Never weaken tests**")
    assert by_line[3]["status"] == "understood" and [o["rule"] for o in by_line[3]["on"]] == ["AGT003"]
    assert by_line[4]["status"] == "understood" and [o["rule"] for o in by_line[4]["on"]] == ["AGT005"]
    assert by_line[5]["status"] == "not understood"
    assert by_line[6]["off"] == [
        {"rule": "AGT002", "scopes": ["legacy"], "overruled_by": None, "rule_is_on": False}
    ]
    assert [o["rule"] for o in by_line[7]["on"]] == ["AGT004"]
    assert data["rules_in_force"][""]["AGT003"] == "on (CLAUDE.md:3)"
    assert data["trunk"] == "trunk `master` from CLAUDE.md:7"


def test_explain_prints_plain_text_and_no_opt_out_of_a_rule_nothing_turns_on(make_repo, capsys):
    guide = (
        "# Rules\n\n- **Don't** rewrite `tests` to make them pass.\n"
        "- Tautological tests are fine in `legacy/`.\n"
    )
    r = make_repo({"AGENTS.md": guide}, {})
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "main"]) == 0
    out = capsys.readouterr().out
    assert (
        'line 3    turns on  AGT003 rewritten-test-expectation: "Don\'t rewrite tests to make them pass."'
        in out
    )
    assert "**" not in out and "`" not in out.split("Rules in force")[0]
    assert 'line 4    relaxes   AGT002 tautological-test, which nothing turns on here: "Tautological' in out
    assert "turns AGT002 off" not in out and "turns off AGT002" not in out


@pytest.mark.parametrize(
    "sentence",
    ["The default branch is `master`, not `main`.", "Always use `master` as the base branch."],
)
@pytest.mark.parametrize("target, found", [("main", True), ("master", False)])
def test_a_claude_md_naming_the_trunk_gives_agt004_at_its_line(make_repo, sentence, target, found):
    base = {"CLAUDE.md": f"# Git\n\n- {sentence}\n", "a.py": "1\n"}
    report = review_change(make_repo, base, {"a.py": "2\n"}, PullRequest(base_ref=target))
    if not found:
        assert codes(report) == []
        return
    (finding,) = report.findings
    assert (finding.rule, finding.source) == ("AGT004", "CLAUDE.md:3")
    assert "the trunk is `master`" in finding.message
