'''AGT005 regression-test-does-not-reproduce: a regression test that passes on the code without the fix.

## What it does
Reads what `bot check --verify-tests` measured: each new or changed test run at head and on the base
code with the head's tests (see docs/verify.md). For a regression test, one AGT001 counts as such (its
docstring, or its class's or module's, names the PR or commit it guards, or AGT001's evidence takes it
for one) or one the PR description names (`test_slug_keeps_dashes`), it reports a test that passes on
the base code too: "passes without the fix: it does not reproduce the bug". Any new or changed test
that fails at head (broken) is an error, whatever kind of test it is. A test that reproduces, that
fails on the base code only because it uses a name the change adds (new API), or that did not run
(timed out, skipped, could not be collected) gets nothing from this rule; the Verified tests section
shows them all.

Without `--verify-tests` the rule says nothing: it reports only what was run, never a guess. Outcomes
another job reported (the fork-safe pair's artifact, shown as "reported by the pull request's own
job") are never read. It is on where an AGENTS.md asks that tests fail without the fix ("Confirm the
new test fails before the fix", "write a failing test first", "your test is NOT VALID if it passes
with the old build"), or where `.github/bot.yml` enables it. `# bot: ignore[AGT005] reason` on the test
waives it for that test.

## Why is this bad?
A regression test that passes on the code as it was before the fix would not have caught the bug: it
guards nothing, yet it reads as proof that the bug cannot come back. Coding agents often add such a
test; no reviewer runs the test on the old code to see it fail. A test that fails at head fails the
project's own suite.

## Example
```python
# The fix: slug() turns spaces into dashes. Guards PR #41.
def test_slug_lowercases():
    """slug() lowercases. Guards PR #41."""
    assert slug("ABC") == "abc"  # passed before the fix too
```

## Use instead
```python
def test_slug_turns_spaces_into_dashes():
    """slug() no longer keeps spaces. Guards PR #41."""
    assert slug("a b") == "a-b"  # fails on the code without the fix
```
'''

from __future__ import annotations

import re
from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.core.verification import Outcome, Verification
from rules.testcode.regression_reference import regression_tests


def _named_by_pr(ctx: Context, v: Verification) -> bool:
    """Whether the PR's title or description names the test (its function name, as a word)."""
    name = v.qualname.rpartition(".")[2]
    pr = ctx.changeset.pr
    text = f"{pr.title}\n{pr.body}"
    return name in text and re.search(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", text) is not None


def check(ctx: Context) -> Iterator[Finding]:
    verified = ctx.review.verifications
    if not verified:
        return  # nothing was run: the rule never guesses
    regression = regression_tests(ctx.review)
    for v in verified:
        if v.outcome is Outcome.BROKEN:
            yield ctx.finding(
                f"Test `{v.qualname}` is broken: it {v.reason.rstrip('.')}.",
                path=v.path,
                line=v.line,
                severity=Severity.ERROR,
            )
            continue
        if v.outcome is not Outcome.DOES_NOT_REPRODUCE:
            continue
        why = regression.get((v.path, v.qualname))
        if why is None and _named_by_pr(ctx, v):
            why = "the PR description names it"
        if why is None:
            continue
        yield ctx.finding(
            f"Regression test `{v.qualname}` passes without the fix: it does not reproduce the bug (it "
            f"passes on the base code with the head's tests; it counts as a regression test because {why}). "
            "Make it fail on the code before the fix.",
            path=v.path,
            line=v.line,
        )


RULE = Rule(
    code="AGT005",
    name="regression-test-does-not-reproduce",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="A regression test must fail on the code without the fix (`bot check --verify-tests`).",
    recognisers=(
        # "Regression tests must fail without the fix", "A new test should fail before the change". The other
        # phrasings of the convention are the fail-without-fix family (rules/agents_md/families.py).
        r"\b(?:regression\s+)?tests?\b.*?\b(?:must|should|needs?\s+to|has\s+to|have\s+to)\s+(?P<act>fail)\s+"
        r"(?:without|before|prior\s+to|on\s+the\s+code\s+before)\s+(?:the\s+|your\s+|this\s+)?"
        r"(?:fix|change|patch)\b",
    ),
    phrases=(
        "Regression tests must fail without the fix.",
        "Confirm the new test fails before the fix.",
        "Write a failing test first, then fix the bug.",
        "Your test is NOT VALID if it passes with the old build.",
    ),
)
