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

# Why the bot still gets a judged case wrong -> the cases, as "extract test-or-path rule". Empty: every
# judged case holds. A case the bot gets wrong again goes here with its reason, as a strict xfail.
_WRONG: dict[str, tuple[str, ...]] = {
    # The PR fixes a path escape but says so only in prose ("keys were joined ... without normalization");
    # no word of its title, branch or test says fix, and prose in a description is not taken as evidence.
    "issue 9: a fix described only in prose": ("pytest-2a9e201 TestNewAPI.test_cache_key_escape AGT001",),
    # pytest collects testing/python/*.py by its `python_files` setting; the bot knows only test_*.py,
    # *_test.py and tests/, so the fix's test is not seen at all. Reading the repository's pytest config
    # (pyproject.toml, pytest.ini, tox.ini, setup.cfg at base) would make these files test files.
    "issue 9: files the repository's python_files collects are not read as tests": (
        "pytest-cd7592c TestRaises.test_raises_match_failure_suppresses_exception_context AGT001",
        "pytest-a38b20d TestRaises.test_consecutive_backslashes_in_escape_check AGT001",
        "pytest-960ddc6 TestRaises.test_pipe_is_treated_as_regex_metacharacter AGT001",
        "pytest-d889ca0 test_fixture_post_finalizer_called_once AGT001",
        "pytest-9913ced TestApprox.test_dict_differing_lengths AGT001",
        "pytest-111685c TestApprox.test_decimal_approx_repr AGT001",
    ),
    # A mypy-only check in testing/typing_checks.py guards a typing fix; pytest never collects the file,
    # so whether it is a "test" the rule covers is arguable (judged yes by the sampling rule's definition).
    "issue 9: a typing check in a file no runner collects": ("pytest-a95bea7 test_hidden_param AGT001",),
    # pytest closes every kind of issue with "Fix #N" in a commit body: a feature, a deprecation, a
    # refactor. The changelog fragment the same change adds (changelog/N.feature.rst, .deprecation.rst)
    # says what the change is and would outweigh it.
    "issue 9: 'Fix #N' in a commit body closes feature and deprecation issues too": (
        "pytest-856da14 TestPasteCapture.test_deprecated AGT001",
        "pytest-8f81c76 TestConfigTmpPath.test_policy_none_delete_all AGT001",
        "pytest-4253f98 test_deprecated AGT001",
        "pytest-0fb7cae TestParseIni.test_strict_config_ini_option AGT001",
        "pytest-ebcd836 test_strict_parametrization_ids AGT001",
        "pytest-c02465c test_namespace_packages AGT001",
    ),
    # "[pre-commit.ci] auto fixes from pre-commit.com hooks": a bot's formatting commit in a feature branch
    # is read as the PR saying it fixes something.
    "issue 9: a pre-commit bot's 'auto fixes' commit taken for a fix": (
        "pytest-324ef94 TestParseIni.test_report_chars_option AGT001",
    ),
    # A second reproduction of the same fix next to one that names #8321: the named neighbour is taken
    # for the fix's only regression test, though the squash body lists "Add regression tests" (plural).
    "issue 9: a named neighbour silences a second regression test": (
        "pytest-0d6fbde TestExceptionInfoFormatter.test_exc_chain_repr_mixed_traceback AGT001",
    ),
    # "use Contextmanagers to handle StopIteration in generators": nothing in the title, branch or test
    # says fix; the change's own changelog/12929.bugfix.rst does.
    "issue 9: a fix told only by its changelog fragment (changelog/N.bugfix.rst)": (
        "pytest-075c5ef test_stop_iteration_from_collect AGT001",
    ),
    # "Defer annotation eval on Python 3.14" (Fixes #13549) and test_annotations_deferred_future share
    # "annotation(s)" and "defer(red)" only up to inflection; comparing word stems would place it.
    "issue 9: words shared with the title only up to inflection": (
        "pytest-8ca783c test_annotations_deferred_future AGT001",
    ),
    # test_function_return_non_none_error renamed to ..._warning, a mark added and one line dropped: the
    # rename is not seen because the body changed; pairing a removed and an added test of the same file by
    # body similarity (not identity) would.
    "issue 9: a renamed test with a changed body is taken for new": (
        "pytest-53f05c4 test_function_return_non_none_warning AGT001",
    ),
    # A fix PR adds two unnamed tests; only the non-string one reproduces the bug, the string one checks
    # that the old path still works. Nothing general tells them apart (arguable: a maintainer might ask
    # for a reference on both).
    "issue 9: a fix PR's non-reproducing companion test": (
        "pytest-9f9b7f4 test_pytester_subprocess_with_string_plugins AGT001",
    ),
    # The maintainers filed it as an improvement (changelog/5473.improvement.rst); only the test's comment
    # says "Previously ... an error was raised". "previously" with "error"/"raised" is evidence of a fix.
    "issue 9: a fix described only by the test's comment 'Previously ... an error was raised'": (
        "pytest-c77995b TestRewriteOnImport.test_rewrite_warning_ignore AGT001",
    ),
    # A fix PR adding four or more unnamed tests is taken for a feature (more than FEW = 3): one notice.
    "issue 9: fix PRs with more than three new tests get only the notice": (
        "pytest-5fd2be0 test_strict_prohibits_unregistered_markers_in_markexpr AGT001",
        "pytest-966edc9 test_saferepr_dict_preserves_insertion_order AGT001",
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
    base, head = build_extract(REAL / case.extract, tmp_path / "repo")
    report = review(load_changeset(tmp_path / "repo", base=base, head=head, pr=PullRequest()))
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
