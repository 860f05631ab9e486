"""The pure core: the vocabulary (rules.core), the rule families on it, and the registry (rules.catalog)."""
