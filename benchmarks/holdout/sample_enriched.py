"""Builds the records of the positive-enriched AGENTS.md sentence set (`sentences-enriched.jsonl`).

    python benchmarks/holdout/sample_enriched.py MIRRORS_DIR OUT.jsonl [--labels LABELS.json]

MIRRORS_DIR holds one bare git directory per candidate repository at `owner+name/repo` (the newest stored
snapshot). The sampling rule, fixed before any sentence was labelled:

1. Candidates: the repositories in CANDIDATES (named by the code search for the phrasing families, or
   well-known projects probed for an agent guide), minus every repository of the two existing corpora and
   the excluded list (EXCLUDED, plus the `repo` fields of the corpus files read at run time).
2. Guides: every AGENTS.md, CLAUDE.md, GEMINI.md and `.github/copilot-instructions.md` at any depth in the
   snapshot's HEAD tree (empty files and vendored copies under vendor/, third_party/, node_modules/ ...
   skipped).
3. A repository is kept only when at least one guide sentence (as the reader splits it; text inside code
   fences and HTML comments is not read) matches FAMILY (base/target/default branch, PRs
   against a named branch, weakened/tautological/always-passing tests, deleting/skipping/modifying tests to
   make them pass, fail-without-fix, regression tests with an issue/PR reference) and its LICENSE file at
   HEAD is one of the permissive licences in LICENCES.
4. From a kept guide: every sentence of each innermost section (a heading and the blocks up to the next
   heading of any level) whose heading is about tests, PRs, branches, commits or git (TOPIC), or which
   holds a FAMILY sentence; the text before the first heading counts as a section without a heading. Only
   guides with a FAMILY sentence contribute (another guide of a kept repository does not).
5. Split by repository, before labelling: `holdout` when sha256(repo) % 5 == 0, else `tune`.

Sentences are split with the rules of `rules.agents_md.reader.sentences` (blocks: heading / list item with
its continuation / table row / paragraph; a sentence ends at `.`, `!` or `?` before a space and a word not
in lower case, outside code spans and brackets, not after a known abbreviation), written out again here so
that nothing under `rules/` is imported or run. Labels are not computed: `--labels` merges a hand-written
file of labels (key `path:line:index-on-line`) into the records.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import re
import subprocess
from pathlib import Path

EXCLUDED = {
    "97gamjak/devops",
    "Kevinmthau/brynn-outfits",
    "PrefectHQ/prefect",
    "aio-libs/aiohttp",
    "apache/airflow",
    "freshtechbro/opendevbrowser",
    "galaxy-hitchhikers-42/data-wand-website",
    "getsentry/sentry",
    "getsentry/sentry-javascript",
    "home-assistant/core",
    "langchain-ai/langchain",
    "langfuse/langfuse",
    "meh2481/gl_test",
    "mongodb/specifications",
    "narwhals-dev/narwhals",
    "oven-sh/bun",
    "peytonmscott/droidforge",
    "pvliesdonk/mcp-devhatchery",
    "remix-run/react-router",
    "rolldown/rolldown",
    "shaun0927/claude-chrome-parallel",
    "streamlit/streamlit",
    "swc-project/swc",
    "vllm-project/vllm",
    "vuejs/core",
    "wojciechkarcz/wroclaw-bike-stats",
    "zen-rs/skyzen",
}
CORPORA = ("tests/fixtures/agents_corpus/sentences.jsonl", "benchmarks/holdout/sentences-new.jsonl")

# Copies of other projects' files (vendored dependencies) are not the repository's own guides.
VENDORED = re.compile(r"(?:^|/)(?:vendor|third_party|third-party|node_modules|external|\.venv)/")
GUIDE = re.compile(r"(?:^|/)(?:AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.github/copilot-instructions\.md)$")

FAMILY = re.compile(
    r"base branch|target branch|default branch|against .?(?:main|master|develop|dev)\b"
    r"|(?:target|into|to) (?:the )?`?(?:main|master|develop|dev|next|trunk)`? branch"
    r"|weaken|tautolog|always pass|never fail|can.?t fail|cannot fail"
    r"|(?:delete|skip|modify|remove|disable|change|edit|rewrite|alter|adjust).{0,30}tests?.{0,40}(?:pass|green)"
    r"|fails? without|fail before|failing test first|reproduce the bug"
    r"|regression tests?.{0,80}(?:issue|PR\b|#|pull request|commit)|(?:issue|PR|#).{0,60}regression test"
    r"|(?:do not|don.t|never|must not)[^.]{0,30}(?:delete|remove|skip|disable|modify|change|weaken|edit|alter"
    r"|adjust|comment out)[^.]{0,30}tests?"
    r"|tests?[^.]{0,30}(?:must|should) (?:be able to |actually )?fail"
    r"|(?:PRs?|pull requests?)[^.]{0,40}(?:target|against|base|into)[^.]{0,20}"
    r"(?:main|master|dev|develop|next|trunk)",
    re.IGNORECASE,
)
TOPIC = re.compile(
    r"test|pull request|\bPRs?\b|branch|commit|\bgit\b|regression",
    re.IGNORECASE,
)

# First words of the permissive licence texts accepted (read from the LICENSE file at HEAD).
LICENCES = (
    ("MIT-0", re.compile(r"MIT No Attribution", re.I)),
    ("0BSD", re.compile(r"Zero-Clause BSD|BSD Zero Clause", re.I)),
    ("Apache-2.0", re.compile(r"Apache License,?\s+Version 2\.0", re.I)),
    ("BSD-3-Clause", re.compile(r"Neither the name|BSD 3-Clause", re.I)),
    ("BSD-2-Clause", re.compile(r"Redistributions in binary form must reproduce", re.I)),
    (
        "ISC",
        re.compile(
            r"\bISC License\b|Permission to use, copy, modify, and(?:/or)? distribute this software", re.I
        ),
    ),
    (
        "Unlicense",
        re.compile(r"This is free and unencumbered software released into the public domain", re.I),
    ),
    ("MIT", re.compile(r"Permission is hereby granted, free of charge", re.I)),
)
NOT_PERMISSIVE = re.compile(
    r"GNU (?:AFFERO |LESSER )?GENERAL PUBLIC|Business Source|Elastic License|"
    r"Server Side Public|Commons Clause|PolyForm|Functional Source",
    re.I,
)


def split_of(repo: str) -> str:
    return "holdout" if int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 5 == 0 else "tune"


def git(mirror: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(mirror), *args], capture_output=True, check=True)
    return out.stdout.decode("utf-8", "replace")


# Read by hand: the LICENSE file holds both texts (a relicensing in progress: Apache-2.0 for new code, MIT for
# contributions not yet relicensed), written as the corpus writes modelcontextprotocol/servers.
LICENCE_OVERRIDES = {"modelcontextprotocol/csharp-sdk": "MIT OR Apache-2.0"}


def licence_of(mirror: Path) -> str | None:
    names = git(mirror, "ls-tree", "--name-only", "HEAD").split("\n")
    files = [
        n
        for n in names
        if re.fullmatch(
            r"(?i)(?:LICEN[CS]E|COPYING|UNLICENSE)(?:[-_.](?:MIT|APACHE(?:-2\.0)?|BSD|ISC|md|txt))*", n
        )
    ]
    found = set()
    for name in files:
        text = git(mirror, "show", f"HEAD:{name}")
        if NOT_PERMISSIVE.search(text):
            return None
        for spdx, pattern in LICENCES:
            if pattern.search(text):
                found.add(spdx)
                break
    if not found:
        return None
    return " OR ".join(sorted(found))


# --- the reader's sentence rules, written out again ---------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+")
_TABLE_RULE = re.compile(r"^\s*(?:\|\s*)?:?-{3,}")
_ABBREVIATIONS = {"e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "approx", "no", "incl"}
_MARK = re.compile(r"`|[(\[]+|[)\]]+|[.!?](?= |\Z)")
_NEXT = re.compile(r"\S")
_TAIL = re.compile(r"[\w.]*$")


def git_lines(text: str) -> list[tuple[int, str]]:
    lines = text.split("\n")
    last = lines.pop()
    if last:
        lines.append(last)
    out = []
    for number, line in enumerate(lines, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        for part in line.split("\r") if "\r" in line else [line]:
            out.append((number, part))
    return out


def blocks(text: str):
    """(lines, heading level or 0) per Markdown block."""
    unit: list[tuple[int, str]] = []
    fenced = comment = False
    for number, raw in git_lines(text):
        if not raw or raw.isspace():
            if unit and not fenced:
                yield unit, 0
                unit = []
            continue
        if _FENCE.match(raw):
            fenced = not fenced
            if unit:
                yield unit, 0
                unit = []
            continue
        if fenced:
            continue
        line = raw
        if comment or "<!--" in line:
            before, _, rest = line.partition("<!--") if not comment else ("", "", line)
            comment = "-->" not in rest
            line = before + (rest.split("-->", 1)[1] if not comment else "")
        stripped = line.strip().lstrip(">").strip()
        if not stripped or _TABLE_RULE.match(stripped):
            if unit:
                yield unit, 0
                unit = []
            continue
        heading = _HEADING.match(stripped)
        if heading:
            if unit:
                yield unit, 0
                unit = []
            yield [(number, _HEADING.sub("", stripped).strip("# "))], len(heading.group(1))
            continue
        if stripped.startswith("|"):
            if unit:
                yield unit, 0
                unit = []
            yield [(number, " ".join(c.strip() for c in stripped.strip("|").split("|")))], 0
            continue
        if _BULLET.match(stripped) and unit:
            yield unit, 0
            unit = []
        unit.append((number, _BULLET.sub("", stripped)))
    if unit:
        yield unit, 0


def spans(text: str):
    start, depth, code = 0, 0, False
    for mark in _MARK.finditer(text):
        i, run = mark.start(), mark.group()
        if run == "`":
            code = not code
        elif code:
            continue
        elif run[0] in "([":
            depth += len(run)
        elif run[0] in ")]":
            depth = max(0, depth - len(run))
        elif depth == 0:
            nxt = _NEXT.search(text, i + 1)
            if nxt is not None and nxt.group().islower():
                continue
            lo = max(start, i - 9)
            word = _TAIL.search(text, lo, i)
            whole = word is not None and (word.start() > lo or lo == start)
            if whole and word and word.group().lower() in _ABBREVIATIONS:
                continue
            yield start, i + 1
            start = i + 1
    if text[start:].strip():
        yield start, len(text)


def block_sentences(unit):
    joined, starts = "", []
    for number, piece in unit:
        starts.append((len(joined), number))
        joined += piece.strip() + " "
    joined = joined.rstrip()
    positions = [p for p, _ in starts]
    for a, b in spans(joined):
        sentence = joined[a:b].strip()
        if not sentence:
            continue
        offset = a + (len(joined[a:b]) - len(joined[a:b].lstrip()))
        line = starts[bisect.bisect_right(positions, offset) - 1][1]
        yield line, " ".join(sentence.split())


# --- selection -----------------------------------------------------------------------------------------


def sections(text: str):
    """Innermost sections: (heading sentences or None, [(line, sentence, is_heading)])."""
    current: list = []
    heading = None
    for unit, level in blocks(text):
        if level:
            if current or heading is not None:
                yield heading, current
            heading = " ".join(piece for _, piece in unit)
            current = [(line, s, True) for line, s in block_sentences(unit)]
        else:
            current.extend((line, s, False) for line, s in block_sentences(unit))
    if current or heading is not None:
        yield heading, current


def family_hit(sents) -> bool:
    """Whether a FAMILY phrase occurs in a sentence the reader reads (fenced/commented text is unread)."""
    return any(FAMILY.search(sentence) for _, sentence, _ in sents)


def records_of(repo: str, mirror: Path, excluded: set[str]):
    if repo in excluded:
        return [], "excluded"
    head = git(mirror, "rev-parse", "HEAD").strip()
    guides = [
        p
        for p in git(mirror, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
        if GUIDE.search(p) and not VENDORED.search(p)
    ]
    texts = {p: git(mirror, "show", f"HEAD:{p}") for p in guides}
    texts = {p: t for p, t in texts.items() if t.strip()}
    sects_of = {p: list(sections(t)) for p, t in texts.items()}
    hits = {p: any(family_hit(sents) for _, sents in sects) for p, sects in sects_of.items()}
    if not any(hits.values()):
        return [], "no family line"
    licence = LICENCE_OVERRIDES.get(repo) or licence_of(mirror)
    if licence is None:
        return [], "no permissive licence"
    out = []
    for path in sorted(texts):
        if not hits[path]:
            continue
        source = (
            ".github/copilot-instructions.md"
            if path.endswith("copilot-instructions.md")
            else path.rsplit("/", 1)[-1]
        )
        for heading, sents in sects_of[path]:
            if not sents:
                continue
            topical = heading is not None and TOPIC.search(heading)
            if not (family_hit(sents) or topical):
                continue
            under = None
            seen: dict[int, int] = {}
            for line, sentence, is_heading in sents:
                if is_heading:
                    under = sentence
                index = seen.get(line, 0)
                seen[line] = index + 1
                out.append(
                    {
                        "repo": repo,
                        "commit": head,
                        "path": path,
                        "line": line,
                        "licence": licence,
                        "sentence": sentence,
                        "heading": is_heading,
                        "under": under,
                        "labels": {},
                        "split": split_of(repo),
                        "source": source,
                        "_key": f"{path}:{line}:{index}",
                    }
                )
    return out, "kept"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path)
    parser.add_argument("candidates", type=Path, help="one owner/name a line")
    parser.add_argument("out", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    excluded = set(EXCLUDED)
    for corpus in CORPORA:
        for line in (args.root / corpus).read_text().splitlines():
            excluded.add(json.loads(line)["repo"])
    labels = json.loads(args.labels.read_text()) if args.labels else {}
    rows = []
    for repo in [r.strip() for r in args.candidates.read_text().splitlines() if r.strip()]:
        mirror = args.mirrors / repo.replace("/", "+") / "repo"
        recs, why = records_of(repo, mirror, excluded)
        print(f"{repo}\t{why}\t{len(recs)}")
        for rec in recs:
            key = rec.pop("_key")
            extra = labels.get(repo, {}).get(key, {})
            for field in ("labels", "family", "note"):
                if field in extra:
                    rec[field] = extra[field]
            ordered = {
                k: rec[k]
                for k in (
                    "repo",
                    "commit",
                    "path",
                    "line",
                    "licence",
                    "sentence",
                    "heading",
                    "under",
                    "labels",
                )
            }
            for field in ("note", "family"):
                if field in rec:
                    ordered[field] = rec[field]
            ordered["split"] = rec["split"]
            ordered["source"] = rec["source"]
            ordered["_key"] = key
            rows.append(ordered)
    with args.out.open("w") as fh:
        for row in rows:
            if args.labels:
                row.pop("_key")
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
