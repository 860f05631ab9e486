"""The rule catalog: an explicit registry, in code order."""

from __future__ import annotations

from rules import regression_reference, rewritten_expectation, step_values, tautological, trunk, waivers
from rules.base import Rule

REGISTRY: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        regression_reference.RULE,
        tautological.RULE,
        rewritten_expectation.RULE,
        trunk.RULE,
        waivers.RULE,
        step_values.RULE,
    )
}
