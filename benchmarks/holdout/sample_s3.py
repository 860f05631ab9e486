"""Builds the records of the third AGENTS.md sentence set, s3 (`sentences-s3.jsonl`): tuning and hold-out.

    python benchmarks/holdout/sample_s3.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_enriched.py` and `sample_fresh.py` (steps 1-4 of `sample_enriched.py`,
reused from it: guides at any depth, a repository kept only with a FAMILY sentence and a permissive LICENSE at
HEAD, the innermost sections about tests/PRs/branches/commits/git or holding a FAMILY sentence), with these
differences, fixed before any sentence was labelled:

- Excluded: issue 23's list and every repository of the four existing sets (the corpus, `sentences-new.jsonl`,
  `sentences-enriched.jsonl` and `sentences-fresh.jsonl`, read at run time).
- Split by repository: `holdout3` when int(sha256(repo), 16) % 5 == 0 (a fifth), else `tune3`.

Nothing under `rules/` or `bot/` is imported or run; labels are hand-written (`--labels`, keyed by
repository and `path:line:index-on-line`; a record not in the file is labelled nothing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_enriched as base  # noqa: E402
import sample_fresh as fresh  # noqa: E402

CORPORA = fresh.CORPORA + ("benchmarks/holdout/sentences-fresh.jsonl",)
EXCLUDED_PATHS = set(fresh.EXCLUDED_PATHS)
FIELDS = fresh.FIELDS


def split_of(repo: str) -> str:
    return "holdout3" if int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 5 == 0 else "tune3"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path)
    parser.add_argument("candidates", type=Path, help="one owner/name a line")
    parser.add_argument("out", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    excluded = set(base.EXCLUDED)
    for corpus in CORPORA:
        for line in (args.root / corpus).read_text().splitlines():
            excluded.add(json.loads(line)["repo"])
    labels = json.loads(args.labels.read_text()) if args.labels else {}
    rows = []
    for repo in [r.strip() for r in args.candidates.read_text().splitlines() if r.strip()]:
        mirror = args.mirrors / repo.replace("/", "+") / "repo"
        if not mirror.exists():
            print(f"{repo}\tno snapshot\t0")
            continue
        recs, why = base.records_of(repo, mirror, excluded)
        recs = [rec for rec in recs if (repo, rec["path"]) not in EXCLUDED_PATHS]
        print(f"{repo}\t{why}\t{len(recs)}")
        for rec in recs:
            key = rec.pop("_key")
            extra = labels.get(repo, {}).get(key, {})
            row = {k: rec[k] for k in FIELDS}
            row["labels"] = extra.get("labels", {})
            for field in ("note", "family"):
                if field in extra:
                    row[field] = extra[field]
            row["split"] = split_of(repo)
            row["source"] = rec["source"]
            if not args.labels:
                row["_key"] = key
            rows.append(row)
    with args.out.open("w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
