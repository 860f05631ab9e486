"""The review's rows for changed trainer configs: each file base -> head, detected and derived per side."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rules.core import formats, globs
from rules.core.base import Review
from rules.core.models import ChangeSet, FileStatus, ProfileMath, StepValues, UnreadableFile
from rules.training import config_keys
from rules.training.pairing import Pair, file_pairs
from rules.training.pins import is_requirements_file
from rules.training.trainers import WORDS, Format, deepspeed, format_of, launch, may_hold
from rules.training.trainers.facts import (
    Facts,
    transformers_from,
    world_from_accelerate,
)
from rules.training.trainers.keys import TrainerConfigError

# Trainer configs are small; a larger file is not one (a review must stay bounded).
MAX_TRAINER_BYTES = 512 * 1024
# Accelerate configs (or requirement files) read at one side, at most.
MAX_SIDE_FILES = 50
# Unchanged configs searched for a `deepspeed:` naming a changed DeepSpeed JSON, at most.
MAX_DEPENDENT_SCAN = 2000


def _candidate(review: Review, path: str | None) -> bool:
    if path is None:
        return False
    if formats.format_of(path) not in ("yaml", "json") and not launch.is_script_path(path):
        return False
    if globs.match(path, review.config.profiles.globs):
        return False  # a compat profile: rules/training/profiles.py reads it
    return globs.match(path, review.config.training.globs)


def _texts(review: Review, head: bool, wanted: Callable[[str], bool]) -> dict[str, str]:
    """The texts at one side of the repository's files that `wanted` picks (at most MAX_SIDE_FILES)."""
    cs = review.changeset
    paths = {p for p in cs.base_paths() if wanted(p)} | {f.path for f in cs.files if wanted(f.path)}
    texts = {}
    for path in sorted(paths)[:MAX_SIDE_FILES]:
        try:
            text = cs.head_text(path) if head else cs.base_text(path)
        except UnreadableFile:
            continue
        if text is not None:
            texts[path] = text
    return texts


def facts(review: Review, head: bool) -> Facts:
    """The world size, dataset sizes and transformers release at one side (memoised): bot.yml, else the
    repository's accelerate configs and requirement files."""

    def build() -> Facts:
        cfg = review.config.training
        version, version_source = transformers_from(_texts(review, head, is_requirements_file))
        known = Facts(datasets=dict(cfg.datasets), transformers=version, transformers_source=version_source)
        if cfg.world_size is not None:
            return replace(
                known,
                world_size=cfg.world_size,
                world_source="`training.world_size` in .github/bot.yml",
                configured=True,
            )
        accelerate = _texts(review, head, lambda p: globs.match(p, cfg.accelerate_globs))
        world, source = world_from_accelerate(accelerate)
        return replace(known, world_size=world, world_source=source)

    return review.memo(f"trainers.facts:{'head' if head else 'base'}", build)


def _side(
    review: Review, path: str | None, head: bool, holders: frozenset[str]
) -> tuple[Format | None, StepValues | None, str | None]:
    """(format, values, error) of one side; format None when the file is not a trainer config there."""
    if path is None or path not in holders:
        return None, None, None
    cs = review.changeset
    try:
        text = cs.head_text(path) if head else cs.base_text(path)
    except UnreadableFile:
        return None, None, None
    if text is None or len(text) > MAX_TRAINER_BYTES or not may_hold(text):
        return None, None, None
    try:
        data = _parse(review, path, text, head)
    except formats.FormatError as exc:
        return None, None, f"cannot be parsed: {exc}"
    fmt = format_of(data)
    if fmt is None:
        return None, None, None
    known = facts(review, head)
    linked = _deepspeed_config(review, path, data, head)
    if linked is not None:
        known = replace(known, deepspeed=linked[1], deepspeed_path=linked[0])
        _linked(review).add(linked[0])
    try:
        return fmt, fmt.derive(data, known), None
    except TrainerConfigError as exc:
        return fmt, None, str(exc)


def _linked(review: Review) -> set[str]:
    """The DeepSpeed JSON files an HF config of this review reads with it (their rows are the HF ones)."""
    found: set[str] = review.memo("trainers.linked_deepspeed", set)
    return found


def _parse(review: Review, path: str, text: str, head: bool) -> object:
    """A config parsed as its format (once per review, shared with the rules that point at its keys); a
    launch script into its commands' overrides and flags (never run)."""
    if launch.is_script_path(path):
        return launch.parse(text)
    return config_keys.parsed(review, path, text, formats.format_of(path) or "yaml", head)


def _deepspeed_config(
    review: Review, path: str, data: object, head: bool
) -> tuple[str, dict[str, Any]] | None:
    """(path, parsed) of the DeepSpeed JSON an HF config names in `deepspeed:`, read at the same side: the
    name as the repository root sees it (where runs are launched), else beside the config."""
    named = data.get("deepspeed") if isinstance(data, dict) else None
    if not isinstance(named, str) or not named.endswith(".json") or named.startswith("/"):
        return None
    cs = review.changeset
    for candidate in (named, posixpath.join(posixpath.dirname(path), named)):
        norm = posixpath.normpath(candidate)
        if norm.startswith("../") or norm == "..":
            continue
        try:
            text = cs.head_text(norm) if head else cs.base_text(norm)
        except UnreadableFile:
            continue
        if text is None or len(text) > MAX_TRAINER_BYTES:
            continue
        try:
            parsed = formats.load(text, "json")
        except formats.FormatError:
            continue
        if isinstance(parsed, dict):
            return norm, parsed
    return None


def trainer_table(review: Review) -> tuple[ProfileMath, ...]:
    """Step math base -> head for every changed trainer config whose derived values differ (memoised)."""

    def build() -> tuple[ProfileMath, ...]:
        cs = review.changeset
        candidates = tuple(
            f for f in cs.files if _candidate(review, f.path) or _candidate(review, f.old_path)
        )
        pairs = file_pairs(cs, candidates)
        # Only files holding a format's word are read at all (`git grep` locally), and those in one go.
        words = WORDS
        holders = {}
        for head, rev in ((False, cs.base_sha), (True, cs.head_sha)):
            paths = [p for p in (pair.head if head else pair.base for pair in pairs) if p is not None]
            holders[head] = cs.mentioning(rev, paths, words) if paths else frozenset()
            cs.prefetch(rev, holders[head])
        dependents = _dependents(review)
        pairs += dependents
        for head in (False, True):
            holders[head] |= frozenset(pair.path for pair in dependents)
        rows = [row for pair in pairs if (row := _row(review, pair, holders)) is not None]
        # A DeepSpeed JSON an HF config reads is shown in that config's row, not again on its own.
        linked = _linked(review)
        return tuple(r for r in rows if not (r.kind == deepspeed.NAME and r.path in linked))

    return review.memo("trainers.table", build)


def _dependents(review: Review) -> tuple[Pair, ...]:
    """Unchanged HF arguments files whose `deepspeed:` names a changed JSON file: their values change too."""
    cs = review.changeset
    changed = {f.path for f in cs.files}
    json_files = {f.path for f in cs.files if f.path.endswith(".json")}
    json_files |= {f.old_path for f in cs.files if f.old_path and f.old_path.endswith(".json")}
    if not json_files:
        return ()
    candidates = [p for p in cs.base_paths() if p not in changed and _candidate(review, p)]
    if len(candidates) > MAX_DEPENDENT_SCAN:
        review.incomplete.setdefault(
            "trainer configs that may name a changed DeepSpeed config",
            f"over {MAX_DEPENDENT_SCAN} YAML/JSON files; the first were searched",
        )
    candidates = candidates[:MAX_DEPENDENT_SCAN]
    names = tuple({posixpath.basename(p) for p in json_files})
    out = []
    for path in sorted(cs.mentioning(cs.head_sha, candidates, names)):
        data = _head_data(cs, path)
        if data is None or format_of(data) is None:
            continue
        for head in (False, True):
            linked = _deepspeed_config(review, path, data, head)
            named = data.get("deepspeed") if isinstance(data, dict) else None
            if (
                linked is not None
                and linked[0] in json_files
                or (isinstance(named, str) and posixpath.normpath(named) in json_files)
            ):
                out.append(Pair(path, path))
                break
    return tuple(out)


def _row(review: Review, pair: Pair, holders: dict[bool, frozenset[str]]) -> ProfileMath | None:
    base_fmt, base, base_error = _side(review, pair.base, False, holders[False])
    head_fmt, head, head_error = _side(review, pair.head, True, holders[True])
    if base_fmt is None and head_fmt is None:
        return None  # a YAML/JSON file that is no trainer config on either side
    if base_fmt is None:
        base_error = None  # unparseable before it became a trainer config: nothing to compare
    if head_fmt is None and head_error is None and pair.head is not None and base is not None:
        head_error = "no longer a trainer config this bot reads"
    if base == head and base_error == head_error and pair.base is not None:
        return None  # a change that moves no derived value (a learning rate, a comment)
    changed: tuple[str, ...] = ()
    if base is not None and head is not None:
        old, new = base.model_dump(), head.model_dump()
        changed = tuple(k for k in old if old[k] != new[k])
    fmt = head_fmt or base_fmt
    assert fmt is not None
    shown = head or base
    return ProfileMath(
        path=pair.path,
        name=posixpath.basename(pair.path),
        base=base,
        head=head,
        base_error=base_error,
        head_error=head_error,
        kind=fmt.name,
        changed=changed,
        trainer=shown.trainer if shown is not None else fmt.name,
    )


def configs_holding(review: Review, words: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(path, format name) of the trainer configs at head (changed or not) whose text holds one of words,
    for a change outside them (a transformers pin) that changes how they read; at most MAX_DEPENDENT_SCAN
    files are searched."""
    cs = review.changeset
    gone = {f.path for f in cs.files if f.status is FileStatus.REMOVED}
    gone |= {f.old_path for f in cs.files if f.old_path and f.old_path != f.path}
    paths = {p for p in cs.base_paths() if p not in gone} | {f.path for f in cs.files if f.path not in gone}
    candidates = sorted(p for p in paths if _candidate(review, p) and not launch.is_script_path(p))
    if len(candidates) > MAX_DEPENDENT_SCAN:
        review.incomplete.setdefault(
            "trainer configs read under a new transformers pin",
            f"over {MAX_DEPENDENT_SCAN} YAML/JSON files; the first were searched",
        )
    out = []
    for path in sorted(cs.mentioning(cs.head_sha, candidates[:MAX_DEPENDENT_SCAN], words)):
        data = _head_data(cs, path)
        fmt = format_of(data) if data is not None else None
        if fmt is not None:
            out.append((path, fmt.name))
    return tuple(out)


def _head_data(cs: ChangeSet, path: str) -> Any:
    """An unchanged file's YAML or JSON at head, or None when it cannot be read or parsed, is too large, or
    holds no trainer key (the cheap text test first)."""
    try:
        text = cs.head_text(path)
    except UnreadableFile:
        return None
    if text is None or len(text) > MAX_TRAINER_BYTES or not may_hold(text):
        return None
    try:
        return formats.load(text, formats.format_of(path) or "yaml")
    except formats.FormatError:
        return None
