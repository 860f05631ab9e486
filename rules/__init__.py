"""Policy: one module per rule, pure functions from a change set to findings (registry: rules.catalog)."""
