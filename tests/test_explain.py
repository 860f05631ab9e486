"""`bot rules --explain`: which AGENTS.md lines turn on which rule, and which were not understood."""

from bot.cli.main import main

ROOT_AGENTS = (
    "# Working here\n\n"
    "- Regression tests must name the PR/commit they guard in the docstring.\n"
    "- Human review before main.\n"
    "- Trunk-based: branch off main, PR back to main.\n"
)


def _states(block: str) -> dict[str, str]:
    """{code: state} from the `  CODE name  state` lines of one "Rules in force" block."""
    rows = [line.split(None, 2) for line in block.splitlines() if line.startswith("  ")]
    return {code: rest.strip() for code, _, rest in rows}


def test_explain_lists_lines_rules_and_scopes(make_repo, capsys):
    r = make_repo(
        {
            "AGENTS.md": ROOT_AGENTS,
            "scratch/AGENTS.md": "AGT001 does not apply in this folder.\n",
            "CLAUDE.md": "Read @AGENTS.md first.\n",
            ".github/bot.yml": "rules:\n  AGT003:\n    enabled: true\n",
        },
        {"AGENTS.md": "- No tautological tests.\n"},
    )
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "main"]) == 0
    out = capsys.readouterr().out
    assert 'line 3    turns on  AGT001 regression-test-without-reference: "Regression tests must' in out
    assert 'line 4    not understood: "Human review before main."' in out
    assert "line 5    turns on  AGT004 non-trunk-base" in out
    assert "scratch/AGENTS.md (governs scratch/)" in out
    assert "line 1    turns off AGT001 regression-test-without-reference" in out
    assert "CLAUDE.md (defers to AGENTS.md; governs the whole repository)" in out
    assert "Working here" not in out.split("Rules in force")[0].split("not understood")[-1]
    root, scratch = (
        _states(part) for part in out.split("Rules in force in the repository root:")[1].split("in scratch/:")
    )
    assert root["AGT001"] == "on (AGENTS.md:3)"
    assert root["AGT002"] == "off"
    assert root["AGT003"] == "on (.github/bot.yml)"
    assert root["AGT004"] == "on (AGENTS.md:5); trunk `main` from AGENTS.md:5"
    assert scratch["AGT001"] == "off" and scratch["AGT004"].startswith("on (AGENTS.md:5)")
    # The head's edit is not the policy at main.
    assert "No tautological tests" not in out
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "pr"]) == 0
    assert 'turns on  AGT002 tautological-test: "No tautological tests."' in capsys.readouterr().out


def test_explain_without_agents_md(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    assert main(["rules", "--explain", "--repo", str(r.path)]) == 0
    out = capsys.readouterr().out
    assert "No AGENTS.md" in out and "AGT001 regression-test-without-reference" in out


def test_explain_bad_ref_is_exit_2(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "nope"]) == 2
    assert "unknown ref: nope" in capsys.readouterr().err


def test_explain_skips_policy_under_excluded_paths(make_repo, capsys):
    # The review leaves excluded paths out, their AGENTS.md included; --explain must show the same policy.
    r = make_repo(
        {
            "AGENTS.md": ROOT_AGENTS,
            "vendor/AGENTS.md": "AGT001 does not apply in this folder.\n",
            ".github/bot.yml": 'exclude: ["vendor/**"]\n',
        },
        {},
    )
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "main"]) == 0
    out = capsys.readouterr().out
    assert "AGENTS.md (governs the whole repository)" in out
    assert "vendor/" not in out


NOISY_AGENTS = (
    "# Working here\n\n"
    "- Use uv to run Python.\n"
    "- Keep functions small.\n"
    "- Don't use class-based tests.\n"
    "- Tests must not be tautological, except in the `legacy/` folder.\n"
    "- Unit tests under `tests/unit` must name the PR they guard in the docstring.\n"
    "- Never rewrite passing tests to match new behaviour.\n"
    "- Editing existing tests is fine, but new test files are the exception.\n"
)


def test_explain_lists_only_sentences_about_tests_prs_commits_or_branches(make_repo, capsys):
    r = make_repo({"AGENTS.md": NOISY_AGENTS}, {})
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "main"]) == 0
    out = capsys.readouterr().out
    assert 'not understood: "Don\'t use class-based tests."' in out
    assert "Use uv to run Python" not in out and "Keep functions small" not in out
    assert "(2 more sentences not understood, about other things than tests, PRs, commits or branches" in out
    assert main(["rules", "--explain", "--all", "--repo", str(r.path), "--base", "main"]) == 0
    every = capsys.readouterr().out
    assert 'line 3    not understood: "Use uv to run Python."' in every
    assert 'line 4    not understood: "Keep functions small."' in every
    assert "more sentences not understood" not in every


def test_explain_shows_scopes_exceptions_and_overruled_permissions(make_repo, capsys):
    r = make_repo({"AGENTS.md": NOISY_AGENTS}, {})
    assert main(["rules", "--explain", "--repo", str(r.path), "--base", "main"]) == 0
    out = capsys.readouterr().out
    assert "line 6    turns on  AGT002 tautological-test (except in legacy/):" in out
    assert "line 7    turns on  AGT001 regression-test-without-reference (in tests/unit/ only):" in out
    assert "line 9    relaxes   AGT003 rewritten-test-expectation, overruled by AGENTS.md:8:" in out
    notes = out.split("Notes:")[1].split("Rules in force")[0]
    assert "AGENTS.md:9 relaxes AGT003" in notes and "the prohibition wins" in notes
    root = _states(out.split("Rules in force in the repository root:")[1])
    assert (
        root["AGT001"] == "off"
        and root["AGT002"] == "on (AGENTS.md:6)"
        and root["AGT003"] == "on (AGENTS.md:8)"
    )
