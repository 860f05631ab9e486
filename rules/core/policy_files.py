"""Which files hold a repository's policy for the bot: AGENTS.md, and the other agent guides.

An agent guide other than AGENTS.md (CLAUDE.md, GEMINI.md, ...) is named by its path relative to the
folder it governs: `CLAUDE.md` in `lib/` governs `lib/`, `.claude/CLAUDE.md` and
`.github/copilot-instructions.md` govern the folder that holds `.claude/` or `.github/`. The list is
`agent_guides` in `.github/bot.yml` (rules.core.config); these are its defaults.
"""

from __future__ import annotations

POLICY_NAME = "AGENTS.md"
POINTER_NAME = "CLAUDE.md"
AGENT_GUIDES: tuple[str, ...] = (
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
)


def guide_folder(path: str, guides: tuple[str, ...] = AGENT_GUIDES) -> str | None:
    """The folder an agent guide at path governs ("" for the root), or None when path is no guide."""
    # The longest first: `.claude/CLAUDE.md` governs the folder above `.claude/`, not `.claude/` itself.
    for guide in sorted(guides, key=len, reverse=True):
        if path == guide:
            return ""
        if path.endswith("/" + guide):
            return path[: -len(guide) - 1]
    return None


def is_policy_path(path: str, guides: tuple[str, ...] = AGENT_GUIDES) -> bool:
    # git's paths are normalised: the last part is the name (asked of every file of a 3,000-file tree).
    name = path.rpartition("/")[2]
    if name == POLICY_NAME:
        return True
    # Cheap first: a guide's path ends with the guide's own last part.
    return any(name == g.rpartition("/")[2] for g in guides) and guide_folder(path, guides) is not None
