"""AGENTS.md discovery at the base revision, and the sentences in it that turn rules on or off.

Every AGENTS.md governs its own folder and everything below it; the nearest one wins. Another agent guide
(CLAUDE.md, .claude/CLAUDE.md, GEMINI.md, .github/copilot-instructions.md: `agent_guides` in the config)
that mentions AGENTS.md defers to it: its own sentences count too, and an AGENTS.md it points to elsewhere
governs the guide's folder. A guide that does not mention AGENTS.md is the policy of its folder where no
AGENTS.md governs that folder (a repository whose only guide is CLAUDE.md), and is ignored where one does:
the AGENTS.md is the shared policy there. The PR's own edits of these files are reported, never applied:
they take effect after merge.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rules.agents_md import families
from rules.agents_md.linear import Gated
from rules.core.base import Rule, Statement, in_scope
from rules.core.lines import git_lines
from rules.core.models import ChangeSet, FileStatus, PolicyChange, UnreadableFile
from rules.core.policy_files import AGENT_GUIDES, POLICY_NAME, guide_folder, is_policy_path

MAX_SENTENCE = 300
# Real rule sentences are a few hundred characters (the longest in the labelled corpus: 414). A longer one
# is not read as a rule but reported: matching it would cost time an attacker chooses, for nothing.
MAX_RULE_SENTENCE = 1000
# Real policy files hold a few hundred sentences; reading stops after this many (and the report says so), so
# the time a file of "A. A. A. ..." costs has a ceiling.
MAX_SENTENCES = 5000
# An abbreviation before a full stop ("e.g.", "approx.") is at most this long.
_LONGEST_ABBREVIATION = 8

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_TABLE_RULE = re.compile(r"^\s*(?:\|\s*)?:?-{3,}")
_ABBREVIATIONS = {"e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "approx", "no", "incl"}
# A clause that relaxes a rule for its scope instead of asking for it ("... need not name a PR").
_RELAXED = re.compile(
    r"\b(?:need\s+not|needn't|(?:do|does|did)(?:\s+not|n't)\s+(?:need|have)\s+to|"
    r"(?:do|does|did)(?:\s+not|n't)\s+(?:require|insist|enforce)|no\s+need\s+to|"
    r"not\s+(?:required|needed|necessary|enforced)|(?:is|are)\s+optional|exempt(?:ed)?|"
    r"(?:do|does)(?:\s+not|n't)\s+apply|(?:is|are)\s+(?:allowed|permitted|fine|ok(?:ay)?)|"
    r"(?:is|are)\s+(?:acceptable|tolerated)|not\s+a\s+problem|(?:do|does)(?:\s+not|n't)\s+mind|"
    r"(?:may|can)\s+(?:omit|skip|ignore))\b",
    re.IGNORECASE,
)
# Relaxations that say nothing of what they relax: "does not apply", "exempt", "may skip". They relax a rule
# only where its subject is theirs: before them ("Tautological tests are exempt in `legacy/`"), or for "may
# skip", after ("You may skip updating tests for docs"); never "If a row does not apply (... no tests),
# write N/A", whose subject is the row.
_GENERIC_RELAXED = re.compile(
    r"exempt(?:ed)?|(?:do|does)(?:\s+not|n't)\s+apply|(?:may|can)\s+(?:omit|skip|ignore)", re.IGNORECASE
)
_MAY_SKIP = re.compile(r"(?:may|can)\s", re.IGNORECASE)
# A word that negates the verb of a convention ("do not name", "never cite", "no need to reference").
NEGATION = re.compile(r"(?:\b(?:not|never|no|neither|nor|without)\b|n't\b)", re.IGNORECASE)
# After a negated verb, a verdict that makes the sentence a requirement again ("... that do not name a PR
# are rejected").
_VERDICT = re.compile(
    r"\b(?:(?:are|is|will\s+be|get|gets)\s+(?:rejected|refused|blocked|reverted|sent\s+back)|"
    r"(?:are|is|will\s+be)\s+not\s+(?:accepted|merged)|(?:won't|will\s+not)\s+be\s+(?:accepted|merged)|"
    r"fail\s+review)\b",
    re.IGNORECASE,
)
# Where a sentence splits into clauses that each say their own thing.
# A run of spaces is entered at its first space only: from every space of it, a long run is rescanned.
_CLAUSE = re.compile(
    r";\s+|:\s+|,?(?<!\s)\s+(?:but|whereas|while|although|though)\s+|(?<!\s)\s+(?:--?|\u2013|\u2014)\s+"
)
# A heading that states a rule ("No tautological tests") rather than naming a topic ("Tautological tests").
_DIRECTIVE = re.compile(
    r"(?:\b(?:no|not|never|must|should|shall|always|avoid|only|required?|forbidden|use|keep|make)\b|n't\b)",
    re.IGNORECASE,
)
# A heading over a list of things not to do: each item is read as a prohibition.
_DONT_HEADING = re.compile(
    r"^\W*(?:don't|do\s+not|never|avoid|anti-?patterns?|forbidden|prohibited|not\s+allowed|what\s+not\s+to\s+do"
    r"|things\s+to\s+avoid|must\s+not|must\s+never|mustn't|should\s+not|shouldn't)\b",
    re.IGNORECASE,
)


def under_prohibition(heading: str | None) -> bool:
    """Whether a heading stands over a list of things not to do ("Don't", "Anti-patterns")."""
    return bool(heading) and bool(_DONT_HEADING.search(normalise(heading or "")))


# A checklist's yes/no question asks for what it names ("Do all tests pass without weakening assertions?");
# other questions ("What if the tests fail?", "Could we add a test?") state no rule.
_CHECKLIST_QUESTION = re.compile(
    r"^\W*(?:do|does|did|are|is|have|has|was|were)\s+(?:all|every|each|the|any)\b", re.IGNORECASE
)

# A run of spaces is entered at its first space only (as in _CLAUSE): from every space, a run is rescanned.
_NEGATION_SCOPE = re.compile(r"[,;:(]|(?<!\s)\s+but\s+")


def negated(text: str, at: int) -> bool:
    """Whether a negation stands between the last comma (or clause start) before `at` and `at`."""
    return bool(NEGATION.search(_NEGATION_SCOPE.split(text[:at])[-1]))


_SWITCH_OFF = re.compile(r"\b(?:off|disabled?|ignored?|skip(?:ped)?|turned\s+off)\b", re.IGNORECASE)
_SWITCH_ON = re.compile(r"\b(?:on|enabled?|appl(?:y|ies)|enforced?|required|in\s+force)\b", re.IGNORECASE)
# The path starts where no path character precedes it: without that, "a/a/a/..." is rescanned from every
# segment (quadratic in the run).
_DEFERS_TO = re.compile(r"(?<![\w./-])(?:[\w.-]+/)*AGENTS\.md|AGENTS\.md")
_NEXT_WORD = re.compile(r"\S")
_ABBREVIATION_TAIL = re.compile(r"[\w.]*$")


@dataclass(frozen=True)
class Reading:
    """One sentence of a policy file and the rules it turns on or off."""

    line: int
    text: str
    on: tuple[str, ...] = ()
    off: tuple[str, ...] = ()
    heading: bool = False
    # For each rule turned on, the clause (its index in `clauses(text)`) that asks for it.
    asked_in: tuple[tuple[str, int], ...] = ()
    # Conventions understood that no rule checks yet (families.KNOWN), e.g. "fail-without-fix".
    known: tuple[str, ...] = ()
    # The sentence is over MAX_RULE_SENTENCE characters: reported, not read.
    too_long: bool = False
    # Reading stopped before this sentence: the file holds more than MAX_SENTENCES.
    cut: bool = False

    @property
    def understood(self) -> bool:
        return bool(self.on or self.off or self.known)

    def folders_of(self, code: str) -> Folders:
        """The folders the sentence asks for a rule in and leaves out: a folder counts where the clause
        asking for the rule names it ("Unit tests under `tests/unit` must ..."), an exception anywhere."""
        whole = folders(self.text)
        parts = clauses(self.text)
        at = dict(self.asked_in).get(code)
        if at is None or at >= len(parts):
            return whole
        return Folders(whole.named, folders(parts[at]).inside, whole.outside)


@dataclass(frozen=True)
class PolicyFile:
    """One AGENTS.md or other agent guide at a revision, read sentence by sentence."""

    path: str
    scope: str
    readings: tuple[Reading, ...] = ()
    defers_to: str | None = None  # for another agent guide: the AGENTS.md it points to
    error: str | None = None  # why the file could not be read


@dataclass(frozen=True)
class Conflict:
    """A sentence that relaxes a rule in the scope where another asks for it: the request is kept."""

    code: str
    kept: Statement  # the sentence that asks for the rule
    dropped: Statement  # the one that relaxes it, which does not count


@dataclass(frozen=True)
class Policy:
    """The trusted policy of a review: files read at base and the statements they make, by rule code."""

    files: tuple[PolicyFile, ...] = ()
    statements: dict[str, tuple[Statement, ...]] = field(default_factory=dict)
    changes: tuple[PolicyChange, ...] = ()
    conflicts: tuple[Conflict, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files if f.error is None)

    def notes(self) -> tuple[str, ...]:
        """What the report says about the policy itself."""
        out = [
            f"`{f.path}` could not be read, so its rules are not applied: {f.error}"
            for f in self.files
            if f.error
        ]
        out += [
            f"`{f.path}` line {r.line}: a sentence of more than {MAX_RULE_SENTENCE:,} characters is not read "
            "as a rule."
            for f in self.files
            for r in f.readings
            if r.too_long
        ]
        out += [
            f"`{f.path}` has more than {MAX_SENTENCES:,} sentences: from line {r.line} on it is not read."
            for f in self.files
            for r in f.readings
            if r.cut
        ]
        if not self.paths:
            out.append(
                "No AGENTS.md at the base revision (nor another agent guide: CLAUDE.md, GEMINI.md, ...): "
                "rules that come from AGENTS.md are off unless `.github/bot.yml` enables them."
            )
        for c in self.conflicts:
            out.append(
                f"`{c.dropped.source}` relaxes {c.code} ({_quote(c.dropped.text)}), but "
                f"`{c.kept.source}` asks for it ({_quote(c.kept.text)}): the prohibition wins, "
                f"so {c.code} stays on{_where(c.kept)}."
            )
        for code, found in sorted(self.statements.items()):
            for st in found:
                if st.effect == "off":
                    out.append(f"`{st.source}` turns {code} off{_where(st)}: {_quote(st.text)}.")
        for change in self.changes:
            parts = []
            if change.added:
                parts.append("turns on " + ", ".join(change.added))
            if change.removed:
                parts.append("turns off " + ", ".join(change.removed))
            effect = "; ".join(parts) if parts else "changes no rule"
            out.append(
                f"This PR edits `{change.path}`; the review used the base version. "
                f"After merge the edit {effect}."
            )
        return tuple(dict.fromkeys(out))


def _quote(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026") + '"'


def _where(st: Statement) -> str:
    where = f" in `{st.scope}/`" if st.scope else " in the whole repository"
    if st.exclude:
        where += " except " + ", ".join(f"`{ex}/`" for ex in st.exclude)
    return where


def scope_of(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def _markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(git line, Markdown line) of a policy file. Markdown also ends a line at a lone `\\r`, git does not
    (the lines a finding names are git's, rules.core.lines); the other breaks of `str.splitlines` are
    ordinary characters to both."""
    for number, line in enumerate(git_lines(text), start=1):
        if "\r" in line:
            for part in line.split("\r"):
                yield number, part
        else:
            yield number, line


def _units(text: str) -> Iterator[tuple[list[tuple[int, str]], bool]]:
    """Markdown blocks (a bullet and its continuation, a paragraph, a heading, a table row)."""
    unit: list[tuple[int, str]] = []
    fenced = comment = False
    for number, raw in _markdown_lines(text):
        if not raw or raw.isspace():
            # A blank line ends a block (inside a fence, nothing); it opens or closes no fence or comment.
            # Taken first: a megabyte of blank lines is a million of them.
            if unit and not fenced:
                yield unit, False
                unit = []
            continue
        if _FENCE.match(raw):
            fenced = not fenced
            if unit:
                yield unit, False
                unit = []
            continue
        if fenced:
            continue
        line = raw
        if comment or "<!--" in line:
            # HTML comments are notes to the file's editors, not rules.
            before, _, rest = line.partition("<!--") if not comment else ("", "", line)
            comment = "-->" not in rest
            line = before + (rest.split("-->", 1)[1] if not comment else "")
        stripped = line.strip().lstrip(">").strip()
        if not stripped or _TABLE_RULE.match(stripped):
            if unit:
                yield unit, False
                unit = []
            continue
        if _HEADING.match(stripped):
            if unit:
                yield unit, False
                unit = []
            yield [(number, _HEADING.sub("", stripped).strip("# "))], True
            continue
        if stripped.startswith("|"):
            if unit:
                yield unit, False
                unit = []
            yield [(number, " ".join(c.strip() for c in stripped.strip("|").split("|")))], False
            continue
        if _BULLET.match(stripped) and unit:
            yield unit, False
            unit = []
        unit.append((number, _BULLET.sub("", stripped)))
    if unit:
        yield unit, False


def _split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of a block, not splitting inside code, parentheses or after abbreviations."""
    return list(_sentence_spans(text))


# What can open or close code or parentheses, or end a sentence (a stop before a space or the end): the
# other characters are stepped over at once, and a run of brackets is counted at once (a megabyte of
# "e.g. " or of ")" took 4 s a character at a time in Python).
_SENTENCE_MARK = re.compile(r"`|[(\[]+|[)\]]+|[.!?](?= |\Z)")


def _sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """_split_sentences one span at a time: a reader that stops at MAX_SENTENCES splits no further."""
    start, depth, code = 0, 0, False
    for mark in _SENTENCE_MARK.finditer(text):
        i, run = mark.start(), mark.group()
        if run == "`":
            code = not code
        elif code:
            continue
        elif run[0] in "([":
            depth += len(run)
        elif run[0] in ")]":
            depth = max(0, depth - len(run))
        elif depth == 0:
            nxt = _NEXT_WORD.search(text, i + 1)
            if nxt is not None and nxt.group().islower():
                continue  # "e.g. this", "approx. ten": the sentence goes on
            # Only a short tail can be an abbreviation; looking at more would rescan the sentence so far
            # at every full stop.
            lo = max(start, i - _LONGEST_ABBREVIATION - 1)
            word = _ABBREVIATION_TAIL.search(text, lo, i)
            whole = word is not None and (word.start() > lo or lo == start)
            if whole and word and word.group().lower() in _ABBREVIATIONS:
                continue
            yield start, i + 1
            start = i + 1
    if text[start:].strip():
        yield start, len(text)


def sentences(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line, sentence, is_heading) for every sentence of a markdown policy file."""
    for unit, heading in _units(text):
        joined, starts = "", []
        for number, piece in unit:
            starts.append((len(joined), number))
            joined += piece.strip() + " "
        joined = joined.rstrip()
        positions = [pos for pos, _ in starts]
        for a, b in _sentence_spans(joined):
            sentence = joined[a:b].strip()
            if not sentence:
                continue
            offset = a + (len(joined[a:b]) - len(joined[a:b].lstrip()))
            line = starts[bisect.bisect_right(positions, offset) - 1][1]
            # Runs of spaces say nothing, and patterns with `\s+` rescan a long run from each of its spaces.
            yield line, " ".join(sentence.split()), heading


def clauses(text: str) -> list[str]:
    """The clauses of a sentence that each say their own thing."""
    return _CLAUSE.split(text)


# A sentence that is all one quotation ("open a PR to master", as a guide lists what a user may say) quotes
# someone; it asks nothing of the reader.
_QUOTATION = re.compile(r'^\s*(?:"[^"]*"|\u201c[^\u201c\u201d]*\u201d)[\s.,;:]*$')


def normalise(sentence: str) -> str:
    # Emphasis and code marks do not change what a sentence asks for.
    return re.sub(r"[`*]|__", "", sentence).replace("\u2019", "'").replace("\u2018", "'")


@dataclass(frozen=True)
class Recogniser:
    """The compiled AGENTS.md patterns of a set of rules, and the phrasing families (families.py)."""

    rules: tuple[tuple[Rule, tuple[Gated, ...]], ...]
    names: re.Pattern[str] | None
    # A rule's code or name, lower-cased, -> its code: what `names` matches, resolved.
    codes: dict[str, str] = field(default_factory=dict)
    # Rule code -> the family phrasings that turn it on too (only for rules in `rules`).
    families: tuple[tuple[str, tuple[Gated, ...]], ...] = ()
    # Conventions no rule checks yet -> their phrasings: read as "known", turning nothing on.
    known: tuple[tuple[str, tuple[Gated, ...]], ...] = ()
    # A family's name (a rule code or a known convention) -> a word all its phrasings hold (families.GATES).
    gates: dict[str, re.Pattern[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> Recogniser:
        rules = list(rules)
        compiled = tuple((r, tuple(Gated.compile(p) for p in r.recognisers)) for r in rules)
        words = sorted({w for r in rules for w in (r.code, r.name)}, key=len, reverse=True)
        names = (
            re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE) if words else None
        )
        present = {r.code for r in rules}
        extra = tuple(
            (code, tuple(Gated.compile(p) for p in sources))
            for code, sources in families.TURNS_ON.items()
            if code in present
        )
        known = tuple(
            (name, tuple(Gated.compile(p) for p in sources)) for name, sources in families.KNOWN.items()
        )
        gates = {name: re.compile(word, re.IGNORECASE) for name, word in families.GATES.items()}
        codes = {w.lower(): r.code for r in rules for w in (r.code, r.name)}
        return cls(compiled, names, codes, extra, known, gates)

    def read(
        self,
        line: int,
        sentence: str,
        heading: bool = False,
        prohibited: bool = False,
        section: tuple[str, ...] = (),
    ) -> Reading:
        """Which rules one sentence turns on and off.

        A question states no rule (a checklist's "Do all tests ...?" does), nor does a heading that only
        names a topic. Under a "Don't" heading (prohibited) each item is read as if it began with "Don't".
        section: the rules the heading above turns on; under one that says not to weaken tests, an item
        naming a way of doing it ("Removing a test function", "Downgrading an assertion") states the same
        rule.
        """
        text = normalise(sentence)
        question = text.rstrip().endswith("?") and not _CHECKLIST_QUESTION.match(text)
        if _QUOTATION.match(text) or question or (heading and not _DIRECTIVE.search(text)):
            return Reading(line, sentence[:MAX_SENTENCE], heading=heading)
        if not heading and "AGT003" in section and families.WAYS_TO_WEAKEN.search(text):
            return Reading(line, sentence[:MAX_SENTENCE], ("AGT003",), (), heading, (("AGT003", 0),))
        if prohibited and not heading:
            text = "Don't " + text
        on: dict[str, int] = {}
        off: dict[str, None] = {}
        parts = clauses(text)
        for index, clause in enumerate(parts):
            relaxations = list(_RELAXED.finditer(clause))
            named = self._named(clause)
            for rule, patterns in self.rules:
                if rule.code in named:
                    # The rule named is the subject: any relaxation in the clause is about it.
                    explicit_off = relaxations or _SWITCH_OFF.search(clause)
                    if explicit_off:
                        off[rule.code] = None
                    elif _SWITCH_ON.search(clause):
                        on.setdefault(rule.code, index)
                    continue
                effect = self._effect(clause, patterns, relaxations)
                if effect == "on":
                    on.setdefault(rule.code, index)
                elif effect == "off":
                    off[rule.code] = None
        # The families are matched on the whole sentence ("Base branch: `main`" is one statement although a
        # colon splits clauses), each match in the clause it starts in; they only ever turn a rule on.
        starts = _clause_starts(text, parts)
        for code, patterns in self.families:
            if code in on or code in off or not self._gate(code, text):
                continue
            at = self._family_match(text, parts, starts, patterns)
            if at is not None:
                on[code] = at
        known = tuple(
            name
            for name, patterns in self.known
            if self._gate(name, text) and self._family_match(text, parts, starts, patterns) is not None
        )
        return Reading(
            line, sentence[:MAX_SENTENCE], tuple(on), tuple(off), heading, tuple(on.items()), known
        )

    def _gate(self, name: str, text: str) -> bool:
        gate = self.gates.get(name)
        return gate is None or gate.search(text) is not None

    @staticmethod
    def _family_match(
        text: str, parts: list[str], starts: list[int], patterns: tuple[Gated, ...]
    ) -> int | None:
        """The clause index where a family phrasing asks for its convention, or None.

        Not where that clause relaxes something ("... is fine"), nor where a negation undoes the verb the
        phrasing marks as `act` ("don't open PRs against main"), unless a verdict follows.
        """
        for pattern in patterns:
            match = pattern.search(text)
            if match is None:
                continue
            index = max(0, bisect.bisect_right(starts, match.start()) - 1)
            if _RELAXED.search(parts[index]):
                continue
            if "act" in pattern.groupindex and match.start("act") >= 0:
                if negated(text, match.start("act")) and not _VERDICT.search(text, match.end("act")):
                    continue
            return index
        return None

    @staticmethod
    def _effect(clause: str, patterns: tuple[Gated, ...], relaxations: list[re.Match[str]]) -> str | None:
        """ "on", "off" or None for one rule's patterns in one clause.

        A pattern with a group named `topic` only names what the rule is about ("tautological tests"):
        it counts where the clause relaxes the rule ("... are fine here"). A pattern may mark the verb of
        the convention with a group named `act`. A negation between the
        clause's last comma and that verb ("we do not require tests to name a PR", "don't cite PRs in
        docstrings") undoes the convention: the clause is then an opt-out if it relaxes the rule, a
        requirement if a verdict follows ("... that do not name a PR are rejected"), else nothing.
        A generic relaxation ("does not apply", "exempt", "may skip") relaxes the rule only where what the
        pattern matched is its subject (_relaxes).
        """
        found = None
        relaxed = False
        for pattern in patterns:
            match = pattern.search(clause)
            if match is None:
                continue
            relaxed = _relaxes(relaxations, match)
            if "topic" in pattern.groupindex:
                # Only names what the rule is about: it counts where the clause relaxes the rule.
                found = found or ("off" if relaxed else None)
                continue
            if "act" not in pattern.groupindex or match.start("act") < 0:
                found = "on"
                break
            if not negated(clause, match.start("act")):
                found = "on"
                break
            if _VERDICT.search(clause, match.end("act")):
                found = "on"
                break
            found = found or ("off" if relaxed else "negated")
        if found is None or found == "negated":
            return None
        return "off" if relaxed else found

    def _named(self, clause: str) -> set[str]:
        if self.names is None:
            return set()
        return {self.codes[m.group(1).lower()] for m in self.names.finditer(clause)}


def _relaxes(relaxations: list[re.Match[str]], match: re.Match[str]) -> bool:
    """Whether one of a clause's relaxations is about what a pattern matched there."""
    for relax in relaxations:
        if not _GENERIC_RELAXED.fullmatch(relax.group()):
            return True
        # "X is exempt", "X does not apply here": the subject stands before; "may skip X": after.
        if relax.start() >= match.end() or (_MAY_SKIP.match(relax.group()) and relax.end() <= match.start()):
            return True
    return False


def _clause_starts(text: str, parts: list[str]) -> list[int]:
    """Where each of `clauses(text)` starts in text."""
    starts, at = [], 0
    for part in parts:
        at = text.find(part, at) if part else at
        starts.append(max(at, 0))
        at += len(part)
    return starts


def read_file(path: str, text: str, recogniser: Recogniser) -> tuple[Reading, ...]:
    """Every sentence of one policy file with the rules it turns on and off."""
    out = []
    prohibited = False
    section: tuple[str, ...] = ()
    for count, (line, sentence, heading) in enumerate(sentences(text)):
        if count == MAX_SENTENCES:
            out.append(Reading(line, "", cut=True))
            break
        if len(sentence) > MAX_RULE_SENTENCE:
            out.append(Reading(line, sentence[:MAX_SENTENCE], heading=heading, too_long=True))
            continue
        if heading:
            prohibited = under_prohibition(sentence)
            reading = recogniser.read(line, sentence, heading, prohibited)
            section = reading.on
        else:
            reading = recogniser.read(line, sentence, heading, prohibited, section)
        out.append(reading)
    return tuple(out)


def _deferral(path: str, text: str, existing: set[str], guides: tuple[str, ...] = AGENT_GUIDES) -> str | None:
    """The AGENTS.md an agent guide defers to, or None when it does not mention one."""
    mentions = _DEFERS_TO.findall(text)
    if not mentions:
        return None
    folder = guide_folder(path, guides)
    folder = scope_of(path) if folder is None else folder
    for mention in mentions:
        target = (
            posixpath.normpath(posixpath.join(folder, mention))
            if not mention.startswith("/")
            else mention[1:]
        )
        if target in existing:
            return target
    # "See AGENTS.md" with no usable path: the nearest AGENTS.md at or above the CLAUDE.md.
    parts = folder.split("/") if folder else []
    for depth in range(len(parts), -1, -1):
        candidate = "/".join([*parts[:depth], POLICY_NAME])
        if candidate in existing:
            return candidate
    return ""


def _read(
    text_of,
    paths: Iterable[str],
    recogniser: Recogniser,
    guides: tuple[str, ...] = AGENT_GUIDES,
    agents: Iterable[str] | None = None,
) -> tuple[PolicyFile, ...]:
    """Policy files among paths, root first, each read with text_of(path) (which may raise UnreadableFile).

    `agents`: the AGENTS.md files of the revision, when `paths` is not its whole listing (a PR's edit).
    """
    candidates = sorted((p for p in paths if is_policy_path(p, guides)), key=lambda p: (p.count("/"), p))
    every = candidates if agents is None else [*agents, *candidates]
    existing = {p for p in every if PurePosixPath(p).name == POLICY_NAME}
    governed = {scope_of(p) for p in existing}
    out = []
    for path in candidates:
        is_agents = PurePosixPath(path).name == POLICY_NAME
        folder = scope_of(path) if is_agents else guide_folder(path, guides)
        if folder is None:
            continue
        # Where an AGENTS.md governs the folder, another guide counts only by deferring to it.
        alone = is_agents or not any(in_scope(folder, scope) for scope in governed)
        try:
            text = text_of(path)
        except UnreadableFile as exc:
            if alone:
                out.append(PolicyFile(path, folder, error=exc.reason))
            continue
        if text is None:
            continue
        defers = None
        if not is_agents:
            defers = _deferral(path, text, existing, guides)
            if defers is None and not alone:
                continue
        out.append(PolicyFile(path, folder, read_file(path, text, recogniser), defers))
    return tuple(out)


# A folder a sentence names: `tests/unit`, `legacy/`, the `legacy` folder, tests/legacy/ (a bare name needs
# the trailing slash; a quoted one without a slash needs "folder" or "directory" after it).
_FOLDER = re.compile(
    r"`(?P<quoted>[\w.-]+(?:/[\w.-]+)*/?)`(?P<word>\s+(?:folder|directory|dir|tree|package))?"
    r"|(?<![\w/.`])(?P<bare>(?:[\w.-]+/)+)(?=[\s'\",.;:)]|$)"
)
# Words before a folder that put it out of the sentence's reach ("except in `legacy/`") ...
_EXCEPT = re.compile(r"\b(?:except|excluding|other\s+than|apart\s+from|outside|but\s+not)\b", re.IGNORECASE)
# ... or make the sentence about it alone ("Unit tests under `tests/unit` must ...").
_INSIDE = re.compile(
    r"\b(?:under|in|inside|within|below|beneath)\s+(?:the\s+)?(?:folders?\s+|director(?:y|ies)\s+)?$",
    re.IGNORECASE,
)


# What stands between two folders of one list ("in `lib/`, `app/` and `cli/`").
# (Not `\s*,?\s*`: without the comma, two `\s*` in a row split a run of spaces every way.)
_LISTED = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s*)?|(?:and|or)\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Folders:
    """The folders one sentence names: all of them, those it is about, those it leaves out."""

    named: tuple[str, ...] = ()
    inside: tuple[str, ...] = ()
    outside: tuple[str, ...] = ()


def folders(text: str) -> Folders:
    """Which folders a sentence names and how: `tests/unit` after "under", `legacy/` after "except"."""
    named: list[str] = []
    inside: list[str] = []
    outside: list[str] = []
    exception = _EXCEPT.search(text)
    last: list[str] | None = None
    last_end = -1
    for m in _FOLDER.finditer(text):
        name = m.group("quoted") or m.group("bare") or ""
        if "://" in name or (m.group("quoted") and "/" not in name and not m.group("word")):
            continue
        if not name.endswith("/") and re.search(r"\.[A-Za-z]\w*$", name.rsplit("/", 1)[-1]):
            continue  # a file, like `tests/test_api.py`
        name = name.rstrip("/")
        named.append(name)
        listed = last is not None and _LISTED.fullmatch(text[last_end : m.start()])
        if exception and m.start() > exception.start():
            last = outside
        # "beneath the directories " is the longest lead-in: look no further back than that, or a sentence
        # naming many folders is rescanned from its start at every one.
        elif _INSIDE.search(text, max(0, m.start() - 40), m.start()):
            last = inside
        elif not listed:
            last = None
        if last is not None:
            last.append(name)
        last_end = m.end()
    return Folders(tuple(named), tuple(inside), tuple(outside))


def _join(scope: str, folder: str) -> str:
    return f"{scope}/{folder}" if scope else folder


def _statements(
    files: tuple[PolicyFile, ...],
) -> tuple[dict[str, tuple[Statement, ...]], tuple[Conflict, ...]]:
    by_path = {f.path: f for f in files}
    codes: dict[str, list[Statement]] = {}

    def add(source: PolicyFile, scope: str) -> None:
        for r in source.readings:
            for code in r.off:
                # "AGT001 does not apply to docs/" switches the rule off in docs/, not in the whole scope.
                for where in [_join(scope, f) for f in folders(r.text).named] or [scope]:
                    codes.setdefault(code, []).append(Statement(source.path, r.line, r.text, where, "off"))
            for code in r.on:
                # "Unit tests under `tests/unit` must ..." asks for it there; "..., except in `legacy/`"
                # everywhere in the scope but there.
                named = r.folders_of(code)
                exclude = tuple(_join(scope, f) for f in named.outside)
                for where in [_join(scope, f) for f in named.inside] or [scope]:
                    codes.setdefault(code, []).append(
                        Statement(source.path, r.line, r.text, where, "on", exclude)
                    )

    for f in files:
        add(f, f.scope)
        target = by_path.get(f.defers_to or "")
        # An AGENTS.md outside the CLAUDE.md's own folder and its parents also governs that folder.
        if target is not None and not in_scope(f.scope, target.scope):
            add(target, f.scope)
    conflicts: list[Conflict] = []
    for code, found in codes.items():
        # Where one sentence asks for a rule and another relaxes it for the same folder ("Editing existing
        # tests is fine" beside "Never rewrite a test to make it pass"), the request stands, and the report
        # says so: a permission never silently outweighs a prohibition.
        asks = {st.scope: st for st in reversed(found) if st.effect == "on"}
        kept = [st for st in found if st.effect == "on" or st.scope not in asks]
        conflicts += [Conflict(code, asks[st.scope], st) for st in found if st not in kept]
        codes[code] = kept
    # Ordered root first, then by file and line: Context.statement_for lets the last nearest one win.
    ordered = {
        code: tuple(sorted(found, key=lambda s: (s.scope.count("/") + bool(s.scope), s.path, s.line)))
        for code, found in codes.items()
        if found
    }
    return ordered, tuple(dict.fromkeys(conflicts))


def _effects(f: PolicyFile | None) -> dict[str, str]:
    """Each rule's word in one file: "on" where any sentence asks for it (as in the review), else "off"."""
    out: dict[str, str] = {}
    for r in f.readings if f else ():
        for code in r.off:
            out.setdefault(code, "off")
        for code in r.on:
            out[code] = "on"
    return out


def _changes(
    changeset: ChangeSet,
    base: tuple[PolicyFile, ...],
    recogniser: Recogniser,
    guides: tuple[str, ...] = AGENT_GUIDES,
) -> tuple[PolicyChange, ...]:
    """What the PR's edits of policy files would change once merged."""
    edited = [
        f
        for f in changeset.files
        if is_policy_path(f.path, guides) or (f.old_path and is_policy_path(f.old_path, guides))
    ]
    if not edited:
        return ()
    by_path = {f.path: f for f in base}
    out = []
    for change in edited:
        before = by_path.get(change.base_path or "")
        after = None
        if change.status is not FileStatus.REMOVED and is_policy_path(change.path, guides):
            agents = [f.path for f in base if PurePosixPath(f.path).name == POLICY_NAME]
            head = _read(changeset.head_text, [change.path], recogniser, guides, agents)
            after = head[0] if head else None
        old, new = _effects(before), _effects(after)
        added = tuple(sorted(c for c, e in new.items() if e == "on" and old.get(c) != "on"))
        removed = tuple(sorted(c for c, e in old.items() if e == "on" and new.get(c) != "on"))
        removed += tuple(
            sorted(c for c, e in new.items() if e == "off" and c not in old and c not in removed)
        )
        out.append(PolicyChange(path=change.path, added=added, removed=removed))
    return tuple(out)


def policy_of(files: tuple[PolicyFile, ...], changes: tuple[PolicyChange, ...] = ()) -> Policy:
    """The policy that read policy files make."""
    statements, conflicts = _statements(files)
    return Policy(files=files, statements=statements, changes=changes, conflicts=conflicts)


def warm(rules: Iterable[Rule]) -> None:
    """Compile what reading any AGENTS.md sentence compiles first: the first piece of each rule's patterns.

    `re` keeps the patterns it compiled, so load_policy's recogniser finds them compiled. For a loader
    with time to spare while git works (bot.review.engine.warm_ups); nothing else changes.
    """
    for rule in rules:
        for source in rule.recognisers:
            pattern = Gated.compile(source)
            pattern.first()


def load_policy(
    changeset: ChangeSet, rules: Iterable[Rule], guides: tuple[str, ...] = AGENT_GUIDES
) -> Policy:
    """The policy at base (AGENTS.md files and the other agent guides, `guides`), and what the PR's edits
    would change."""
    recogniser = Recogniser.of(rules)
    files = _read(changeset.base_text, changeset.base_paths(), recogniser, guides)
    return policy_of(files, _changes(changeset, files, recogniser, guides))


def discover(changeset: ChangeSet, rules: Iterable[Rule]) -> dict[str, tuple[Statement, ...]]:
    """Statements of every AGENTS.md at base, by rule code; the PR's own edits do not count yet."""
    return load_policy(changeset, rules).statements
