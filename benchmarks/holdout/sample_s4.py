"""Builds the records of the fourth AGENTS.md sentence set, s4 (`sentences-s4.jsonl`): tuning and hold-out.

    python benchmarks/holdout/sample_s4.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_enriched.py`, `sample_fresh.py` and `sample_s3.py` (steps 1-4 of
`sample_enriched.py`, reused from it: guides at any depth, a repository kept only with a FAMILY sentence and a
permissive LICENSE at HEAD, the innermost sections about tests/PRs/branches/commits/git or holding a FAMILY
sentence), with these differences, fixed before any sentence was labelled:

- Excluded: issue 23's list and every repository of the five existing sets (the corpus,
  `sentences-new.jsonl`, `sentences-enriched.jsonl`, `sentences-fresh.jsonl` and `sentences-s3.jsonl`, read at
  run time).
- Split by repository, half and half: `holdout4` when int(sha256(repo), 16) % 2 == 0, else `tune4`.

Nothing under `rules/` or `bot/` is imported or run; labels are hand-written (`--labels`, keyed by
repository and `path:line:index-on-line`; a record not in the file is labelled nothing).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_fresh as fresh  # noqa: E402
import sample_s3 as s3  # noqa: E402

CORPORA = s3.CORPORA + ("benchmarks/holdout/sentences-s3.jsonl",)
EXCLUDED_PATHS = s3.EXCLUDED_PATHS
FIELDS = s3.FIELDS


def split_of(repo: str) -> str:
    return "holdout4" if int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 2 == 0 else "tune4"


def main(argv: list[str] | None = None) -> int:
    return fresh.main(argv, CORPORA, split_of, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(main())
