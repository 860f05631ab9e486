"""Every matcher on PR-controlled text does work linear in its input, on hostile shapes.

Nothing here holds a time limit: each case measures the same matcher on the same shape at n and 4n
characters, in the same test, and fails where the larger input costs far more than four times the smaller
(quadratic work costs sixteen times). Cases too fast to measure at 4n pass: they are not super-linear
at a size anyone could notice. benchmarks/hostile_text.py prints the slowest shape per matcher at 1 MiB.
"""

from __future__ import annotations

import time
from functools import lru_cache

import pytest

from benchmarks.hostile_text import MATCHERS, PREFIXES, shapes
from bot.github.blocks import shown_lines
from rules.agents_md import reader as agents
from rules.catalog import REGISTRY
from rules.core.models import PullRequest
from rules.testcode.regression_evidence import _IMPORT, _cues, pr_evidence

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
