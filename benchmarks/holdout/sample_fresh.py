"""Builds the records of the fresh AGENTS.md sentence hold-out (`sentences-fresh.jsonl`, issue 23).

    python benchmarks/holdout/sample_fresh.py MIRRORS_DIR CANDIDATES.txt OUT.jsonl [--labels LABELS.json]

The sampling rule is the one of `sample_enriched.py` (its steps 1-4, reused from that script: guides at any
depth, a repository kept only with a FAMILY sentence and a permissive LICENSE at HEAD, the innermost sections
about tests/PRs/branches/commits/git or holding a FAMILY sentence), with two differences fixed before any
sentence was labelled:

- Excluded: issue 23's list and every repository of the three existing sets (the corpus,
  `sentences-new.jsonl` and `sentences-enriched.jsonl`, read at run time).
- Split: every record is `holdout`; the whole set is the next hold-out (no tuning part).

Nothing under `rules/` is imported or run; labels are hand-written (`--labels`, keyed by repository and
`path:line:index-on-line`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sample_enriched as base  # noqa: E402

CORPORA = base.CORPORA + ("benchmarks/holdout/sentences-enriched.jsonl",)
# Guides whose own folder is under a non-permissive licence although the repository's LICENSE is permissive:
# shakacode/react_on_rails's LICENSE.md puts `react_on_rails_pro/` under the commercial React on Rails Pro
# License (the root AGENTS.md is under MIT). Not quoted.
EXCLUDED_PATHS = {("shakacode/react_on_rails", "react_on_rails_pro/AGENTS.md")}
FIELDS = ("repo", "commit", "path", "line", "licence", "sentence", "heading", "under", "labels")


def main(
    argv: list[str] | None = None,
    corpora: tuple[str, ...] = CORPORA,
    split_of: Callable[[str], str] = lambda repo: "holdout",
    description: str = (__doc__ or "").splitlines()[0],
) -> int:
    """Build the records; corpora are the earlier sets whose repositories are excluded, split_of names each
    repository's split (sample_s3.py reuses this with its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("mirrors", type=Path)
    parser.add_argument("candidates", type=Path, help="one owner/name a line")
    parser.add_argument("out", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    excluded = set(base.EXCLUDED)
    for corpus in corpora:
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
