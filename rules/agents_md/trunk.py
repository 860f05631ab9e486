"""AGT004 non-trunk-base: the pull request targets a branch other than the trunk.

## What it does
Compares the branch the PR targets with the trunk. The trunk is `trunk` in `.github/bot.yml` when set,
else the branch an AGENTS.md names ("Trunk-based: branch off main, PR back to main", "Open PRs against
`develop`", "`main` is the trunk"). On GitHub the target is the PR's base branch; locally it is checked
only when `bot check --base-branch NAME` says which branch the PR will target. When no sentence names a
branch and no `trunk` is configured, it stays silent: `bot rules --explain` shows why.

## Why is this bad?
A repository that works trunk-based integrates everything through one branch. A PR into a long-lived
side branch skips the checks and reviews that guard the trunk, and its changes arrive later, all at once.

## Example
```text
AGENTS.md: Trunk-based: branch off main, PR back to main.
PR: feature/tokenizer -> release/1.4
```

## Use instead
```text
PR: feature/tokenizer -> main
```
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rules.agents_md import families
from rules.agents_md.reader import negated, normalise
from rules.core.base import Context, Rule, Statement
from rules.core.models import Finding, Severity

# PRs in general, not one kind of them ("Release PRs go to main" says nothing of feature PRs).
_ALL_PRS = families.ALL_PRS
_BRANCH = r"['\"]?([A-Za-z0-9][\w./-]*[\w])['\"]?"
# Where a sentence names the trunk, most telling first.
_TRUNK_NAMES = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        _ALL_PRS + r"(?:\s+\w+){0,3}?\s+(?:back\s+)?"
        r"(?:to|into|against|targeting|target|at)\s+(?:the\s+)?" + _BRANCH,
        r"\b(?:merge|land)\s+(?:\w+\s+){0,2}?(?:back\s+)?(?:to|into|against)\s+(?:the\s+)?" + _BRANCH,
        r"\bbranch(?:es)?\s+(?:off|from)\s+(?:of\s+)?(?:the\s+)?" + _BRANCH,
        _BRANCH + r"\s+is\s+(?:the|our)\s+trunk\b",
        r"\btrunk\s+(?:is|branch\s+is|=|:)\s+" + _BRANCH,
        r"\bbase\s+branch\s+(?:is|should\s+be|must\s+be)\s+(?:always\s+)?" + _BRANCH,
        # The trunk family's phrasings ("The default branch is `master`", "Always use `dev` as the base
        # branch"): the name is their group `branch`, renumbered here as the first group.
        *(re.sub(r"\(\?P<act>", "(?:", re.sub(r"\(\?P<branch>", "(", p)) for p in families.TRUNK),
    )
)
_TARGET = re.compile(
    r"\b(?:PRs?|pull\s+requests?|merge\s+requests?)\b(?:\s+\w+){0,3}?\s+(?:back\s+)?(?:to|into|against|targeting|target)"
    r"\s+(?:the\s+)?" + _BRANCH,
    re.IGNORECASE,
)
_NOT_BRANCHES = frozenset(
    {"the", "a", "an", "it", "them", "default", "trunk", "branch", "same", "upstream", "your", "our", "this",
     "that", "each", "every", "feature", "short", "review", "back", "to", "into", "base", "target"}
)  # fmt: skip


def trunk_named(sentence: str) -> str | None:
    """The branch a sentence names as the trunk, or None.

    A negated mention ("don't open PRs against main") names no trunk, and neither does a sentence that
    sends PRs to two different branches ("release PRs go to main, feature PRs to develop").
    """
    text = normalise(sentence)
    found: list[str] = []
    for pattern in _TRUNK_NAMES:
        for match in pattern.finditer(text):
            name = match.group(1).rstrip(".,;:")
            if name.lower() in _NOT_BRANCHES or negated(text, match.start()):
                continue
            if name not in found:
                found.append(name)
    if len(found) != 1:
        return None
    # Any PRs, of any kind, sent elsewhere: a branching model with several targets, not one trunk.
    elsewhere = {
        m.group(1).rstrip(".,;:")
        for m in _TARGET.finditer(text)
        if m.group(1).lower() not in _NOT_BRANCHES and not negated(text, m.start())
    }
    return found[0] if elsewhere <= {found[0]} else None


def _trunk(ctx: Context) -> tuple[str | None, Statement | None]:
    statements = [s for s in ctx.review.statements.get(ctx.rule.code, ()) if s.effect == "on"]
    named = [(trunk_named(s.text), s) for s in statements]
    root_first: list[tuple[str | None, Statement]] = [(n, s) for n, s in named if n]
    root_first = root_first or [(None, s) for s in statements]
    found, statement = root_first[0] if root_first else (None, None)
    return ctx.review.config.trunk or found, statement


def check(ctx: Context) -> Iterator[Finding]:
    target = ctx.changeset.pr.base_ref
    if not target:
        return
    trunk, statement = _trunk(ctx)
    if trunk is None or target == trunk:
        return
    where = "`.github/bot.yml`" if ctx.review.config.trunk or statement is None else statement.source
    yield ctx.finding(
        f"This PR targets `{target}`, but the trunk is `{trunk}` (per {where}): open it against `{trunk}`.",
        statement=statement,
    )


RULE = Rule(
    code="AGT004",
    name="non-trunk-base",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="Pull requests must target the trunk branch.",
    recognisers=(
        r"(?P<act>\btrunk[- ]based\b)",
        # PRs sent to one branch: "pull requests target main", "Use PRs for `main`" (not "PRs to dev and
        # main", nor "Codex PRs should never target develop").
        # Not what some automation does to one PR ("remove opens a PR against main", "creates the PR").
        # Not when CI is what runs on them ("CI runs on every PR against `main`").
        r"^(?!.*\b(?:runs?|triggers?|triggered|fires?)\s+(?:\w+\s+)?(?:on|for|by)\b).*?"
        r"(?<!s\sa\s)(?<!s\sthe\s)(?P<act>" + _ALL_PRS + r")"
        r"(?:(?:\s+(?!(?:not|never|no)\b)\w+(?<!n't)){0,3}?\s+(?:back\s+)?"
        r"(?:to|into|against|targeting|target)|\s+for)\s+(?:the\s+)?['\"]?(?:main|master|trunk|develop|dev)\b"
        r"(?!\s*(?:,|/|&|\band\b|\bor\b))",
        # Work merged into one branch: "Merge feature branches into `dev` via PR".
        r"\b(?P<act>merge)\s+(?:(?:your|the|all|feature|topic|work|changes?|branch(?:es)?|PRs?|pull\s+requests?)\s+)"
        r"{1,3}(?:back\s+)?(?:in)?to\s+(?:the\s+)?['\"]?(?:main|master|trunk|develop|dev)\b"
        r"(?!\s*(?:,|/|&|\band\b|\bor\b))",
        # Feature branches flow to one branch: "Default flow is feature -> dev" (not a promotion chain).
        r"\b(?P<act>feature)(?:s|\s+branch(?:es)?)?\s*(?:->|\u2192|=>)\s*['\"]?(?:main|master|trunk|develop|dev)\b"
        r"(?!\s*(?:->|\u2192|=>))",
        r"\b(?P<act>branch)\s+off\s+(?:of\s+)?(?:the\s+)?['\"]?(?:main|master|trunk|develop)\b.*\b(?:PR|merge)",
        r"\bis\s+(?:the|our)\s+trunk\b",
        r"\b(?P<act>base\s+branch)\s+(?:is|should\s+be|must\s+be)\s+(?:always\s+)?['\"]?(?:main|master|trunk|develop)\b",
    ),
    phrases=(
        "Trunk-based: branch off main, PR back to main.",
        "Open all PRs against `develop`.",
        "`main` is the trunk.",
        "We work trunk-based; pull requests target main.",
        "Merge feature branches into `dev` via PR.",
    ),
)
