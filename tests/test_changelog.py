"""The changelog reader: entries a change adds to CHANGELOG.md / CHANGES.rst / NEWS, with their sections."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.github.pull import read_by_rules
from bot.review.engine import review
from rules.core.config import Config
from rules.core.models import PullRequest
from rules.testcode.changelog import FIX, OTHER, added_entries, is_changelog, section_kind
from tests.conftest import GitRepo
from tests.helpers import AGENTS_AGT001

KEEP_A_CHANGELOG = """\
# Changelog

## [Unreleased]

### Added

- A `pointer` rule.

### Fixed

- Selecting text no longer drops the last line.
- Crash when the
  terminal is resized.

## [1.0.0] - 2026-01-01

### Fixed

- An old fix.
"""

RST = """\
Changes
=======

2.6.3 (TBD)
-----------

Bugfixes
~~~~~~~~

- Stop decoding redirect bodies needlessly.

Features
~~~~~~~~

- New ``preload`` option.
"""

NEWS = """\
Version 3.1
  Bugfixes:
  * not a heading: indented

Bug fixes:
* Reading an empty file hangs.

Features:
* Colour output.
"""

PLAIN = """\
Version 2.3.7
-------------

-   Fix parsing of multipart bodies.
    Adjust index of last newline in data start.
-   Use ``flit_core`` as the build backend.
"""


def _lines(text: str, *needles: str) -> list[int]:
    """The 1-based numbers of the lines holding any of needles (the lines a diff adds)."""
    return [n for n, line in enumerate(text.splitlines(), 1) if any(w in line for w in needles)]


@pytest.mark.parametrize(
    "path, expected",
    [
        ("CHANGELOG.md", True),
        ("CHANGES.rst", True),
        ("HISTORY.rst", True),
        ("NEWS", True),
        ("docs/changelog.rst", True),
        ("changelog/123.bugfix.rst", False),  # a fragment, read by its kind
        ("src/changes.py", False),
    ],
)
def test_is_changelog(path, expected):
    assert is_changelog(path) is expected


@pytest.mark.parametrize(
    "title, kind",
    [
        ("Fixed", FIX),
        ("Bug fixes", FIX),
        ("Bugfixes", FIX),
        ("Fixes", FIX),
        ("**Bug Fixes**", FIX),
        ("Security", FIX),
        ("Added", OTHER),
        ("Changed", OTHER),
        ("Features", OTHER),
        ("Deprecated", OTHER),
        ("[1.2.0] - 2026-01-01", ""),
        ("Stable style", ""),
        ("Fixtures", ""),  # not "fixes"
    ],
)
def test_section_kind(title, kind):
    assert section_kind(title) == kind


def test_keep_a_changelog_markdown_sections():
    added = _lines(KEEP_A_CHANGELOG, "pointer", "no longer", "Crash", "terminal")
    entries = added_entries(KEEP_A_CHANGELOG, added)
    assert [(e.section, e.kind) for e in entries] == [("Added", OTHER), ("Fixed", FIX), ("Fixed", FIX)]
    assert entries[2].text == "Crash when the terminal is resized."


def test_an_entry_whose_heading_lies_outside_the_hunk_gets_it_from_the_file():
    (entry,) = added_entries(KEEP_A_CHANGELOG, _lines(KEEP_A_CHANGELOG, "Crash"))
    assert (entry.section, entry.kind) == ("Fixed", FIX)


def test_rst_sections_underlined():
    entries = added_entries(RST, _lines(RST, "- "))
    assert [(e.section, e.kind) for e in entries] == [("Bugfixes", FIX), ("Features", OTHER)]


def test_news_labels_with_a_colon():
    entries = added_entries(NEWS, _lines(NEWS, "* "))
    assert [(e.section, e.kind) for e in entries] == [
        ("", ""),  # the indented "Bugfixes:" is no heading, and "Version 3.1" alone on a line is none
        ("Bug fixes", FIX),
        ("Features", OTHER),
    ]


def test_entries_under_a_version_heading_have_no_kind_and_keep_their_continuation():
    entries = added_entries(PLAIN, _lines(PLAIN, "-   "))
    assert [(e.section, e.kind) for e in entries] == [("Version 2.3.7", ""), ("Version 2.3.7", "")]
    assert entries[0].text.endswith("Adjust index of last newline in data start.")


def test_an_old_entry_edited_is_no_new_entry():
    removed = ["-   Fix parsing of `multipart` bodies."]
    assert [e.text for e in added_entries(PLAIN, _lines(PLAIN, "Fix parsing"), removed)] == []
    assert len(added_entries(PLAIN, _lines(PLAIN, "Fix parsing"))) == 1


def test_lines_that_are_not_entries_give_none():
    assert added_entries(KEEP_A_CHANGELOG, _lines(KEEP_A_CHANGELOG, "## [1.0.0]")) == []
    assert added_entries("", [1, 2]) == []


# --- In a review: the changelog entry says whether the PR fixes something --------------------------------

BASE = {
    "AGENTS.md": AGENTS_AGT001,
    "src/shapes.py": "def area(x):\n    return x\n",
    "CHANGELOG.md": "# Changelog\n\n## [Unreleased]\n\n### Added\n\n### Fixed\n\n## [1.0.0]\n\n- First.\n",
}
TEST = "tests/test_other.py"


def _with_entry(section: str, entry: str) -> dict[str, str]:
    text = BASE["CHANGELOG.md"].replace(f"### {section}\n", f"### {section}\n\n- {entry}\n")
    return {
        "CHANGELOG.md": text,
        "src/shapes.py": "def area(x):\n    return x or 0\n",
        TEST: "def test_perimeter():\n    assert True\n",
    }


def _agt001(tmp_path, head: dict[str, str], message: str) -> list[str]:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(BASE, "base")
    repo.branch("pr")
    repo.commit(head, message)
    report = review(load_changeset(repo.path, base="main", head="pr", pr=PullRequest(head_ref=None)))
    return [f.severity.value for f in report.findings if f.rule == "AGT001"]


@pytest.mark.parametrize(
    "section, entry, message, expected",
    [
        ("Fixed", "The area of an empty shape is zero.", "Handle empty shapes", ["error"]),
        ("Added", "Areas of empty shapes.", "Handle empty shapes", ["notice"]),
        # A closing "Fixes #12" in a commit body is no fix when the changelog says the PR adds a feature.
        ("Added", "Areas of empty shapes.", "Handle empty shapes\n\nFixes #12", ["notice"]),
    ],
)
def test_a_changelog_entry_says_what_kind_of_change_the_pr_is(tmp_path, section, entry, message, expected):
    assert _agt001(tmp_path, _with_entry(section, entry), message) == expected


@pytest.mark.parametrize(
    "path, read",
    [
        ("CHANGELOG.md", True),
        ("docs/CHANGES.rst", True),
        ("changelog/12.bugfix.rst", True),
        ("changelog/12.feature.rst", False),  # its kind is in its name: no need for its text
        ("src/notes.txt", False),
    ],
)
def test_the_api_source_fetches_the_changelogs_ahead_with_the_other_reads(path, read):
    """Without a checkout, the changelog AGT001 reads comes in the batched reads, not a request of its own."""
    assert read_by_rules(path, Config()) is read
