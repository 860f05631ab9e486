"""Safe loading of untrusted TOML, YAML and JSON text into plain data."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from rules.core.lines import git_lines, line_at

MAX_DEPTH = 32
# No step count, batch size or token count needs more than 64 bits; larger integers are hostile and would
# make derived values too long to print (Python refuses str() of an int over 4,300 digits).
MAX_INT = 2**63 - 1


class FormatError(ValueError):
    """The text is not valid for its format; the message is short and never echoes the input. line: where
    the parser stopped (1-based), when it says."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# tomllib ends its messages with where it stopped: "(at line 3, column 9)" or "(at end of document)".
_TOML_AT = re.compile(r"\s*\(at (?:line (?P<line>[0-9]+), column [0-9]+|end of document)\)$")


@functools.cache
def _loader() -> Any:
    """The YAML loader class; PyYAML is imported on the first YAML file only (a pre-commit run on TOML
    profiles and no config never needs it)."""
    import yaml

    class _UniqueKeyLoader(yaml.SafeLoader):
        """SafeLoader that refuses duplicate keys, anchors and aliases."""

        def _at(self, mark: Any) -> int:
            # The reader holds the text itself (with a NUL appended) when it was given a str.
            buffer = getattr(self, "buffer", None)
            return _line(buffer, mark) if isinstance(buffer, str) else int(mark.line) + 1

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise FormatError(f"YAML aliases are not allowed (line {self._at(event.start_mark)})")
            event = self.peek_event()
            if getattr(event, "anchor", None):
                raise FormatError(f"YAML anchors are not allowed (line {self._at(event.start_mark)})")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, (list, dict)):
                    raise FormatError(f"unhashable key at line {self._at(key_node.start_mark)}")
                if key in seen:
                    line = self._at(key_node.start_mark)
                    raise FormatError(f"duplicate key {str(key)[:40]!r} at line {line}", line)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return _UniqueKeyLoader


def check(value: Any) -> None:
    """Refuse structures too deep to be a config, integers over 64 bits, and non-finite numbers (also for
    data parsed elsewhere, such as Python literals)."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise FormatError(f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, float) and not math.isfinite(item):
            raise FormatError("NaN or infinite numbers are not allowed")
        if isinstance(item, int) and not -MAX_INT <= item <= MAX_INT:
            raise FormatError("integers beyond 64 bits are not allowed")
        if isinstance(item, dict):
            stack.extend((v, level + 1) for pair in item.items() for v in pair)
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend((v, level + 1) for v in item)


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise FormatError(f"duplicate key {key[:40]!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise FormatError(f"{name} is not allowed")


def format_of(path: str) -> str | None:
    """'toml', 'yaml' or 'json' from a file name, or None."""
    lower = path.lower()
    for suffix, fmt in ((".toml", "toml"), (".yaml", "yaml"), (".yml", "yaml"), (".json", "json")):
        if lower.endswith(suffix):
            return fmt
    return None


def load(text: str, fmt: str) -> Any:
    """Parse text of the given format; raises FormatError on anything invalid or hostile."""
    try:
        if fmt == "toml":
            data: Any = _load_toml(text)
        elif fmt == "yaml":
            data = _load_yaml(text)
        elif fmt == "json":
            data = _load_json(text)
        else:
            raise FormatError(f"unknown format {fmt!r}")
    except FormatError:
        raise
    except RecursionError:
        raise FormatError("nested too deeply") from None
    except ValueError as exc:  # e.g. integers over Python's digit limit
        raise FormatError(f"invalid value: {str(exc)[:80]}") from None
    check(data)
    return data


# The parsers are imported with the first file of their format (as PyYAML is): a review that reads no TOML
# or JSON file, such as a pre-commit run on one test file, does not load them.
def _load_toml(text: str) -> Any:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _TOML_AT.search(message)
        line = None
        if at is not None:
            line = int(at["line"]) if at["line"] else max(len(git_lines(text)), 1)
            message = message[: at.start()]
        raise FormatError(f"invalid TOML: {message[:120]}", line) from None


def _load_json(text: str) -> Any:
    import json

    try:
        return json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise FormatError(f"invalid JSON: {exc.msg[:120]}", exc.lineno) from None


# Text the C parser may take instead: printable ASCII lines without tabs (libyaml takes a tab after a plain
# scalar, `a: 1\t# c`, that the pure loader refuses), anchors (`&`), aliases (`*`) or tags (`!`), the
# constructs the pure loader refuses or resolves itself. Anything else, and anything the C path
# does not parse cleanly, goes through the pure loader, whose result and messages are the reference.
_PLAIN_YAML = re.compile(r"[\n\r\x20\x22-\x25\x27-\x29\x2b-\x7e]*\Z")


class _Refused(Exception):
    """The C path met something the pure loader must judge (a duplicate key): parse again with it."""


@functools.cache
def _fast_loader() -> Any:
    """A SafeLoader on libyaml's parser that stops at duplicate keys, or None without libyaml."""
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        return None

    class _FastLoader(yaml.CSafeLoader):  # type: ignore[name-defined,misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, (list, dict)) or key in seen:
                    raise _Refused
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return _FastLoader


def _load_fast(text: str) -> tuple[bool, Any]:
    """(True, data) when the C parser read plain text cleanly; (False, None) to use the pure loader."""
    loader = _fast_loader() if _PLAIN_YAML.match(text) else None
    if loader is None:
        return False, None
    import yaml

    try:
        return True, yaml.load(text, Loader=loader)  # noqa: S506 - SafeLoader on libyaml
    except (_Refused, yaml.YAMLError, ValueError, RecursionError):
        return False, None


def _load_yaml(text: str) -> Any:
    import yaml

    fast, data = _load_fast(text)
    if fast:
        return data
    try:
        return yaml.load(text, Loader=_loader())  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = _line(text, mark) if mark is not None else None
        # PyYAML's problem is a fixed phrase naming at most one character ("found character '\t' that
        # cannot start any token"), never the text around it.
        reason = str(getattr(exc, "problem", "") or "").strip()
        raise FormatError("invalid YAML" + (f": {reason[:120]}" if reason else ""), line) from None


def key_lines(text: str, fmt: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of each mapping key, by its path (`("rules", "AGT01")`), so a message can say
    where a bad key or value is. Best effort: text that does not parse gives an empty map."""
    try:
        if fmt == "yaml":
            return _yaml_key_lines(text)
        if fmt == "toml":
            return _toml_key_lines(text)
    except (FormatError, RecursionError, ValueError):  # PyYAML's YAMLError is turned into FormatError
        pass
    return {}


def _line(text: str, mark: Any) -> int:
    """The git line (rules.core.lines) of a YAML mark: YAML also breaks lines at a lone `\\r`, `\\x85`,
    U+2028 and U+2029, which git does not; the mark's index counts characters of the text."""
    index = getattr(mark, "index", None)
    return line_at(text, index) if isinstance(index, int) else int(mark.line) + 1


def _compose(text: str) -> Any:
    """The node tree of the text: libyaml's composer for plain text (as `_load_fast`), else the pure one."""
    import yaml

    loader = _fast_loader() if _PLAIN_YAML.match(text) else None
    if loader is not None:
        try:
            return yaml.compose(text, Loader=loader)  # noqa: S506 - SafeLoader on libyaml, nodes only
        except (yaml.YAMLError, ValueError, RecursionError):
            pass  # the pure composer judges it
    try:
        return yaml.compose(text, Loader=_loader())  # noqa: S506 - SafeLoader subclass, nodes only
    except yaml.YAMLError:
        raise FormatError("invalid YAML") from None


def _yaml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    import yaml

    root = _compose(text)
    out: dict[tuple[str, ...], int] = {}
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            continue
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                here = (*path, str(key.value))
                out.setdefault(here, _line(text, key.start_mark))
                stack.append((value, here))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                here = (*path, str(i))
                out.setdefault(here, _line(text, item.start_mark))
                stack.append((item, here))
    return out


def _toml_key_lines(text: str) -> dict[tuple[str, ...], int]:
    # tomllib keeps no positions: table headers and `key =` lines are enough to point at a key.
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, raw in enumerate(git_lines(text), 1):
        line = raw.strip()
        if line.startswith("["):
            name = line.strip("[]").split("#", 1)[0].strip().strip("[]")
            table = tuple(p.strip().strip("\"'") for p in name.split("."))
            out.setdefault(table, number)
        elif "=" in line and not line.startswith("#"):
            key = line.split("=", 1)[0].strip()
            out.setdefault((*table, *(p.strip().strip("\"'") for p in key.split("."))), number)
    return out
