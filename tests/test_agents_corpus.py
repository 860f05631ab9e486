"""The AGENTS.md recogniser on real sentences: precision, recall of "turns a rule on", no silent opt-out."""

import pytest

from benchmarks.agents_corpus import CODES, load, measure

PERMISSIVE = {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MIT OR Apache-2.0"}
RECORDS = load()
RESULT = measure(RECORDS)


def test_corpus_is_real_sized_and_quotable():
    assert len(RECORDS) >= 150
    assert len({r["repo"] for r in RECORDS}) >= 20
    for r in RECORDS:
        assert r["licence"] in PERMISSIVE, r["repo"]
        assert len(r["commit"]) == 40 and r["line"] >= 1 and r["sentence"].strip(), r
        assert set(r["labels"]) <= set(CODES), r
        for label in r["labels"].values():
            effect = label["effect"] if isinstance(label, dict) else label
            assert effect in ("on", "off"), r
            # Every opt-out a maintainer wrote is explained, so that the benchmark can say why it counts.
            assert effect != "off" or r.get("note"), r


@pytest.mark.parametrize("key", [*CODES, "all"])
def test_turns_on_precision(key):
    score = RESULT.scores[key]
    assert score.precision is None or score.precision >= 0.95, (key, RESULT.confusions)


def test_turns_on_recall():
    assert RESULT.scores["all"].recall >= 0.85, RESULT.confusions


def test_no_rule_is_turned_off_silently():
    # Every sentence read as an opt-out is one a maintainer meant as one, and the review's notes name it.
    assert [(r["sentence"], code) for r, code, note in RESULT.offs if note is None] == []
    wrong = [(r["sentence"], code) for r, code, _ in RESULT.offs if r["labels"].get(code) != "off"]
    assert wrong == []
