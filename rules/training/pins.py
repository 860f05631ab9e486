"""Which files may pin the transformers release: without the trainer formats, so that a rule can ask
whether a change touches one before it loads them."""

from __future__ import annotations

REQUIREMENT_NAMES = ("setup.py", "setup.cfg", "pyproject.toml", "uv.lock", "poetry.lock")


def is_requirements_file(path: str) -> bool:
    """Files that may pin transformers: requirements*.txt and the packaging files named above."""
    name = path.rsplit("/", 1)[-1]
    return name in REQUIREMENT_NAMES or (name.startswith("requirements") and name.endswith(".txt"))
