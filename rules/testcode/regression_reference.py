'''AGT001 regression-test-without-reference: a new regression test whose docstring names no PR or commit.

## What it does
Looks at every test the change adds (pytest functions, methods of `Test*` classes and `unittest.TestCase`
subclasses, nested test classes, sync or async, parametrized or not) and reports the regression tests
that name neither a pull request nor a commit, in their own docstring or in the docstring of a class
around them or of their module. A test moved to another file, renamed, or whose `def` line was edited
is not new; fixtures, `conftest.py` and helper modules hold no tests. Test files are `test_*.py`,
`*_test.py`, files under `tests/`, and what the repository's own pytest `python_files` collects (read at
base from `pytest.ini`, `pyproject.toml`, `tox.ini` or `setup.cfg`, e.g. `testing/python/*.py`).
Accepted references: `#828`, `PR #828`, `PR 828`, `pull request 828`, `GH-828`, `owner/repo#828`, a
pull-request or commit URL (`https://github.com/o/r/pull/828`, `.../commit/1a2b3c4`), and a commit id
of 7 to 40 hex digits (with at least one digit and one letter, or written as `commit 1234567`). Where
the AGENTS.md sentence that turns the rule on speaks of issues ("link the issue or PR it covers"), or
where `.github/bot.yml` turns it on, `issue 828` and issue URLs (`.../issues/828`) are accepted too;
the option `issues` (`auto`, `yes`, `no`) decides it outright. `#` alone, `GH828`, hex runs of 6 or
41+ digits and plain numbers are never references.

Which new tests are regression tests is the option `regression`. The default, `evidence`, decides
from what the test and the PR say:

- the test's own words: a regression word (regression, bug, fix, guard, crash, reproduce, "no longer",
  an issue number) or a sentence telling the old failure ("Previously, ... an error was raised") in
  its name, docstring, pytest marks, or the comments above and inside it makes it a regression test
  (a class or module docstring covers its tests with a reference, but its words are not evidence
  about each test). Words in another sense do not count: a linear regression, a fixed
  seed, a fixed path, crash recovery, a type guard, "fix typo".
- a fix PR: a fix word in the PR title, labels or branch name, or in its description "fixes #12" or a line
  that opens with "Fix" (other prose in a description speaks of bugs and regressions of all kinds, so only
  those count there); in the title, also a fix said without the word ("Do not trigger X", "Don't compress
  ...", "no longer hangs", "crash when", "garbage output", "incorrectly", "wrong", "correctly", "works as
  expected", "prevent ... from", "instead of raising", "instead of silently dropping", "Catch ValueError
  ...", "Handle empty ...", "Honor/Respect sort_keys" (not "Honor the NO_COLOR environment variable", a
  standard adopted), "Reject ...", "now properly", "Preserve X when/through ...", "stopped working",
  "restores the ability"), but not housekeeping ("fix ci", "fix lint", "typing fix", "fix typo", "fix
  tests", "fix for the testcase", "bug in CI", "fix docs", "fix mypy", "fix pre-commit", "Fix tox.ini",
  "Enable the X lint rule and fix newly reported errors", performance work ("fix quadratic complexity", "fix
  slow startup"), "Don't run ...") nor a rule tightened ("no longer allowed"); a title opening with a
  feature's verb ("Add", "Support", "Expose" ..., perhaps behind its module: "strutils: add ...") says a
  feature, one that makes an error message clearer ("Detailed error message on ...", "Make error messages
  ... more helpful") an improvement. A Conventional-Commits type decides over the words:
  `fix:`/`fix(scope):` is a fix (not with a housekeeping scope, `fix(ci):`), `feat`, `deprecate`,
  `refactor`, `test`, `docs`, `chore`, `perf`, `ci`, `build`, `style` are not. So does a gitmoji opening the
  subject (gitmoji.dev): 🐛, 🚑️, 🩹, 🔒️ or their `:bug:`-style shortcodes make a fix, ✨ and 🎉 a feature, ♻️,
  📝, ✅, 🎨, ⚡️, 🔥, 💚, ⬆️, 🔧... another kind. In `bot check` given no `--pr-title` or `--pr-body-file`, the
  same in the commits base..head (the newest subject as the title, the others' subjects with only their fix
  words, and so a squash merge's "* subject" lines; bodies as descriptions; a merge commit's PR title and
  branch count as such; commits a bot wrote, "[pre-commit.ci] auto fixes", do not count; "Merge commit from
  fork", GitHub's subject for a security advisory's private fork merged, is a fix; a revert, `Revert "Fix
  ..."`, is none); a range of several merged PRs (two or more of its first-parent commits name their PR,
  `... (#958)` or "Merge pull request #958") is judged PR by PR: each test with the newest of those commits
  that changed its file, as its own small PR, whose number the message proposes. What the maintainers'
  changelog says of the change counts in their own terms: a changelog fragment it adds
  (`changelog/12.bugfix.rst` makes it a fix PR), a reno release note it adds (`releasenotes/notes/*.yaml`:
  entries under `fixes:` or `security:` are fixes, under `features:`, `deprecations:`, `upgrade:`... another
  kind) and the entries it adds to a hand-written changelog (CHANGELOG.md, CHANGES.md/.rst, HISTORY.md/.rst,
  NEWS...; an entry under a `Fixed`, `Bug fixes`, `Bugfixes`, `Fixes` or `Security` section is a fix, under
  `Added`, `Changed`, `Features`, `Deprecated`... another kind, and under a section of no kind its prose
  decides, as a title's; an old entry edited is no new entry). So does a title that opens with a feature's
  verb ("Add ...", "Deprecate ...") and says no fix beyond closing an issue. On GitHub (`bot review`, `bot
  publish`) so do the labels and issue type of the issues of the same repository that the description closes
  (`Fixes #12`, `Closes #12`, `Resolves owner/repo#12`, an issue URL; the first 5, read only when the PR
  changes a Python file, one request each): the type Bug or a `bug`, `type: bug`, `kind/bug`, `bugfix` or
  `regression` label makes it a fix PR, the type Feature or an `enhancement` or `feature` label another
  kind; an issue that cannot be read gives no evidence either way. `bot check` knows no linked issues. Where
  all of these say another kind than a fix (feature, deprecation, improvement, `feat:`...), only the title,
  labels and branch are evidence, not "Fix #12" in a description (projects close every kind of issue that
  way) nor the commits inside the PR ("fix tests"); with a feature (or deprecation, removal, breaking) kind,
  "fix #12" in the title or branch closes the feature request. In a fix PR a test is a regression test when
  its words describe changed behaviour ("again", "instead of", "used to", "stops raising"), or when at most
  3 new tests name nothing, none beside it (in its class, or at module level with it) names what it guards,
  and it sits where the fix is: its file imports or is named after a module the PR changes (a page of docs
  is no module), or its name shares a word (up to inflection: "annotations", "annotation") with the PR
  title, branch or a fix changelog entry. Where a new test in another file or class names what it guards,
  the fix has its regression test there, and only a name sharing a word with the PR title ties this one to
  the fix. With more than 3, a test counts when its name shares two words with the PR title and nothing but
  fixes says what the change is, or two words with a fix changelog entry or bugfix fragment's text (at most
  3 tests per entry in a test file, those sharing most). A small fix PR (the title, labels, branch or only
  fix entries say it is a fix; at most 4 new tests that name nothing, none beside them naming what it
  guards) takes its new tests for its regression tests wherever they sit, unless a commit of it says it adds
  other tests or it also rewrites lines inside the test file's existing functions or classes (old tests
  split up; a changed import line is no such rewrite). A PR whose title says it validates does not take its
  tests of validation (`test_x_invalid`) for regression tests. A title that says it adds regression tests,
  or tests to check a named fault ("Add test to check the netrc auth leak", "tests for the deadlock"), makes
  all its new tests regression tests; a title that says it adds tests of another kind ("add integration
  tests", "tests: cover ...", "improve test coverage") and says no fix leaves only the tests' own words as
  evidence.

With `bot check --verify-tests`, a fact decides before the words: in a change that says it fixes
something (or for a test its words already take for a regression test), a new test that fails on the
base code and passes with the change reproduces what the change fixes and is a regression test, and the
message says so ("it fails on the base code"); in a change that says no fix, failing on the base code
makes no regression test (a feature's tests fail there too); one that fails on the base code only
because a name the change adds is missing there (new API) is not, whatever its words. A test its words
take for a regression test that passes on the base code too stays one: AGT005, where it is on, says it
does not reproduce the bug (tests of a fix for another platform, or of one the base already had, pass
there too). Outcomes another job reported (the fork-safe pair's artifact) are never evidence.

Each such test that names nothing is an error, and the message says what made it a regression test.
The other new tests that name nothing get one notice for the whole PR, however many they are.
`all-new-tests` takes every new test for a regression test (an error each); `fix-prs` every new test
of a PR whose title, description, labels, (locally) commit messages or linked issues (their labels or
type) say it fixes something;
`marked` the tests whose name, docstring or pytest mark says regression, guard or bug. The message
proposes a docstring naming the current PR when its number is known: the test's own text, never cut,
followed by `Guards PR #828.` (`See PR #828.` when it already says what it guards).

It is on where an AGENTS.md says regression tests must name the PR or commit they guard, or where
`.github/bot.yml` enables it. `# bot: ignore[AGT001] reason` on the test waives it for that test.

## Why is this bad?
A regression test that does not say what it guards loses its reason to exist: the next person who
finds it failing cannot look up the fix it protects, and may "fix" the test instead of the code. A
feature test is not a regression test, and an error on each of them would bury the one that is.

## Example
```python
def test_micro_steps_no_longer_round_up():
    """Micro-step targets round down: 300 at 8 per update give 37 updates."""
    assert derive(300, 8) == 37
```

## Use instead
```python
def test_micro_steps_no_longer_round_up():
    """Micro-step targets round down: 300 at 8 per update give 37 updates. Guards PR #828."""
    assert derive(300, 8) == 37
```
'''

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from rules.core.base import Context, Review, Rule
from rules.core.lines import git_lines
from rules.core.models import FileChange, FileStatus, Finding, PullRequest, Severity, UnreadableFile
from rules.core.prefilter import folded, may_hold
from rules.core.verification import Outcome
from rules.testcode.changelog import FIX, Entry, added_entries, is_changelog, is_reno_note, reno_entries
from rules.testcode.guard_docstring import docstring_fix, proposal
from rules.testcode.regression_evidence import (
    FEW,
    FIX_KINDS,
    SMALL_FIX,
    PrEvidence,
    belongs_to_other_entry,
    changed_module,
    fragment_kind,
    fragment_kinds,
    linked_kinds,
    name_words,
    neutral_fragment,
    own_cues,
    pr_evidence,
    validation_test,
)
from rules.testcode.testfiles import (
    TestFile,
    TestFunction,
    Touched,
    is_test_path,
    runner_patterns,
    touched_by_file,
    touched_tests,
)
from rules.testcode.waivers import markers

MODES = ("evidence", "all-new-tests", "fix-prs", "marked")

_HEX = r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
# The accepted references, in four patterns: a docstring names one when any of them matches. One
# alternation of all eight forms tried each at every position (a few microseconds a docstring, 10,000
# docstrings in a large PR); apart, the URL and `#` forms run only on text holding "://" or "#".
_REFERENCE_URL = re.compile(
    r"https?://[^\s/]+/[^\s/]+/[^\s/]+/(?:pull/\d+|commit/[0-9a-f]{7,40})\b",  # pull-request or commit URL
    re.IGNORECASE,
)
_REFERENCE_HASH = re.compile(
    r"""
      (?<![\w/.-])[\w.-]+/[\w.-]+\#\d+\b                            # owner/repo#828
    | (?<![\w&/\#-])\#\d+\b                                         # #828
    """,
    re.IGNORECASE | re.VERBOSE,
)
# Possessive runs of space (`\s*+`): what follows them is never a space, so giving one back cannot help,
# and "PR" before a megabyte of spaces would otherwise retry the rest from every space in it.
_REFERENCE_WORDS = re.compile(
    r"""
    \b(?:
        (?:PR|pull\ request)\s*+(?:[#-]\s*+)?\d+                    # PR 828, PR #828, pull request 828
      | GH-\d+                                                      # GH-828
      | commit\s++[0-9a-f]{7,40}                                    # commit 1234567
    )\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
_REFERENCE_HEX = re.compile(r"(?<![\w/-])" + _HEX + r"(?![\w-])", re.IGNORECASE)  # 1a2b3c4 .. 40 hex digits
# Accepted too where the AGENTS.md sentence speaks of issues: an issue URL (GitHub's or GitLab's), that is
# `https?://HOST/PATH/issues/N` with a path of one or more characters, or "issue 12" ("issue #12", "#12"
# and "GH-12" are references anyway). The URL is found in two parts (issue_url): one pattern with a lazy
# path before `/issues/` rescanned the rest of a long word from every `http://` in it.
_ISSUE_WORDS = re.compile(r"\bissue\s*+(?:#\s*+)?\d+\b", re.IGNORECASE)  # possessive as above
_URL_HEAD = re.compile(r"https?://[^\s/]+/\S", re.IGNORECASE)  # scheme, host, "/", the path's first character
_ISSUE_TAIL = re.compile(r"/issues/\d+\b", re.IGNORECASE)
_SPACE = re.compile(r"\s")
# Prechecks: what a text must hold for each pattern to match (see rules.core.prefilter). Without them a
# megabyte docstring costs each pattern a scan tried at every position.
# _REFERENCE_WORDS without `\b`, case-sensitive on the folded text: its first letters let re skip ahead
# ("pr" alone would let through every "previously").
_WORDS_NEED = re.compile(r"(?:pr|pull request)\s*+(?:[#-]\s*+)?\d|gh-\d|commit\s++[0-9a-f]{7}")
_HASH_NEED = re.compile(r"\#\d")  # _REFERENCE_HASH; the literal `#` lets re skip ahead
_HEX_NEED = re.compile(r"[0-9a-f][0-9a-f]{6}")  # _REFERENCE_HEX, on the folded text; a charset lets re skip


def _names_issue(text: str) -> bool:
    """Whether text holds an issue URL or "issue N", in work linear in its length.

    In a run of text without whitespace, the leftmost URL head ends first (a host runs to the next `/`),
    so `/issues/N` anywhere after it in that run completes a URL; the run is then done with.
    """
    if may_hold(text, ("issue",)) and _ISSUE_WORDS.search(text) is not None:
        return True
    if "://" not in text:
        return False
    done = -1
    for head in _URL_HEAD.finditer(text):
        if head.start() < done:
            continue  # a later head in a run already searched
        space = _SPACE.search(text, head.end())
        done = space.start() if space is not None else len(text)
        if _ISSUE_TAIL.search(text, head.end(), done) is not None:
            return True
    return False


_SPEAKS_OF_ISSUES = re.compile(r"\bissues?\b", re.IGNORECASE)
# AGENTS.md wording: a test, a verb of naming, and the PR or commit named (an issue is not enough:
# issue links are not accepted references).
_TEST = r"(?:regression\s+)?tests?\b"
_NAMING = (
    r"name|names|naming|reference|references|referencing|cite|cites|citing|mention|mentions|mentioning|"
    r"link|links|linking|link\s+to|point\s+to|points\s+to|record|records|state|states|say|says|"
    r"identify|identifies|note|notes|include|includes"
)
_REF = r"(?:[\w']+[\s/]+){0,3}?(?:PRs?|pull\s+requests?|commits?|fix(?:es)?)\b"
_NOT_A_PLACE = r"(?!\s+(?:body|bodies|messages?|descriptions?|titles?|logs?|subjects?|trailers?)\b)"
_IN_DOCSTRING = (
    r"\b(?:in|into|inside|within)\s+(?:the|its|their|each|every|a)\s+(?:(?:regression\s+)?test(?:'s|s')?\s+)?"
    r"docstrings?\b"
)
_GUARDED = r"\b" + _TEST + r".*\b(?:guard|protect|cover)(?:s|ed|ing)?\b"
_FIX_WORDS = re.compile(r"\b(?:fix(?:e[sd])?|fixing|bug(?:fix)?s?|hotfix(?:es)?|regressions?|revert)\b", re.I)
_MARK_NEED = ("regress", "guard", "bug")  # what _MARK_WORDS needs (rules.core.prefilter)
_MARK_WORDS = re.compile(r"(?:^|[\W_])(?:regress\w*|guard\w*|bugs?|bugfix\w*)(?=$|[\W_])", re.I)


def names_reference(docstring: str | None, issues: bool = False) -> bool:
    """Whether a docstring names a PR or a commit (or, with issues, an issue)."""
    if not docstring:
        return False
    return (
        ("://" in docstring and _REFERENCE_URL.search(docstring) is not None)
        or (_HASH_NEED.search(docstring) is not None and _REFERENCE_HASH.search(docstring) is not None)
        or (
            _WORDS_NEED.search(folded(docstring)) is not None
            and _REFERENCE_WORDS.search(docstring) is not None
        )
        or (_HEX_NEED.search(folded(docstring)) is not None and _REFERENCE_HEX.search(docstring) is not None)
        or (issues and _names_issue(docstring))
    )


def accepts_issues(sentence: str | None) -> bool:
    """Whether the AGENTS.md sentence that turns the rule on accepts an issue as the reference."""
    return bool(sentence) and _SPEAKS_OF_ISSUES.search(sentence or "") is not None


def is_fix_pr(pr: PullRequest) -> bool:
    """Whether the PR's title, description, labels, (locally) commit messages or (on GitHub) the labels or
    type of the issues it closes say it fixes something."""
    texts = (pr.title, pr.body, *pr.labels, *pr.commits)
    return any(_FIX_WORDS.search(text) for text in texts) or bool(linked_kinds(pr) & FIX_KINDS)


def is_marked(test: TestFunction) -> bool:
    """Whether a test's name, docstring or pytest marks say it is a regression test."""
    marks = " ".join(d.rsplit(".", 1)[-1] for d in test.decorators if ".mark." in f".{d}.")
    return any(
        may_hold(text, _MARK_NEED) and _MARK_WORDS.search(text)
        for text in (test.name, test.docstring or "", marks)
    )


def _reason(
    tf: TestFile,
    test: TestFunction,
    said: PrEvidence,
    count: int,
    changed: list[str],
    named: str,
    rewrites: bool = False,
    entry: tuple[str, list[str]] | None = None,
) -> str | None:
    """Why a new test counts as a regression test in mode `evidence`, or None when nothing says so.

    said: what the PR says of itself. count: how many new tests name nothing. named: "beside" when a
    new test next to this one (same file, same class or both at module level) names what it guards, so
    the fix already has its regression test; "elsewhere" when only a new test further off does.
    rewrites: the change also removes lines of a def or class of the test's file (existing tests rewritten
    or split; an import line changed is not that).
    entry: the fix changelog entry whose words the test's name shares (two or more), with those words.
    """
    # A weak cue counts only beside a fix the PR says it makes, and a title that adds tests needs none.
    fix = said.fix
    own = own_cues(tf, test, weak=not said.adds_tests and fix is not None and not said.coverage)
    strong = next((c for c in own if c.strong), None)
    if strong is not None:
        return str(strong)
    if said.adds_tests:
        return "the PR title says it adds regression tests"
    if fix is None or said.coverage:
        # A title that says the PR adds integration or unit tests says what its tests are; a "Fix #12"
        # in its description or commits closes the issue that asked for them.
        return None
    if said.validates and validation_test(test.name):
        # A PR that validates and fixes: its tests of the validation check a new rule, not the fix.
        return None
    if belongs_to_other_entry(test, said):
        return None
    if own:
        return f"{own[0]}, and {fix}"
    if named == "beside":
        return None
    if count > FEW:
        # Many new tests: one whose name says what the title says (two of its words) is the fix's test,
        # when the whole change says it is a fix (title, branch, labels or only bugfix fragments); or what
        # a changelog entry of a fix says (a merged release branch brings several fixes, each its entry).
        words = name_words(test)
        title = sorted(words & said.title_words)
        if said.whole is not None and len(title) >= 2:
            return f'{said.whole}, and its name shares "{title[0]}" and "{title[1]}" with the PR title'
        if entry is not None:
            text, shared = entry
            return (
                f'a changelog entry says a fix ("{_short(text)}"), and its name shares "{shared[0]}" '
                f'and "{shared[1]}" with it'
            )
        return _small_fix(said, count, named, rewrites)
    if named == "elsewhere":
        # The fix's named test is in another file or class: that this one tests a module the PR changes
        # says nothing more of it (a PR's other commits change modules too); its name must share a word
        # with the PR title, not just with one of its commits.
        shared = sorted(name_words(test) & said.title_words)
        return f'{fix}, and its name shares "{shared[0]}" with the PR title' if shared else None
    module = changed_module(tf, changed)
    if module is not None:
        return f"{fix}, and it tests `{module}`, which the PR changes"
    shared = sorted(name_words(test) & said.words)
    if shared:
        return f'{fix}, and its name shares "{shared[0]}" with the PR title or branch'
    return _small_fix(said, count, named, rewrites)


def _entry_picks(said: PrEvidence, tests: list[Touched]) -> dict[tuple[str, str], tuple[str, list[str]]]:
    """For each fix changelog entry, in each test file, the few tests (at most FEW) whose names share the
    most of its words (two or more): an entry is one fix, and a fix comes with a test or two where it is
    tested; a long entry shares two words with a dozen tests of the same module."""
    out: dict[tuple[str, str], tuple[str, list[str]]] = {}
    named = [((tf.path, t.qualname), name_words(t)) for tf, t in tests]
    for text, words in said.fixes:
        taken: Counter[str] = Counter()
        ranked = sorted(
            ((len(w & words), i) for i, (_, w) in enumerate(named) if len(w & words) >= 2),
            key=lambda x: -x[0],
        )
        for _, i in ranked:
            key, w = named[i]
            if taken[key[0]] < FEW:
                taken[key[0]] += 1
                out.setdefault(key, (text, sorted(w & words)))
    return out


def _small_fix(said: PrEvidence, count: int, named: str, rewrites: bool) -> str | None:
    """A small fix PR's new tests are its regression tests: the whole change says it is a fix (its title,
    labels, branch or only fix changelog entries) and it adds at most SMALL_FIX tests, none naming what it
    guards. Not where the change also rewrites the file's existing tests: its new tests may be old ones
    split up or their companions."""
    if said.whole is None or not said.small or named or rewrites or count > SMALL_FIX:
        return None
    which = "the only new test" if count == 1 else f"one of the {count} new tests"
    return f"{said.whole}, and it is {which} of a small fix PR"


def _short(text: str, room: int = 60) -> str:
    return text if len(text) <= room else text[: room - 3].rsplit(" ", 1)[0] + "..."


def _changelog_entries(files: Iterable[FileChange], ctx: Context) -> tuple[Entry, ...]:
    """The entries the change adds to hand-written changelogs (CHANGELOG.md, CHANGES.rst, NEWS...), each
    with its section, read from the file at head so that a heading outside the diff's hunks is known."""
    out: list[Entry] = []
    for f in files:
        if f.status is FileStatus.REMOVED or not f.added_lines:
            continue
        neutral = f.status is FileStatus.ADDED and neutral_fragment(f.path)
        if (f.status is FileStatus.ADDED and fragment_kind(f.path) in FIX_KINDS) or neutral:
            # A bugfix fragment's text is the fix's own title, as a changelog entry is; a fragment whose
            # type says no kind (`123.change.md`) is an entry of a section of no kind: its prose decides.
            try:
                text = ctx.changeset.head_text(f.path)
            except UnreadableFile:
                continue
            words = " ".join((text or "").split())[:500]
            out.append(
                Entry(words, "change fragment", "") if neutral else Entry(words, "bugfix fragment", FIX)
            )
            continue
        if f.status is FileStatus.ADDED and is_reno_note(f.path):
            try:
                text = ctx.changeset.head_text(f.path)
            except UnreadableFile:
                continue
            out += reno_entries(text or "")
            continue
        if not is_changelog(f.path):
            continue
        try:
            text = ctx.changeset.head_text(f.path)
            old = ctx.changeset.base_text(f.base_path) if f.removed_lines and f.base_path else None
        except UnreadableFile:
            continue
        if text:
            lines = old.splitlines() if old else []
            removed = [lines[n - 1] for n in sorted(f.removed_lines) if 0 < n <= len(lines)]
            out += added_entries(text, f.added_lines, removed)
    return tuple(out)


def _files(tests: list[Touched]) -> dict[str, TestFile]:
    """The files the tests are in, by path, once each."""
    return {tf.path: tf for tf, _ in tests}


def _scope(tf: TestFile, test: TestFunction) -> tuple[str, str]:
    return tf.path, test.qualname.rpartition(".")[0]


def _regression_tests(
    ctx: Context, mode: str, tests: list[Touched], named: set[tuple[str, str]]
) -> Iterator[tuple[Touched, str | None, int | None]]:
    """Which of the unnamed new tests the mode takes for regression tests, on what evidence, and the
    number of the PR each guards (in a range of merged PRs, its own PR's).

    named: the scopes (file, class) holding a new test whose own docstring names what it guards.
    """
    pr = ctx.changeset.pr
    if mode == "fix-prs" and not is_fix_pr(pr):
        return
    if mode != "evidence":
        yield from ((t, None, pr.number) for t in tests if mode != "marked" or is_marked(t[1]))
        return
    patterns = runner_patterns(ctx.review)
    changed = [
        f.path
        for f in ctx.changeset.files
        if f.status is not FileStatus.REMOVED and not is_test_path(f.path, patterns)
    ]
    if not pr.units:
        yield from (
            (found, reason, pr.number) for found, reason in _judged(ctx, pr, tests, named, changed, None)
        )
        return
    # A range of merged PRs (`bot check --base main~100`): each test is judged with the newest commit of
    # the range that changed its file, as that commit's own small PR (its subject the title, its body the
    # description, its number the PR's), not with every other PR's words.
    groups: dict[int, list[Touched]] = {}
    for tf, test in tests:
        index = next((i for i, u in enumerate(pr.units) if tf.path in u.paths), -1)
        groups.setdefault(index, []).append((tf, test))
    once = Counter(path for u in pr.units for path in set(u.paths))
    for i, group in groups.items():
        if i < 0:
            continue  # no commit of the range changed its file (the range was capped): nothing to go on
        unit = pr.units[i]
        paths = set(unit.paths)
        sub = PullRequest(number=unit.number, commits=(unit.message,))
        # A changelog that other commits of the range change too holds their entries as well.
        own = {path for path in paths if once[path] == 1}
        for found, reason in _judged(ctx, sub, group, named, [c for c in changed if c in paths], own):
            yield found, reason, unit.number


def _judged(
    ctx: Context,
    pr: PullRequest,
    tests: list[Touched],
    named: set[tuple[str, str]],
    changed: list[str],
    only: set[str] | None,
) -> Iterator[tuple[Touched, str]]:
    """The tests mode `evidence` takes for regression tests, with the reason, for one PR; only: the files
    of the change that are this PR's (None: all of them)."""
    said = _evidence(ctx, pr, only)
    # A fix comes with a test or two, a feature with many: only a few unnamed tests count by position.
    count = len(tests)
    trimmed = {f.path for f in ctx.changeset.files if f.removed_lines}
    rewritten = _rewritten(ctx, {tf.path for tf, _ in tests} & trimmed)
    added = {f.path: f.added_lines for f in ctx.changeset.files if f.status is not FileStatus.ADDED}
    gone = _removed_tests(ctx, {tf.path for tf, _ in tests} & trimmed)
    entries = _entry_picks(said, tests) if count > FEW else {}
    best = _best_matches(said, tests)
    for tf, test in tests:
        if tf.path in added and (
            _old_body(tf, test, added[tf.path]) or _renamed(test, gone.get(tf.path, ()))
        ):
            # A `def` put over lines the file had: an old test split up or renamed.
            continue
        if tf.path in best and _fix_words(said, test) < best[tf.path] and not own_cues(tf, test, weak=False):
            continue  # a companion of the test that names the fix
        where = "beside" if _scope(tf, test) in named else "elsewhere" if named else ""
        if where and len(said.fixes) > len(named) and _entry_tie(said, test):
            # The change says it makes more fixes than it has tests naming theirs, and this test is named
            # after one of them (two words of its entry): a neighbour naming another fix does not cover it.
            where = ""
        entry = entries.get((tf.path, test.qualname))
        reason = _reason(tf, test, said, count, changed, where, tf.path in rewritten, entry)
        if reason is not None:
            yield (tf, test), reason


def _old_body(tf: TestFile, test: TestFunction, added: frozenset[int]) -> bool:
    """Whether a new test's body is mostly lines the file already had: an existing test split in two or
    renamed (a new `def` over old lines), not a test written for the change."""
    body = [
        n for n in range(test.line + 1, test.end_line + 1) if n <= len(tf.lines) and tf.lines[n - 1].strip()
    ]
    return len(body) >= 2 and 2 * sum(n not in added for n in body) >= len(body)


def _entry_tie(said: PrEvidence, test: TestFunction) -> bool:
    """Whether the test's name shares two words with one fix entry of the change."""
    words = name_words(test)
    return any(len(words & fixed) >= 2 for _, fixed in said.fixes)


def _fix_words(said: PrEvidence, test: TestFunction) -> int:
    """How many words the test's name shares with what the PR says it fixes (its title, fix entries)."""
    return len(name_words(test) & (said.title_words | said.fixed_words))


def _best_matches(said: PrEvidence, tests: list[Touched]) -> dict[str, int]:
    """Per test file with several new tests, the most words one of them shares with what the PR says it
    fixes, where that is two or more and another test shares at most one: the test named after the fix
    is its regression test, and a new test beside it that shares at most one word is a companion (the
    same feature checked where it already worked), not a second regression test."""
    counts: dict[str, list[int]] = {}
    for tf, test in tests:
        counts.setdefault(tf.path, []).append(_fix_words(said, test))
    return {path: max(c) for path, c in counts.items() if len(c) >= 2 and max(c) >= 2 and min(c) <= 1}


_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(test\w*)")


def _old_lines(ctx: Context, paths: set[str]) -> Iterator[tuple[FileChange, list[str] | None]]:
    """Each changed file among paths that had a base, with its lines at base (None: unreadable)."""
    for f in ctx.changeset.files:
        if f.path not in paths or not f.base_path:
            continue
        try:
            old = ctx.changeset.base_text(f.base_path)
        except UnreadableFile:
            yield f, None
            continue
        yield f, git_lines(old or "")


def _removed_tests(ctx: Context, paths: set[str]) -> dict[str, list[set[str]]]:
    """The words of the names of the tests whose `def` line the change removes, per test file."""
    out: dict[str, list[set[str]]] = {}
    for f, lines in _old_lines(ctx, paths):
        if lines is None:
            continue
        for n in sorted(f.removed_lines)[:5000]:
            m = _DEF.match(lines[n - 1]) if 0 < n <= len(lines) else None
            if m is not None:
                out.setdefault(f.path, []).append(_words_of_name(m.group(1)))
    return out


_BODY_OPENER = re.compile(r"(?:async[ \t]+)?def[ \t]|class[ \t]|@")


def _rewritten(ctx: Context, paths: set[str]) -> set[str]:
    """The test files whose change removes lines of a function or class the file had: its existing
    tests rewritten or split. Lines outside every def and class (imports, module constants) say
    nothing of the tests. A file whose old text cannot be read keeps the cautious reading."""
    out: set[str] = set()
    for f, lines in _old_lines(ctx, paths):
        inside = _inside_defs(lines) if lines is not None else None
        if inside is None or any(0 < n <= len(inside) and inside[n - 1] for n in f.removed_lines):
            out.add(f.path)
    return out


def _inside_defs(lines: list[str]) -> list[bool]:
    """For each line, whether it is a def or class line or lies in one: the nearest line at or above it
    that starts at column 0 (blank and comment lines aside) opens a def, a class or a decorator. Blank
    and comment lines are in none: removing them rewrites nothing. One pass over the file."""
    out: list[bool] = []
    opened = False
    for text in lines:
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            out.append(False)
            continue
        if not text[0].isspace():
            opened = _BODY_OPENER.match(text) is not None
        out.append(opened)
    return out


def _words_of_name(name: str) -> set[str]:
    return {w for w in name.lower().split("_") if w and w != "test"}


def _renamed(test: TestFunction, gone: Iterable[set[str]]) -> bool:
    """Whether a new test takes the place of a test the change removes from its file under a name one
    word longer or shorter (`test_get_host_unix_invalid` -> `test_get_host_unix`): an old test rewritten,
    its expectation changed with the behaviour, not a test written to guard a fix."""
    words = _words_of_name(test.name)
    for old in gone:
        small, big = sorted((words, old), key=len)
        if len(small) >= 2 and small < big and len(big) - len(small) == 1:
            return True
    return False


def _waived(ctx: Context) -> set[tuple[str, str]]:
    return {
        (m.path, m.test.qualname)
        for m in markers(ctx.review)
        if m.test is not None and m.reason and ctx.rule.code in m.codes
    }


def _named(issues: bool) -> str:
    return f"{'issue, ' if issues else ''}PR or commit"


def _lacks(test: TestFunction) -> str:
    return "has no docstring" if not test.docstring else "has a docstring that names no PR or commit"


def _listing(tests: list[Touched], shown: int = 3) -> str:
    names = [f"`{t.qualname}`" for _, t in tests[:shown]]
    if len(tests) > shown:
        return f"{', '.join(names)} and {len(tests) - shown} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _notice(ctx: Context, rest: list[Touched], issues: bool) -> Finding:
    """One finding for all the new tests that name nothing and that nothing marks as regression tests."""
    named = _named(issues)
    if len(rest) == 1:
        text = f"New test {_listing(rest)} {_lacks(rest[0][1])}; if it guards a fix"
    else:
        text = f"{len(rest)} new tests ({_listing(rest)}) name no {named}; if one guards a fix"
    example = proposal(rest[0][1], ctx.changeset.pr.number)
    text += f", name the {named} in its docstring, e.g. {example}."
    # A lone test gets the notice on its line, where an annotation (and a waiver) can reach it.
    tf, test = rest[0]
    lone = len(rest) == 1
    finding = ctx.finding(
        text,
        path=tf.path if lone else None,
        line=test.line if lone else None,
        statement=ctx.statement_for(tf.path),
    )
    # Not knowing whether a test guards a fix is worth a note, never a failing check, whatever the config.
    return finding.model_copy(update={"severity": Severity.NOTICE})


def _issues_accepted(ctx: Context, sentence: str | None) -> bool:
    """Option `issues`: `auto` accepts issue references where the AGENTS.md sentence speaks of issues, or
    where no sentence turned the rule on (`.github/bot.yml` did); `yes` and `no` decide it outright."""
    setting = str(ctx.options.get("issues", "auto")).lower()
    if setting in ("yes", "true"):
        return True
    if setting in ("no", "false"):
        return False
    return sentence is None or accepts_issues(sentence)


class Judged(NamedTuple):
    """AGT001's reading of the new tests: those naming nothing, which of them are regression tests (and
    why), the PR number each guards, and whether issues count as references in each file."""

    tests: list[Touched]
    unnamed: list[Touched]
    judged: dict[tuple[str, str], str | None]
    numbers: dict[tuple[str, str], int | None]
    issues: dict[str, bool]
    verified: set[tuple[str, str]]  # decided by running the test (`--verify-tests`), not by words


# Why a test that reproduces is a regression test, said in the finding.
REPRODUCED = "it fails on the base code and passes with the change (--verify-tests)"


def judge(ctx: Context, mode: str, tests: list[Touched]) -> Judged:
    """Which of the new tests name nothing, and which of those mode takes for regression tests. In mode
    `evidence`, a test the run verified decides by what it did: one that reproduces is a regression test,
    one that fails on the base code only for a name the change adds (new API) is not."""
    files = _files(tests)
    issues = {}
    for path in files:  # once per file, not per test
        statement = ctx.statement_for(path)
        issues[path] = _issues_accepted(ctx, statement.text if statement else None)
    # Covered: the test, its class or its module names what it guards. Each docstring is searched once
    # (the module's once per file).
    own = [names_reference(t.docstring, issues[tf.path]) for tf, t in tests]
    module_named = {path: names_reference(tf.docstring, issues[path]) for path, tf in files.items()}
    unnamed = [
        (tf, t)
        for (tf, t), named_own in zip(tests, own, strict=True)
        if not (
            named_own
            or any(names_reference(doc, issues[tf.path]) for doc in t.scope_docs)
            or module_named[tf.path]
        )
    ]
    named = {_scope(tf, t) for (tf, t), named_own in zip(tests, own, strict=True) if named_own}
    judged: dict[tuple[str, str], str | None] = {}
    numbers: dict[tuple[str, str], int | None] = {}
    for (tf, t), reason, pr_number in _regression_tests(ctx, mode, unnamed, named):
        judged[(tf.path, t.qualname)] = reason
        numbers[(tf.path, t.qualname)] = pr_number
    verified: set[tuple[str, str]] = set()
    if mode == "evidence" and ctx.review.verifications:
        facts = outcomes(ctx.review)
        # Failing on the base code says the test checks what the change changed, not that the change is a
        # fix: a feature's tests fail there too (a keyword argument it adds is a TypeError there, a response
        # it now gives an assertion). So a test that reproduces is a regression test in a change that says
        # it fixes something, or one its words already took for one.
        fixes = _says_a_fix(ctx)
        for tf, t in unnamed:
            key = (tf.path, t.qualname)
            fact = facts.get(key)
            if fact is Outcome.REPRODUCES and (fixes or key in judged):
                judged[key] = REPRODUCED
                numbers.setdefault(key, ctx.changeset.pr.number)
                verified.add(key)
            elif fact is Outcome.NEW_API:
                judged.pop(key, None)
                verified.add(key)
    return Judged(tests, unnamed, judged, numbers, issues, verified)


def _evidence(ctx: Context, pr: PullRequest, only: set[str] | None = None) -> PrEvidence:
    """What a PR says of itself; only: the files of the change that are this PR's (None: all of them, the
    whole change, read once per review: the changelogs it reads may be long)."""

    def build() -> PrEvidence:
        files = [f for f in ctx.changeset.files if only is None or f.path in only]
        fragments = fragment_kinds(f.path for f in files if f.status is FileStatus.ADDED)
        return pr_evidence(pr, fragments, _changelog_entries(files, ctx))

    if only is not None or pr is not ctx.changeset.pr:
        return build()
    return ctx.review.memo("AGT001.evidence", build)


def _says_a_fix(ctx: Context) -> bool:
    """Whether the change says it fixes something (its title, commits, labels, closing references, linked
    issues, changelog entries or fragments), and is not only adding tests of another kind."""
    said = _evidence(ctx, ctx.changeset.pr)
    return said.fix is not None and not said.coverage


def outcomes(review: Review) -> dict[tuple[str, str], Outcome]:
    """The verified outcome of each test this run measured, by (path, qualname)."""
    return {(v.path, v.qualname): v.outcome for v in review.verifications}


def regression_tests(review: Review) -> dict[tuple[str, str], str]:
    """The new tests AGT001 counts as regression tests, wherever it is on or not, with why: those whose
    docstring (or class's or module's) names what they guard, and those its evidence takes (memoised)."""

    def build() -> dict[tuple[str, str], str]:
        setting = review.config.setting(RULE.code, RULE.name)
        ctx = Context(review=review, rule=RULE, options={**RULE.options, **setting.options}, severity=None)
        mode = ctx.options.get("regression", MODES[0])
        tests = [
            (tf, t)
            for tf, touched in touched_by_file(review)
            if not tf.error
            for state, t in touched
            if state == "new"
        ]
        found = judge(ctx, mode if mode in MODES else MODES[0], tests)
        unnamed = {(tf.path, t.qualname) for tf, t in found.unnamed}
        out = {
            (tf.path, t.qualname): "its docstring names what it guards"
            for tf, t in tests
            if (tf.path, t.qualname) not in unnamed
        }
        out.update({key: why or "it looks like a regression test" for key, why in found.judged.items()})
        return out

    return review.memo("AGT001.regression_tests", build)


def check(ctx: Context) -> Iterator[Finding]:
    mode, wrong = ctx.choice("regression", MODES)
    if wrong is not None:
        yield wrong
    errors, tests = touched_tests(ctx, new_only=True)
    yield from errors
    found = judge(ctx, mode, tests)
    judged, numbers, issues = found.judged, found.numbers, found.issues
    for tf, test in found.unnamed:
        key = (tf.path, test.qualname)
        if key not in judged:
            continue
        number = numbers[key]
        if key in found.verified:
            why = f"it is a regression test: {judged[key]}; "
        else:
            why = f"it looks like a regression test ({judged[key]}), so " if judged[key] else ""
        finding = ctx.finding(
            f"New test `{test.qualname}` {_lacks(test)}; {why}name the {_named(issues[tf.path])} it guards, "
            f"e.g. {proposal(test, number)}.",
            path=tf.path,
            line=test.line,
        )
        # Only with the PR's number is the docstring certain; "PR #<number>" is for a person to fill in.
        fix = docstring_fix(tf, test, number) if number else None
        yield finding.model_copy(update={"fix": fix}) if fix else finding
    if mode == "evidence":
        waived = _waived(ctx)
        rest = [
            (tf, t)
            for tf, t in found.unnamed
            if (tf.path, t.qualname) not in judged and (tf.path, t.qualname) not in waived
        ]
        if rest:
            yield _notice(ctx, rest, issues[rest[0][0].path])


RULE = Rule(
    code="AGT001",
    name="regression-test-without-reference",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="New regression tests must name the PR or commit they guard in their docstring.",
    recognisers=(
        # The test is the subject of a verb of naming whose object is a PR, commit or issue, and the sentence
        # says what makes it about guarding: "Regression tests must name the PR/commit they guard", "Bug fixes
        # should include a regression test that references the issue number".
        r"^(?=.*\b(?:regressions?|guard\w*|protect\w*|docstrings?|fix\w*|bugs?)\b).*?"
        # The scan from a test stops at the next one too (the match then starts there): without that stop,
        # "test test test ..." rescans to the end from every word, quadratic in the sentence.
        r"\b"
        + _TEST
        + r"(?:(?!\b(?:and|or|messages?|descriptions?|titles?|changelogs?|body|bodies|tests?)\b).)*?"
        r"\b(?P<act>" + _NAMING + r")\s+(?:[\w']+[\s/]+){0,3}?"
        # "Say in the commit body which test ...": the commit is where it is said, not what the test names.
        r"(?:PRs?|pull\s+requests?|commits?|fix(?:es)?|issues?)\b" + _NOT_A_PLACE,
        # Imperative: "Name the PR or commit a regression test guards in its docstring", "Name the issue ...".
        r"\b(?P<act>" + _NAMING + r")\s+(?:[\w']+[\s/]+){0,3}?"
        r"(?:PRs?|pull\s+requests?|commits?|fix(?:es)?|issues?)\b"
        r".*?(?:" + _IN_DOCSTRING + r"|" + _GUARDED + r")",
    ),
    options={"regression": MODES[0], "issues": "auto"},
    phrases=(
        "Regression tests must name the PR/commit they guard in the docstring.",
        "Tests must reference the PR they guard.",
        "Every regression test should cite the commit it protects.",
        "Name the PR or commit a regression test guards in its docstring.",
        "Name the issue a regression test guards in its docstring.",
        "Bug fixes should include a regression test that references the issue number.",
    ),
)
