"""Reading a trainer config's keys: the value, its default where the key is absent, or why it is unusable."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# No real run needs a number above this; larger ones would only overflow the arithmetic.
MAX_NUMBER = 10**12


class TrainerConfigError(ValueError):
    """A key whose value the trainer would refuse or that the step math cannot use; the message says which."""


def integer(data: Mapping[str, Any], key: str, default: int | None) -> int | None:
    """An integer key (YAML `8`, or `8.0` the trainer's int cast keeps), else default when absent or null."""
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TrainerConfigError(f"`{key}` should be a whole number; got `{str(value)[:40]}`")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise TrainerConfigError(f"`{key}` should be a whole number; got `{value}`")
    return _bounded(key, int(value))


def number(data: Mapping[str, Any], key: str, default: float | None) -> float | None:
    """A numeric key (int or float), else default when absent or null."""
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TrainerConfigError(f"`{key}` should be a number; got `{str(value)[:40]}`")
    return float(_bounded(key, value))


def _bounded(key: str, value: Any) -> Any:
    if abs(value) > MAX_NUMBER:
        raise TrainerConfigError(f"`{key}` is {value:.3g}, beyond any training run")
    return value


def positive(key: str, value: int) -> int:
    """value when above 0; a config with 0 or less there trains nothing the step math can count."""
    if value <= 0:
        raise TrainerConfigError(f"`{key}` should be above 0; got {value}")
    return value


def flag(data: Mapping[str, Any], key: str) -> bool:
    """A boolean key: only YAML's own true counts."""
    return data.get(key) is True


def shown(value: float) -> str:
    """A number as a config writes it: 3 for 3.0, 0.1 for 0.1."""
    return str(int(value)) if value == int(value) else f"{value:g}"
