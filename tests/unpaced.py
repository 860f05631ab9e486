"""Turns PyGithub's request pacing off in a bot that runs in a subprocess (the action tests).

`bot.github.client.connect` paces requests (0.25 s between requests, 1 s between writes) to stay under
GitHub's secondary limits; the in-process tests pass `throttle=False`, and the action tests, whose bot runs in
the action's own interpreter, get the same through a `.pth` line of their seeded environment that imports this
module. Nothing is imported here at start-up: `connect` is wrapped when `bot.github.client` is first imported,
so every other interpreter start of the action stays as it is.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType


class _Unpaced(MetaPathFinder):
    def find_spec(self, name: str, path=None, target=None) -> ModuleSpec | None:  # type: ignore[no-untyped-def]
        if name != "bot.github.client":
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        load = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            load(module)
            paced = module.connect

            def connect(*args, **kwargs):  # type: ignore[no-untyped-def]
                return paced(*args, **{**kwargs, "throttle": False})

            module.connect = connect

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if not any(isinstance(finder, _Unpaced) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Unpaced())
