"""The rule catalog: an explicit registry, in code order; importing one rule module does not load it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.agents_md import trunk
from rules.botconfig import invalid_config
from rules.core.base import Rule
from rules.testcode import regression_reference, reproduction, rewritten_expectation, tautological, waivers
from rules.training import (
    batch,
    claims,
    epochs,
    exposure,
    scheduler,
    step_values,
    units,
    warmup,
    warmup_ratio,
)

# The values of the options of AGT001 and AGT003, so that `.github/bot.yml` is checked against them (a BOT001
# at the option's line, with a did-you-mean). To move into the rules' own `choices=` in their modules.
_CHOICES: dict[str, dict[str, tuple[Any, ...]]] = {
    "AGT001": {"regression": regression_reference.MODES, "issues": ("auto", True, False)},
    "AGT003": {"when": rewritten_expectation.WHEN},
}


def _with_choices(rule: Rule) -> Rule:
    return replace(rule, choices={**_CHOICES[rule.code], **rule.choices}) if rule.code in _CHOICES else rule


REGISTRY: dict[str, Rule] = {
    rule.code: rule
    for rule in map(
        _with_choices,
        (
            regression_reference.RULE,
            tautological.RULE,
            rewritten_expectation.RULE,
            trunk.RULE,
            reproduction.RULE,
            invalid_config.RULE,
            waivers.RULE,
            step_values.RULE,
            scheduler.RULE,
            batch.RULE,
            exposure.RULE,
            claims.RULE,
            units.RULE,
            warmup.RULE,
            epochs.RULE,
            warmup_ratio.RULE,
        ),
    )
}
