"""The AGENTS.md family: reading the sentences that switch rules on or off, and AGT004 (the trunk)."""
