"""The one module that reads the process environment: everything else gets values passed in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple


class ActionsPaths(NamedTuple):
    """Files the Actions runner gives a step (None outside Actions)."""

    output: Path | None
    summary: Path | None
    temp: Path | None


def _path(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name, "")
    return Path(value) if value else None


def actions_paths(environ: Mapping[str, str] | None = None) -> ActionsPaths:
    """GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP, where set."""
    env = os.environ if environ is None else environ
    return ActionsPaths(
        output=_path(env, "GITHUB_OUTPUT"),
        summary=_path(env, "GITHUB_STEP_SUMMARY"),
        temp=_path(env, "RUNNER_TEMP"),
    )
