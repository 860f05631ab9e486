"""The prechecks that let a case-insensitive pattern skip a text: each is a necessary condition of a match.

A precheck that missed a match would silently change what a rule finds, so each is checked on texts the
pattern matches, spelled with every character re's IGNORECASE takes for an ASCII letter.
"""

from __future__ import annotations

import re
import sys

import pytest

from rules.core.prefilter import folded, may_hold
from rules.testcode import regression_evidence as evidence
from rules.testcode import regression_reference as reference

# Every non-ASCII character re's IGNORECASE takes for an ASCII letter, and that letter.
ODD = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


def test_the_odd_letters_are_all_there_are() -> None:
    """If a Python release adds a case equivalence for an ASCII letter, folded() must learn it."""
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    found = {c for c in re.findall("[a-z]", every, re.IGNORECASE) if not c.isascii()}
    assert found == set(ODD)


@pytest.mark.parametrize("odd", sorted(ODD))
def test_folded_turns_each_odd_letter_into_its_ascii_letter(odd: str) -> None:
    assert folded(f"x{odd}y") == f"x{ODD[odd]}y"


def _spellings(text: str) -> list[str]:
    """text as written, upper-cased, and with each ASCII letter that has an odd twin spelled by it."""
    out = [text, text.upper()]
    for odd, letter in ODD.items():
        out.append(text.replace(letter, odd).replace(letter.upper(), odd))
    return out


# (pattern, what its matches need, texts it matches)
CASES = [
    (
        reference._REFERENCE_WORDS,
        reference._WORDS_NEED,
        [
            "PR 12",
            "pull request #3",
            "pr-  4",
            "Pull Request\t# 5",
            "GH-12",
            "commit 1a2b3c4",
            "COMMIT  ABCDEF1",
        ],
    ),
    (reference._ISSUE_WORDS, ("issue",), ["issue 12", "Issue #3"]),
    (reference._MARK_WORDS, reference._MARK_NEED, ["regression", "guards", "bug", "bugfix_x"]),
    (
        evidence._STRONG,
        evidence._STRONG_NEED,
        [
            "regressed",
            "bugs",
            "hotfix",
            "fixing",
            "guarded",
            "crashes",
            "reproducer",
            "no longer",
            "issue 12",
            "issues/12",
            "the issue",
        ],
    ),
    (
        evidence._WEAK,
        evidence._WEAK_NEED,
        ["again", "instead of", "used to", "anymore", "any more", "stops raising"],
    ),
    (
        evidence._WAS_BROKEN,
        evidence._WAS_BROKEN_NEED,
        [
            "Previously, it raised",
            "Formerly the call failed",
            "Before this fix it crashed",
        ],
    ),
]


@pytest.mark.parametrize(("pattern", "need", "texts"), CASES, ids=lambda v: getattr(v, "pattern", "")[:20])
def test_each_precheck_holds_wherever_its_pattern_matches(
    pattern: re.Pattern[str], need: tuple[str, ...] | re.Pattern[str], texts: list[str]
) -> None:
    for text in texts:
        for spelled in _spellings(text):
            if pattern.search(spelled):
                if isinstance(need, re.Pattern):
                    assert need.search(folded(spelled)), spelled
                else:
                    assert may_hold(spelled, need), spelled
        assert pattern.search(text), text  # each case matches as written


def test_hash_and_hex_prechecks_hold_wherever_their_patterns_match() -> None:
    for text in ["#12", "o/r#12", "see #3."]:
        assert reference._REFERENCE_HASH.search(text) and reference._HASH_NEED.search(text)
    for text in ["1a2b3c4", "DEADBEEF1", "commit ABCDEF0123"]:
        assert reference._REFERENCE_HEX.search(text) and reference._HEX_NEED.search(folded(text))


def test_a_reference_spelled_with_odd_letters_still_counts() -> None:
    """re takes `ſ` for `s` and `İ` for `i`: a docstring the pattern accepted is accepted still."""
    assert reference.names_reference("Guards pull requeſt 12.")
    assert reference.names_reference("Guards \u0130ssue 12.", issues=True)
    assert reference.names_reference("Guards \u212a PR 12.")
    assert not reference.names_reference("Guards nothing.")
