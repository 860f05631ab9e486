"""Entries a change adds to a hand-written changelog, with the section each sits under.

Keep a Changelog (`### Fixed`, `### Added`) and its common variants (`Bug fixes`, `Bugfixes:`, rst headings
underlined with `---`) say what kind of change an entry is in the maintainers' own words, as changelog
fragments do. An entry under a section of no kind ("Stable style", "Version 2.3.7") says it in its prose,
read by the caller, except under a patch release's own heading ("Version 3.1.3", "## [2.6.1] - 2024-05-02"):
by semantic versioning a patch release holds bug fixes only, so its entries are fixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

# CHANGELOG.md, CHANGES.rst, HISTORY.md, NEWS, RELEASE_NOTES.md, docs/changelog.rst...
# Compared with `_` and `-` taken out: versionhistory.rst, release-history.md, CHANGE_LOG are the same kinds.
_NAMES = frozenset(
    "changelog changes history news releasenotes whatsnew versionhistory releasehistory changelogs".split()
)
_SUFFIXES = frozenset(("", ".md", ".rst", ".txt", ".markdown"))
# A changelog of many megabytes is read only this far: the entries a PR adds are near the top.
MAX_LINES = 20_000
# At most this many entries are taken from one change: a reformatted changelog is not a hundred fixes.
MAX_ENTRIES = 50

FIX = "fix"
OTHER = "other"

# Section titles by kind. A fix section: "Fixed", "Fixes", "Bug fixes", "Bugfixes", "Bugs fixed", "Security".
_FIX_TITLE = re.compile(
    r"^(?:(?:bug\s*-?\s*)?fix(?:es|ed)?|bugs?(?:\s+fix(?:es|ed)?)?|fixed\s+bugs|security(?:\s+fix(?:es)?)?|"
    r"(?:bug|security)\s+fixes\s+and\s+\w+|hot\s*fix(?:es)?)$",
    re.IGNORECASE,
)
_OTHER_TITLE = re.compile(
    r"^(?:added|changed|deprecated|deprecations?|removed|removals?|features?|new\s+features?|new|"
    r"enhancements?|improvements?|performance|documentation|docs|internals?|internal\s+changes|"
    r"breaking(?:\s+changes?)?|backwards?\s+incompatible\s+changes|dependencies|packaging|misc\w*|"
    r"other(?:\s+changes)?|refactor\w*|maintenance|chores?|build|ci|testing|tests|api\s+changes)$",
    re.IGNORECASE,
)
# A release heading whose third number is not zero: "Version 3.1.3", "[2.6.1] - 2024-05-02", "v24.1.1 (TBD)".
_PATCH_RELEASE = re.compile(
    r"^(?:version|release|v)?[ \t]*\[?v?\d{1,4}\.\d{1,4}\.0*[1-9]\d{0,3}"
    r"(?:(?:rc|post|\.post|-rc\.?)\d{1,3})?\]?"
    r"(?:[ \t]*(?:-|\(|—|–)[^\n]{0,40})?$",
    re.IGNORECASE,
)
_MD_HEADING = re.compile(r"^#{1,6}[ \t]")  # the title is the rest, its closing `#`s stripped
_UNDERLINE = re.compile(r"^([=\-~^\"'*+#`:.])\1{2,}[ \t]*$")
# "Bugfixes:" or "**Bug fixes**" alone on a line, as NEWS files and some rst changelogs title a section.
_LABEL = re.compile(r"^(?:\*\*|__)?([A-Za-z][\w \t-]{1,40}?)(?:\*\*|__)?:?(?:\*\*|__)?[ \t]*$")
_BULLET = re.compile(r"^[ \t]{0,4}(?:[-*+•]|\d{1,3}[.)])[ \t]+\S")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Entry:
    """One changelog entry the change adds: its text (continuation lines joined) and its section."""

    text: str
    section: str  # the nearest heading above it, "" when none
    kind: str  # FIX or OTHER by its section's title, "" when the section says no kind


def is_changelog(path: str) -> bool:
    """Whether path names a hand-written changelog (CHANGELOG.md, CHANGES.rst, HISTORY.rst, NEWS...)."""
    p = PurePosixPath(path)
    suffix = p.suffix.lower()
    stem = p.stem if suffix in _SUFFIXES else p.name
    return suffix in _SUFFIXES and stem.lower().replace("_", "").replace("-", "") in _NAMES


def section_kind(title: str) -> str:
    """FIX, OTHER or "" for a section title ("Bug fixes" -> FIX, "Added" -> OTHER, "Version 2.1" -> "")."""
    words = _SPACE.sub(" ", title.strip().strip("*_:`[]").strip()).strip()
    if _FIX_TITLE.match(words):
        return FIX
    if _OTHER_TITLE.match(words):
        return OTHER
    if _PATCH_RELEASE.match(words):
        return FIX
    return ""


def is_patch_release(title: str) -> bool:
    """Whether a section title is a patch release's heading ("Version 3.1.3"), whose entries are fixes."""
    return _PATCH_RELEASE.match(_SPACE.sub(" ", title.strip().strip("*_:`").strip())) is not None


def _headings(lines: list[str]) -> dict[int, str]:
    """The heading lines (0-based) and their titles: markdown `#`, rst/setext underlines, `Bugfixes:`."""
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        if _MD_HEADING.match(line) is not None:
            out[i] = line.lstrip("#").strip().rstrip("#").strip()
            continue
        stripped = line.strip()
        if (
            stripped
            and i + 1 < len(lines)
            and _UNDERLINE.match(lines[i + 1])
            and len(lines[i + 1].strip()) >= len(stripped) - 2
            and not _UNDERLINE.match(line)
        ):
            out[i] = stripped
            continue
        if not line[:1].isspace() and not _BULLET.match(line):
            label = _LABEL.match(line)
            if label is not None and section_kind(label.group(1)) and not is_patch_release(label.group(1)):
                out[i] = label.group(1)
    return out


def _edited(line: str, removed: list[set[str]]) -> bool:
    """Whether an added line rewrites a removed one (markup changed, a word or two): most words shared."""
    words = set(_WORD.findall(line.lower()))
    return len(words) >= 3 and any(len(words & old) >= 0.6 * max(len(words), len(old)) for old in removed)


_WORD = re.compile(r"[a-z0-9]{2,}")


def added_entries(text: str, added: Iterable[int], removed: Iterable[str] = ()) -> list[Entry]:
    """The entries whose first line is among the added lines (1-based, at head), each with its section.

    removed: the lines the change removes from the file; an added line that rewrites one of them (the
    markup of an old entry edited) starts no new entry.
    """
    lines = text.splitlines()[:MAX_LINES]
    new = {n - 1 for n in added if 0 < n <= len(lines)}
    if not new:
        return []
    old = [set(_WORD.findall(line.lower())) for line in list(removed)[:2000] if line.strip()]
    # Only a bullet that would start an entry is compared with the removed lines, and only so many: a
    # change that rewrites the whole file (thousands of lines each way) says nothing new past that, and
    # comparing every pair would take seconds.
    rewritten = 0
    headings = _headings(lines)
    out: list[Entry] = []
    section = ""
    i = 0
    while i < len(lines) and len(out) < MAX_ENTRIES:
        if i in headings:
            section = headings[i]
            i += 1
            continue
        if not _BULLET.match(lines[i]):
            i += 1
            continue
        start, indent = i, len(lines[i]) - len(lines[i].lstrip())
        i += 1
        # Continuation lines: indented deeper than the bullet, up to a blank line, a bullet or a heading.
        while (
            i < len(lines)
            and lines[i].strip()
            and i not in headings
            and not _BULLET.match(lines[i])
            and len(lines[i]) - len(lines[i].lstrip()) > indent
        ):
            i += 1
        if start in new and old and _edited(lines[start], old):
            rewritten += 1
            if rewritten > MAX_ENTRIES:
                break
        elif start in new:
            body = " ".join(ln.strip() for ln in lines[start:i])
            body = _SPACE.sub(" ", _BULLET_HEAD.sub("", body, count=1)).strip()
            out.append(Entry(body[:500], section.strip()[:80], section_kind(section)))
    return out


_BULLET_HEAD = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])[ \t]+")


# reno (OpenStack's release-note tool, used by tenacity and others): one YAML file per change under
# `releasenotes/notes/`, its entries listed under sections named by kind (`fixes:`, `features:`...).
_RENO_FIX = frozenset(("fixes", "security"))
_RENO_OTHER = frozenset(("features", "deprecations", "upgrade", "other", "prelude", "issues", "critical"))
_RENO_SECTION = re.compile(r"^([a-z_]{2,20})[ \t]*:[ \t]*(?:#.*)?$")
_RENO_ITEM = re.compile(r"^[ \t]{0,8}-[ \t]*(?:[|>][-+]?[ \t]*$)?")
MAX_RENO_LINES = 400


def is_reno_note(path: str) -> bool:
    """Whether path is a reno release note: `releasenotes/notes/<slug>.yaml` (at any depth)."""
    p = PurePosixPath(path)
    return (
        p.suffix.lower() in (".yaml", ".yml")
        and len(p.parts) >= 3
        and p.parts[-2].lower() == "notes"
        and p.parts[-3].lower() == "releasenotes"
    )


def reno_entries(text: str) -> list[Entry]:
    """The entries of a reno note, each with its section's kind (`fixes:` -> FIX, `features:` -> OTHER).
    Read by lines, not by a YAML parser: only the top-level section keys and their list items matter,
    and a note that is not valid YAML still says its kind."""
    out: list[Entry] = []
    section, kind, item = "", "", ""
    for line in text.splitlines()[:MAX_RENO_LINES]:
        m = _RENO_SECTION.match(line)
        if m is not None:
            if item:
                out.append(Entry(_SPACE.sub(" ", item).strip(), section, kind))
            item = ""
            section = m.group(1)
            kind = FIX if section in _RENO_FIX else OTHER if section in _RENO_OTHER else ""
            continue
        if not section or line.strip() in ("---", "..."):
            continue
        start = _RENO_ITEM.match(line)
        if start is not None:
            if item:
                out.append(Entry(_SPACE.sub(" ", item).strip(), section, kind))
            item = line[start.end() :]
        else:
            item += " " + line.strip()
    if item and section:
        out.append(Entry(_SPACE.sub(" ", item).strip(), section, kind))
    return [e for e in out if e.text][:MAX_ENTRIES]
