"""The review's step-math rows, with ports joined: a run whose config of one trainer is removed while a
config of another (or of the same) trainer is added for it is one row, base from the removed config and
head from the added one, so its examples and updates read base -> head like any change.

A removed and an added row are the same run when `.github/bot.yml` says so (`training.ports`, removed path
-> added path), else when they are the only removed and added rows of the same name (the file name without
its extension, `mobile300.yaml` -> `mobile300.toml`, or a profile's own name) and of another format: a
profile of the same kind and trainer under the same name elsewhere is a new run (pairing.py pairs moves).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Mapping

from rules.core import formats
from rules.core.base import Review
from rules.core.models import ProfileMath
from rules.training.profiles import profile_table

# Launch scripts' names (rules/training/trainers/launch.py SUFFIXES; not imported: see step_rows).
SCRIPT_SUFFIXES = (".sh", ".bash")


def step_rows(review: Review) -> tuple[ProfileMath, ...]:
    """Every changed profile's and trainer config's row, ports joined (memoised)."""

    def build() -> tuple[ProfileMath, ...]:
        return join_ports(profile_table(review) + _trainer_rows(review), review.config.training.ports)

    return review.memo("training.step_rows", build)


def _trainer_rows(review: Review) -> tuple[ProfileMath, ...]:
    """A trainer config is YAML, JSON or a launch script: a review that changes none (a hook's usual run)
    does not import the trainer formats at all."""
    if not any(
        formats.format_of(path) in ("yaml", "json") or path.endswith(SCRIPT_SUFFIXES)
        for f in review.changeset.files
        for path in (f.path, f.old_path)
        if path is not None
    ):
        return ()
    from rules.training.trainers.table import trainer_table

    return trainer_table(review)


def _keys(row: ProfileMath) -> set[str]:
    stem = posixpath.basename(row.path).split(".", 1)[0]
    return {stem, row.name.split(".", 1)[0]}


def join_ports(rows: tuple[ProfileMath, ...], configured: Mapping[str, str]) -> tuple[ProfileMath, ...]:
    """rows with each removed row that an added row ports joined into that added row."""
    removed = [r for r in rows if r.base is not None and r.head is None and r.head_error is None]
    added = [r for r in rows if r.head is not None and r.base is None and r.base_error is None]
    pairs: dict[int, ProfileMath] = {}  # id of the added row -> the removed row it ports
    used: set[int] = set()
    removed_at = {r.path: r for r in removed}
    added_at = {r.path: r for r in added}
    for old_path, new_path in configured.items():
        old, new = removed_at.get(old_path), added_at.get(new_path)
        if old is not None and new is not None and id(old) not in used and id(new) not in pairs:
            pairs[id(new)] = old
            used.add(id(old))
    names: dict[str, list[ProfileMath]] = defaultdict(list)
    for old in removed:
        if id(old) not in used:
            for key in _keys(old):
                names[key].append(old)
    fresh: dict[str, list[ProfileMath]] = defaultdict(list)
    for new in added:
        if id(new) not in pairs:
            for key in _keys(new):
                fresh[key].append(new)
    for key, olds in sorted(names.items()):
        news = fresh.get(key, [])
        if len(olds) != 1 or len(news) != 1 or id(olds[0]) in used or id(news[0]) in pairs:
            continue
        if _same_format(olds[0], news[0]):
            continue  # the same kind of config under another name is a new run, not a port
        pairs[id(news[0])] = olds[0]
        used.add(id(olds[0]))
    out = []
    for row in rows:
        if id(row) in used:
            continue  # shown as the base of the row that ports it
        old = pairs.get(id(row))
        out.append(_joined(old, row) if old is not None else row)
    return tuple(out)


def _same_format(old: ProfileMath, new: ProfileMath) -> bool:
    assert old.base is not None and new.head is not None
    return old.kind == new.kind and old.base.trainer == new.head.trainer


def _joined(old: ProfileMath, new: ProfileMath) -> ProfileMath:
    assert old.base is not None and new.head is not None
    before, after = old.base.model_dump(), new.head.model_dump()
    return new.model_copy(
        update={
            "base": old.base,
            "base_error": old.base_error,
            "changed": tuple(k for k in before if before[k] != after[k]),
            "ported_from": old.path,
            "base_kind": old.kind,
        }
    )


__all__ = ["SCRIPT_SUFFIXES", "join_ports", "step_rows"]
