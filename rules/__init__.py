"""The rule catalog: an explicit registry, in code order."""

from __future__ import annotations

from rules import batch, claims, exposure, regression_reference, scheduler, step_values
from rules.base import Rule

REGISTRY: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        regression_reference.RULE,
        step_values.RULE,
        scheduler.RULE,
        batch.RULE,
        exposure.RULE,
        claims.RULE,
    )
}
