"""Where a changed trainer config sets a key: its line and value at one side, read from the change set."""

from __future__ import annotations

import re
from typing import Any

from rules.core import formats
from rules.core.base import Review
from rules.core.models import UnreadableFile

# Trainer configs are small (rules/training/trainers/table.py MAX_TRAINER_BYTES); a larger file is not read.
MAX_BYTES = 512 * 1024
# `key=value`, `--key value` or `--key=value` in a launch script, the key possibly dotted (verl, OpenRLHF).
_FLAG = r"(?:^|[\s.\-])({names})(?:[ \t]*=[ \t]*|[ \t]+)([^\s\\]{{1,40}})"


def _text(review: Review, path: str, head: bool) -> str | None:
    cs = review.changeset
    try:
        text = cs.head_text(path) if head else cs.base_text(path)
    except UnreadableFile:
        return None
    return text if text is not None and len(text) <= MAX_BYTES else None


def parsed(review: Review, path: str, text: str, fmt: str, head: bool) -> Any:
    """The config at one side parsed as fmt, once per review (the step table and the rules that point at a
    key read the same file); raises FormatError as formats.load does. The data is shared: read it only."""

    def build() -> Any:
        try:
            return formats.load(text, fmt)
        except formats.FormatError as exc:
            return exc

    got = review.memo(f"config_keys.parsed:{'head' if head else 'base'}:{fmt}:{path}", build)
    if isinstance(got, formats.FormatError):
        raise got
    return got


def value(review: Review, path: str, names: tuple[str, ...], head: bool = True) -> tuple[bool, Any]:
    """(True, value) of the first of `names` a YAML/JSON/TOML config sets (at any depth, in file order as
    far as the parsed data keeps it), (False, None) when it sets none: `find` without the line, for rules
    that need the line only when they report."""
    text = _text(review, path, head)
    fmt = formats.format_of(path)
    if text is None or fmt not in ("yaml", "json", "toml"):
        found = find(review, path, names, head)
        return (False, None) if found is None else (True, found[1])
    try:
        data = parsed(review, path, text, fmt, head)
    except formats.FormatError:
        return False, None
    for name in names:
        hit = _first(data, name)
        if hit is not None:
            return True, hit[0]
    return False, None


def find(review: Review, path: str, names: tuple[str, ...], head: bool = True) -> tuple[int, Any] | None:
    """(line, value) of the first of `names` the config at `path` sets (at any depth), or None when it sets
    none of them; a launch script's value is the override's text."""
    text = _text(review, path, head)
    if text is None:
        return None
    fmt = formats.format_of(path)
    if fmt in ("yaml", "json", "toml"):
        try:
            data = parsed(review, path, text, fmt, head)
        except formats.FormatError:
            return None
        if all(_first(data, name) is None for name in names):
            return None  # most configs set none of them: no need to find where keys sit
        lines = formats.key_lines(text, "yaml" if fmt == "json" else fmt)  # JSON is YAML for positions
        for name in names:
            for key, line in sorted(lines.items(), key=lambda kv: kv[1]):
                if key and key[-1] == name:
                    return line, _value(data, key)
        return None
    pattern = re.compile(_FLAG.format(names="|".join(map(re.escape, names))), re.MULTILINE)
    match = pattern.search(text)
    if match is None:
        return None
    return text.count("\n", 0, match.start(1)) + 1, match.group(2)


def _first(data: Any, name: str) -> tuple[Any] | None:
    """(value,) of the key name in the first mapping that has it, depth first in document order, or None."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if name in item:
                return (item[name],)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _value(data: Any, key: tuple[str, ...]) -> Any:
    for part in key:
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data
