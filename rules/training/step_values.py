"""TRN001 step-math-mismatch: derived step values of changed profiles, and expectations they break.

## What it does
For every changed training profile (compat-profile files, `COMPAT_PROFILES` literals in Python modules,
Prime-RL SFT configs, and profiles pointing at a changed Prime-RL config) it derives `max_steps`,
`scheduler.decay_steps`, the effective number of training examples and the micro steps left unapplied, at
base and at head, and shows them in the status comment. A profile whose `expect` table disagrees with the
derivation (the message names both numbers), a profile file that cannot be parsed, and inputs the training
CLI would refuse (both targets, a target plus an explicit `max_steps`, a synced decay plus an explicit
`scheduler.decay_steps`, no batch size) are errors.

## Why is this bad?
A legacy trainer counted `max_steps` in batch-size-1 micro-batches; Prime-RL counts optimizer steps.
Mapping `max_steps=300` with 8 micro-batches per update as "300 examples" gives `max_steps=38` and
over-exposes the model; the faithful mapping gives 37. Nobody sees that in a diff.

## Example
```toml
name = "env0-mobile300-pr828"
target_examples = 300   # ceil(300 / 8) = 38 optimizer steps
batch_size = 8

[expect]
max_steps = 37
```

## Use instead
```toml
name = "env0-mobile300-pr828"
target_micro_steps = 300   # floor(300 / 8) = 37, 4 micro steps unapplied
batch_size = 8

[expect]
max_steps = 37
```
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rules.core import formats
from rules.core.base import Context, Rule
from rules.core.fixes import fix_key, lines_of, replacement
from rules.core.models import Finding, Fix, Severity, UnreadableFile
from rules.training.profiles import PROFILE, UNBOUNDED, Expect, Row, changed_profile_files, profile_rows

# Every value an `expect` table may pin; each is a field of the derived StepValues.
_EXPECTED = tuple(Expect.model_fields)


def _expect_fix(ctx: Context, row: Row, key: str, want: int, got: int) -> Fix | None:
    """The profile line pinning `key` with `want` holding `got` instead, where that line is certain: a
    compat-profile file in TOML or YAML, the key found once on the line its table puts it."""
    fmt = formats.format_of(row.path)
    if row.kind != PROFILE or fmt not in ("toml", "yaml"):
        return None
    try:
        text = ctx.changeset.head_text(row.path)
    except UnreadableFile:
        return None
    if text is None:
        return None
    lines = formats.key_lines(text, fmt)
    table = ("profiles", row.name) if ("profiles", row.name) in lines else ()
    number = lines.get((*table, "expect", key)) or lines.get((*table, "expect"))
    if number is None:
        return None
    line = lines_of(text)[number - 1]
    pattern = re.compile(
        rf"""(?<![\w-])(["']?{re.escape(key)}["']?\s*[=:]\s*){re.escape(str(want))}(?![\w.])"""
    )
    if len(pattern.findall(line)) != 1:
        return None
    new = pattern.sub(lambda m: f"{m.group(1)}{got}", line)
    return replacement(fix_key("TRN001", row.path, row.name, key), row.path, text, number, number, (new,))


def check(ctx: Context) -> Iterator[Finding]:
    review = ctx.review
    for pf in changed_profile_files(review):
        for problem in pf.head_problems:  # each at its own line, where the parser or the key says it
            yield ctx.finding(
                f"Profile file cannot be used: {problem.message}", path=pf.path, line=problem.line
            )
    for row in profile_rows(review):
        head = row.head
        if head is None or row.head_entry is None:
            continue
        if head.error:
            # batch arithmetic is TRN003's; a Prime-RL config without max_steps is valid
            if head.error_kind not in ("batch", UNBOUNDED):
                yield ctx.finding(f"Profile `{row.name}`: {head.error}", path=row.path, line=row.line)
            continue
        profile = row.head_entry.profile
        if profile is None or head.values is None:
            continue
        for key in _EXPECTED:
            want = getattr(profile.expect, key)
            got = getattr(head.values, key)
            if want is not None and want != got:
                finding = ctx.finding(
                    f"Profile `{row.name}` expects {key}={want}, but the step math gives {got}.",
                    path=row.path,
                    line=row.line,
                )
                fix = _expect_fix(ctx, row, key, want, got) if isinstance(got, int) else None
                yield finding.model_copy(update={"fix": fix}) if fix else finding


RULE = Rule(
    code="TRN001",
    name="step-math-mismatch",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="Changed profiles' derived step values; expectations or inputs the step math rejects.",
)
