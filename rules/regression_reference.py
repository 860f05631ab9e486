'''AGT001 regression-test-without-reference: a new test whose docstring names no PR or commit.

## What it does
Looks at every test function added by the change (pytest functions, methods of `Test*` classes and
`unittest.TestCase` subclasses, sync or async) and reports those whose docstring names neither a pull
request (`#828`, `PR #828`, a pull-request URL) nor a commit (7 to 40 hex digits, a commit URL).
It is on where an AGENTS.md says regression tests must name the PR or commit they guard, or where
`.github/bot.yml` enables it.

## Why is this bad?
A regression test that does not say what it guards loses its reason to exist: the next person who
finds it failing cannot look up the fix it protects, and may "fix" the test instead of the code.

## Example
```python
def test_micro_steps_floor():
    """Micro-step targets round down."""
    assert derive(300, 8) == 37
```

## Use instead
```python
def test_micro_steps_floor():
    """Guards PR #828: micro-step targets round down, as the legacy trainer applied them."""
    assert derive(300, 8) == 37
```
'''

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.models import Finding, Severity
from rules.base import Context, Rule
from rules.testfiles import changed_test_files

_REFERENCE = re.compile(
    r"""
    (?:https?://\S+/(?:pull|commit)/[0-9A-Za-z]+)   # pull or commit URL
    | (?:\bPR\s*\#?\d+\b)                          # PR 828, PR #828
    | (?:(?<![\w&])\#\d+\b)                         # #828
    | (?:\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b)        # commit id with at least one digit
    """,
    re.IGNORECASE | re.VERBOSE,
)


def names_reference(docstring: str | None) -> bool:
    """Whether a docstring names a PR or a commit."""
    return bool(docstring) and _REFERENCE.search(docstring or "") is not None


def check(ctx: Context) -> Iterator[Finding]:
    for tf in changed_test_files(ctx.review):
        for test in tf.tests:
            if test.added and not names_reference(test.docstring):
                pr = ctx.changeset.pr.number
                hint = f'e.g. "Guards PR #{pr}: ..."' if pr else 'e.g. "Guards PR #123: ..."'
                yield ctx.finding(
                    f"New test `{test.qualname}` does not name the PR or commit it guards "
                    f"in its docstring ({hint}).",
                    path=tf.path,
                    line=test.line,
                )


RULE = Rule(
    code="AGT001",
    name="regression-test-without-reference",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="New tests must name the PR or commit they guard in their docstring.",
    recognisers=(
        r"regression tests?\b.{0,80}\b(?:name|reference|cite|mention|link|point to)\b"
        r".{0,60}\b(?:PRs?|pull requests?|commits?)\b",
    ),
)
