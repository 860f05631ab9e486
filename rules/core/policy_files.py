"""Which files hold a repository's policy for the bot: AGENTS.md, and CLAUDE.md pointing at it."""

from __future__ import annotations

POLICY_NAME = "AGENTS.md"
POINTER_NAME = "CLAUDE.md"


def is_policy_path(path: str) -> bool:
    # git's paths are normalised: the last part is the name (asked of every file of a 3,000-file tree).
    return path.rpartition("/")[2] in (POLICY_NAME, POINTER_NAME)
