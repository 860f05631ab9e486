"""What a trainer config cannot say about its run: the world size and the datasets' sizes.

They come from `.github/bot.yml` (`training.world_size`, `training.datasets`), else the world size from the
repository's accelerate configs when they agree on `num_processes`; else the step math says what it assumed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core import formats

# An accelerate config is small; a larger file under the globs is not one.
MAX_ACCELERATE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Facts:
    """The world size and where it came from (None: unknown), and dataset name -> training examples."""

    world_size: int | None = None
    world_source: str | None = None
    datasets: Mapping[str, int] = field(default_factory=dict)
    # The DeepSpeed JSON an HF config names in `deepspeed:`, parsed, and its path (set per file).
    deepspeed: Mapping[str, Any] | None = None
    deepspeed_path: str | None = None
    # Whether world_size was set in .github/bot.yml (it then outranks what other files imply).
    configured: bool = False
    # The transformers release the runs use at least (major, minor), and the file that says so.
    transformers: tuple[int, int] | None = None
    transformers_source: str | None = None

    def release(self) -> tuple[tuple[int, int] | None, str]:
        """The transformers release the step math follows, and how the row names it."""
        if self.transformers is None:
            return None, f"transformers >= 4.52 assumed: {self.transformers_source or 'no pin found'}"
        return self.transformers, str(self.transformers_source)

    def world(self) -> tuple[int, str]:
        """The data-parallel world size the step math uses, and the note that says where it came from."""
        if self.world_size is None:
            why = f"{self.world_source}; " if self.world_source else ""
            return 1, f"world size 1 assumed ({why}set `training.world_size` in .github/bot.yml)"
        return self.world_size, f"world size {self.world_size} from {self.world_source}"


def num_processes(text: str) -> int | None:
    """`num_processes` of an accelerate config (total processes over all machines), or None."""
    if len(text.encode("utf-8")) > MAX_ACCELERATE_BYTES:
        return None
    try:
        data: Any = formats.load(text, "yaml")
    except formats.FormatError:
        return None
    if not isinstance(data, dict) or "compute_environment" not in data and "distributed_type" not in data:
        return None
    value = data.get("num_processes")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def world_from_accelerate(configs: Mapping[str, str]) -> tuple[int | None, str | None]:
    """The world size the repository's accelerate configs agree on, and where it came from; (None, why not)
    when they disagree, and (None, None) when there are none. A run's launcher picks one config, which a
    trainer config does not name: only a size every one of them gives is certain."""
    found = {path: n for path, text in sorted(configs.items()) if (n := num_processes(text)) is not None}
    if not found:
        return None, None
    sizes = sorted(set(found.values()))
    if len(sizes) > 1:
        return None, f"accelerate configs disagree on `num_processes` ({', '.join(map(str, sizes))})"
    first = next(iter(found))
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return sizes[0], f"`num_processes` in {first}{more}"


# `transformers==4.52.3`, `"transformers>=4.53.3",`, `transformers[torch]~=4.57` in requirements files,
# setup.py, setup.cfg and pyproject.toml; uv.lock and poetry.lock name the locked version on the next line.
# Every repetition is bounded: the text is the pull request's.
_REQUIREMENT = re.compile(
    r"(?<![\w.-])transformers(?:\[[^\]\n]{0,100}\])?[ \t]{0,20}(==|>=|~=)"
    r"[ \t]{0,20}v?([0-9]{1,4})\.([0-9]{1,4})"
)
_LOCKED = re.compile(
    r'name[ \t]{0,20}=[ \t]{0,20}"transformers"[ \t\r]{0,20}\n'
    r'[ \t]{0,20}version[ \t]{0,20}=[ \t]{0,20}"([0-9]{1,4})\.([0-9]{1,4})'
)


def transformers_from(files: Mapping[str, str]) -> tuple[tuple[int, int] | None, str | None]:
    """The transformers release the repository's files fix at least, and where: an exact pin (`==`,
    or a lock) wins, all of them agreeing; else the highest lower bound (`>=`, `~=`). (None, why) when
    pins disagree, (None, None) when no file names transformers."""
    exact: dict[tuple[int, int], str] = {}
    lower: dict[tuple[int, int], str] = {}
    for path, text in sorted(files.items()):
        for op, major, minor in _REQUIREMENT.findall(text):
            (exact if op == "==" else lower).setdefault((int(major), int(minor)), path)
        for major, minor in _LOCKED.findall(text):
            exact.setdefault((int(major), int(minor)), path)
    if len(exact) > 1:
        shown = ", ".join(f"{a}.{b}" for a, b in sorted(exact))
        return None, f"transformers pins disagree ({shown})"
    if exact:
        ((version, path),) = exact.items()
        return version, f"transformers=={version[0]}.{version[1]} in {path}"
    if lower:
        version = max(lower)
        return version, f"transformers>={version[0]}.{version[1]} in {lower[version]}"
    return None, None
