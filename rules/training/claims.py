"""TRN005 pr-claim-contradicts-step-math: numbers the PR description claims that the step math does not give.

## What it does
It reads the pull request description for step numbers, written as assignments
(`max_steps=37`, `scheduler.decay_steps: 37`, `effective_train_examples=296`, `unapplied_micro_steps=4`),
in prose ("max_steps 37", "max_steps from 38 to 37"), in tables (a row per key, or a column per key) and in
code blocks, and compares each with the derivation for the changed profiles at head. A claim that the
changed profiles do not bear out is a warning quoting the claim.

Only claims about the run this change produces are checked. A claim said of the old run is left alone:
one after "previous", "old", "before", "was", "legacy", "historical" and the like, under a "Before:"
heading, in a "before" table column, or on a removed line of a `diff` block. A claim in a sentence that
names a changed profile is checked against that profile alone; one that names an unchanged profile is
left alone. A claim in a sentence about the legacy trainer may also match the profile's count in legacy
micro-step semantics.

## Why is this bad?
Reviewers read the description, not the arithmetic. A description that says 37 steps over a profile
that derives 38 makes them approve a run that is not the one described.

## Example
```markdown
Updates env0-mobile300-pr828, producing max_steps=36 and effective_train_examples=288.
```
(the profile derives 37 steps and 296 examples)

## Use instead
```markdown
Updates env0-mobile300-pr828, producing max_steps=37 and effective_train_examples=296
(the previous mapping generated max_steps=38).
```
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity, StepValues
from rules.training.profiles import changed_profile_files, profile_rows

# Claimable keys and the StepValues field each one names.
KEYS = {
    "max_steps": "max_steps",
    "scheduler.decay_steps": "decay_steps",
    "decay_steps": "decay_steps",
    "effective_train_examples": "effective_train_examples",
    "unapplied_micro_steps": "unapplied_micro_steps",
}
_KEY = "|".join(re.escape(k) for k in sorted(KEYS, key=len, reverse=True))  # longest first
_NUMBER = r"\d(?:[,_]?\d)*"
# No two quantifiers in a row range over the same characters: "max_steps" and 4,000 spaces took the
# three `\s*` of `\s*(?:=|...)?\s*`?\s*` cubic time to split. Each run of spaces is taken whole here.
_CLAIM = re.compile(
    rf"(?<![\w.])(?P<key>{_KEY})`?\s*(?:(?:=|:|is|of|to|becomes)\s*)?(?:`\s*)?"
    rf"(?:(?:from\s+)?{_NUMBER}\s*(?:->|→|to)\s*)?(?P<value>{_NUMBER})(?!\w|\.\d)",
    re.IGNORECASE,
)
# A table cell holding one number, or "38 -> 37" (the last number is the claim).
_CELL = re.compile(rf"^[`*\s]*(?:(?:from\s+)?{_NUMBER}\s*(?:->|→|to)\s*)?(?P<value>{_NUMBER})[`*\s]*$")
_LEGACY = re.compile(r"legacy|custom trainer|custom peft|historical|old trainer|micro-batch", re.IGNORECASE)
# Words that say what follows is about the run before this change, or about the run after it.
# The last one before a claim decides.
_PAST = (
    r"previous|previously|old|older|before|was|were|used to|originally|formerly|prior|earlier|legacy"
    r"|historical|historically|baseline"
)
_NOW = r"now|new|newly|after|produces|producing|gives|giving|yields|yielding|becomes|results in"
_MARKER = re.compile(rf"\b(?:(?P<past>{_PAST})|(?P<now>{_NOW}))\b", re.IGNORECASE)
# A marker just after a claim: "max_steps: 38 (before)".
_PAST_AFTER = re.compile(rf"\s*(?:[(\[]\s*)?(?:{_PAST}|on main|at base)\b", re.IGNORECASE)
# Text between two claims that carries no meaning of its own: the second claim shares the first's time.
_JOINER = re.compile(r"^[\s,;/&`*()]*(?:(?:and|or|with|plus)[\s,;/&`*()]*)*$", re.IGNORECASE)
_TOKEN = re.compile(r"[\w][\w.-]*")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")
_FENCE = re.compile(r"^\s*(```|~~~)\s*(\S*)")
# A table's separator row: each run of spaces sits between a pipe and a cell, never between two `\s*`
# (`|--` and 65,536 spaces then a letter took `:?\s*...\|?\s*$` quadratic time).
_TABLE_RULE = re.compile(r"^\s*(?:\|\s*)?:?-{2,}:?(?:\s*\|\s*:?-{2,}:?)*(?:\s*\|)?\s*$")
MAX_BODY = 65_536
MAX_DIGITS = 19


@dataclass(frozen=True)
class Claim:
    key: str  # StepValues field
    value: int
    text: str  # the claim as written
    legacy: bool  # said in a sentence about the legacy trainer
    past: bool = False  # said of the run before this change
    profile: str | None = None  # the profile name the claim is said of, as known to the caller


@dataclass
class _State:
    """What a heading or a table header says about the lines below it."""

    past: bool = False
    profile: str | None = None
    fence: str | None = None  # info string of the open code fence ("" for a bare fence)
    header: list[str] | None = None  # cells of the current table's header row


def _int(digits: str) -> int | None:
    digits = digits.replace(",", "").replace("_", "")
    if len(digits) > MAX_DIGITS:  # no step count is that long; int() would refuse past 4,300 digits
        return None
    return int(digits)


def _last_marker(text: str) -> bool | None:
    """True when the last time marker in text is a past one, False for a present one, None for none."""
    last = None
    for m in _MARKER.finditer(text):
        last = m
    if last is None:
        return None
    return last.group("past") is not None


def _names_in(text: str, names: dict[str, str]) -> list[tuple[int, str]]:
    """(position, profile name) of every known profile name in text, as whole tokens."""
    if not names:
        return []
    out = []
    for m in _TOKEN.finditer(text):
        token = m.group(0).rstrip(".-").lower()
        if token in names:
            out.append((m.start(), names[token]))
    return out


def _sentence_claims(sentence: str, state: _State, names: dict[str, str], diff: str) -> Iterator[Claim]:
    legacy = bool(_LEGACY.search(sentence))
    mentions = _names_in(sentence, names)
    prev_end, prev_past = 0, None
    for m in _CLAIM.finditer(sentence):
        value = _int(m.group("value"))
        if value is None:
            continue
        window = sentence[prev_end : m.start()]
        marker = _last_marker(window)
        if marker is not None:
            past = marker
        elif prev_past is not None and _JOINER.match(window):
            past = prev_past
        else:
            past = state.past
        if _PAST_AFTER.match(sentence, m.end()):
            past = True
        if diff == "-":
            past = True
        elif diff == "+":
            past = False
        before = [name for pos, name in mentions if pos < m.start()]
        profile = before[-1] if before else (mentions[0][1] if mentions else state.profile)
        text = " ".join(m.group(0).split())
        yield Claim(KEYS[m.group("key").lower()], value, text, legacy, past, profile)
        prev_end, prev_past = m.end(), past


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in inner.split("|")]


def _bare(cell: str) -> str:
    return cell.strip("`* ").lower()


def _table_claims(row: list[str], state: _State, names: dict[str, str]) -> Iterator[Claim]:
    """Claims of one table row: a key in the first cell (columns are revisions or profiles), or a key
    in each header cell (rows are revisions or profiles)."""
    header = state.header or []
    first = _bare(row[0]) if row else ""
    legacy = bool(_LEGACY.search(" ".join(row)))

    def subject(cell: str) -> tuple[bool, str | None] | None:
        """(past, profile) a header or first cell names; None for a subject the rule cannot place."""
        text = _bare(cell)
        if not text:
            return state.past, state.profile
        if text in names:
            return state.past, names[text]
        marker = _last_marker(text)
        if marker is not None:
            return marker, state.profile
        return None

    if first in KEYS:
        for i, cell in enumerate(row[1:], start=1):
            m = _CELL.match(cell)
            value = _int(m.group("value")) if m else None
            where = subject(header[i]) if i < len(header) else (state.past, state.profile)
            if value is None or where is None:
                continue
            yield Claim(KEYS[first], value, f"{row[0]} {cell}".strip(), legacy, *where)
        return
    keyed = [(i, _bare(h)) for i, h in enumerate(header) if _bare(h) in KEYS]
    if not keyed or not row:
        return
    where = subject(row[0])
    if where is None:
        return
    for i, key in keyed:
        if i >= len(row):
            continue
        m = _CELL.match(row[i])
        value = _int(m.group("value")) if m else None
        if value is not None:
            yield Claim(KEYS[key], value, f"{header[i]} {row[i]}".strip(), legacy, *where)


def _blocks(body: str) -> Iterator[tuple[str, str]]:
    """(kind, text) pieces of a markdown body: "fence" lines, "table" rows, "rule" table separators,
    "fence-open"/"fence-close" markers, and prose "para" blocks (a paragraph or one list item)."""
    para: list[str] = []
    in_fence = False
    for line in body.splitlines():
        fence = _FENCE.match(line)
        if fence:
            if para:
                yield "para", " ".join(para)
                para = []
            in_fence = not in_fence
            yield ("fence-open" if in_fence else "fence-close"), fence.group(2)
            continue
        if in_fence:
            yield "fence", line
            continue
        stripped = line.strip()
        if stripped.startswith("|"):
            if para:
                yield "para", " ".join(para)
                para = []
            yield ("rule" if _TABLE_RULE.match(stripped) else "table"), stripped
            continue
        if not stripped or _BULLET.match(line) or stripped.startswith("#"):
            if para:
                yield "para", " ".join(para)
                para = []
            if not stripped:
                yield "blank", ""
                continue
        para.append(stripped)
        if stripped.startswith("#"):  # a heading is a block of its own
            yield "para", " ".join(para)
            para = []
    if para:
        yield "para", " ".join(para)


def _is_heading(text: str) -> bool:
    t = _BULLET.sub("", text).strip()
    bold = t.startswith("**") and t.endswith("**")
    return len(t) <= 80 and (t.startswith("#") or t.endswith(":") or bold)


def claims(body: str, names: Iterable[str] = ()) -> list[Claim]:
    """Step numbers a PR description claims, in order. names are profile names the claims may be said of."""
    known = {n.lower(): n for n in names if n and _TOKEN.fullmatch(n)}
    state = _State()
    out: list[Claim] = []
    pending_header: list[str] | None = None
    for kind, text in _blocks(body[:MAX_BODY]):
        if kind == "fence-open":
            state.fence = text.lower()
            continue
        if kind == "fence-close":
            state.fence = None
            continue
        if kind != "table" and kind != "rule":
            state.header, pending_header = None, None
        if kind == "blank":
            continue
        if kind == "table":
            row = _cells(text)
            if state.header is None and pending_header is None:
                pending_header = row  # a header until a separator row proves otherwise
                continue
            if pending_header is not None:  # no separator: the first row was data
                state.header = []
                out.extend(_table_claims(pending_header, state, known))
                pending_header = None
            out.extend(_table_claims(row, state, known))
            continue
        if kind == "rule":
            state.header, pending_header = (pending_header or []), None
            continue
        diff = ""
        if kind == "fence" and state.fence in ("diff", "patch") and text[:1] in "+-":
            diff = text[:1] if not text.startswith(("---", "+++")) else ""
        found: list[Claim] = []
        for sentence in _SENTENCE.split(text):
            found.extend(_sentence_claims(sentence, state, known, diff))
        if not found and kind == "para" and _is_heading(text):
            marker = _last_marker(text)
            mentioned = _names_in(text, known)
            state.past = bool(marker)
            state.profile = mentioned[0][1] if mentioned else None
        out.extend(found)
    if pending_header is not None:
        state.header = []
        out.extend(_table_claims(pending_header, state, known))
    return out


def _legacy_value(values: StepValues, key: str) -> int | None:
    """The value in the legacy trainer's own terms: its max_steps counted micro-batches."""
    if key == "max_steps" and values.semantics == "legacy-micro":
        return values.target_micro_steps
    return None


def _holds(claim: Claim, values: StepValues) -> bool:
    got = getattr(values, claim.key)
    if got == claim.value:
        return True
    if claim.key == "unapplied_micro_steps" and got is None and claim.value == 0:
        return True  # a target in examples or steps leaves nothing unapplied
    return claim.legacy and _legacy_value(values, claim.key) == claim.value


def check(ctx: Context) -> Iterator[Finding]:
    body = ctx.changeset.pr.body
    if not body:
        return
    heads = [(row.name, row.head.values) for row in profile_rows(ctx.review) if row.head and row.head.values]
    if not heads:
        return
    changed = {name for name, _ in heads}
    known = set(changed)
    for pf in changed_profile_files(ctx.review):
        known.update(pf.base)
        known.update(pf.head)
    seen = set()
    for claim in claims(body, known):
        if claim.past:
            continue  # said of the old run
        if claim.profile is not None and claim.profile not in changed:
            continue  # said of a profile this change does not alter
        scope = [(n, v) for n, v in heads if claim.profile in (None, n)]
        mark = (claim.key, claim.value, claim.profile)
        if mark in seen:
            continue
        seen.add(mark)
        if any(_holds(claim, v) for _, v in scope):
            continue
        derived = ", ".join(f"{getattr(v, claim.key)} for `{name}`" for name, v in scope[:3])
        yield ctx.finding(
            f"The PR description claims “{claim.text}”, but the step math gives {derived}.",
            path=None,
        )


RULE = Rule(
    code="TRN005",
    name="pr-claim-contradicts-step-math",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="Step numbers in the PR description that the changed profiles do not derive.",
)
