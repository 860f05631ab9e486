"""Builds the records of the sixth AGENTS.md sentence set, s6 (`sentences-s6.jsonl`): hold-out only.

    python benchmarks/holdout/sample_s6.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_enriched.py`, `sample_fresh.py`, `sample_s3.py`, `sample_s4.py` and
`sample_s5.py` (steps 1-4 of `sample_enriched.py`, reused from it: guides at any depth, a repository kept only
with a FAMILY sentence and a permissive LICENSE at HEAD, the innermost sections about
tests/PRs/branches/commits/git or holding a FAMILY sentence), with these differences, fixed before any
sentence was labelled:

- Candidates: the part of s5's sampling frame that s5 never read (`s5-candidates-unread.txt`, in its order),
  less any repository already in an earlier set (`s6-candidates.txt` is the part read).
- Excluded: issue 23's list and every repository of the seven existing sets (the corpus,
  `sentences-new.jsonl`, `sentences-enriched.jsonl`, `sentences-fresh.jsonl`, `sentences-s3.jsonl`,
  `sentences-s4.jsonl` and `sentences-s5.jsonl`, read at run time).
- Copies (the rule s5 added before labelling): a kept repository is removed when at least half of its kept
  non-heading sentences occur word for word (after whitespace is collapsed) among the sentences of an
  earlier repository, that is one of the seven existing sets or a repository kept earlier in the candidate
  order.
- Split: every record is `holdout6`; the whole set measures the reader (no tuning part).

Nothing under `rules/` or `bot/` is imported or run; labels are hand-written (`--labels`, keyed by
repository and `path:line:index-on-line`; a record not in the file is labelled nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_fresh as fresh  # noqa: E402
import sample_s5 as s5  # noqa: E402

CORPORA = s5.CORPORA + ("benchmarks/holdout/sentences-s5.jsonl",)
EXCLUDED_PATHS = s5.EXCLUDED_PATHS
FIELDS = s5.FIELDS
COPY_SHARE = 0.5


def split_of(repo: str) -> str:
    return "holdout6"


def _norm(sentence: str) -> str:
    return " ".join(sentence.split())


def drop_copies(rows: list[dict], earlier: set[str]) -> tuple[list[dict], list[tuple[str, float]]]:
    """Remove the repositories whose non-heading sentences are at least COPY_SHARE verbatim in `earlier`
    (the earlier sets) or in a repository kept before them in `rows` order."""
    seen = set(earlier)
    by_repo: dict[str, list[dict]] = {}
    for row in rows:
        by_repo.setdefault(row["repo"], []).append(row)
    kept: list[dict] = []
    removed = []
    for repo, recs in by_repo.items():
        body = [_norm(r["sentence"]) for r in recs if not r["heading"]]
        share = sum(s in seen for s in body) / len(body) if body else 0.0
        if body and share >= COPY_SHARE:
            removed.append((repo, share))
        else:
            kept.extend(recs)
        seen.update(_norm(r["sentence"]) for r in recs)
    return kept, removed


def main(
    argv: list[str] | None = None,
    corpora: tuple[str, ...] = CORPORA,
    split: Callable[[str], str] = split_of,
    title: str = (__doc__ or "").splitlines()[0],
) -> int:
    """Builds the set as sample_fresh does, then removes the copies (a later set passes its own corpora,
    split and title)."""
    code = fresh.main(argv, corpora, split, title)
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("mirrors")
    parser.add_argument("candidates")
    parser.add_argument("out", type=Path)
    parser.add_argument("--labels")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    out, root, labels_given = args.out, args.root, args.labels is not None
    earlier = set()
    for corpus in corpora:
        for line in (root / corpus).read_text().splitlines():
            earlier.add(_norm(json.loads(line)["sentence"]))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rows, removed = drop_copies(rows, earlier)
    for repo, share in removed:
        print(f"{repo}\tcopy removed ({share:.0%} of its sentences seen earlier)\t0")
    with out.open("w") as fh:
        for row in rows:
            if labels_given:
                row.pop("_key", None)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
