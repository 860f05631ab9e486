r"""Every text matcher that reads PR-controlled text, fed hostile shapes: the slowest input per matcher.

A matcher is one entry point a hostile PR author or commenter reaches with text they choose: the AGENTS.md
and CLAUDE.md readers (both sides), the PR title, body, labels, branch and commit messages (through the
review, and through the evidence and claim readers directly), test files, profile files, comment bodies,
artifact fields, the diff reader and the sanitiser. A shape is a way of filling n characters that makes
backtracking patterns and naive splitting loops do quadratic work: one word repeated, one separator
repeated, one long token, each behind a few prefixes that the patterns look for; and a lead (a word a
pattern keys on: "PR", "issue", "max_steps", `|--`) followed by one long run of a separator and a letter
that ends the match, which is where two quantifiers in a row over the same characters (`\s*[#-]?\s*`)
split the run every way.

    PYTHONPATH=. python3 benchmarks/hostile_text.py [--size 1048576] [--budget 30] [--only NAME] [--prefixes]

For each matcher it prints the slowest shape at the given size and its time. A shape over the budget (in
seconds) at a quarter of the size is not run at full size: it is printed as "over budget", which is a failure.
tests/test_linear_text.py runs the same matchers on the same shapes at two sizes and checks the ratio.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import bot
import rules
from bot.git.diff import DiffError, parse_diff
from bot.git.local import pr_number_of
from bot.github.artifact import ArtifactError, load_artifact
from bot.github.commands import parse_commands
from bot.review.engine import review
from bot.verify import junit
from rules.agents_md import reader as agents
from rules.catalog import REGISTRY
from rules.core import sanitize
from rules.core.closing_refs import closing_issues
from rules.core.models import ChangeSet, FileChange, FileStatus, LinkedIssue, PullRequest
from rules.core.verification import missing_name
from rules.testcode.changelog import Entry, added_entries, reno_entries, section_kind
from rules.testcode.regression_evidence import _IMPORT, pr_evidence, validation_test
from rules.training.claims import claims
from rules.training.profiles import ProfileError, parse_profiles
from rules.training.trainers import launch, verl
from rules.training.trainers.facts import transformers_from

BASE, HEAD = "b" * 40, "c" * 40
RULE_AGENTS = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
# The same rule where issues count as references (AGT001 then looks for issue URLs in docstrings too).
ISSUE_AGENTS = "# Rules\n\n- Regression tests must name the issue or PR they guard in the docstring.\n"
# The config's regression modes in which AGT001 reads the PR's words for a fix, or a test's marks.
FIX_PRS = "rules:\n  AGT001:\n    options:\n      regression: fix-prs\n"
MARKED = "rules:\n  AGT001:\n    options:\n      regression: marked\n"
TEST = "def test_ok():\n    # used to crash\n    assert compute() == 3\n"
# A profile the PR changes, so that TRN005 reads the description's step claims.
PROFILE = "target_examples = 300\nbatch_size = 8\n"

# Units a hostile text repeats: words the policy patterns look for, separators they split on, and the
# characters of one long token.
WORDS = (
    "test ",
    "Regression test ",
    "tests ",
    "not ",
    "must ",
    "no ",
    "and ",
    "or ",
    "fix ",
    "issue #1 ",
    "PR 12 ",  # a reference in words: the hash and hex forms do not find it first
    "AGENTS.md ",
    "e.g. ",
    "under ",
    "in the ",
    "except ",
    "`a/` ",
    "`a` and ",
    "a, and ",
    "max_steps = 1 ",
    "1 -> ",
    "https://x/issues/1 ",
    "@bot ",
    "bot: ignore ",
    "from a import ",
    "transformers[",
    'name = "transformers"\n',
)
SEPARATORS = (
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\u2028",
    "/",
    "a/",
    "a.",
    ".",
    ". ",
    ",",
    ", ",
    ";",
    ": ",
    "-",
    "- ",
    " -- ",
    "(",
    ")",
    "[",
    "`",
    "` ",
    "*",
    "_",
    "__",
    ">",
    "> ",
    "#",
    "# ",
    "@",
    "|",
    "<!--",
    "'",
    '"',
    "\\",
    "://",
    "http://",
    "www",
    "<",
    "1.",
    "\u202e",
)
TOKENS = ("a", "A", "1", "aA", "é")
PREFIXES = ("", "Regression ", "- ", "@bot waive AGT001 ", "`", "# ")
# Words patterns key on, each followed by one long run (RUNS) and a letter: "PR" and spaces, then "x".
LEADS = (
    "PR",
    "pull request",
    "issue",
    "Fix typo issue",
    "fixes",
    "commit",
    "max_steps",
    "max_steps = 38",
    "|--",
    "| -- |",
    "| max_steps |",
    "`a/`",
    "Previously",
    "@bot",
    "# bot: ignore",
    "Regression tests",
    "import",
    "transformers",
    'name = "transformers"',
    # Comment blocks: an HTML block left open, a paragraph line before a setext underline or a table row.
    "<script>\n",
    "<?",
    "<![CDATA[",
    "a\n",
    "a|b\n",
)
RUNS = (" ", "\t", "\n", "-", "#", "`", ",")


def shapes(size: int, prefixes: tuple[str, ...] = PREFIXES) -> dict[str, str]:
    """Every hostile shape of about size characters, by name."""
    out: dict[str, str] = {}
    for prefix in prefixes:
        for unit in WORDS + SEPARATORS + TOKENS:
            body = unit * max(1, (size - len(prefix)) // len(unit))
            out[f"{prefix!r}+{unit!r}*"] = prefix + body
    return out


def lead_shapes(size: int) -> dict[str, str]:
    """Every lead, then one run of about size characters, then a letter, by name."""
    out: dict[str, str] = {}
    for lead in LEADS:
        for run in RUNS:
            out[f"{lead!r}+{run!r}*+'x'"] = lead + run * max(1, size - len(lead) - 1) + "x"
    return out


class _Reader:
    """Files of a change set from two dicts: base and head text."""

    def __init__(self, base: dict[str, str], head: dict[str, str]) -> None:
        self.sides = {BASE: base, HEAD: head}

    def read(self, rev: str, path: str) -> bytes | None:
        text = self.sides[rev].get(path)
        return None if text is None else text.encode("utf-8", "surrogatepass")

    def list_paths(self, rev: str) -> tuple[str, ...]:
        return tuple(sorted(self.sides[rev]))


def _review(base: dict[str, str], head: dict[str, str], pr: PullRequest | None = None) -> Any:
    files = []
    for path in sorted(set(base) | set(head)):
        status = FileStatus.ADDED if path not in base else FileStatus.MODIFIED
        if base.get(path) == head.get(path):
            continue
        lines = head.get(path, "").count("\n") + 1
        files.append({"path": path, "status": status, "hunks": [_all_added(lines)]})
    changeset = ChangeSet(
        base_sha=BASE,
        head_sha=HEAD,
        files=tuple(FileChange.model_validate(f) for f in files),
        pr=pr or PullRequest(number=7, title="Add a test", body="Adds a test."),
        reader=_Reader(base, head),
    )
    return review(changeset)


def _all_added(lines: int) -> dict[str, Any]:
    return {
        "old_start": 0,
        "old_length": 0,
        "new_start": 1,
        "new_length": lines,
        "added": tuple(range(1, lines + 1)),
    }


_RECOGNISER = agents.Recogniser.of(REGISTRY.values())


def _agents_reader(text: str) -> Any:
    readings = agents.read_file("AGENTS.md", text, _RECOGNISER)
    # The same text as an item under a heading that forbids weakening tests, read in that section's light.
    section = agents.read_file("AGENTS.md", "# Never weaken tests\n\n- " + text, _RECOGNISER)
    return [agents.folders(r.text) for r in readings + section]


def _artifact(text: str) -> Any:
    # The text in a field whose name and value both come from the artifact, and in a finding's message.
    doc = {"schema_version": 1, text[:64]: text, "findings": [{"message": text}]}
    try:
        return load_artifact(json.dumps(doc).encode())
    except ArtifactError as exc:
        return str(exc)


def _profile(text: str) -> Any:
    try:
        return parse_profiles(
            "p.profile.yaml", f"target_examples: 300\nbatch_size: 8\nname: {json.dumps(text)}\n"
        )
    except ProfileError as exc:
        return str(exc)


def _diff(text: str) -> Any:
    patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1,1 @@\n+" + text.replace("\n", "\n+") + "\n"
    try:
        return parse_diff(patch)
    except DiffError as exc:
        return str(exc)


def _sanitiser(text: str) -> Any:
    return sanitize.text(text), sanitize.code(text), sanitize.message(text), sanitize.one_line(text)


# Each matcher: name -> what it does with one hostile text.
def _verify_output(t: str) -> None:
    """A pull request's test output as `bot check --verify-tests` reads it from the JUnit report: a failure's
    message and its `E   ...` lines, and a test case's name."""
    for line in (t, "E   " + t, "E   AttributeError: " + t):
        missing_name(line)
        junit._exception_line(line)
    junit.address(t)


MATCHERS: dict[str, Callable[[str], Any]] = {
    "agents-reader": _agents_reader,
    "agents-base-review": lambda t: _review({"AGENTS.md": t}, {"AGENTS.md": t, "tests/test_ok.py": TEST}),
    "agents-head-review": lambda t: _review({"AGENTS.md": RULE_AGENTS}, {"AGENTS.md": t}),
    "claude-deferral": lambda t: agents._deferral("CLAUDE.md", t, {"AGENTS.md"}),
    "claude-review": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS, "CLAUDE.md": t}, {"AGENTS.md": RULE_AGENTS, "CLAUDE.md": t + "x"}
    ),
    "pr-title-body": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS},
        {"AGENTS.md": RULE_AGENTS, "tests/test_ok.py": TEST},
        PullRequest(number=7, title=t[:1000], body=t, head_ref=t[:200]),
    ),
    "pr-commits-labels": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS},
        {"AGENTS.md": RULE_AGENTS, "tests/test_ok.py": TEST},
        PullRequest(number=7, labels=(t[:100],), commits=(t, "Merge pull request #1 from a/b\n\n" + t)),
    ),
    "pr-fix-prs-mode": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS, ".github/bot.yml": FIX_PRS},
        {"AGENTS.md": RULE_AGENTS, ".github/bot.yml": FIX_PRS, "tests/test_ok.py": TEST},
        PullRequest(number=7, title=t[:1000], body=t, labels=(t[:100],), commits=(t,)),
    ),
    "test-file-marked-mode": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS, ".github/bot.yml": MARKED},
        {
            "AGENTS.md": RULE_AGENTS,
            ".github/bot.yml": MARKED,
            "tests/test_x.py": 'def test_x():\n    """' + t.replace('"', "'") + '"""\n',
        },
    ),
    # TRN005 reads the description only when the PR changes a profile.
    "pr-body-profile": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS},
        {"AGENTS.md": RULE_AGENTS, "compat_profiles/p.toml": PROFILE},
        PullRequest(number=7, title="Change the profile", body=t),
    ),
    # The readers of PR text on their own, so that no earlier gate of the review hides them.
    "pr-evidence": lambda t: pr_evidence(
        PullRequest(title=t[:1000], body=t, head_ref=t[:200], labels=(t[:100],), commits=(t,)), frozenset()
    ),
    # On GitHub: the issues the description closes, then what their labels and type say (GitHub caps a
    # label's name at 50 characters; the type's name is the repository's own, short too).
    "pr-linked-issues": lambda t: (
        closing_issues(t, "octo/repo", own=7),
        pr_evidence(
            PullRequest(
                title="Change",
                body=t,
                linked_issues=(LinkedIssue(number=12, labels=(t[:100],), type=t[:100]),),
            ),
            frozenset(),
        ),
    ),
    # A changelog the PR changes: its entries with their sections, then what they say of a fix.
    "changelog-entries": lambda t: added_entries(t, range(1, t.count("\n") + 2), t.splitlines()[:20]),
    # A reno note: the shape under a section, so that its items are read.
    "reno-entries": lambda t: reno_entries("fixes:\n" + t),
    "changelog-evidence": lambda t: (
        section_kind(t),
        pr_evidence(
            PullRequest(title=t[:1000], commits=(t[:1000],)),
            frozenset(),
            (Entry(t[:500], t[:80], ""), Entry(t[:500], t[:80], "other")),
        ),
        pr_evidence(PullRequest(title=f"fix({t[:40]}): {t[:1000]}"), frozenset()),
    ),
    # The PR number local mode takes from a squash or merge commit's subject.
    "commit-subject-number": pr_number_of,
    # A test's name read as one of a validation PR's validation tests.
    "test-name-validation": validation_test,
    "pr-claims": claims,
    "test-file-comment": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS},
        {"AGENTS.md": RULE_AGENTS, "tests/test_x.py": "def test_x():\n    # " + t.replace("\n", " ") + "\n"},
    ),
    "test-file-docstring": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS},
        {
            "AGENTS.md": RULE_AGENTS,
            "tests/test_x.py": 'def test_x():\n    """' + t.replace('"', "'") + '"""\n',
        },
    ),
    "test-file-docstring-issues": lambda t: _review(
        {"AGENTS.md": ISSUE_AGENTS},
        {
            "AGENTS.md": ISSUE_AGENTS,
            "tests/test_x.py": 'def test_x():\n    """' + t.replace('"', "'") + '"""\n',
        },
    ),
    "test-file-raw": lambda t: _review(
        {"AGENTS.md": RULE_AGENTS}, {"AGENTS.md": RULE_AGENTS, "tests/test_x.py": t}
    ),
    # A test file's import lines, read where AGT001 compares a test's words with the modules it imports.
    "test-file-imports": lambda t: list(_IMPORT.finditer(t)),
    "profile-file": _profile,
    "transformers-pins": lambda t: transformers_from({"requirements.txt": t, "uv.lock": t}),
    # A launch script (verl's overrides, OpenRLHF's flags), and a verl YAML value naming another key.
    "launch-script": launch.parse,
    "verl-yaml-reference": lambda t: verl.settings(
        {"data": {"train_batch_size": t}, "actor_rollout_ref": {"a": t}}
    ),
    "comment-commands": lambda t: parse_commands(t, "bot"),
    "artifact": _artifact,
    "diff-reader": _diff,
    "sanitiser": _sanitiser,
    "verify-output": _verify_output,
}


# Module-level patterns (in rules/ and bot/) that no PR-controlled text reaches, and why.
NOT_PR_TEXT = {
    "bot.cli.explain._ABOUT_RULES": "the question given to `bot explain` on the command line",
    "bot.git.local._SHA": "git's own output",
    "rules.core.formats._TOML_AT": "tomllib's own error message: a fixed phrase and a position",
    "bot.github.actions._OUTPUT_NAME": "the names of the outputs the bot sets",
    "bot.github.pull._WHOLE": "the hunk header GitHub writes on a file's patch",
}
# Patterns PR-controlled text reaches that the matchers above do not run, and why their work is bounded
# all the same. Anything not listed in either dict must be reached by a matcher (`--coverage` checks).
NOT_RUN_HERE = {
    "bot.git.diff._ADDED_RUN": "one quantifier over one character (`\\++`): each run is taken once",
    "bot.git.diff._REMOVED_RUN": "one quantifier over one character (`-+`): each run is taken once",
    "bot.github.actions._BREAK": "no quantifier beyond `\\n?`",
    "rules.core.lines._LONE_CR": "no quantifier: one lookahead of one character",
    "bot.review.sarif._DIGITS": "one quantifier over one character class (`[0-9]+`): each run is taken once",
    "bot.git.fixing._LONE_LF": "no quantifier: one lookbehind of one character",
    "bot.github.blocks._COMMENT": (
        "matched only where cmark-gfm's HTML has `<!--`, lazily to the first `-->`; an unclosed comment "
        "ends the reading, so each character is scanned at most once more"
    ),
    "rules.testcode.assertions._GUARD_WORDS": "no quantifier",
    "bot.github.artifact._CODE": "anchored, every quantifier bounded",
    "bot.github.artifact._REPOSITORY": "anchored, every quantifier bounded",
    "bot.github.artifact._SHA": "anchored, fixed length",
    "rules.testcode.waivers._CODE": "anchored, every quantifier bounded",
    "bot.github.publish._STATE": "one quantifier, after a literal only the bot's own comments start with",
    "bot.github.suggest._MARK": "one quantifier, after a literal only the bot's own suggestions start with",
    "bot.github.queue._QUEUED": "fullmatch on the last segment of a queue's branch, quantifiers bounded",
    "bot.review.render._TOP": (
        "anchored at the start of the bot's own status comment; each quantifier stays within one line, and "
        "a line's run is followed by a literal it cannot hold, so each line is scanned a bounded number of "
        "times"
    ),
    "rules.core.sanitize._SAFE_URL": (
        "fullmatch on at most 500 characters (checked before); each character class excludes what follows it"
    ),
    "bot.review.sarif._SOURCE": "anchored; the one quantifier before `:` backtracks once over the source",
    "rules.testcode.regression_evidence._CLOSING": "`\\bfix` then a bounded run then one digit run",
    "rules.testcode.regression_reference._DEF": "anchored; `def` then one identifier, on one removed line",
    "rules.testcode.regression_reference._BODY_OPENER": (
        "matched at the start of one line of the old file; a keyword then one run of blanks"
    ),
    "rules.testcode.rewritten_expectation._EXPECTED_NAME": "anchored, on one identifier",
    # The recogniser reads only rule sentences of at most MAX_RULE_SENTENCE characters.
    "rules.agents_md.reader._LISTED": "on the text between two folders of one rule sentence",
    "rules.agents_md.reader._SWITCH_OFF": "on one clause of a rule sentence",
    "rules.agents_md.reader._SWITCH_ON": "on one clause of a rule sentence",
    "rules.agents_md.reader._VERDICT": "on one clause of a rule sentence",
    "bot.cli.explain._LINK": "on one sentence as a Reading keeps it: at most MAX_SENTENCE (300) characters",
    "bot.cli.explain._EMPHASIS": "on one sentence as a Reading keeps it, or one note: a few hundred chars",
    "rules.agents_md.reader._GENERIC_RELAXED": "fullmatch on one relaxation a clause matched",
    "rules.agents_md.reader._MAY_SKIP": "anchored match on one relaxation a clause matched",
    "rules.agents_md.trunk._TARGET": "on one rule sentence",
    "rules.agents_md.trunk._TRUNK_NAMES": "on one rule sentence",
    "rules.training.trainers.launch._OPTION": "anchored, no quantifier: the first two characters of a word",
}


def module_patterns() -> dict[int, tuple[re.Pattern[str], str]]:
    """Every compiled pattern a module of rules/ or bot/ holds (alone, or in a tuple, list or dict), by id."""
    out: dict[int, tuple[re.Pattern[str], str]] = {}
    for package in (rules, bot):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue  # runs the command line on import
            for name, value in vars(importlib.import_module(info.name)).items():
                for item in _held(value):
                    out.setdefault(id(item), (item, f"{info.name}.{name}"))
    return out


def _held(value: Any) -> Iterable[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, (tuple, list, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            if isinstance(item, re.Pattern):
                yield item
            elif isinstance(item, tuple):
                yield from (x for x in item if isinstance(x, re.Pattern))


def unreached(texts: Iterable[str]) -> list[str]:
    """The module patterns (by name) that no matcher uses on these texts and no dict above lists."""
    used: set[int] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and isinstance(getattr(arg, "__self__", None), re.Pattern):
            used.add(id(arg.__self__))

    patterns = module_patterns()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        for text in texts:
            for matcher in MATCHERS.values():
                matcher(text)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    names = {name for i, (_, name) in patterns.items() if i not in used}
    return sorted(names - set(NOT_PR_TEXT) - set(NOT_RUN_HERE))


def coverage_texts(size: int = 40) -> list[str]:
    """Short texts of every shape: enough to open each matcher's gates."""
    return [*lead_shapes(size).values(), *shapes(size, PREFIXES[:1]).values()]


def timed(matcher: Callable[[str], Any], text: str) -> float:
    start = time.perf_counter()
    matcher(text)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024 * 1024)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument(
        "--prefixes", action="store_true", help="each shape behind every prefix, not bare only"
    )
    parser.add_argument(
        "--coverage", action="store_true", help="list the patterns of rules/ and bot/ no matcher reaches"
    )
    args = parser.parse_args(argv)
    if args.coverage:
        missing = unreached(coverage_texts())
        print("\n".join(missing) or "every pattern PR text reaches is run by a matcher")
        return 1 if missing else 0
    prefixes = PREFIXES if args.prefixes else PREFIXES[:1]
    quarter = shapes(args.size // 4, prefixes) | lead_shapes(args.size // 4)
    full = shapes(args.size, prefixes) | lead_shapes(args.size)
    failed = False
    print(f"{'matcher':22} {'slowest shape at ' + str(args.size) + ' chars':48} {'seconds':>8}")
    for name, matcher in MATCHERS.items():
        if args.only and name not in args.only:
            continue
        worst, worst_time, over = "", 0.0, []
        for shape, text in full.items():
            if timed(matcher, quarter[shape]) > args.budget / 4:
                over.append(shape)
                continue
            took = timed(matcher, text)
            if took > worst_time:
                worst, worst_time = shape, took
        print(f"{name:22} {worst:48} {worst_time:8.2f}", flush=True)
        for shape in over:
            failed = True
            print(f"{'':22} over budget at {args.size // 4} chars: {shape}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
