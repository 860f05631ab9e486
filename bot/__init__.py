"""bot: reviews pull requests against AGENTS.md conventions and training step math."""

__version__ = "0.1.0"
