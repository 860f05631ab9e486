"""The environment the benchmarks run git in: a fixed author, and no system git configuration."""

from __future__ import annotations

import os
from collections.abc import Mapping


def git_env(base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """`base` (the process's environment by default) with a fixed author and committer, so commits made by
    a benchmark need no user configuration, and without the system git config, so a machine's settings
    (autocrlf, hooks paths) cannot change what is measured."""
    return {
        **(os.environ if base is None else base),
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        **extra,
    }
