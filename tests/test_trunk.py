"""AGT004 non-trunk-base: the trunk from AGENTS.md or config, the target from GitHub or --base-branch."""

import json

import pytest

from bot.cli.main import main
from rules.agents_md.trunk import trunk_named
from rules.core.models import PullRequest
from tests.helpers import codes, review_change

AGENTS = "# Process\n\n- Human review before main.\n- Trunk-based: branch off main, PR back to main.\n"


@pytest.mark.parametrize(
    "sentence, trunk",
    [
        ("Trunk-based: branch off main, PR back to main.", "main"),
        ("Open all PRs against `develop`.", "develop"),
        ("`main` is the trunk.", "main"),
        ("We work trunk-based; pull requests target main.", "main"),
        ("Merge into master only.", "master"),
        ("Branch off release/2.x and nothing else.", "release/2.x"),
        ("We work trunk-based.", None),
        ("Always open PRs against the default branch.", None),
        ("Merge commits are fine.", None),
        ("The base branch is always `main`.", "main"),
        ("Open PRs against develop, not main.", "develop"),
        ("Don't open PRs against main, open them against develop.", None),  # negated: no trunk
        ("Release PRs go to main, feature PRs go to develop.", None),  # two targets: no single trunk
        ("Hotfix PRs target main.", None),  # one kind of PR says nothing of the others
        ("Never merge PRs to main without review.", None),
    ],
)
def test_trunk_named(sentence, trunk):
    assert trunk_named(sentence) == trunk


@pytest.mark.parametrize(
    "base_ref, config, expected",
    [
        ("release/1.4", "", ["AGT004"]),
        ("main", "", []),
        (None, "", []),  # local mode without --base-branch: the target is unknown
        ("main", "trunk: develop\n", ["AGT004"]),  # config names the trunk, and wins
        ("develop", "trunk: develop\n", []),
    ],
)
def test_agt004_table(make_repo, base_ref, config, expected):
    base = {"AGENTS.md": AGENTS, "a.py": "1\n"}
    if config:
        base[".github/bot.yml"] = config
    report = review_change(make_repo, base, {"a.py": "2\n"}, PullRequest(base_ref=base_ref))
    assert codes(report) == expected
    for f in report.findings:
        assert f.source == "AGENTS.md:4" and f.path is None


def test_silent_when_no_trunk_is_named(make_repo):
    base = {"AGENTS.md": "- We work trunk-based.\n", "a.py": "1\n"}
    report = review_change(make_repo, base, {"a.py": "2\n"}, PullRequest(base_ref="release"))
    assert codes(report) == []


def test_local_mode_needs_base_branch(make_repo, capsys):
    r = make_repo({"AGENTS.md": AGENTS, "a.py": "1\n"}, {"a.py": "2\n"})
    args = ["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    assert main([*args, "--base-branch", "release/1.4"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["rule"] == "AGT004" and "`release/1.4`" in finding["message"]
