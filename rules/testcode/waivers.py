"""BOT002 invalid-waiver: an in-code waiver without a reason, for no known rule, or on no test.

## What it does
A comment `# bot: ignore[AGT001] reason` on a test (on its `def` line, a decorator, a comment line right
above it, or any line inside it) waives the named rules for that test only; several codes may be listed
(`# bot: ignore[AGT001, AGT002] reason`). Waived findings are listed in the report with their reason.
This rule reports, on lines the change adds, waivers that do not count: one without a reason, one that
names no rule or an unknown rule, and one that is not on a test. Such a waiver waives nothing.

## Why is this bad?
A waiver is a decision a reviewer has to be able to read. Without a reason nobody can tell a considered
exception from a way to silence the bot; a waiver for an unknown code or outside a test silently
does nothing.

## Example
```python
def test_smoke():  # bot: ignore[AGT002]
    run_pipeline()
```

## Use instead
```python
def test_smoke():  # bot: ignore[AGT002] smoke test: passing means the pipeline did not raise
    run_pipeline()
```
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rules.core.base import Context, Review, Rule
from rules.core.lines import PythonLines, as_python_reads, differs
from rules.core.models import Finding, Severity, Waiver
from rules.testcode.testfiles import TestFile, TestFunction, changed_test_files

_MARKER = re.compile(r"#\s*bot:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?[\s:,-]*(?P<reason>.*)$", re.IGNORECASE)
_CODE = re.compile(r"^[A-Z]{2,5}\d{3}$")


@dataclass(frozen=True)
class Marker:
    """One `# bot: ignore[...] reason` comment and the test it sits on."""

    path: str
    line: int
    codes: tuple[str, ...]
    reason: str
    test: TestFunction | None


def _comments(text: str) -> Iterator[tuple[int, str]]:
    """(line, comment) for real comments only, up to the last line holding "bot:" (the markers' word, in
    any case): a marker inside a string is not a waiver. Lines are git's
    (rules.core.lines); the comments are those Python reads, which ends a line at a lone `\\r`."""
    where = PythonLines(text) if differs(text) else None
    source = as_python_reads(text) if where is not None else text
    # No comment past the last line holding "bot:" (in any case) can be a marker: tokenizing stops there,
    # not at the end of a file of a million blank lines after its one marker (a token each, 0.9 s).
    low = source.lower()
    last = low.count("\n", 0, low.rfind("bot:")) + 1
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.start[0] > last:
                return
            if tok.type == tokenize.COMMENT:
                yield (where.line(tok.start[0]) if where is not None else tok.start[0]), tok.string
    except (tokenize.TokenError, SyntaxError):
        return


def markers_in(tf: TestFile) -> tuple[Marker, ...]:
    """The waiver markers of one parsed test file."""
    if "bot:" not in tf.text:
        return ()
    out = []
    for line, comment in _comments(tf.text):
        m = _MARKER.search(comment)
        if m is None:
            continue
        codes = tuple(c.strip().upper() for c in (m.group("codes") or "").split(",") if c.strip())
        out.append(Marker(tf.path, line, codes, m.group("reason").strip()[:300], tf.test_at(line)))
    return tuple(out)


def markers(review: Review) -> tuple[Marker, ...]:
    """Every waiver marker in the changed test files (memoised per review)."""

    def build() -> tuple[Marker, ...]:
        return tuple(m for tf in changed_test_files(review) for m in markers_in(tf))

    return review.memo("waivers.markers", build)


def apply_waivers(review: Review, findings: Iterable[Finding]) -> tuple[list[Finding], list[Waiver]]:
    """Findings left after in-code waivers, and the waivers that took effect."""
    usable: dict[tuple[str, str], list[Marker]] = {}
    for m in markers(review):
        if m.reason and m.test is not None:
            for code in m.codes:
                usable.setdefault((m.path, code), []).append(m)
    kept: list[Finding] = []
    waived: list[Waiver] = []
    for f in findings:
        found = next(
            (
                m
                for m in usable.get((f.path or "", f.rule), ())
                if f.line and m.test and m.test.covers(f.line)
            ),
            None,
        )
        if found is None:
            kept.append(f)
        else:
            waived.append(Waiver(rule=f.rule, path=f.path, line=f.line, reason=found.reason))
    return kept, waived


def check(ctx: Context) -> Iterator[Finding]:
    found = markers(ctx.review)
    # The added lines of the files holding a marker only: 3,000 files' sets cost more than the markers.
    holding = {m.path for m in found}
    added = {f.path: f.added_lines for f in ctx.changeset.files if f.path in holding}
    for m in found:
        if m.line not in added.get(m.path, frozenset()):
            continue
        unknown = [c for c in m.codes if c not in ctx.review.rule_codes or not _CODE.match(c)]
        if not m.codes:
            problem = "names no rule; write `# bot: ignore[CODE] reason`"
        elif unknown:
            problem = f"names unknown rule {', '.join(f'`{c[:20]}`' for c in unknown)}"
        elif not m.reason:
            problem = "has no reason; say after the brackets why the rule does not fit this test"
        elif m.test is None:
            problem = "is not on a test; put it on the `def` line or inside the test it waives"
        else:
            continue
        yield ctx.finding(f"Waiver {problem}. It waives nothing.", path=m.path, line=m.line)


RULE = Rule(
    code="BOT002",
    name="invalid-waiver",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="In-code waivers must name a known rule, give a reason and sit on a test.",
)
