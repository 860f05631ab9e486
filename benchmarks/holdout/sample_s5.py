"""Builds the records of the fifth AGENTS.md sentence set, s5 (`sentences-s5.jsonl`): hold-out only.

    python benchmarks/holdout/sample_s5.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_enriched.py`, `sample_fresh.py`, `sample_s3.py` and `sample_s4.py`
(steps 1-4 of `sample_enriched.py`, reused from it: guides at any depth, a repository kept only with a FAMILY
sentence and a permissive LICENSE at HEAD, the innermost sections about tests/PRs/branches/commits/git or
holding a FAMILY sentence), with these differences, fixed before any sentence was labelled:

- Candidates: repositories holding an agent guide under a test folder (`tests/AGENTS.md`, `test/CLAUDE.md`,
  ...), listed by path and name only before any guide was read (`s5-candidates.txt`, in listing order).
- Excluded: issue 23's list and every repository of the six existing sets (the corpus,
  `sentences-new.jsonl`, `sentences-enriched.jsonl`, `sentences-fresh.jsonl`, `sentences-s3.jsonl` and
  `sentences-s4.jsonl`, read at run time).
- Split: every record is `holdout5`; the whole set measures the reader (no tuning part).

Nothing under `rules/` or `bot/` is imported or run; labels are hand-written (`--labels`, keyed by
repository and `path:line:index-on-line`; a record not in the file is labelled nothing).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_fresh as fresh  # noqa: E402
import sample_s4 as s4  # noqa: E402

CORPORA = s4.CORPORA + ("benchmarks/holdout/sentences-s4.jsonl",)
EXCLUDED_PATHS = s4.EXCLUDED_PATHS
FIELDS = s4.FIELDS


def split_of(repo: str) -> str:
    return "holdout5"


def main(argv: list[str] | None = None) -> int:
    return fresh.main(argv, CORPORA, split_of, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(main())
