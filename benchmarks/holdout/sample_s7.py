"""Builds the records of the seventh AGENTS.md sentence set, s7 (`sentences-s7.jsonl`): hold-out only.

    python benchmarks/holdout/sample_s7.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_s6.py` (and through it of `sample_enriched.py`, steps 1-4: guides at
any depth, a repository kept only with a FAMILY sentence and a permissive LICENSE at HEAD, the innermost
sections about tests/PRs/branches/commits/git or holding a FAMILY sentence), with these differences, fixed
before any sentence was read:

- Candidates: a new frame (`s7-candidates.txt` is the part read, `s7-candidates-unread.txt` the rest): the
  holders of six guide paths under test folders and other paths (`tests/AGENTS.md`, `tests/CLAUDE.md`,
  `e2e/AGENTS.md`, `tests/e2e/AGENTS.md`, `spec/AGENTS.md`, `tests/e2e/CLAUDE.md`, in that order, holders
  in listing order), less any repository met earlier in the frame or named in an earlier sampling frame
  or in issue 23's excluded list.
- Excluded: issue 23's list and every repository of the eight existing sets (the corpus,
  `sentences-new.jsonl`, `sentences-enriched.jsonl`, `sentences-fresh.jsonl`, `sentences-s3.jsonl`,
  `sentences-s4.jsonl`, `sentences-s5.jsonl` and `sentences-s6.jsonl`, read at run time).
- Copies (s6's rule, unchanged): a kept repository is removed when at least half of its kept non-heading
  sentences occur word for word (after whitespace is collapsed) among the sentences of an earlier
  repository, that is one of the eight existing sets or a repository kept earlier in the candidate order.
- Split: every record is `holdout7`; the whole set measures the reader (no tuning part).

Nothing under `rules/` or `bot/` is imported or run; labels are hand-written (`--labels`, keyed by
repository and `path:line:index-on-line`; a record not in the file is labelled nothing).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_s6 as s6  # noqa: E402

CORPORA = s6.CORPORA + ("benchmarks/holdout/sentences-s6.jsonl",)
EXCLUDED_PATHS = s6.EXCLUDED_PATHS
FIELDS = s6.FIELDS
COPY_SHARE = s6.COPY_SHARE


def split_of(repo: str) -> str:
    return "holdout7"


def main(argv: list[str] | None = None) -> int:
    return s6.main(argv, CORPORA, split_of, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(main())
