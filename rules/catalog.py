"""The rule catalog: an explicit registry, in code order; importing one rule module does not load it."""

from __future__ import annotations

from rules import (
    batch,
    claims,
    exposure,
    invalid_config,
    regression_reference,
    rewritten_expectation,
    scheduler,
    step_values,
    tautological,
    trunk,
    waivers,
)
from rules.core.base import Rule

REGISTRY: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        regression_reference.RULE,
        tautological.RULE,
        rewritten_expectation.RULE,
        trunk.RULE,
        invalid_config.RULE,
        waivers.RULE,
        step_values.RULE,
        scheduler.RULE,
        batch.RULE,
        exposure.RULE,
        claims.RULE,
    )
}
