"""Evidence that a new test is a regression test: words in its own text and in what the PR says of itself.

Two kinds of words. Strong ones (regression, bug, fix, guard, crash, reproduce, "no longer", an issue
number) say on their own that a test guards a fix. Weak ones ("again", "instead of", "used to", "stops
raising") describe changed behaviour, which a feature test may describe too: they count only in a PR that
says it fixes something. Words with a settled other meaning are not evidence: a linear regression, a fixed
seed, crash recovery, a type guard, a reproducible run, "fix typo".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from rules.core.models import LinkedIssue, PullRequest
from rules.core.prefilter import may_hold
from rules.testcode.changelog import FIX, OTHER, Entry, is_patch_release
from rules.testcode.testfiles import TestFile, TestFunction

# At most this many new tests in a fix PR are taken for its regression tests when nothing else says so:
# a fix comes with a test or two, a feature with many.
FEW = 3
# A PR whose title (or labels, branch, fix changelog entries) says it is a fix, adding at most this many
# tests: they are its regression tests, whatever their names say.
SMALL_FIX = 4

_STRONG = re.compile(
    r"""\b(?:
        regress(?:ion|ions|ed|es|ing)?
      | bugs? | bugfix\w* | hotfix\w*
      | fix(?:es|ed|ing)?
      | guard(?:s|ed|ing)?
      | crash(?:es|ed|ing)?
      | reproduc(?:e|es|ed|ing|tion|er|ers)
      | no\ longer
      | issue\s*+(?:[#-]\s*+)?\d+ | issues/\d+
      | (?:the|this|that|reported|original|upstream)\ issue
      | ghsa(?:-[0-9a-z]{4}){3} | cve[-\ ]\d{4}[-\ ]\d{4,7}
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_WEAK = re.compile(
    r"\b(?:again|instead\s++of|used\s++to|any\s?more|stop(?:s|ped)?\s++\w+ing)\b",
    re.IGNORECASE,
)
# Runs of space before a word or a comma are possessive (`\s*+`, `\s++`): what follows is never a space,
# so giving one back cannot help, and "Previously" before a megabyte of spaces would retry the rest from
# every one of them.
#
# "Previously, when ..., an error was raised": the test says the old behaviour was a failure, a bug
# report in one sentence. Only "Previously" opening a sentence, then a comma or a subject (not
# "previously failed tests are rerun"), and a verb of failing in the same sentence (not "used to":
# "is used to raise an error" describes the present).
_WAS_BROKEN = re.compile(
    r"(?:^|[.!?;:][ \t\n][ \t]*+|\n[ \t]*+)"
    r"(Previously|Formerly|Before\s++this\s++(?:fix|change|patch|PR|commit))"
    r"(?:\s*+,|\s++(?:this|that|it|they|we|the|an?|calling|using|passing)\b)[^.]{0,120}?"
    r"\b(raised|threw|thrown|failed|crashed|hung|broke|errored|segfaulted|was\s++(?:wrong|incorrect|broken))\b",
    re.IGNORECASE,
)
# The same words in their other senses, by the word's first letters: what comes right before or after
# the word rules it out ("linear regression", "fixed seed", "fix typo", "crash recovery", "type guard").
_ARTICLES = r"(?:[\s_-]+(?:the|a|an|random|rng|global|some|minor|small|all|more|few|remaining))*[\s_-]+"
# "Fix typo", "fix lint": fixes, but not of behaviour a test could guard.
_CHORES = (
    # "fix formatting" alone is housekeeping; "fix formatting cells with magics" is a formatter's bug.
    r"typos?|docs?|documentation|docstrings?|lint\w*|"
    r"format(?:ting)?(?=[ \t]*+(?:$|[.,;:(\[#]|issues?\b|errors?\b))|"
    r"style|tests?|ci|build|flak\w*|warnings?|"
    r"typing|types?|type\s+hints?|mypy|ruff|pre-commit|spelling|grammar|links?|readme|changelog|comments?|"
    r"nits?|review|"
    # "Fix tox.ini break by tox-ini-fmt": the project's own build and CI files.
    r"tox(?:\.ini)?|setup\.(?:py|cfg)|pyproject(?:\.toml)?|makefile|dockerfile|workflows?|github\s+actions|gha|"
    r"pipelines?"
)
_NOT_AFTER = {
    # "fix the seed", "fix the clock": pinning a value, as tests do.
    "fix": _ARTICLES + r"(?:seeds?|clocks?|times?|dates?|timestamps?|" + _CHORES + r")\b"
    # "Fix quadratic complexity in fragments_join", "fix slow startup": performance work, not a bug a test
    # could guard by its outcome.
    r"|" + _ARTICLES + r"(?:[\w`-]+[\s_-]+){0,2}?(?:complexity|performance|perf|slowness|slow\w*|speed)\b"
    # "fix for digest testcase", "fixes in the test suite": housekeeping named after a preposition.
    r"|[\s_-]+(?:for|in|of|on)[\s_-]+(?:the[\s_-]+)?(?:[\w.-]+[\s_-]+){0,2}?"
    r"(?:tests?|test[\s_-]?cases?|test[\s_-]?suites?|ci|docs?|typos?|lint\w*|mypy|typing)\b",
    # "fixed size", "fixed-point": an adjective.
    "fixed": _ARTICLES
    + r"(?:seeds?|points?|sizes?|lengths?|widths?|rates?|shapes?|order|values?|formats?|windows?|positions?|"
    r"batch(?:es)?|dimensions?|numbers?|strings?|timestamps?|times?|clocks?|dates?|dtypes?|"
    # "test_site_state_dir_fixed_path": a path that does not move, not a path that was repaired.
    r"paths?|dirs?|director(?:y|ies)|locations?|names?|ports?|versions?|urls?|offsets?|delays?|intervals?|"
    r"columns?|headers?|prefix(?:es)?|suffix(?:es)?|timeouts?|budgets?|costs?|amounts?|" + _CHORES + r")\b",
    "reg": _ARTICLES
    + r"(?:models?|tasks?|heads?|loss(?:es)?|targets?|metrics?|problems?|trees?|coefficients?)\b",
    "cra": _ARTICLES + r"(?:recovery|safe|safety|consisten\w*|dumps?)\b",
}
_NOT_BEFORE = {
    # "typing fix", "lint fixes", "CI fix": housekeeping named before the word.
    "fix": r"\b(?:typing|types?|lint\w*|ci|mypy|typos?|docs?|tests?|style|format\w*|build|pre-commit|ruff|"
    r"flake8|spelling|review)[\s_-]*$"
    # "Enable the RET linting rule of Ruff and fix newly reported errors": the fixes a linter asked for.
    r"|\b(?:lint\w*|ruff|mypy|flake8|pylint|pyright|pre-commit|isort)\b[^.;\n]{0,50}?\band[\s_-]+$",
    "reg": r"(?:linear|logistic|ridge|lasso|polynomial|quantile|isotonic|kernel|poisson|ordinal|symbolic|"
    r"softmax|process)[\s_-]+$",
    # "type guard", and a guard as a thing code has: "remove test guard", "add import guard".
    "gua": r"\b(?:type|test|import|version|platform|skip|python|windows|feature|recursion)[\s_-]*$",
}
_NOT_AFTER["bug"] = _NOT_AFTER["hot"] = _NOT_AFTER["fix"]
# "An empty value is no longer allowed", "Python 3.8 is no longer supported": a rule tightened or a thing
# removed, not a failure that stopped.
_NOT_AFTER["no "] = (
    r"[ \t]+(?:be[ \t]+)?(?:allowed|supported|accepted|required|needed|necessary|possible|available|"
    r"permitted|exported|installed|included|published|maintained|tested|used)\b"
)


def _other_sense(text: str, m: re.Match[str]) -> bool:
    word = m.group(0).lower()
    key = word[:3]
    before, after = _NOT_BEFORE.get(key), _NOT_AFTER.get("fixed" if word == "fixed" else key)
    if before and re.search(before, text[max(0, m.start() - 70) : m.start()], re.IGNORECASE):
        return True
    return bool(after and re.match(after, text[m.end() : m.end() + 60], re.IGNORECASE))


# A PR title or commit subject that says the tests it adds are regression tests.
_ADDS_REGRESSION_TESTS = re.compile(
    r"\b(?:regression|reproducer)\s+tests?\b|\btests?\s+for\s+(?:the\s+|a\s+)?(?:bug|crash|regression|issue)\b"
    # "Add new test to check netrc auth leak", "tests for the deadlock": a test named after the fault it
    # catches is a regression test, whatever else the title says.
    r"|\btests?\s+(?:to\s+(?:check|cover|verify|catch|reproduce|detect)\s+|for\s+|of\s+)(?:the\s+|a\s+|an\s+)?"
    r"(?:[\w.-]+\s+){0,3}?(?:leak|crash|hang|deadlock|race\s+condition|bypass|vulnerability|cve|ghsa)s?\b",
    re.IGNORECASE,
)
# A title that says the PR adds tests of another kind ("Stop using atexit and add integration tests for
# tmpdir", "tests: cover the CLI", "Improve raisesgroup code coverage"): its tests are the coverage it
# names.
_ADDS_OTHER_TESTS = re.compile(
    r"\badd(?:s|ed|ing)?\s+(?:(?:more|some|missing|new|unit|integration|functional|e2e|end-to-end|extra|"
    r"additional|basic|type|typing)\s+){0,2}tests?\b"
    r"|\b(?:improve[sd]?|increase[sd]?|more)\s+(?:[\w.-]{1,40}\s+){0,3}?coverage\b|^\s*tests?(?:\([^)]{0,40}\))?!?:",
    re.IGNORECASE,
)
# Marks that carry data, not a statement about the test.
_NOT_MARKS = ("parametrize", "usefixtures", "filterwarnings")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z][a-z0-9]+")
_STOPWORDS = frozenset(
    "the and for with when from into that this not are was were has have its does did doesn don can "
    "cannot should must will would test tests fix fixes fixed bug crash crashes error errors add adds "
    "added make makes use uses used handle handles support new".split()
)
# Template checkboxes left unticked ("- [ ] Bug fix") and HTML comments in a PR description say nothing.
# (`[ \t]`, not `\s`, after `^`: `\s*` would run on across blank lines from every line start, quadratic.)
_UNTICKED = re.compile(r"^[ \t]*[-*][ \t]*\[[ \t]\].*$", re.MULTILINE)
_STRING = re.compile(r"""[rbuRBU]{0,2}("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
_IMPORT = re.compile(r"^[ \t]*(?:from\s+([\w.]+)\s+import\s+([\w\s,()]+)|import\s+([\w.,\s]+))", re.MULTILINE)


@dataclass(frozen=True)
class Cue:
    """A word that counts as evidence, and where it was found."""

    word: str
    where: str  # "name", "docstring", "comment", "mark", "class docstring", "module docstring", "PR title"...
    strong: bool = True

    def __str__(self) -> str:
        return f'{self.where} says "{self.word}"'


# The first cue of each kind decides; a docstring of "fix fix fix ..." must not cost a cue per word.
_MAX_CUES = 3
_MAX_LOOKS = 200


# What each pattern's matches must hold (rules.core.prefilter): a text without any is not scanned.
_STRONG_NEED = ("regress", "bug", "fix", "guard", "crash", "reproduc", "no longer", "issue", "ghsa", "cve")
_WEAK_NEED = ("again", "instead", "used", "any", "stop")
_WAS_BROKEN_NEED = ("previously", "formerly", "before")


def _cues(text: str, where: str, weak: bool = True) -> Iterator[Cue]:
    m = _WAS_BROKEN.search(text) if may_hold(text, _WAS_BROKEN_NEED) else None
    if m is not None:
        yield Cue(f"{m.group(1).lower()} ... {m.group(2).lower()}", where)
    kinds = ((_STRONG, _STRONG_NEED, True), (_WEAK, _WEAK_NEED, False))
    for pattern, need, strong in kinds if weak else kinds[:1]:
        if not may_hold(text, need):
            continue
        found = 0
        for looked, m in enumerate(pattern.finditer(text)):
            if found >= _MAX_CUES or looked >= _MAX_LOOKS:
                break
            if _other_sense(text, m):
                continue
            found += 1
            yield Cue(" ".join(m.group(0).split()).lower()[:30], where, strong)


def _name_text(name: str) -> str:
    """A test's name as words: `test_crashOnEmpty_x` -> "crash On Empty x"."""
    return _CAMEL.sub(" ", name.removeprefix("test")).replace("_", " ").strip()


def comments(tf: TestFile, test: TestFunction) -> list[str]:
    """The comment block above a test and the comments inside it (strings aside), without the `#`."""
    if not tf.has_hash:
        return []  # no `#` anywhere in the file: no comment to find, and no need to split its lines
    lines = tf.lines
    out = []
    for number in range(test.start_line or test.line, min(test.end_line, len(lines)) + 1):
        line = lines[number - 1]
        if "#" not in line:
            continue  # taking the strings out cannot make a `#`: most lines need no regex
        code = _STRING.sub('""', line)
        if "#" in code:
            out.append(code.split("#", 1)[1].strip())
    return out


def _marks(tf: TestFile, test: TestFunction) -> str:
    """The pytest marks on a test as text, arguments included (`xfail(reason="bug 12")`)."""
    names = [d for d in test.decorators if ".mark." in f".{d}." and not d.endswith(_NOT_MARKS)]
    marks = [n.rsplit(".", 1)[-1].replace("_", " ") for n in names]
    start = test.start_line or test.line
    if start < test.line:  # lines above the `def` (the file is split only for them)
        lines = tf.lines[start - 1 : test.line - 1]
        marks += [ln for ln in lines if ".mark." in ln and not any(n in ln for n in _NOT_MARKS)]
    return " ".join(marks)


def own_cues(tf: TestFile, test: TestFunction, weak: bool = True) -> list[Cue]:
    """Evidence in the test's own text; without weak, only the strong cues (the caller has no use for
    the others).

    The docstring of its class or module covers it with a reference, but is not evidence that it is a
    regression test: "Guards the release gate" above forty feature tests says nothing of each.
    """
    sources = [
        (_name_text(test.name), "its name"),
        (test.docstring or "", "its docstring"),
        (_marks(tf, test), "its mark"),
        ("\n".join(comments(tf, test)), "its comment"),
    ]
    return [cue for text, where in sources if text for cue in _cues(text, where, weak)]


def _body(text: str) -> str:
    return _UNTICKED.sub("", _without_comments(text))


def _without_comments(text: str) -> str:
    """Text without its HTML comments, found with str.find (a lazy `<!--.*?-->` rescans to the end from
    every unclosed `<!--`)."""
    out, i = [], 0
    while (start := text.find("<!--", i)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            break  # unclosed: it and what follows stay, as the pattern left them
        out.append(text[i:start])
        i = end + 3
    out.append(text[i:])
    return "".join(out)


@dataclass(frozen=True)
class _Message:
    """A commit message read as a PR: GitHub's merge commit carries the PR's branch and title."""

    subjects: tuple[str, ...]  # the subject and a squash's "* subject" lines, or a merge commit's PR title
    branch: str
    body: str


_MERGE = re.compile(
    r"^Merge (?:pull request #\d+ from (?P<pr>\S+)|branch '(?P<branch>[^']+)'.*)$", re.IGNORECASE
)


# Commits a bot wrote ("[pre-commit.ci] auto fixes from pre-commit.com hooks") say nothing of the change.
_BY_BOT = re.compile(r"^\[[\w.-]{0,40}(?:ci|bot)\]", re.IGNORECASE)


# Each reader of the PR's words reads its commits again (a dozen times a review): a commit message of a
# megabyte of lines was split a dozen times. The result is frozen, so one reading serves them all.
@lru_cache(maxsize=64)
def _message(message: str) -> _Message:
    lines = message.strip().splitlines()
    if not lines:
        return _Message((), "", "")
    subject, rest = lines[0].strip(), lines[1:]
    m = _MERGE.match(subject)
    if m is None:
        # A squash merge lists the squashed commits' subjects as "* subject" lines of its body.
        squashed = tuple(ln[2:].strip() for ln in rest if ln.startswith("* ") and ln[2:].strip())
        subjects = tuple(s for s in (subject, *squashed) if not _BY_BOT.match(s))
        return _Message(subjects, "", "\n".join(rest) if subjects and subjects[0] == subject else "")
    branch = (m.group("pr") or "").split("/", 1)[-1] or m.group("branch") or ""
    text = [ln.strip() for ln in rest]
    title = next((ln for ln in text if ln), "")
    body = "\n".join(text[text.index(title) + 1 :]) if title else ""
    return _Message((title,) if title else (), branch, body)


# In a description (the PR's, or a commit's body) only "fixes #12" says the PR fixes something: prose
# there uses "bug", "crash" or "regression" of anything ("one regression test per issue"), and "closes
# #12" closes feature requests as often as bug reports.
_CLOSES = re.compile(
    r"\bfix(?:es|ed)?\b[^.\n]{0,40}?(?:\#\d+\b|/issues/\d+\b|\bissue\s*\#?\d+\b)",
    re.IGNORECASE,
)


# A description line that opens with the fix verb ("Fixes the profile ...", "- Fixed a crash in ...") is
# the PR saying what it does, as a title does; read like one.
_OPENS_WITH_FIX = re.compile(
    r"^[ \t]{0,8}(?:[-*+][ \t]{1,4})?(?:this (?:pr|pull request|change|commit|patch) )?fix(?:es|ed)?\b.*$",
    re.IGNORECASE | re.MULTILINE,
)


# What a title, a commit subject or a changelog entry says of a fix without the word "fix": "Do not trigger
# X", "no longer hangs", "crash when ...", "garbage output", "incorrectly", "prevent ... from". Only for what
# the PR says of itself: a test named `test_wrong_type_raises` checks validation, not a fix.
_PROSE = re.compile(
    r"""\b(?:
        (?:do(?:es)?\s++not|don'?t|doesn'?t|no\s++longer|never)\s++
            (?:trigger|crash|hang|raise|throw|fail|break|error|leak|corrupt|lose|drop|duplicate|swallow|
               overwrite|mangle|truncate|freeze|block|mask)\w*
      | hang(?:s|ing)? | hung | freez(?:es|ing) | infinite\s++loops? | deadlock\w* | memory\s++leaks?
      | segfault\w* | race\s++conditions? | garbage(?:\s++output)? | garbled
      | incorrect(?:ly)? | wrong(?:ly)? | erroneous(?:ly)? | mistaken(?:ly)? | broken | breakage
      | correctly | ^\s*+use\s++(?:the\s++)?correct | works?\s++as\s++(?:expected|intended|documented)
      | ^\s*+(?:honou?r|respect)(?:s|ed)?\s
            # an argument ignored is a bug ("Honor sort_keys"); a standard adopted is a feature ("Honor the
            # NO_COLOR environment variable")
            (?!(?:[\w`'".-]++\s++){0,5}?(?:environment\s++variables?|env\s++vars?|standards?|conventions?|
               specs?|specifications?)\b)
      | ^\s*+reject(?:s|ed)?\s
      | ^\s*+(?:catch|tolerat)\w*\s++(?:an?\s++|the\s++)?
            (?:[\w`.]*(?:error|exception)|bad|invalid|missing|empty)
      | ^\s*+handl\w*\s++(?:an?\s++|the\s++)?(?:empty|missing|invalid|malformed|none|null|zero|negative|
            non-\w+|unicode|duplicate)
      | unexpected(?:ly)?\s++(?:raise|error|exception|crash|fail)\w*
      | prevent(?:s|ed|ing)?\s++(?:[\w`'.-]++\s++){0,6}?from
      | ^\s*+prevent\s
      | ^\s*+(?:do\s++not|don'?t)\s++
            (?!(?:run|build|publish|test|lint|check|cache|install|bump|pin)\b)[a-z]\w*
      | works?\s++(?:correctly\s++|properly\s++)?again
      | now\s++properly | ^\s*+properly\s | stopped\s++working
      | restor(?:e|es|ed|ing)\s++(?:the\s++)?(?:ability|support|behaviou?r|previous|old)
      | ^\s*+(?:preserve|retain)s?\s++(?:[\w`'.-]++\s++){1,6}?(?:when|on|after|during|across|through)\s
      # ("Keep X on Y" says where, not that X was lost: "Keep the logs on disk")
      | ^\s*+keeps?\s++(?:[\w`'.-]++\s++){1,6}?(?:when|after|during|across|through)\s
      | instead\s++of\s++(?:silently\s++)?(?:raising|crashing|failing|hanging|erroring|throwing|
            dropping|ignoring|swallowing|discarding|losing|truncating|corrupting)
      | avoid(?:s|ed|ing)?\s++(?:an?\s++|the\s++)?
            (?:crash|hang|infinite|deadlock|race|exception|leak|data\s++loss)\w*
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_PROSE_NEED = (
    "not", "don", "longer", "never", "hang", "hung", "freez", "infinite", "deadlock", "leak", "segfault",
    "race", "garb", "incorrect", "wrong", "erroneous", "mistaken", "broke", "unexpected", "prevent",
    "instead", "avoid", "again", "correct", "catch", "tolerat", "handl", "as expected", "as intended",
    "as documented", "honor", "honour", "respect", "reject", "properly", "stopped", "restor", "preserv",
    "retain", "keep",
)  # fmt: skip


def _prose_cues(text: str, where: str) -> list[Cue]:
    """The fix said in prose, on top of the strong words: "no longer hangs", "incorrectly", "crash when"."""
    cues = [c for c in _cues(text, where) if c.strong]
    if not cues and may_hold(text, _PROSE_NEED):
        m = _PROSE.search(text)
        if m is not None:
            cues.append(Cue(" ".join(m.group(0).split()).lower()[:30], where))
    return cues


# Conventional Commits: `fix: ...`, `fix(parser)!: ...`. The type says what the change is; a housekeeping
# scope (`fix(ci): ...`) makes a fix of no behaviour a test could guard.
_CONVENTIONAL = re.compile(r"^[ \t]{0,4}([A-Za-z]{2,12})(?:\(([^()\n]{0,40})\))?!?:[ \t]")
FIX_TYPES = frozenset("fix fixes bugfix hotfix bug security".split())
_TYPE_KINDS = {
    "feat": "feature", "feature": "feature", "features": "feature", "deprecate": "deprecation",
    "deprecation": "deprecation", "remove": "removal", "refactor": "changed", "test": "changed",
    "tests": "changed", "docs": "changed", "doc": "changed", "chore": "changed", "perf": "changed",
    "ci": "changed", "build": "changed", "style": "changed", "revert": "changed", "deps": "changed",
}  # fmt: skip
_CHORE_SCOPE = re.compile(r"^(?:" + _CHORES + r"|deps|dependencies|tests?|release)$", re.IGNORECASE)


# gitmoji (gitmoji.dev): the emoji, or its `:shortcode:`, that opens a subject says the kind of change as a
# Conventional-Commits type does. Only the unambiguous ones: a fix (bug, critical hotfix, simple fix,
# security), a feature, and kinds that are neither (refactor, docs, tests, style, performance, removal,
# deprecation, a CI or build fix, dependencies, configuration, typos, lint; not "add a failing test",
# which may be a fix told by its test).
_GITMOJI_FIX = {
    "\U0001f41b": "bug",
    "\U0001f691": "ambulance",
    "\U0001fa79": "adhesive_bandage",
    "\U0001f512": "lock",
}
_GITMOJI_FEATURE = {"\u2728": "sparkles", "\U0001f389": "tada"}
_GITMOJI_OTHER = {
    "\u267b": "recycle", "\U0001f4dd": "memo", "\u2705": "white_check_mark", "\U0001f3a8": "art",
    "\u26a1": "zap", "\U0001f525": "fire", "\U0001f484": "lipstick", "\U0001f6a8": "rotating_light",
    "\U0001f477": "construction_worker", "\U0001f49a": "green_heart", "\u2b06": "arrow_up",
    "\u2b07": "arrow_down", "\U0001f4cc": "pushpin", "\U0001f527": "wrench", "\U0001f5d1": "wastebasket",
    "\u270f": "pencil2", "\U0001f516": "bookmark", "\U0001f69a": "truck", "\U0001f4e6": "package",
    "\U0001f3d7": "building_construction",
}  # fmt: skip
_GITMOJI_KINDS = {
    **{k: "bugfix" for k in (*_GITMOJI_FIX, *_GITMOJI_FIX.values())},
    **{k: "feature" for k in (*_GITMOJI_FEATURE, *_GITMOJI_FEATURE.values())},
    **{k: "changed" for k in (*_GITMOJI_OTHER, *_GITMOJI_OTHER.values())},
}
_GITMOJI = re.compile(r"^[ \t]{0,4}(?::([a-z0-9_]{2,30}):|([^\x00-\x7f]))")


def gitmoji_kind(subject: str) -> str | None:
    """The change kind the gitmoji opening a subject gives ("\U0001f41b Fix ..." or ":bug: Fix ..." ->
    "bugfix"); None without a known one."""
    m = _GITMOJI.match(subject)
    if m is None:
        return None
    return _GITMOJI_KINDS.get(m.group(1) or m.group(2))


def conventional_kind(subject: str) -> str | None:
    """The change kind a Conventional-Commits subject gives: "bugfix" for `fix:`, "feature" for `feat:`,
    "deprecation", "changed" for refactor/docs/test/chore/perf/ci/build/style; None without a known type.
    A gitmoji opening the subject says the kind the same way."""
    m = _CONVENTIONAL.match(subject)
    if m is None:
        return gitmoji_kind(subject)
    kind = m.group(1).lower()
    if kind in FIX_TYPES:
        return "changed" if m.group(2) and _CHORE_SCOPE.match(m.group(2).strip()) else "bugfix"
    return _TYPE_KINDS.get(kind)


# A title that opens with a feature's verb and says no fix but a closing "fix #12" is a feature closing its
# request: "Add the --strict option (fixes #12)", "Deprecate `Field.foo`, fix #40".
_FEATURE_TITLE = re.compile(
    # perhaps behind the module it is about: "strutils: add ellipsize"
    # ("TODO: add other entries" is a note, not a module)
    r"^[ \t]{0,4}(?:(?!(?:todo|note|fixme|xxx|wip|nb)\b)[\w./-]{1,30}:[ \t]+)?"
    r"(?:add(?:s|ed)?|implement\w*|introduc\w*|support\w*|deprecat\w*|allow\w*|enabl\w*|expos\w*|new)\b",
    re.IGNORECASE,
)


# "Detailed error message on hook registration conflict", "Make error messages ... more helpful": a
# message made clearer, which the tests of the message check; not a fix of what the code does.
_BETTER_MESSAGE = re.compile(
    r"^[ \t]{0,4}(?:improv\w*|better|clearer|detailed|nicer|friendlier|clarif\w*|reword\w*)\s+"
    r"(?:\w+\s+){0,3}?(?:error|warning|exception)\s+messages?\b"
    r"|\b(?:error|warning|exception)\s+messages?\b.{0,60}?\bmore\s+(?:helpful|informative|descriptive|detailed|"
    r"useful|readable|explicit)\b",
    re.IGNORECASE,
)


# "Add missing null check", "Allow empty names again": a feature's verb telling a fix.
_MISSING = re.compile(r"\b(?:missing|forgotten|lost)\b", re.IGNORECASE)


def _says_a_fix(title: str) -> bool:
    return bool(_prose_cues(title, "") or _MISSING.search(title) or any(_cues(title, "")))


def title_kinds(pr: PullRequest) -> frozenset[str]:
    """What kind of change the title says (locally the newest commit's subject): a Conventional-Commits
    type, or "feature" for a title that opens with a feature's verb and says no fix beyond closing one."""
    kinds = set()
    for title in _titles(pr):
        kind = conventional_kind(title)
        if kind is None and _FEATURE_TITLE.match(title) and not _says_a_fix(_CLOSING.sub(" ", title)):
            kind = "feature"
        elif kind is None and _BETTER_MESSAGE.search(title) and not _says_a_fix(_CLOSING.sub(" ", title)):
            kind = "improvement"
        elif kind is None and _REVERT.match(title):
            kind = "revert"
        if kind is not None:
            kinds.add(kind)
    return frozenset(kinds)


# git's subject for a revert: `Revert "<the reverted commit's subject>"`. Undoing a change fixes nothing
# the reverted commit's words say.
_REVERT = re.compile(r'^[ \t]{0,4}Revert[ \t]+"')

# GitHub's subject for merging a security advisory's temporary private fork: the change is the advisory's
# fix, whatever else its message says.
_ADVISORY_MERGE = re.compile(r"^\s*Merge commit from fork\s*$")


def _subject_cues(text: str, where: str, prose: bool = True) -> list[Cue]:
    """Evidence in a title or commit subject: its Conventional-Commits type decides when it has one.
    Without prose only the strong words count (the commits inside a PR: "broken test after rebase")."""
    if _ADVISORY_MERGE.match(text):
        return [Cue("merge commit from fork", where)]
    if _REVERT.match(text):
        return []  # the quoted subject is the reverted commit's: "Revert "Fix crash ..."" re-breaks it
    kind = conventional_kind(text)
    if kind == "bugfix":
        if _CONVENTIONAL.match(text) is None:
            return [Cue(text.strip()[:30], where)]  # a gitmoji: the subject says it better than the emoji
        return [Cue(text.split(":", 1)[0].strip().lower()[:30] + ":", where)]
    if kind is not None:
        return []  # "test: fix flaky", "feat: ... (fixes #12)": the type says what it is
    return _prose_cues(text, where) if prose else [c for c in _cues(text, where) if c.strong]


# Changelog entries link the issue or PR they come from, features as much as fixes: "(#1067)", "`#1067
# <https://github.com/o/r/issues/1067>`_". A link says nothing of the entry's kind.
_ENTRY_LINK = re.compile(
    r"(?:issues|pull)/\d{1,9}\b|\bissue\s{0,3}#?\s{0,3}\d{1,9}\b|#\d{1,9}\b", re.IGNORECASE
)


def _entry_says_fix(entry: Entry) -> list[Cue]:
    """The fix an entry under a section of no kind says in its own prose, its links left out."""
    return _prose_cues(_ENTRY_LINK.sub(" ", entry.text), "a changelog entry")


def entry_kinds(entries: Iterable[Entry]) -> frozenset[str]:
    """The change kinds the changelog entries say: "bugfix" for an entry under a fix section or saying a
    fix in prose under a section of no kind; "feature" or "changed" under Added/Changed and their kin."""
    kinds = set()
    for entry in entries:
        if entry.kind == FIX or (not entry.kind and _entry_says_fix(entry)):
            kinds.add("bugfix")
        elif entry.kind == OTHER:
            kinds.add("feature" if _NEW_SECTION.match(entry.section) else "changed")
        elif _opens_as_feature(entry):
            kinds.add("feature")
    return frozenset(kinds)


_NEW_SECTION = re.compile(r"^\W*(?:added|new|features?|deprecat|remov|breaking)", re.IGNORECASE)


def _entry_cue(entries: Iterable[Entry]) -> Cue | None:
    for entry in entries:
        if entry.kind == FIX and is_patch_release(entry.section):
            return Cue(entry.section[:30], "a changelog entry's patch release")
        if entry.kind == FIX:
            return Cue(entry.section.lower()[:30], "a changelog section")
        if not entry.kind:
            cues = _entry_says_fix(entry)
            if cues:
                return cues[0]
    return None


def fix_entries(entries: Iterable[Entry]) -> tuple[Entry, ...]:
    """The entries that say a fix (by their section, or in prose under a section of no kind)."""
    return tuple(e for e in entries if e.kind == FIX or (not e.kind and _entry_says_fix(e)))


def _said(pr: PullRequest, full: bool = True) -> Iterator[tuple[str, str]]:
    """What the PR says of itself in a line: its title, labels and branch, its commits' subjects, and the
    lines of its description or commit bodies that open with "Fix". Not full: only what speaks for the
    whole change (title, labels, branch; locally the newest commit's subject and branch), not the commits
    inside it ("fix review comments") nor the descriptions."""
    yield pr.title, "the PR title"
    if full:
        for text, where in _described(pr):
            for m in _OPENS_WITH_FIX.finditer(text):
                yield m.group(0), where
    for label in pr.labels:
        yield label.replace("-", " ").replace("_", " "), "a PR label"
    if pr.head_ref:
        yield _branch_words(pr.head_ref), "the branch name"
    for message in map(_message, pr.commits if full else pr.commits[:1]):
        for subject in message.subjects if full else message.subjects[:1]:
            yield subject, "a commit message"
        if message.branch:
            yield _branch_words(message.branch), "the branch name"


def _described(pr: PullRequest) -> Iterator[tuple[str, str]]:
    yield _body(pr.body), "the PR description"
    for message in map(_message, pr.commits):
        yield message.body, "a commit message"


def _branch_words(ref: str) -> str:
    return re.sub(r"[/_.-]+", " ", ref)


# Changelog fragments (towncrier and its kin: `changelog/123.bugfix.rst`, `newsfragments/9.feature`) say
# what kind of change the PR is, in the maintainers' own terms.
_FRAGMENT_DIRS = frozenset(
    "changelog changes newsfragments news changelog.d changes.d newsfragments.d unreleased".split()
)
FIX_KINDS = frozenset("bugfix bugfixes bug bugs fix fixes fixed security".split())
NEW_KINDS = frozenset("feature features added deprecation deprecations removal removals breaking".split())
OTHER_KINDS = frozenset(
    "feature features improvement improvements enhancement enhancements deprecation deprecations removal "
    "removals breaking doc docs trivial misc vendor packaging contrib performance perf added changed".split()
)


def _fragment_types(path: str) -> list[str]:
    """The type words of a changelog fragment's name (`changelog/12.bugfix.rst` -> ["bugfix", "rst"]), or
    none for a file outside the fragment folders."""
    p = PurePosixPath(path)
    if len(p.parts) < 2 or p.parts[-2].lower() not in _FRAGMENT_DIRS:
        return []
    return p.name.lower().split(".")[1:4]


def fragment_kind(path: str) -> str | None:
    """The kind of a changelog fragment (`changelog/12.bugfix.rst` -> "bugfix"); None for another file."""
    return next((t for t in _fragment_types(path) if t in FIX_KINDS or t in OTHER_KINDS), None)


# Fragment types that say no kind: attrs and structlog file fixes and features alike as `123.change.md`.
_NEUTRAL_KINDS = frozenset(("change", "changes"))


def neutral_fragment(path: str) -> bool:
    """Whether path is a changelog fragment of a type that says no kind, so its prose must."""
    return any(t in _NEUTRAL_KINDS for t in _fragment_types(path))


def fragment_kinds(paths: Iterable[str]) -> frozenset[str]:
    """The kinds of the changelog fragments among paths (the files a change adds): {"bugfix"}, {"feature"}."""
    return frozenset(k for k in map(fragment_kind, paths) if k is not None)


# "fix #6881: add an option", branch "fix-6881-...": an issue closed, not a bug said to be fixed; where the
# change's fragments say it is a feature, such a title or branch is no fix.
_CLOSING = re.compile(r"\bfix(?:es|ed)?[\s:#-]{0,3}\d+\b", re.IGNORECASE)


# On GitHub, the labels and issue type of the issues the PR closes (`Fixes #12`, read by
# bot/github/linked.py) say what kind of change it is in the maintainers' terms, as a changelog fragment
# does: a bug makes a fix of a PR whose title says nothing, a feature makes its "Fixes #12" the closing of
# a feature request. Other labels ("question", "not a bug") and types ("Task") say nothing.
_BUG_LABEL = re.compile(r"^(?:(?:type|kind)[ \t]*[:/][ \t]*)?(?:bug|bugfix|regression)$", re.IGNORECASE)
_FEATURE_LABEL = re.compile(
    r"^(?:(?:type|kind)[ \t]*[:/][ \t]*)?(?:enhancement|feature|feature[ \t]request|new[ \t]feature)$",
    re.IGNORECASE,
)


def _issue_says(issue: LinkedIssue) -> Iterator[tuple[str, str]]:
    """(what, where) for each label and the type of a linked issue."""
    where = f"issue #{issue.number}, which the PR closes,"
    if issue.type:
        yield issue.type.strip(), f"the type of {where}"
    for label in issue.labels:
        yield label.strip(), f"a label of {where}"


def linked_kinds(pr: PullRequest) -> frozenset[str]:
    """What the linked issues say: "bugfix" for the issue type Bug or a bug label (`bug`, `type: bug`,
    `kind/bug`, `bugfix`, `regression`), "feature" for the type Feature or an `enhancement` or `feature`
    label."""
    kinds = set()
    for text, _ in (said for issue in pr.linked_issues for said in _issue_says(issue)):
        if _BUG_LABEL.match(text):
            kinds.add("bugfix")
        elif _FEATURE_LABEL.match(text):
            kinds.add("feature")
    return frozenset(kinds)


def _linked_cue(pr: PullRequest) -> Cue | None:
    for text, where in (said for issue in pr.linked_issues for said in _issue_says(issue)):
        if _BUG_LABEL.match(text):
            return Cue(text.lower()[:30], where)
    return None


def _kinds(pr: PullRequest, fragments: frozenset[str], entries: tuple[Entry, ...]) -> frozenset[str]:
    """Every kind the change says of itself: fragments, changelog entries, the title, linked issues."""
    return fragments | entry_kinds(entries) | title_kinds(pr) | linked_kinds(pr)


def pr_cues(
    pr: PullRequest,
    fragments: frozenset[str] = frozenset(),
    whole: bool = False,
    entries: tuple[Entry, ...] = (),
) -> list[Cue]:
    """Evidence that the PR fixes something: a strong word in its title, labels, branch or a commit
    subject, a closing reference ("Fixes #12") in its description or a commit body, a bug label or type
    on an issue it closes (on GitHub), or a bugfix changelog fragment. A change whose fragments all say
    another kind (feature, deprecation...) is no fix on the strength of its descriptions or the commits
    inside it: projects close every kind of issue with "Fix #12", and a feature branch has its "fix
    tests" commits. Changelog entries (under Fixed, Added...), the title's Conventional-Commits type and
    the labels and types of the issues it closes say the kind as fragments do."""
    given = fragments
    fragments = _kinds(pr, fragments, entries)
    fix_fragment = bool(fragments & FIX_KINDS)
    bodies = (fix_fragment or not fragments) and not whole  # whole: only what speaks for the whole change
    # A feature's "fix #6881" title or branch closes the feature request.
    closes_only = not fix_fragment and bool(fragments & NEW_KINDS)
    titles = set(_titles(pr))
    said = [
        cue
        for text, where in _said(pr, bodies)
        if text
        for cue in _subject_cues(_CLOSING.sub(" ", text) if closes_only else text, where, text in titles)
    ]
    closes = [
        Cue(" ".join(m.group(0).split()).lower()[:30], where)
        for text, where in (_described(pr) if bodies else ())
        if text
        for m in _CLOSES.finditer(text)
    ]
    fragment = [Cue(sorted(given & FIX_KINDS)[0], "a changelog fragment")] if given & FIX_KINDS else []
    linked = _linked_cue(pr)
    entry = _entry_cue(entries)
    return said + closes + ([linked] if linked else []) + fragment + ([entry] if entry is not None else [])


def _subjects(pr: PullRequest) -> list[str]:
    return [pr.title, *(s for m in map(_message, pr.commits) for s in m.subjects)]


def _titles(pr: PullRequest) -> list[str]:
    """The PR title; locally the newest commit's subject (a merge commit's PR title)."""
    newest = _message(pr.commits[0]).subjects[:1] if pr.commits else ()
    return [t for t in (pr.title, *newest) if t]


def adds_other_tests(pr: PullRequest) -> bool:
    """Whether the title says the PR adds tests that are not regression tests, and says no fix."""
    titles = _titles(pr)
    return (
        any(_ADDS_OTHER_TESTS.search(t) for t in titles)
        and not any(_ADDS_REGRESSION_TESTS.search(t) for t in titles)
        and not any(c.strong for t in titles for c in _cues(t, "the PR title"))
    )


def adds_regression_tests(pr: PullRequest) -> bool:
    """Whether the PR title (or, locally, a commit subject) says it adds regression tests."""
    return any(_ADDS_REGRESSION_TESTS.search(s) for s in _subjects(pr))


def _stem(word: str) -> str:
    """A crude stem, enough to match "annotations" with "annotation" and "deferred" with "defer"."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "deferr" -> "defer", but "pass", "call" stay
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOPWORDS}


def _said_words(pr: PullRequest, titles_only: bool) -> frozenset[str]:
    """Words of the PR title or branch (or, locally, commit subjects); with titles_only, of the PR title
    alone (locally: the newest commit's subject, a merge's PR title)."""
    if titles_only:
        texts = _titles(pr)
    else:
        branches = [pr.head_ref, *(m.branch for m in map(_message, pr.commits))]
        texts = [*_subjects(pr), *(_branch_words(b) for b in branches if b)]
    said: set[str] = set()
    for subject in texts:
        said |= _words(_CAMEL.sub(" ", subject))
    return frozenset(said)


def name_words(test: TestFunction) -> set[str]:
    return _words(_name_text(test.name))


@dataclass(frozen=True)
class PrEvidence:
    """What the PR says of itself, worked out once per review (not once per test)."""

    adds_tests: bool  # the title (or a commit subject) says it adds regression tests
    coverage: bool  # the title says it adds tests of another kind (integration, unit, coverage) and no fix
    fix: Cue | None  # the first evidence that the PR fixes something
    whole: Cue | None  # the same from what speaks for the whole change, when no other fragment kind says more
    words: frozenset[str]  # words of the title, branch and commit subjects, and of fix changelog entries
    title_words: frozenset[str]  # words of the title alone
    # The changelog entries that say a fix: each is the title of one fix (a merge of a release branch
    # brings several), with its words.
    fixes: tuple[tuple[str, frozenset[str]], ...] = ()
    small: bool = False  # the whole change says it is a fix and no commit says it adds other tests
    validates: bool = False  # the title says the PR adds validation ("validate host characters")
    # The words of each changelog entry of another kind (Added, Changed, Performance...) the change adds:
    # a PR that fixes one thing and adds another has tests of both.
    others: tuple[frozenset[str], ...] = ()
    fixed_words: frozenset[str] = frozenset()  # the words of every fix entry, in a change of one kind or more


# Sections that say a change is no fix in so many words ("Changed" is left out: projects file fixes there).
_NOT_FIX_SECTION = re.compile(
    r"^\W*(?:added|new|features?|deprecat|remov|breaking|performance|enhancements?|improvements?|doc)",
    re.IGNORECASE,
)


def _says_no_fix(entries: tuple[Entry, ...]) -> bool:
    """Whether the changelog entries the change adds say it is something else and none says a fix: the
    maintainers' words about the change outweigh a "fix:" title ("fix: skip ignored folders faster",
    filed under Performance)."""
    return (
        bool(entries)
        and not fix_entries(entries)
        and any(
            (e.kind == OTHER and _NOT_FIX_SECTION.match(e.section)) or _opens_as_feature(e) for e in entries
        )
    )


def _opens_as_feature(entry: Entry) -> bool:
    """An entry under no section that opens as a feature does ("Add support for NO_COLOR") and says no fix."""
    return (
        not entry.kind
        and bool(_FEATURE_TITLE.match(entry.text.lstrip("-*+ \t")))
        and not _entry_says_fix(entry)
    )


def pr_evidence(pr: PullRequest, fragments: frozenset[str], entries: tuple[Entry, ...] = ()) -> PrEvidence:
    fix = next(iter(pr_cues(pr, fragments, entries=entries)), None)
    if _says_no_fix(entries) and not fragments & FIX_KINDS and not linked_kinds(pr) & FIX_KINDS:
        fix = None
    whole = None
    kinds = _kinds(pr, fragments, entries)
    if fix is not None and not kinds - FIX_KINDS:
        whole = next(iter(pr_cues(pr, fragments, whole=True, entries=entries)), None)
    # A change that also says another kind (a deprecation beside the fix) leaves its entries' words to
    # the fix's own tests: a deprecation test shares "fixture" and "class" with the fix entry as well.
    fixed = fix_entries(entries)[:10] if not kinds - FIX_KINDS else ()
    fixes = tuple((e.text, frozenset(_words(_CAMEL.sub(" ", e.text)))) for e in fixed)
    # A commit of the PR that says it adds coverage ("testing: add some more tests") says some of its tests
    # are not the fix's: then none is taken for one by the PR's size alone.
    small = whole is not None and not any(_ADDS_OTHER_TESTS.search(s) for s in _subjects(pr)[1:])
    return PrEvidence(
        validates=any(_VALIDATES.search(t) for t in _titles(pr)),
        small=small,
        adds_tests=adds_regression_tests(pr),
        coverage=adds_other_tests(pr),
        fix=fix,
        whole=whole,
        words=_said_words(pr, titles_only=False).union(*(w for _, w in fixes)),
        title_words=_said_words(pr, titles_only=True),
        fixes=fixes,
        others=tuple(frozenset(_words(_CAMEL.sub(" ", e.text))) for e in entries if e.kind == OTHER)[:10],
        fixed_words=frozenset().union(*(_words(_CAMEL.sub(" ", e.text)) for e in fix_entries(entries)[:10])),
    )


# A PR that validates input, and its tests of that validation ("test_get_host_invalid"): checks a rule
# added, which a fix made beside it in the same PR does not make regression tests.
_VALIDATES = re.compile(r"\bvalidat\w*", re.IGNORECASE)
_VALIDATION_TEST = re.compile(r"(?:^|_)(?:in)?valid\w*|validat|(?:^|_)rejects?(?:_|$)", re.IGNORECASE)


def belongs_to_other_entry(test: TestFunction, said: PrEvidence) -> bool:
    """Whether the test's name shares a word with a changelog entry of another kind (Added, Changed...)
    and none with a fix entry or the PR title: in a PR that fixes one thing and adds another, a
    `test_wrap` beside an "Added `Content.wrap`" entry tests the addition."""
    if not said.others:
        return False
    words = name_words(test)
    if words & said.title_words or words & said.fixed_words:
        return False
    return any(words & other for other in said.others)


def validation_test(name: str) -> bool:
    """Whether a test's name says it checks validation (`test_x_invalid`, `test_validates_y`)."""
    return _VALIDATION_TEST.search(name) is not None


def _module_names(path: str) -> set[str]:
    """Dotted names a module may be imported by: `src/pkg/mod.py` -> pkg.mod, mod, src.pkg.mod..."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts))}


def _imports(text: str) -> set[str]:
    out: set[str] = set()
    for m in _IMPORT.finditer(text):
        if m.group(1):
            base = m.group(1).lstrip(".")
            out.add(base)
            names = m.group(2).replace("(", " ").replace(")", " ")
            out |= {f"{base}.{n.split()[0]}" for n in names.split(",") if n.split()}
        else:
            out |= {n.split()[0] for n in m.group(3).split(",") if n.split()}
    return {name for name in out if name}


def changed_module(tf: TestFile, changed: Iterable[str]) -> str | None:
    """A changed non-test module that the test file imports or is named after, if any."""
    imported = _imports(tf.text)
    stem = PurePosixPath(tf.path).stem.removeprefix("test_").removesuffix("_test")
    for path in changed:
        if PurePosixPath(path).suffix.lower() in _PROSE_SUFFIXES:
            continue  # `docs/preconf.md` is the page about the module, not the module
        if PurePosixPath(path).stem == stem or _module_names(path) & imported:
            return path
    return None


_PROSE_SUFFIXES = frozenset((".md", ".rst", ".txt", ".adoc", ".html", ".htm"))
