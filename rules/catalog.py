"""The rule catalog: an explicit registry, in code order; importing one rule module does not load it."""

from __future__ import annotations

from rules.agents_md import trunk
from rules.botconfig import invalid_config
from rules.core.base import Rule
from rules.testcode import regression_reference, rewritten_expectation, tautological, waivers
from rules.training import batch, claims, exposure, scheduler, step_values

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
