"""The AGENTS.md recogniser on real sentences: precision, recall of "turns a rule on", no silent opt-out."""

import json
from pathlib import Path

import pytest

from benchmarks.agents_corpus import CODES, load, main, measure

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


NEW_CORPORA = [
    Path(__file__).resolve().parent.parent / "benchmarks" / "holdout" / name
    for name in ("sentences-new.jsonl", "sentences-enriched.jsonl")
]


def test_tune_splits_of_the_new_corpora():
    # Only the tuning records are read (load filters by split); the hold-out is scored once, elsewhere.
    result = measure([r for path in NEW_CORPORA for r in load(path, "tune")])
    score = result.scores["all"]
    assert score.precision >= 0.95 and score.recall >= 0.85, result.confusions
    assert [(r["sentence"], code) for r, code, note in result.offs if note is None] == []
    assert result.family_known >= 0.85 * result.family


def _record(repo: str, sentence: str, labels: dict, split: str | None) -> str:
    record = {"repo": repo, "commit": "0" * 40, "path": "AGENTS.md", "line": 3, "licence": "MIT"}
    record |= {"sentence": sentence, "heading": False, "under": "Rules", "labels": labels}
    if split:
        record["split"] = split
    return json.dumps(record)


def test_corpus_option_repeats_and_split_selects(tmp_path, capsys):
    one = tmp_path / "one.jsonl"
    one.write_text(_record("a/a", "Never weaken tests to make them pass.", {"AGT003": "on"}, None) + "\n")
    two = tmp_path / "two.jsonl"
    two.write_text(
        _record("b/b", "PRs target `main`.", {"AGT004": "on"}, "tune")
        + "\n"
        + _record("c/c", "Secret words never shown here.", {"AGT002": "on"}, "holdout")
        + "\n"
    )
    assert main(["--corpus", str(one), "--corpus", str(two), "--split", "tune"]) == 0
    tune = capsys.readouterr().out
    # The record without a split counts as tune; the hold-out record is not scored.
    assert tune.startswith("2 sentences from 2 repositories")
    assert main(["--corpus", str(one), "--corpus", str(two), "--split", "holdout"]) == 0
    held = capsys.readouterr().out
    assert held.startswith("1 sentences from 1 repositories")
    assert "AGT002             1        0      0        n/a   0.000" in held
    assert "without a note: 0" in held
    # Only the figures: no sentence, repository or path of the hold-out.
    assert "Secret" not in held and "c/c" not in held and "AGENTS.md" not in held
