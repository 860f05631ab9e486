"""Launch scripts (`run_qwen2-7b.sh`) read as text: the Hydra overrides and `--flags` their commands pass.

Nothing is executed. Each logical line (backslash continuations joined) is split with `shlex` as a POSIX
shell would split words, comments dropped; a line shlex cannot split (an open quote) is skipped. Variables
the script assigns literally (`MODEL=...`, `export N=8`) are substituted where a later word names them
(`$MODEL`, `${MODEL}`); anything else (`$HOME`, `$(nproc)`, `$@`) stays as written. Bash arrays and
here-documents need nothing special: their lines are words like any other. A key given twice keeps its
last value, as Hydra and argparse do.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

# The marker a parsed script carries, so a format can tell it from a parsed YAML mapping.
SCRIPT = "$script"
# A launch script is small; larger text (or more lines) is not one worth reading.
MAX_LINES = 5000
# A logical line (continuations joined) longer than this is not read: shlex builds each word a character at a
# time, which grows as the square of a word's length (400 KB of one word took 1.7 s); real launch commands
# are a few KB (the longest of the fixtures, 4 KB).
MAX_LINE = 16 * 1024

_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# `$NAME`, `${NAME}`, and `${NAME:-default}` (the default where the script does not set NAME).
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^${}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_MAX_NESTING = 4
# A Hydra override: `key.sub=value`, `+key=value` (add) or `++key=value` (add or override).
_OVERRIDE = re.compile(r"^\+{0,2}([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+)=(.*)$", re.S)
_FLAG = re.compile(r"^--([A-Za-z][A-Za-z0-9_.-]*)(?:=(.*))?$", re.S)
# A word that is an option, not an option's value (a negative number is a value).
_OPTION = re.compile(r"^-[-A-Za-z]")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")


# `ARGS="` opening a double-quoted value that goes on over the next lines (Megatron's example scripts keep
# their flags so): the lines up to the closing quote are one logical line.
_OPEN_ASSIGN = re.compile(r'^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*="')
# A quoted value spans at most this many lines; past it the lines are read one by one again.
_MAX_QUOTED_LINES = 200


def _open_quote(line: str) -> bool:
    """Whether a line opening a quoted assignment leaves its double quote open."""
    if _OPEN_ASSIGN.match(line) is None:
        return False
    return len(re.findall(r'(?<!\\)"', line)) % 2 == 1


def _lines(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    quoted = 0  # lines taken into an open quoted value so far
    for raw in text.splitlines()[:MAX_LINES]:
        stripped = raw.rstrip()
        if stripped.endswith("\\"):
            current.append(stripped[:-1] + " ")
            continue
        line = "".join(current) + raw
        current = []
        if quoted or _open_quote(line):
            quoted += 1
            if ('"' in raw and quoted > 1) or quoted > _MAX_QUOTED_LINES:
                out.append(line)
                quoted = 0
            else:
                current = [line + " "]
            continue
        out.append(line)
    if current:
        out.append("".join(current))
    return out


def _words(line: str) -> list[str] | None:
    if len(line) > MAX_LINE:
        return None
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return None


def scalar(word: str) -> Any:
    """A word as Hydra and argparse's int/float types read it: 1024 -> int, 1e-6 -> float, True/False ->
    bool, null/None -> None; anything else stays a string."""
    lowered = word.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none", "~"):
        return None
    for kind in (int, float):
        try:
            return kind(word)
        except ValueError:
            continue
    return word


def parse(text: str) -> dict[str, Any]:
    """{SCRIPT: True, "overrides": {key: value}, "flags": {name: value or True}, "modules": [...]}."""
    variables: dict[str, str] = {}
    overrides: dict[str, Any] = {}
    flags: dict[str, Any] = {}
    modules: list[str] = []

    def expand(word: str) -> str:
        # Innermost first (`${A:-${B}/x}`); a variable the script does not set is parked, then restored.
        parked: list[str] = []

        def lookup(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(3)
            if name in variables:
                return variables[name]
            if m.group(2) is not None:
                return m.group(2)
            parked.append(m.group(0))
            return f"\x00{len(parked) - 1}\x01"

        for _ in range(_MAX_NESTING):
            expanded = _VARIABLE.sub(lookup, word)
            if expanded == word:
                break
            word = expanded
        return re.sub("\x00([0-9]+)\x01", lambda m: parked[int(m.group(1))], word)

    for line in _lines(text):
        words = _words(line)
        if not words:
            continue
        assigned = _ASSIGN.match(" ".join(words)) if len(words) <= 2 else None
        if assigned is not None and "(" not in assigned.group(2):
            variables[assigned.group(1)] = expand(assigned.group(2))
            continue
        words = _split_expanded(words, expand)
        for i, word in enumerate(words):
            if (override := _OVERRIDE.match(word)) is not None:
                overrides[override.group(1)] = scalar(override.group(2))
            elif (flag := _FLAG.match(word)) is not None:
                name, value = flag.group(1), flag.group(2)
                if value is None:
                    following = words[i + 1] if i + 1 < len(words) else None
                    takes = following is not None and _OPTION.match(following) is None
                    flags[name] = scalar(following) if takes and following is not None else True
                else:
                    flags[name] = scalar(value)
            elif _MODULE.match(word) and "." in word and not word[0].isdigit():
                modules.append(word)
    return {SCRIPT: True, "overrides": overrides, "flags": flags, "modules": modules}


def _split_expanded(words: list[str], expand: Callable[[str], str]) -> list[str]:
    """The words with their variables substituted; a variable whose value holds several words (`$T5_ARGS`,
    `${TRAINING_ARGS}`) gives them as separate words, as the shell's word splitting does."""
    out: list[str] = []
    for word in words:
        value = expand(word)
        if value != word and any(c.isspace() for c in value):
            out.extend(_words(value) or value.split())
        else:
            out.append(value)
    return out


def torchrun_world(flags: dict[str, Any]) -> int | None:
    """The processes torchrun starts: `--nproc_per_node` × `--nnodes`, where the script writes them as
    numbers (a variable it does not set, such as `$1`, leaves them unknown)."""
    per_node, nodes = flags.get("nproc_per_node"), flags.get("nnodes", 1)
    if (
        isinstance(per_node, int)
        and not isinstance(per_node, bool)
        and isinstance(nodes, int)
        and per_node > 0
    ):
        return per_node * max(nodes, 1)
    return None


TORCHRUN_WORLD = "world size from torchrun's `--nproc_per_node` × `--nnodes`"


def is_script(data: Any) -> bool:
    """Whether data is what parse() returns."""
    return isinstance(data, dict) and data.get(SCRIPT) is True


SUFFIXES = (".sh", ".bash")  # bot/review/engine.py keeps a copy, to decide without importing the formats


def is_script_path(path: str) -> bool:
    """Shell scripts are read by their name: `.sh`, `.bash`."""
    return path.endswith(SUFFIXES)


__all__ = ["SCRIPT", "TORCHRUN_WORLD", "is_script", "is_script_path", "parse", "torchrun_world"]
