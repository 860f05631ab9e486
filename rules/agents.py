"""AGENTS.md discovery at the base revision, and the statements in it that turn rules on."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from bot.models import ChangeSet, UnreadableFile
from rules.base import Rule, Statement

POLICY_FILES = ("AGENTS.md",)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def policy_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """Every AGENTS.md among paths, root first."""
    found = [p for p in paths if PurePosixPath(p).name in POLICY_FILES]
    return tuple(sorted(found, key=lambda p: (p.count("/"), p)))


def scope_of(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def statements_in(path: str, text: str, rules: Iterable[Rule]) -> dict[str, list[Statement]]:
    """Lines of one AGENTS.md that a rule recognises, by rule code."""
    compiled = [(r.code, [re.compile(p, re.IGNORECASE) for p in r.recognisers]) for r in rules]
    out: dict[str, list[Statement]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _BULLET.sub("", raw).strip()
        if not line:
            continue
        for code, patterns in compiled:
            if any(p.search(line) for p in patterns):
                out.setdefault(code, []).append(Statement(path, number, line[:300], scope_of(path)))
    return out


def discover(changeset: ChangeSet, rules: Iterable[Rule]) -> dict[str, tuple[Statement, ...]]:
    """Statements of every AGENTS.md at base, by rule code; the PR's own edits do not count yet."""
    rules = [r for r in rules if r.recognisers]
    merged: dict[str, list[Statement]] = {}
    for path in policy_paths(changeset.base_paths()):
        try:
            text = changeset.base_text(path)
        except UnreadableFile:
            continue
        if text is None:
            continue
        for code, found in statements_in(path, text, rules).items():
            merged.setdefault(code, []).extend(found)
    return {code: tuple(found) for code, found in merged.items()}
