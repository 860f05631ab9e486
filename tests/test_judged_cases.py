"""The judged cases of the signal benchmark, replayed from the small extracts under tests/fixtures/real/.

Each extract becomes a real git repository (base commit, then the head commit with the real commit's
message); it is reviewed as `bot check` would review it, and the judged verdict must hold. Cases the bot
still gets wrong are strict xfails naming the part of issue 9 that fixes them: when a fix lands they pass,
strict xfail fails, and the mark comes off.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from benchmarks.judged import REAL, Case, build_extract, flagged, load_cases
from bot.git.local import load_changeset
from bot.review.engine import review
from rules.core.models import PullRequest, Report

AGT001_EVIDENCE = "issue 9: part 1 (AGT001 decides regression tests from evidence)"
AGT001_COVERED = "issue 9: part 1 (class docstring and issue references cover the test)"
AGT002_HELPERS = "issue 9: part 2 (helper assertions and must-not-raise tests can fail)"
AGT002_LITERALS = "issue 9: part 2 (assertions re-checking the test's own literals cannot fail)"
PRIMERL_KINDS = "issue 9: part 5 (RL trainer configs are not SFT profiles)"
PRIMERL_PAIRS = "issue 9: part 5 (profiles paired by path, not by git's rename guess)"

# Why the bot still gets a judged case wrong -> the cases, as "extract test-or-path rule". Empty: every
# judged case holds. A case the bot gets wrong again goes here with its reason, as a strict xfail.
_WRONG: dict[str, tuple[str, ...]] = {
    # A mypy-only check in testing/typing_checks.py guards a typing fix; pytest never collects the file,
    # so whether it is a "test" the rule covers is arguable (judged yes by the sampling rule's definition).
    "issue 9: a typing check in a file no runner collects": ("pytest-a95bea7 test_hidden_param AGT001",),
    # A fix PR adds two unnamed tests; only the non-string one reproduces the bug, the string one checks
    # that the old path still works. Nothing general tells them apart (arguable: a maintainer might ask
    # for a reference on both).
    "issue 9: a fix PR's non-reproducing companion test": (
        "pytest-9f9b7f4 test_pytester_subprocess_with_string_plugins AGT001",
    ),
    # A fix PR ("fix-2781" branch, "fix: validate marker names" commit) adding four unnamed tests, which
    # its own changelog/2781.feature.rst calls a feature: with more than FEW = 3 unnamed tests a test
    # counts only when the change is a fix as a whole (no other kind of fragment) and its name shares two
    # words with the title. Judged yes before the fragment was seen; arguable.
    "issue 9: a fix PR with more than three new tests and a feature fragment": (
        "pytest-5fd2be0 test_strict_prohibits_unregistered_markers_in_markexpr AGT001",
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


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Report]:
    """The Report of an extract, built and reviewed once for all its cases (some extracts hold a dozen)."""
    reports: dict[str, Report] = {}

    def get(extract: str) -> Report:
        if extract not in reports:
            repo = tmp_path_factory.mktemp(extract) / "repo"
            base, head = build_extract(REAL / extract, repo)
            reports[extract] = review(load_changeset(repo, base=base, head=head, pr=PullRequest()))
        return reports[extract]

    return get


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_judged_case(reviewed: Callable[[str], Report], case: Case) -> None:
    report = reviewed(case.extract)
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
