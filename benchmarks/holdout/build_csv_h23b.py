"""Writes agt001-<owner>+<name>.csv from the sampler's picks and a labels file.

    python3 benchmarks/holdout/build_csv_h23b.py REPO PICKS LABELS HEADER_COMMENT OUT

PICKS: lines `sha,path,test` (sample_h23b.py output); LABELS: tab-separated `sha12 test expected reason`.
Every pick must have a label; the split is the issue-23 hash by repository and commit.
"""

import csv
import hashlib
import sys

repo, picks, labels, comment, out = sys.argv[1:6]
lab = {}
for line in open(labels, encoding="utf-8"):
    if line.strip():
        sha12, test, expected, reason = line.rstrip("\n").split("\t")
        assert expected in ("yes", "no"), line
        lab[(sha12, test)] = (expected, reason)
rows = []
for line in open(picks, encoding="utf-8"):
    sha, path, test = line.strip().split(",")
    expected, reason = lab.pop((sha[:12], test))
    split = "holdout" if int(hashlib.sha256(f"{repo}:{sha}".encode()).hexdigest(), 16) % 2 == 0 else "tune"
    rows.append([repo, sha, path, test, "", "AGT001", expected, reason, split])
assert not lab, f"labels without a pick: {lab}"
with open(out, "w", encoding="utf-8", newline="") as fh:
    fh.write(f"# {comment}\n")
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["repository", "commit", "path", "test", "line", "rule", "expected", "reason", "split"])
    w.writerows(rows)
