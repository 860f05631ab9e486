"""BOT001 invalid-config: `.github/bot.yml` has a key or value the bot cannot use.

## What it does
Reads `.github/bot.yml` (or the file `--config` names) at the base revision, and reports every problem
in it at once, each on its own line of the file: a key no setting has, a rule key that names no rule
(`AGT01:`, with "did you mean `AGT001`?"), an option a rule does not have, a value of the wrong kind
("should be true or false"), YAML that does not parse. While the file has a problem it is ignored as a
whole and the defaults are used. When a pull request changes the file, the version it leaves is checked
too ("after merge: ..."), since that is the one the next reviews will read; the change itself takes
effect only after merge.

## Why is this bad?
A typo in a config file does nothing silently: `AGT01: {enabled: false}` would leave AGT001 on while
its author believes it off. Saying where and what instead keeps the config meaning what it says.

## Example
```yaml
rules:
  AGT01:
    severity: loud
```

## Use instead
```yaml
rules:
  AGT001:
    severity: warning
```
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity


def check(ctx: Context) -> Iterator[Finding]:
    for problem in ctx.review.config_problems:
        where = f"`{problem.key}`: " if problem.key else ""
        end = "" if problem.message.endswith((".", "?")) else "."
        yield ctx.finding(f"{where}{problem.message}{end}", path=problem.path, line=problem.line)


RULE = Rule(
    code="BOT001",
    name="invalid-config",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="`.github/bot.yml` must hold only known keys, rules, options and values of the right kind.",
)
