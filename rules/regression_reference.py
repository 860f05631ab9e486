'''AGT001 regression-test-without-reference: a new regression test whose docstring names no PR or commit.

## What it does
Looks at every test the change adds (pytest functions, methods of `Test*` classes and `unittest.TestCase`
subclasses, nested test classes, sync or async, parametrized or not) and reports the regression tests
whose docstring names neither a pull request nor a commit. A test moved to another file, renamed, or
whose `def` line was edited is not new; fixtures, `conftest.py` and helper modules hold no tests.
Accepted references: `#828`, `PR #828`, `PR 828`, `pull request 828`, `GH-828`, `owner/repo#828`, a
pull-request or commit URL (`https://github.com/o/r/pull/828`, `.../commit/1a2b3c4`), and a commit id
of 7 to 40 hex digits (with at least one digit and one letter, or written as `commit 1234567`). Issue
URLs, `#` alone, `GH828`, hex runs of 6 or 41+ digits and plain numbers are not references.

Which new tests count as regression tests is the option `regression`:
`all-new-tests` (the default) takes every new test; `fix-prs` takes every new test of a PR whose
title, description or labels say it fixes something; `marked` takes tests whose name, docstring or
pytest mark says regression, guard or bug. The message proposes a docstring naming the current PR
when its number is known.

It is on where an AGENTS.md says regression tests must name the PR or commit they guard, or where
`.github/bot.yml` enables it. `# bot: ignore[AGT001] reason` on the test waives it for that test.

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

from bot.config import CONFIG_PATH
from bot.models import Finding, PullRequest, Severity
from rules.base import Context, Rule
from rules.testfiles import TestFunction, touched_tests

MODES = ("all-new-tests", "fix-prs", "marked")

_HEX = r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
_REFERENCE = re.compile(
    r"""
      https?://[^\s/]+/[^\s/]+/[^\s/]+/pull/\d+\b                  # pull-request URL
    | https?://[^\s/]+/[^\s/]+/[^\s/]+/commit/[0-9a-f]{7,40}\b      # commit URL
    | \b(?:PR|pull\ request)\s*[#-]?\s*\d+\b                       # PR 828, PR #828, pull request 828
    | \bGH-\d+\b                                                   # GH-828
    | (?<![\w/.-])[\w.-]+/[\w.-]+\#\d+\b                           # owner/repo#828
    | (?<![\w&/\#-])\#\d+\b                                        # #828
    | \bcommit\s+[0-9a-f]{7,40}\b                                  # commit 1234567
    | (?<![\w/-])"""
    + _HEX
    + r"""(?![\w-])                                                 # 1a2b3c4 .. 40 hex digits
    """,
    re.IGNORECASE | re.VERBOSE,
)
# AGENTS.md wording: a test, a verb of naming, and the PR or commit named (an issue is not enough:
# issue links are not accepted references).
_TEST = r"(?:regression\s+)?tests?\b"
_NAMING = (
    r"name|names|naming|reference|references|referencing|cite|cites|citing|mention|mentions|mentioning|"
    r"link|links|linking|link\s+to|point\s+to|points\s+to|record|records|state|states|say|says|"
    r"identify|identifies|note|notes|include|includes"
)
_REF = r"(?:[\w']+[\s/]+){0,3}?(?:PRs?|pull\s+requests?|commits?|fix(?:es)?)\b"
_IN_DOCSTRING = (
    r"\b(?:in|into|inside|within)\s+(?:the|its|their|each|every|a)\s+(?:(?:regression\s+)?test(?:'s|s')?\s+)?"
    r"docstrings?\b"
)
_GUARDED = r"\b" + _TEST + r".*\b(?:guard|protect|cover)(?:s|ed|ing)?\b"
_FIX_WORDS = re.compile(r"\b(?:fix(?:e[sd])?|fixing|bug(?:fix)?s?|hotfix(?:es)?|regressions?|revert)\b", re.I)
_MARK_WORDS = re.compile(r"(?:^|[\W_])(?:regress\w*|guard\w*|bugs?|bugfix\w*)(?=$|[\W_])", re.I)


def names_reference(docstring: str | None) -> bool:
    """Whether a docstring names a PR or a commit."""
    return bool(docstring) and _REFERENCE.search(docstring or "") is not None


def is_fix_pr(pr: PullRequest) -> bool:
    """Whether the PR's title, description or labels say it fixes something."""
    return any(_FIX_WORDS.search(text) for text in (pr.title, pr.body, *pr.labels))


def is_marked(test: TestFunction) -> bool:
    """Whether a test's name, docstring or pytest marks say it is a regression test."""
    marks = " ".join(d.rsplit(".", 1)[-1] for d in test.decorators if ".mark." in f".{d}.")
    return any(_MARK_WORDS.search(text) for text in (test.name, test.docstring or "", marks))


def _proposal(test: TestFunction, pr: int | None) -> str:
    first = (test.docstring or "").strip().splitlines()[0] if test.docstring else ""
    first = first.rstrip(".")[:80] or "what it protects"
    first = first[0].lower() + first[1:] if first[:1].isupper() and first[1:2].islower() else first
    ref = f"PR #{pr}" if pr else "PR #<number>"
    return f'"""Guards {ref}: {first}."""'


def check(ctx: Context) -> Iterator[Finding]:
    mode = ctx.options.get("regression", MODES[0])
    if mode not in MODES:
        yield ctx.finding(
            f"Option `regression` in {CONFIG_PATH} must be one of {', '.join(MODES)}; "
            f"got `{str(mode)[:40]}`, so `{MODES[0]}` is used."
        )
        mode = MODES[0]
    pr = ctx.changeset.pr
    errors, tests = touched_tests(ctx, new_only=True)
    yield from errors
    if mode == "fix-prs" and not is_fix_pr(pr):
        return
    for tf, test in tests:
        if mode == "marked" and not is_marked(test):
            continue
        if names_reference(test.docstring):
            continue
        what = "has no docstring" if not test.docstring else "has a docstring that names no PR or commit"
        yield ctx.finding(
            f"New test `{test.qualname}` {what}; name the PR or commit it guards, "
            f"e.g. `{_proposal(test, pr.number)}`.",
            path=tf.path,
            line=test.line,
        )


RULE = Rule(
    code="AGT001",
    name="regression-test-without-reference",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="New regression tests must name the PR or commit they guard in their docstring.",
    recognisers=(
        # The test is the subject of a verb of naming whose object is a PR, commit or issue, and the sentence
        # says what makes it about guarding: "Regression tests must name the PR/commit they guard", "Bug fixes
        # should include a regression test that references the issue number".
        r"^(?=.*\b(?:regressions?|guard\w*|protect\w*|docstrings?|fix\w*|bugs?)\b).*?"
        r"\b" + _TEST + r"(?:(?!\b(?:and|or|messages?|descriptions?|titles?|changelogs?|body|bodies)\b).)*?"
        r"\b(?P<act>" + _NAMING + r")\s+(?:[\w']+[\s/]+){0,3}?"
        r"(?:PRs?|pull\s+requests?|commits?|fix(?:es)?|issues?)\b",
        # Imperative: "Name the PR or commit a regression test guards in its docstring", "Name the issue ...".
        r"\b(?P<act>" + _NAMING + r")\s+(?:[\w']+[\s/]+){0,3}?"
        r"(?:PRs?|pull\s+requests?|commits?|fix(?:es)?|issues?)\b"
        r".*?(?:" + _IN_DOCSTRING + r"|" + _GUARDED + r")",
    ),
    options={"regression": MODES[0]},
    phrases=(
        "Regression tests must name the PR/commit they guard in the docstring.",
        "Tests must reference the PR they guard.",
        "Every regression test should cite the commit it protects.",
        "Name the PR or commit a regression test guards in its docstring.",
        "Name the issue a regression test guards in its docstring.",
        "Bug fixes should include a regression test that references the issue number.",
    ),
)
