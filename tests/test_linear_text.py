"""Every matcher on PR-controlled text does work linear in its input, on hostile shapes.

Nothing here holds a time limit: each case measures the same matcher on the same shape at n and 4n
characters, in the same test, and fails where the larger input costs far more than four times the smaller
(quadratic work costs sixteen times). Cases too fast to measure at 4n pass: they are not super-linear
at a size anyone could notice. benchmarks/hostile_text.py prints the slowest shape per matcher at 1 MiB.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from functools import lru_cache

import pytest

from benchmarks.hostile_text import (
    MATCHERS,
    NOT_PR_TEXT,
    NOT_RUN_HERE,
    PREFIXES,
    coverage_texts,
    lead_shapes,
    module_patterns,
    shapes,
    unreached,
)
from bot.github.blocks import shown_lines
from rules.agents_md import reader as agents
from rules.catalog import REGISTRY
from rules.core.models import PullRequest
from rules.testcode import regression_evidence, regression_reference
from rules.testcode.regression_evidence import _IMPORT, _cues, pr_evidence
from rules.testcode.regression_reference import names_reference
from rules.training import claims as claims_module
from rules.training.claims import claims

RATIO = 10.0  # linear work gives about 4, quadratic about 16
MEASURABLE = 0.1  # seconds at 4n below which a ratio is noise


def _comment_lines(body: str) -> object:
    return shown_lines.__wrapped__(body)  # past the cache: each call does the work


def _best(work, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work(text)
        best = min(best, time.perf_counter() - start)
    return best


def assert_linear(work, make, n: int) -> None:
    """work(make(4n)) costs at most RATIO times work(make(n)), or too little to tell."""
    small, large = make(n), make(4 * n)
    t_large = _best(work, large, 1)
    if t_large < MEASURABLE:
        return
    t_small, t_large = _best(work, small), _best(work, large, 2)
    assert t_large < MEASURABLE or t_large / t_small < RATIO, (
        f"{len(large)} chars took {t_large:.3f}s, {len(small)} took {t_small:.4f}s"
    )


RECOGNISER = agents.Recogniser.of(REGISTRY.values())

# The breaks reported in issue 10, each at the call the report names.
REPORTED = {
    # One 30 KB sentence of AGENTS.md: minutes in the recogniser's patterns.
    "agents-one-sentence": (
        lambda t: agents.read_file("AGENTS.md", t, RECOGNISER),
        lambda n: "Regression test " + "test " * (n // 5) + "must name the PR.",
    ),
    "agents-negations": (
        lambda t: agents.read_file("AGENTS.md", t, RECOGNISER),
        lambda n: "No " + "no " * (n // 3),
    ),
    # An 80 KB CLAUDE.md of a/a/a/...: the "defers to AGENTS.md" pattern.
    "claude-defers-to": (
        lambda t: agents._deferral("CLAUDE.md", t, {"AGENTS.md"}),
        lambda n: "a/" * (n // 2),
    ),
    # Sentence splitting: every full stop rescanned the sentence so far and copied the rest.
    "sentence-split-stops": (agents._split_sentences, lambda n: "a." * (n // 2)),
    "sentence-split-lower": (agents._split_sentences, lambda n: "x. " * (n // 3)),
    # A paragraph of many lines and many sentences: each sentence looked for its line among all lines.
    "sentence-lines": (lambda t: list(agents.sentences(t)), lambda n: "A.\n" * (n // 3)),
    # Many folders in one sentence: each looked back to the start of the sentence for "under".
    "folders-listed": (agents.folders, lambda n: "`a/` " * (n // 5)),
    # A run of spaces inside a sentence: patterns with `\s+` rescanned it from each space.
    "clause-spaces": (agents.clauses, lambda n: "a" + " " * n + "b"),
    # A PR description of blank lines or unclosed comments: `^\s*` and a lazy `<!--.*?-->` rescanned the
    # rest of the text from every line (100 KB of newlines: 191 s).
    "pr-body-newlines": (lambda t: pr_evidence(PullRequest(body=t), frozenset()), lambda n: "\n" * n),
    "pr-body-comments": (
        lambda t: pr_evidence(PullRequest(body=t), frozenset()),
        lambda n: "<!--" * (n // 4),
    ),
    # A comment of one-backtick lines: every line rescanned the paragraph above it (65 KB: 77 s).
    "comment-backtick-lines": (_comment_lines, lambda n: "`\n" * (n // 2)),
    # A table delimiter row ending in a long run of spaces: two `[ \t]*` in a row (100 KB: 52 s).
    "comment-table-spaces": (_comment_lines, lambda n: "a|b\n-" + " " * n + "x"),
    # The rendered comment's HTML: tags left open, a tag's attributes with no end, an unclosed comment.
    "comment-open-tags": (_comment_lines, lambda n: "@bot review\n" + "<span>" * (n // 6)),
    "comment-tag-attributes": (_comment_lines, lambda n: "@bot review\n\nx <a " + "b=c " * (n // 4)),
    "comment-html-block-attributes": (
        _comment_lines,
        lambda n: "<div " + "b " * (n // 2) + "\n\n@bot review",
    ),
    "comment-many-commands": (_comment_lines, lambda n: "@bot review\n" * (n // 12)),
    # A test file's import lines are read the same way.
    "test-imports-newlines": (lambda t: list(_IMPORT.finditer(t)), lambda n: "\n" * n),
    # "Previously, ... raised" in a test's comment: each opening word looks at most 120 characters on.
    "previously-openings": (lambda t: list(_cues(t, "c")), lambda n: "Previously, " * (n // 12)),
    "previously-after-blank-lines": (lambda t: list(_cues(t, "c")), lambda n: "\n \t" * (n // 3)),
}

# The breaks reported in issue 22: a word a pattern keys on, then one long run that two quantifiers in a
# row split every way. Each is the call the report names.
REPORTED_22 = {
    # TRN005: "max_steps" and 4,000 spaces in a PR description (cubic: `bot review` never finished).
    "claim-key-spaces": (claims, lambda n: "max_steps" + " " * n + "x", 250),
    # A claim followed by spaces: "max_steps: 38 (before)" looks on past the number.
    "claim-after-spaces": (claims, lambda n: "max_steps 38" + " " * n + "x", 2_000),
    # TRN005's table separator row: `|--` and spaces (10 s at the 64 KB cap).
    "claim-table-rule-spaces": (claims, lambda n: "|--" + " " * n + "x", 2_000),
    # AGT001: a docstring "PR" or "issue" then whitespace (a 1 MB docstring: hours).
    "reference-pr-spaces": (names_reference, lambda n: "PR" + " " * n + "x", 2_000),
    "reference-issue-spaces": (lambda t: names_reference(t, True), lambda n: "issue" + "\n" * n + "x", 2_000),
    # The fix evidence: a description "Fix typo issue" and spaces (25 s at the 64 KB cap).
    "evidence-fix-typo-issue": (
        lambda t: pr_evidence(PullRequest(body=t), frozenset()),
        lambda n: "Fix typo issue" + " " * n + "x",
        2_000,
    ),
    # Found by the sweep: AGENTS.md folders listed with spaces between, and "but" after a run of spaces.
    # (What stands between two folders of a list; a negation's scope within a clause.)
    "folders-listed-spaces": (agents._LISTED.fullmatch, lambda n: " " * n + "x", 2_000),
    "negation-scope-spaces": (lambda t: agents.negated(t, len(t)), lambda n: "a" + " " * n + "x", 4_000),
    "agents-table-rule-spaces": (agents._TABLE_RULE.match, lambda n: " " * n + "x", 2_000),
}


@pytest.mark.parametrize("name", sorted(REPORTED_22))
def test_issue_22_breaks_are_linear(name):
    work, make, n = REPORTED_22[name]
    assert_linear(work, make, n)


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_reported_breaks_are_linear(name):
    work, make = REPORTED[name]
    assert_linear(work, make, 8_000)


@lru_cache(maxsize=3)
def _shapes(n: int) -> dict[str, str]:
    """The shapes behind the first two prefixes at n characters, built once for every matcher: building all
    of them for each shape cost as much as the matchers did."""
    return shapes(n, PREFIXES[:2])


@pytest.mark.parametrize("matcher", sorted(MATCHERS))
def test_every_matcher_is_linear_on_hostile_shapes(matcher):
    work = MATCHERS[matcher]
    for key in _shapes(10):
        assert_linear(work, lambda n, key=key: _shapes(n)[key], 4_000)


@lru_cache(maxsize=3)
def _lead_shapes(n: int) -> dict[str, str]:
    return lead_shapes(n)


@pytest.mark.parametrize("matcher", sorted(MATCHERS))
def test_every_matcher_is_linear_on_a_long_run_after_a_lead(matcher):
    work = MATCHERS[matcher]
    for key in _lead_shapes(10):
        assert_linear(work, lambda n, key=key: _lead_shapes(n)[key], 4_000)


def test_the_benchmark_runs_every_pattern_pr_text_reaches():
    """Every compiled pattern of rules/ and bot/ is used by a matcher of benchmarks/hostile_text.py on its
    shapes, or is listed there as reading no PR text, or as bounded by its form (with the reason)."""
    assert unreached(coverage_texts()) == []


def test_the_patterns_listed_as_not_run_still_exist():
    """A listed pattern that was renamed or removed would hide a new one of the same name's place."""
    names = {name for _, name in module_patterns().values()}
    assert set(NOT_PR_TEXT) | set(NOT_RUN_HERE) <= names


# --- The rewritten patterns match what they matched before, on every short text of their words --------

# (the pattern as it was, its flags, the pattern now, how it is applied, the pieces texts are made of)
_REWRITTEN = {
    "claim": (
        rf"(?<![\w.])(?P<key>{claims_module._KEY})`?\s*(?:=|:|is|of|to|becomes)?\s*`?\s*"
        rf"(?:(?:from\s+)?{claims_module._NUMBER}\s*(?:->|→|to)\s*)?(?P<value>{claims_module._NUMBER})(?!\w|\.\d)",
        re.IGNORECASE,
        claims_module._CLAIM,
        "finditer",
        ("max_steps", " ", "  ", "=", ":", "is", "`", "38", "->", "to", "from ", "x", "1_0", ".5"),
    ),
    "claim-past-after": (
        rf"\s*[(\[]?\s*(?:{claims_module._PAST}|on main|at base)\b",
        re.IGNORECASE,
        claims_module._PAST_AFTER,
        "match",
        (" ", "  ", "(", "[", "before", "was", "on main", "x", "\n"),
    ),
    "claim-table-rule": (
        r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$",
        0,
        claims_module._TABLE_RULE,
        "match",
        ("|", "-", "--", ":", " ", "x", "\t"),
    ),
    "reference-words": (
        r"\b(?:(?:PR|pull\ request)\s*[#-]?\s*\d+|GH-\d+|commit\s+[0-9a-f]{7,40})\b",
        re.IGNORECASE,
        regression_reference._REFERENCE_WORDS,
        "finditer",
        ("PR", "pull request", " ", "#", "-", "12", "x", "GH-", "commit ", "abcdef1", "\n"),
    ),
    "issue-words": (
        r"\bissue\s*#?\s*\d+\b",
        re.IGNORECASE,
        regression_reference._ISSUE_WORDS,
        "finditer",
        ("issue", " ", "#", "12", "x", "\t", "-"),
    ),
    "strong-words": (
        regression_evidence._STRONG.pattern.replace(r"issue\s*+(?:[#-]\s*+)?\d+", r"issue\s*[#-]?\s*\d+"),
        re.IGNORECASE | re.VERBOSE,
        regression_evidence._STRONG,
        "finditer",
        ("issue", " ", "#", "-", "12", "x", "fix", "the ", "issues/", "\n"),
    ),
    # Possessive runs of space (a megabyte docstring of "Previously" and tabs: 1 s in this pattern alone).
    "weak-words": (
        r"\b(?:again|instead\s+of|used\s+to|any\s?more|stop(?:s|ped)?\s+\w+ing)\b",
        re.IGNORECASE,
        regression_evidence._WEAK,
        "finditer",
        ("used", "instead", " ", "\t", "to", "of", "stops", "raising", "any", "more", "x"),
    ),
    "was-broken": (
        r"(?:^|[.!?;:][ \t\n][ \t]*|\n[ \t]*)"
        r"(Previously|Formerly|Before\s+this\s+(?:fix|change|patch|PR|commit))"
        r"(?:\s*,|\s+(?:this|that|it|they|we|the|an?|calling|using|passing)\b)[^.]{0,120}?"
        r"\b(raised|threw|thrown|failed|crashed|hung|broke|errored|segfaulted|was\s+(?:wrong|incorrect|broken))\b",
        re.IGNORECASE,
        regression_evidence._WAS_BROKEN,
        "finditer",
        ("Previously", "Before", "this", "fix", " ", "\n", ",", ". ", "it", "raised", "was", "wrong"),
    ),
    "agents-table-rule": (
        r"^\s*\|?\s*:?-{3,}",
        0,
        agents._TABLE_RULE,
        "match",
        ("|", "-", "---", ":", " ", "x"),
    ),
    "folders-listed": (
        r"\s*(?:,|,?\s*(?:and|or))\s*",
        re.IGNORECASE,
        agents._LISTED,
        "fullmatch",
        (" ", ",", "and", "or", "x", "\n", "AND"),
    ),
    "negation-scope": (
        r"[,;:(]|\s+but\s+",
        0,
        agents._NEGATION_SCOPE,
        "split",
        (" ", "but", ",", "x", "\n", "("),
    ),
}


def _applied(pattern: re.Pattern[str], how: str, text: str) -> object:
    if how == "finditer":
        return [(m.span(), m.groupdict()) for m in pattern.finditer(text)]
    if how == "split":
        return pattern.split(text)
    m = getattr(pattern, how)(text)
    return m and (m.span(), m.groupdict())


@pytest.mark.parametrize("name", sorted(_REWRITTEN))
def test_a_rewritten_pattern_matches_as_it_did(name):
    """Every text of up to five of the pattern's pieces: the same matches, spans and groups as before."""
    old_source, flags, new, how, pieces = _REWRITTEN[name]
    old = re.compile(old_source, flags)
    assert old.pattern != new.pattern
    for size in range(6):
        for parts in itertools.product(pieces, repeat=size):
            text = "".join(parts)
            assert _applied(new, how, text) == _applied(old, how, text), text


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("This gives max_steps = 38.", [("max_steps", 38)]),
        ("`max_steps`: `38`", [("max_steps", 38)]),
        ("max_steps is 38 and decay_steps of 12", [("max_steps", 38), ("decay_steps", 12)]),
        ("max_steps from 40 -> 38", [("max_steps", 38)]),
        ("max_steps  :  ` 38", [("max_steps", 38)]),
        ("| key | after |\n|--|--|\n| max_steps | 38 |", [("max_steps", 38)]),
        ("| key | after |\n| :-- | --: |\n| max_steps | 38 |", [("max_steps", 38)]),
    ],
)
def test_claims_still_read_as_before(body, expected):
    assert [(c.key, c.value) for c in claims(body)] == expected


def test_a_claim_followed_by_a_past_marker_is_still_past():
    (claim,) = claims("max_steps: 38   (before)")
    assert claim.past


@pytest.mark.parametrize(
    ("docstring", "issues", "expected"),
    [
        ("Guards PR #828.", False, True),
        ("Guards PR  -  828.", False, True),
        ("Guards pull request 828.", False, True),
        ("Guards PR x.", False, False),
        ("Guards issue #12.", True, True),
        ("Guards issue  # 12.", True, True),
        ("Guards issue 12.", False, False),
    ],
)
def test_references_still_read_as_before(docstring, issues, expected):
    assert names_reference(docstring, issues) is expected


def test_an_issue_number_is_still_a_strong_cue():
    assert [c.word for c in _cues("Checks issue  # 12 here.", "c")] == ["issue # 12"]
    assert [c.word for c in _cues("Checks issue-12.", "c")] == ["issue-12"]
    assert list(_cues("Checks issue x.", "c")) == []


def _split_by_character(text: str) -> list[tuple[int, int]]:
    """The sentence splitter as it was, one character at a time: the reference the faster one must match."""
    spans, start, depth, code = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == "`":
            code = not code
        elif code:
            continue
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch in ".!?" and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            lo = max(start, i - agents._LONGEST_ABBREVIATION - 1)
            word = agents._ABBREVIATION_TAIL.search(text, lo, i)
            whole = word is not None and (word.start() > lo or lo == start)
            nxt = agents._NEXT_WORD.search(text, i + 1)
            following = nxt.group() if nxt else ""
            if (whole and word and word.group().lower() in agents._ABBREVIATIONS) or following.islower():
                continue
            spans.append((start, i + 1))
            start = i + 1
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def test_sentences_split_as_they_did_one_character_at_a_time():
    pieces = ["a", "A", " ", "  ", ".", "!", "?", "(", ")", "[", "]", "`", "e.g", "etc", "No", "\n", "x."]
    rnd = random.Random(22)
    for _ in range(30_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 14)))
        assert agents._split_sentences(text) == _split_by_character(text), text


def test_a_sentence_too_long_to_be_a_rule_is_reported_not_read():
    text = "# Rules\n\n- Regression tests must name the PR. " + "Tests " * 400 + "must name the PR.\n"
    readings = agents.read_file("AGENTS.md", text, RECOGNISER)
    assert [r.on for r in readings if not r.heading] == [("AGT001",), ()]
    assert readings[-1].too_long and readings[-1].line == 3
    policy = agents.policy_of((agents.PolicyFile("AGENTS.md", "", readings),), ())
    assert any("line 3: a sentence of more than 1,000 characters is not read" in n for n in policy.notes())


def test_reading_stops_after_the_sentence_cap_and_says_where():
    text = "Regression tests must name the PR.\n" + "A.\n" * agents.MAX_SENTENCES
    readings = agents.read_file("AGENTS.md", text, RECOGNISER)
    assert readings[0].on == ("AGT001",)
    assert len(readings) == agents.MAX_SENTENCES + 1 and readings[-1].cut
    policy = agents.policy_of((agents.PolicyFile("AGENTS.md", "", readings),), ())
    assert f"line {agents.MAX_SENTENCES + 1} on it is not read" in " ".join(policy.notes())


@pytest.mark.parametrize(
    "text, target",
    [
        ("See AGENTS.md.", "AGENTS.md"),
        ("Follow docs/AGENTS.md here.", "docs/AGENTS.md"),
        ("Follow ../AGENTS.md.", "AGENTS.md"),
        ("a/" * 5000 + " and AGENTS.md", "AGENTS.md"),
    ],
)
def test_deferral_still_finds_its_target(text, target):
    assert agents._deferral("sub/CLAUDE.md", text, {"AGENTS.md", "sub/docs/AGENTS.md"}) in (
        target,
        "sub/" + target,
    )
