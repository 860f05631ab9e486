"""The test-code family: tests found by parsing them, and the rules about them (AGT001-AGT003, BOT002)."""
