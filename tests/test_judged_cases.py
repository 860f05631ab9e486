"""The judged cases of the signal benchmark, replayed from the small extracts under tests/fixtures/real/.

Each extract becomes a real git repository (base commit, then the head commit with the real commit's
message); it is reviewed as `bot check` would review it, and the judged verdict must hold. Cases the bot
still gets wrong are strict xfails naming the part of issue 9 that fixes them: when a fix lands they pass,
strict xfail fails, and the mark comes off.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.judged import REAL, Case, build_extract, flagged, load_cases
from bot.engine import review
from bot.local import load_changeset
from bot.models import PullRequest

AGT001_EVIDENCE = "issue 9: part 1 (AGT001 decides regression tests from evidence)"
AGT001_COVERED = "issue 9: part 1 (class docstring and issue references cover the test)"
AGT002_HELPERS = "issue 9: part 2 (helper assertions and must-not-raise tests can fail)"
AGT002_LITERALS = "issue 9: part 2 (assertions re-checking the test's own literals cannot fail)"
PRIMERL_KINDS = "issue 9: part 5 (RL trainer configs are not SFT profiles)"
PRIMERL_PAIRS = "issue 9: part 5 (profiles paired by path, not by git's rename guess)"

# Why today's bot gets a judged case wrong -> the cases, as "extract test-or-path rule".
_WRONG = {
    AGT001_EVIDENCE: (
        "pytest-df87db7 TestIntrospectionCompare.test_simple_equality AGT001",
        "pytest-df87db7 TestSingleEvaluation.test_call_in_compare_evaluated_once AGT001",
        "pytest-df87db7 TestHelpersSmokeTest.test_assert_passes_when_true AGT001",
        "pytest-344c237 TestConfigAPI.test_addini_union_type AGT001",
        "pytest-344c237 TestConfigAPI.test_addini_literal_type AGT001",
        "pytest-d2466e3 TestPformatLines.test_line_budget_stops_early AGT001",
        "pytest-1d5c403 test_invalid_junit_option_value AGT001",
        "pytest-5c0dcff test_callspec2_renamed AGT001",
        "pytest-d724e16 test_higher_scope_instance_method_is_deprecated AGT001",
        "pytest-d6f66d4 test_samefile_nofollow AGT001",
        "pytest-35f21fd TestRmRf.test_chmod_rwx_returns_false_on_nonexistent_path AGT001",
        "pytest-9db6646 TestSetAssertions.test_dict_items_view_subset AGT001",
        "unidep-da0243f TestErrorHandling.test_install_with_unreachable_index AGT001",
        "unidep-da0243f TestUnidepCondaLockIntegration.test_conda_lock_with_merged_indices AGT001",
    ),
    AGT001_COVERED: (
        "pytest-59dc7f6 TestProgName.test_prog_in_error_message_cli AGT001",
        "pytest-5fd2be0 TestValidateMarkerNames.test_unknown_marker_with_strict_markers AGT001",
        "pytest-98b357f TestPluginImportWarning.test_plugin_import_warning AGT001",
        "pytest-b4e8466 test_pytest_configure_warning_filter AGT001",
    ),
    AGT002_LITERALS: (
        "unidep-da0243f TestUnidepCondaLockIntegration.test_conda_lock_generates_pip_repositories AGT002",
        "unidep-da0243f TestUnidepCondaLockIntegration.test_conda_lock_with_merged_indices AGT002",
        "unidep-da0243f TestUnidepCondaLockIntegration.test_conda_lock_creates_valid_lockfile AGT002",
    ),
    AGT002_HELPERS: (
        "pytest-59dc7f6 TestProgName.test_prog_in_error_message_programmatic AGT002",
        "pytest-59dc7f6 TestProgName.test_prog_in_usage_cli AGT002",
        "pytest-9db6646 TestSetAssertions.test_dict_items_view_subset AGT002",
        "pytest-6f1b078 TestTerminalFunctional.test_no_summary_still_runs_terminal_summary_hook AGT002",
        "pytest-ef052d0 test_rootdir_conftest_visible_outside_rootdir AGT002",
        "pytest-5fd2be0 TestValidateMarkerNames.test_registered_marker_passes AGT002",
        "pytest-5fd2be0 TestValidateMarkerNames.test_no_validation_without_strict AGT002",
        "pytest-aa4c208 TestXFailwithSetupTeardown.test_xfail_setup_report_shows_phase AGT002",
        "pytest-d575dba test_plugin_hook_returning_none_is_skipped AGT002",
    ),
    PRIMERL_KINDS: (
        "prime-rl-029fb1b configs/reverse_text/train.toml SFT-PROFILE",
        "prime-rl-029fb1b configs/reverse_text/train.toml TRN004",
        "prime-rl-1ab9000 configs/debug/rl/train.toml SFT-PROFILE",
        "prime-rl-443c657 examples/reverse_text/rl/train.toml SFT-PROFILE",
        "prime-rl-189de57 configs/skywork_math/7b/stage1/train.toml SFT-PROFILE",
        "prime-rl-af44bd1 configs/deepscaler/stage1/rl/train.toml SFT-PROFILE",
    ),
    PRIMERL_PAIRS: (
        "prime-rl-81f9e95 configs/ci/integration/reverse_text_sft/start.toml TRN004",
        "prime-rl-81f9e95 configs/ci/integration/reverse_text_sft/resume.toml TRN004",
    ),
}
KNOWN_WRONG = {tuple(key.split(" ")): reason for reason, keys in _WRONG.items() for key in keys}


def _key(case: Case) -> tuple[str, str, str]:
    return (case.extract, case.test or case.path, case.rule)


def _param(case: Case):
    reason = KNOWN_WRONG.get(_key(case))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    verdict = "fires" if case.expected else "silent"
    name = f"{case.extract}:{case.test or case.path}:{case.rule}:{verdict}"
    return pytest.param(case, id=name, marks=marks)


CASES = [c for c in load_cases() if c.extract]


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_judged_case(tmp_path: Path, case: Case) -> None:
    head = build_extract(REAL / case.extract, tmp_path / "repo")
    report = review(load_changeset(tmp_path / "repo", base=f"{head}^1", head=head, pr=PullRequest()))
    head_file = REAL / case.extract / "head" / case.path
    text = head_file.read_text(encoding="utf-8") if head_file.is_file() else None
    assert flagged(report, case, text) is case.expected, case.reason


def test_every_extract_is_judged_and_documented() -> None:
    """An extract without a judged case, a README or a permissive licence is a mistake."""
    judged = {c.extract for c in CASES}
    on_disk = {p.name for p in REAL.iterdir() if p.is_dir()}
    assert judged == on_disk
    for name in on_disk:
        readme = (REAL / name / "README.md").read_text(encoding="utf-8")
        assert any(lic in readme for lic in ("MIT", "BSD-3-Clause", "Apache-2.0")), name
        assert (REAL / name / "message.txt").is_file(), name


def test_cases_are_balanced_and_enough() -> None:
    """At least 60 judged cases, with both verdicts present for every rule."""
    cases = load_cases()
    assert len(cases) >= 60
    for rule in {c.rule for c in cases}:
        verdicts = {c.expected for c in cases if c.rule == rule}
        assert verdicts == {True, False}, rule
