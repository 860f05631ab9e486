"""The changelog reader: entries a change adds to CHANGELOG.md / CHANGES.rst / NEWS, with their sections."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.github.pull import read_by_rules
from bot.review.engine import review
from rules.core.config import Config
from rules.core.models import PullRequest
from rules.testcode.changelog import (
    FIX,
    OTHER,
    Entry,
    added_entries,
    is_changelog,
    is_reno_note,
    reno_entries,
    section_kind,
)
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


def test_entries_under_a_minor_release_heading_have_no_kind_and_keep_their_continuation():
    minor = PLAIN.replace("2.3.7", "2.4.0")
    entries = added_entries(minor, _lines(minor, "-   "))
    assert [(e.section, e.kind) for e in entries] == [("Version 2.4.0", ""), ("Version 2.4.0", "")]
    assert entries[0].text.endswith("Adjust index of last newline in data start.")


def test_entries_under_a_patch_release_heading_are_fixes():
    # Semantic versioning: a patch release holds bug fixes only, whatever words its entries use.
    entries = added_entries(PLAIN, _lines(PLAIN, "-   "))
    assert [(e.section, e.kind) for e in entries] == [("Version 2.3.7", FIX), ("Version 2.3.7", FIX)]


@pytest.mark.parametrize(
    "title, kind",
    [
        ("Version 3.1.3", FIX),
        ("[2.6.1] - 2024-05-02", FIX),
        ("2.6.3 (TBD)", FIX),
        ("v24.1.1", FIX),
        ("Version 3.2.0", ""),
        ("[3.0.0] - 2024-05-02", ""),
        ("Version 2.1", ""),
        ("Unreleased", ""),
        ("Version 3.1.3 Features", ""),  # not a release heading alone
    ],
)
def test_release_headings_by_their_third_number(title, kind):
    assert section_kind(title) == kind


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
        ("releasenotes/notes/empty-message-7b1e9c4a.yaml", True),  # a reno note says its kind inside
    ],
)
def test_the_api_source_fetches_the_changelogs_ahead_with_the_other_reads(path, read):
    """Without a checkout, the changelog AGT001 reads comes in the batched reads, not a request of its own."""
    assert read_by_rules(path, Config()) is read


# --- Round two of issue 23's evidence: what a change says of each of its tests -----------------------------


def _review(tmp_path, base: dict[str, str], head: dict[str, str], message: str) -> dict[str, str]:
    """AGT001's severity per test the finding names, for the change base -> head."""
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": AGENTS_AGT001, **base}, "base")
    repo.branch("pr")
    repo.commit(head, message)
    report = review(load_changeset(repo.path, base="main", head="pr", pr=PullRequest(head_ref=None)))
    out = {}
    for f in report.findings:
        if f.rule == "AGT001":
            out[f.message.split("`")[1] if "`" in f.message else "*"] = f.severity.value
    return out


def test_an_entry_under_a_patch_release_heading_is_a_fix(tmp_path):
    base = {"CHANGES.rst": "Version 3.2.0\n-------------\n\nUnreleased\n", "src/multi.py": "X = 1\n"}
    head = {
        "CHANGES.rst": base["CHANGES.rst"] + "\n\nVersion 3.1.3\n-------------\n\n"
        "-   Initial data only accepts a list when passing several values.\n",
        "src/multi.py": "X = 2\n",
        "tests/test_multi.py": "from multi import X\n\n\ndef test_iter_data():\n    assert X == 2\n",
    }
    assert _review(tmp_path, base, head, "Merge branch 'stable'") == {"test_iter_data": "error"}
    # The same entry under the next minor release says nothing of a fix: only the PR-wide notice.
    minor = {**head, "CHANGES.rst": head["CHANGES.rst"].replace("3.1.3", "3.3.0")}
    assert set(_review(tmp_path / "minor", base, minor, "Merge branch 'stable'").values()) == {"notice"}


def test_a_test_of_the_added_entry_is_not_the_fix_s_regression_test(tmp_path):
    head = {
        **_with_entry("Fixed", "A long placeholder overflows the text area."),
        "CHANGELOG.md": BASE["CHANGELOG.md"]
        .replace("### Added\n", "### Added\n\n- `Content.wrap` to wrap content.\n")
        .replace("### Fixed\n", "### Fixed\n\n- A long placeholder overflows the text area.\n"),
        "tests/test_shapes.py": "import shapes\n\n\ndef test_wrap():\n    assert shapes\n\n\n"
        "def test_long_placeholder():\n    assert shapes\n",
    }
    head.pop(TEST)
    got = _review(tmp_path, {k: v for k, v in BASE.items() if k != "AGENTS.md"}, head, "Long placeholder")
    assert got["test_long_placeholder"] == "error" and got.get("test_wrap") != "error"


def test_a_changelog_entry_under_performance_outweighs_a_fix_title(tmp_path):
    head = _with_entry("Added", "Skip ignored folders early.")
    head["CHANGELOG.md"] = head["CHANGELOG.md"].replace("### Added", "### Performance")
    base = {k: v for k, v in BASE.items() if k != "AGENTS.md"}
    base["CHANGELOG.md"] = base["CHANGELOG.md"].replace("### Added", "### Performance")
    head[TEST] = "import shapes\n\n\ndef test_area_skips_ignored():\n    assert shapes\n"
    assert set(_review(tmp_path, base, head, "fix: skip ignored folders in area").values()) == {"notice"}
    # Under Fixed, the same change is a fix.
    fixed = _with_entry("Fixed", "Skip ignored folders early.")
    fixed[TEST] = head[TEST]
    assert _review(tmp_path / "f", BASE | {}, fixed, "fix: skip ignored folders in area") == {
        "test_area_skips_ignored": "error"
    }


SPLIT_BASE = """import shapes


def test_area_special():
    shapes.mode = "nt"
    assert shapes.area(0) == 0
    shapes.mode = "posix"
    assert shapes.area(1) == 1
"""
SPLIT_HEAD = """import shapes


def test_area_special():
    shapes.mode = "nt"
    assert shapes.area(0) == 0


def test_area_not_special():
    shapes.mode = "posix"
    assert shapes.area(1) == 1
"""


def test_an_old_test_split_in_two_or_renamed_is_no_new_regression_test(tmp_path):
    base = {"src/shapes.py": "def area(x):\n    return x\n", TEST: SPLIT_BASE}
    head = {"src/shapes.py": "def area(x):\n    return x or 0\n", TEST: SPLIT_HEAD}
    assert "error" not in _review(tmp_path, base, head, "Fix the area of special shapes").values()
    # Renamed, its expectation flipped with the behaviour: the old test rewritten, not a new one.
    renamed_base = {
        **base,
        TEST: "import shapes\n\n\ndef test_area_zero_invalid():\n    assert not shapes.area(0)\n",
    }
    renamed_head = {
        **head,
        TEST: "import shapes\n\n\ndef test_area_zero():\n    assert shapes.area(0) == 0\n",
    }
    assert "error" not in _review(tmp_path / "r", renamed_base, renamed_head, "Fix the area of zero").values()
    # A test written for the fix beside them is still one.
    new_head = {**head, TEST: SPLIT_HEAD + "\n\ndef test_area_empty():\n    assert shapes.area(None) == 0\n"}
    got = _review(tmp_path / "n", base, new_head, "Fix the area of empty shapes")
    assert got["test_area_empty"] == "error" and got.get("test_area_not_special") != "error"


def test_a_companion_of_the_test_named_after_the_fix_is_not_a_regression_test(tmp_path):
    base = {"src/cache.py": "def read(n):\n    return n\n"}
    head = {
        "src/cache.py": "def read(n):\n    return n or 0\n",
        "tests/test_cache.py": "import cache\n\n\ndef test_explicit_call():\n    assert cache.read(1)\n\n\n"
        "def test_no_caching_after_partial_read():\n    assert cache.read(0) == 0\n",
    }
    got = _review(tmp_path, base, head, "Fix caching after a partial read")
    assert got["test_no_caching_after_partial_read"] == "error" and got.get("test_explicit_call") != "error"


def test_an_entry_under_no_section_that_opens_as_a_feature_outweighs_a_fix_title(tmp_path):
    # Issue 23, round four: "Respect NO_COLOR" reads as a fix, but the entry the PR adds, under no section,
    # says "Add support for ...": the maintainers' words about the change decide.
    base = {"src/shapes.py": "def area(x):\n    return x\n", "CHANGES.md": "# Changes\n\n## Unreleased\n\n"}
    test = "import shapes\n\n\ndef test_area_respects_precision():\n    assert shapes\n"
    feature = {
        "CHANGES.md": base["CHANGES.md"] + "- Add support for a precision option in area (#7)\n",
        "src/shapes.py": "def area(x, precision=None):\n    return x\n",
        TEST: test,
    }
    title = "Respect the precision option in area"
    assert set(_review(tmp_path, base, feature, title).values()) == {"notice"}
    # An entry that opens as a fix leaves the title to say so.
    entry = "- Area no longer ignores the precision option (#7)\n"
    fix = {**feature, "CHANGES.md": base["CHANGES.md"] + entry}
    assert _review(tmp_path / "f", base, fix, title) == {"test_area_respects_precision": "error"}


def test_a_validating_change_s_tests_of_what_it_rejects_are_not_regression_tests(tmp_path):
    base = {"src/shapes.py": "def area(x):\n    return x\n", "CHANGES.md": "# Changes\n\n## Unreleased\n\n"}
    head = {
        "CHANGES.md": base["CHANGES.md"] + "- Reject non-numeric sizes in area (#8)\n",
        "src/shapes.py": "def area(x):\n    assert isinstance(x, int)\n    return x\n",
        TEST: "import shapes\n\n\ndef test_area_rejects_strings():\n    assert shapes\n",
    }
    assert "error" not in _review(tmp_path, base, head, "Validate area sizes").values()


def test_a_reno_note_says_its_kind_by_section():
    note = (
        "---\nfixes:\n  - |\n    ``retry`` now accepts an empty\n    message.\n  - Second fix.\n"
        "features:\n  - A new wait strategy.\n"
    )
    assert reno_entries(note) == [
        Entry("``retry`` now accepts an empty message.", "fixes", FIX),
        Entry("Second fix.", "fixes", FIX),
        Entry("A new wait strategy.", "features", OTHER),
    ]
    assert is_reno_note("releasenotes/notes/empty-message-7b1e9c4a.yaml")
    assert not is_reno_note("docs/notes/empty-message.yaml")
    # Not YAML at all: still no traceback, nothing read.
    assert reno_entries("fixes: [unclosed\n\x00") == []


@pytest.mark.parametrize(
    "section, expected",
    [("fixes", {"test_perimeter": "error"}), ("features", {"test_perimeter": "notice"})],
)
def test_a_reno_note_the_change_adds_says_its_kind(tmp_path, section, expected):
    base = {"src/shapes.py": "def area(x):\n    return x\n"}
    head = {
        "releasenotes/notes/empty-areas-5d1c2b7a.yaml": f"---\n{section}:\n  - Empty areas are zero.\n",
        "src/shapes.py": "def area(x):\n    return x or 0\n",
        "tests/test_other.py": "def test_perimeter():\n    assert True\n",
    }
    assert _review(tmp_path, base, head, "Handle areas of shapes") == expected


def test_a_revert_of_a_fix_is_no_fix(tmp_path):
    base = {"src/shapes.py": "def area(x):\n    return x\n"}
    head = {"tests/test_other.py": "def test_perimeter():\n    assert True\n"}
    message = 'Revert "Fix crash when the shape is empty"\n\nThis reverts commit 0123456789abcdef.'
    assert _review(tmp_path, base, head, message) == {"test_perimeter": "notice"}
