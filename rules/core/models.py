"""Frozen models for everything the review reads and produces."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from rules.core import globs
from rules.core.readiness import Gate
from rules.core.verification import Verification

# Files larger than this are not parsed: a review must stay fast and bounded on hostile input.
MAX_TEXT_BYTES = 2 * 1024 * 1024


class Frozen(BaseModel):
    """Base for every model: immutable, and unknown fields are a bug."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Severity(StrEnum):
    """How much a finding matters; ordered error > warning > notice."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"

    @property
    def rank(self) -> int:
        return {"notice": 1, "warning": 2, "error": 3}[self.value]


class FileStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"
    RENAMED = "renamed"


class Hunk(Frozen):
    """One hunk of a unified diff, with the line numbers it adds (head) and removes (base)."""

    old_start: int
    old_length: int
    new_start: int
    new_length: int
    added: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()


class FileChange(Frozen):
    """One changed file of a change set."""

    path: str
    status: FileStatus
    old_path: str | None = None
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    # GitHub omits the patch of very large or binary files; such a file is counted, not reviewed.
    patch_missing: bool = False
    # At head the path is a symbolic link: its blob is the link's target, which is never followed.
    symlink: bool = False

    @property
    def base_path(self) -> str | None:
        """Where the file lived at base, or None for an added file."""
        if self.status is FileStatus.ADDED:
            return None
        return self.old_path or self.path

    # One union of the hunks' tuples, not a Python step per line: asked for every changed test file.
    @property
    def added_lines(self) -> frozenset[int]:
        return frozenset().union(*(h.added for h in self.hunks))

    @property
    def removed_lines(self) -> frozenset[int]:
        return frozenset().union(*(h.removed for h in self.hunks))


class UnreadableFile(Exception):
    """A file's bytes cannot be reviewed as text (too large, not UTF-8, NUL bytes)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ReadFault(UnreadableFile):
    """A file could not be read because GitHub or the network failed, not because of what it holds.

    The review that meets one is not complete: it is never called ready, and nothing is blamed on the file.
    """


class SourceFailure(Exception):
    """The change set's source failed to answer (GitHub refused, or was down): the run's fault, no finding."""


class TextReader(Protocol):
    """Where a change set reads file contents from (local git, GitHub API)."""

    def read(self, rev: str, path: str) -> bytes | None:
        """The bytes of path at rev, or None if it does not exist there.

        May raise UnreadableFile when the file is known to be unusable before reading (over the size cap).
        """

    def list_paths(self, rev: str) -> tuple[str, ...]:
        """Every file path at rev."""


def oversized(path: str, size: int, limit: int = MAX_TEXT_BYTES) -> UnreadableFile:
    """The error of a file too large to review; readers that know a size before reading raise it early."""
    return UnreadableFile(path, f"file is {size:,} bytes, over the {limit:,}-byte limit")


def decode_text(path: str, data: bytes, limit: int = MAX_TEXT_BYTES) -> str:
    """Decode untrusted file bytes as UTF-8 text, or raise UnreadableFile saying why."""
    if len(data) > limit:
        raise oversized(path, len(data), limit)
    if b"\x00" in data:
        raise UnreadableFile(path, "file contains NUL bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"not valid UTF-8 (byte {exc.start})") from None
    return text.removeprefix("\ufeff")


def decode_python(path: str, data: bytes, limit: int = MAX_TEXT_BYTES) -> str:
    """Decode untrusted Python source as Python does (PEP 263), or raise UnreadableFile saying why.

    A UTF-8 byte order mark, else a coding line (`# -*- coding: latin-1 -*-`) on line 1 or 2, else UTF-8:
    a valid test file in Latin-1 is read as Python reads it, not refused as "not valid UTF-8".
    tokenize.detect_encoding only looks at the bytes it is handed (no I/O).
    """
    if len(data) > limit:
        raise oversized(path, len(data), limit)
    if b"\x00" in data:
        raise UnreadableFile(path, "file contains NUL bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not str(exc.msg).startswith("invalid or missing encoding declaration"):
            # A BOM with another coding, or a codec Python does not know.
            raise UnreadableFile(path, f"its encoding cannot be used ({exc.msg})") from None
        encoding = "utf-8"  # no coding line and a first line that is not UTF-8: the decode says where
    try:
        # Python reads the coding line itself in that encoding: one that is not ASCII-compatible (UTF-16)
        # fails there, and so here; so does one that is no text encoding (rot13), in decode.
        if b"#\n".decode(encoding) != "#\n":
            raise LookupError(encoding)
        text = data.decode(encoding)
    except LookupError:
        raise UnreadableFile(path, f"Python source cannot be in its declared encoding {encoding!r}") from None
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise UnreadableFile(path, f"not valid {name} (byte {exc.start})") from None
    return text.removeprefix("\ufeff")


class CommitUnit(Frozen):
    """One first-parent commit of a reviewed range of merged PRs (`bot check --base main~100`): its message,
    the files it changes against its first parent, and the PR its subject names (`... (#958)`)."""

    message: str
    paths: tuple[str, ...] = ()
    number: int | None = None


class LinkedIssue(Frozen):
    """An issue of the pull request's own repository that its description says it closes (`Fixes #12`),
    with its labels and issue type as GitHub gives them. Only the GitHub edge knows them: local mode has
    none."""

    number: int
    labels: tuple[str, ...] = ()
    type: str | None = None  # the issue type's name ("Bug", "Feature"), where the repository has types


class PullRequest(Frozen):
    """What the review knows of the pull request itself (empty in plain local mode)."""

    number: int | None = None
    title: str = ""
    body: str = ""
    author: str | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    labels: tuple[str, ...] = ()
    draft: bool = False
    url: str | None = None
    # Local mode without a title or description: the messages of the commits base..head stand in for them.
    commits: tuple[str, ...] = ()
    # Local mode, a range of several merged PRs (squash or merge commits naming their PR): each first-parent
    # commit is its own small PR, newest first. Empty for one PR (a branch, or one commit).
    units: tuple[CommitUnit, ...] = ()
    # On GitHub, the issues the description closes that could be read, with their labels (a few at most).
    linked_issues: tuple[LinkedIssue, ...] = ()


class ChangeSet(BaseModel):
    """The files a pull request changes, with lazy access to their base and head text."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    base_sha: str
    head_sha: str
    files: tuple[FileChange, ...]
    pr: PullRequest = PullRequest()
    reader: Any = Field(default=None, exclude=True, repr=False)
    # Files the source could not list (GitHub's 3,000-file cap); counted in coverage.
    files_unlisted: int = 0
    # Paths the repository's config leaves out of the review (vendored code, fixtures, examples).
    exclude: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    _cache: dict[tuple[str, str], str | None] = PrivateAttr(default_factory=dict)
    _raw: dict[tuple[str, str], bytes | None] = PrivateAttr(default_factory=dict)
    # Why a file cannot be read, kept so a second reader of it gets the reason without another read.
    _errors: dict[tuple[str, str], UnreadableFile] = PrivateAttr(default_factory=dict)
    _links: frozenset[str] | None = PrivateAttr(default=None)
    # What a loader made of a text ahead of the rules (a parsed test file), by (rev, path): (text, value).
    _prepared: dict[tuple[str, str], tuple[str, Any]] = PrivateAttr(default_factory=dict)

    def file(self, path: str) -> FileChange | None:
        return next((f for f in self.files if f.path == path), None)

    def _symlinks(self) -> frozenset[str]:
        if self._links is None:
            self._links = frozenset(f.path for f in self.files if f.symlink)
        return self._links

    def _text(self, rev: str, path: str) -> str | None:
        key = (rev, path)
        if key in self._errors:
            raise self._errors[key]
        if key not in self._cache:
            try:
                if rev == self.head_sha and path in self._symlinks():
                    raise UnreadableFile(path, "it is a symbolic link; links are not followed")
                if key in self._raw:
                    data = self._raw.pop(key)
                else:
                    data = self.reader.read(rev, path) if self.reader is not None else None
                decode = decode_python if path.endswith(".py") else decode_text
                self._cache[key] = None if data is None else decode(path, data)
            except UnreadableFile as exc:
                self._errors[key] = exc
                raise
        return self._cache[key]

    def prepare(self, rev: str, path: str, text: str, value: Any) -> None:
        """Keep a file's text, read ahead, and what was made of it (see prepared)."""
        self._cache.setdefault((rev, path), text)
        self._prepared[(rev, path)] = (text, value)

    def prepared(self, rev: str, path: str, text: str) -> Any:
        """What prepare() kept for this very text of path at rev; None if nothing.

        It stays here for as long as the change set lives, not only until the review has it: a review of a
        large PR holds hundreds of thousands of parsed nodes, and the review freeing them as it ends cost
        tens of milliseconds of its time. They go with the change set (`bot check`: with the process).
        """
        kept = self._prepared.get((rev, path))
        return kept[1] if kept is not None and kept[0] == text else None

    def _known(self, key: tuple[str, str]) -> bool:
        return key in self._cache or key in self._raw or key in self._errors

    def prefetch(self, rev: str, paths: Iterable[str]) -> None:
        """Read many files in one go where the reader can; decoding (and its errors) waits for the text."""
        read_many = getattr(self.reader, "read_many", None)
        todo = [p for p in dict.fromkeys(paths) if not self._known((rev, p))]
        if read_many is None or len(todo) < 2:
            return
        for path, data in read_many(rev, todo).items():
            self._raw[(rev, path)] = data

    def mentioning(self, rev: str, paths: Iterable[str], words: tuple[str, ...]) -> frozenset[str]:
        """The paths among paths whose text at rev may hold one of words.

        A reader that can search (`git grep`) answers without the bytes coming here, over the bytes as
        they are (a file over the size cap that holds a word counts, and reading it then says why it
        cannot be read); otherwise each file is read, and one that cannot be counts, so that whoever
        reads it next reports why.
        """
        todo = list(dict.fromkeys(paths))
        grep = getattr(self.reader, "grep", None)
        out: set[str] = set()
        if grep is not None:
            # Texts already read are searched here; the rest by the reader.
            cache, errors = self._cache, self._errors  # private attributes: each access is a lookup
            known = [p for p in todo if (rev, p) in cache or (rev, p) in errors]
            seen = set(known)
            out.update(grep(rev, [p for p in todo if p not in seen], words))
            todo = known
        else:
            self.prefetch(rev, todo)
        for path in todo:
            try:
                text = self._text(rev, path)
            except UnreadableFile:
                out.add(path)
                continue
            if text is not None and any(w in text for w in words):
                out.add(path)
        return frozenset(out)

    @property
    def searches_ahead(self) -> bool:
        """Whether the reader can start a search in the background (local git) for mentioning_ahead()."""
        return hasattr(self.reader, "grep_ahead")

    def mentioning_ahead(self, rev: str, paths: Iterable[str], words: tuple[str, ...]) -> None:
        """Let a reader that searches in the background start on a later mentioning() of these paths."""
        ahead = getattr(self.reader, "grep_ahead", None)
        if ahead is not None:
            cache, errors = self._cache, self._errors
            ahead(
                rev,
                [p for p in dict.fromkeys(paths) if (rev, p) not in cache and (rev, p) not in errors],
                words,
            )

    def base_text(self, path: str) -> str | None:
        """Text of path at the base revision; raises UnreadableFile for binary or oversized files."""
        return self._text(self.base_sha, path)

    def head_text(self, path: str) -> str | None:
        """Text of path at the head revision; raises UnreadableFile for binary or oversized files."""
        return self._text(self.head_sha, path)

    def base_paths(self) -> tuple[str, ...]:
        """Every file at base outside excluded paths: trusted policy (AGENTS.md, config) is found there."""
        if self.reader is None:
            return ()
        paths = self.reader.list_paths(self.base_sha)
        if self.exclude:
            paths = tuple(p for p in paths if not globs.match(p, self.exclude))
        return paths

    def base_paths_partial(self) -> str | None:
        """Why base_paths() may miss files at base (GitHub listed only part of the tree), else None."""
        partial = getattr(self.reader, "partial_listing", None)
        return partial(self.base_sha) if partial is not None else None

    def without(self, patterns: tuple[str, ...]) -> ChangeSet:
        """This change set with the files matching patterns left out (config `exclude`)."""
        if not patterns:
            return self
        kept = tuple(f for f in self.files if not globs.match(f.path, patterns))
        gone = tuple(f.path for f in self.files if globs.match(f.path, patterns))
        return self.model_copy(update={"files": kept, "exclude": patterns, "excluded": self.excluded + gone})


class Fix(Frozen):
    """A mechanical fix of a finding: lines start..end (1-based, inclusive, git's lines: rules.core.lines) of
    path at head become `lines`.

    `original` holds the lines replaced as the review read them, so that a fix is applied only to the text it
    was computed from (a stale fix is refused, an applied one is recognised). `key` names what the fix is
    about (rule, path, test or profile) and stays the same across pushes while the finding stands.
    """

    key: str
    path: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    original: tuple[str, ...]
    lines: tuple[str, ...]


class Finding(Frozen):
    """One problem a rule found, with the place it points at and the policy it enforces."""

    rule: str
    name: str
    severity: Severity
    path: str | None = None
    line: int | None = None
    message: str
    # Where the rule comes from, e.g. "AGENTS.md:14", and that line's sentence.
    source: str | None = None
    source_text: str | None = None
    # The replacement that resolves it, where the rule knows one for certain (AGT001, TRN001).
    fix: Fix | None = None


class Waiver(Frozen):
    """A finding switched off on purpose, with who asked and why."""

    rule: str
    path: str | None = None
    line: int | None = None
    reason: str
    by: str | None = None
    at: str | None = None
    # Digest of the code the waived findings pointed at; the waiver lapses when it changes.
    fingerprint: str | None = None
    # The findings ("RULE:path") the bot showed when the waiver was written: it covers those alone, never a
    # finding pushed later. None (waivers written before keys existed) covers every finding of the rule.
    keys: tuple[str, ...] | None = None


class StepValues(Frozen):
    """Derived training step values of one profile at one revision."""

    semantics: str
    batch_size: int | None = None
    target_examples: int | None = None
    target_micro_steps: int | None = None
    # The run's own `max_steps` key; None where a trainer config leaves it unset (epochs decide).
    max_steps: int | None = None
    decay_steps: int | None = None
    ckpt_interval: int | None = None
    effective_train_examples: int | None = None
    unapplied_micro_steps: int | None = None
    # Inputs and details added for the step-math table (all optional, so older reports still load).
    micro_batch_size: int | None = None
    world_size: int | None = None
    grad_accum: int | None = None
    seq_len: int | None = None
    tokens_per_step: int | None = None
    scheduler: str | None = None
    warmup_steps: int | None = None
    ckpt_keep_interval: int | None = None
    config_path: str | None = None
    # The format the values were derived from (rules/training/trainers): `prime-rl` (profiles, whatever
    # unit their target counts in, and Prime-RL configs), `hf-trainer`, `trl-grpo`, `axolotl`; and the
    # optimizer updates the run makes, in every format's terms.
    trainer: str | None = None
    optimizer_steps: int | None = None
    # Trainer configs (rules/training/trainers): what the run covers, and how the numbers were reached.
    epochs: float | None = None
    train_examples: int | None = None
    warmup_ratio: float | None = None
    tail: str | None = None
    formula: str | None = None
    estimate: bool = False
    assumptions: tuple[str, ...] = ()


class ProfileMath(Frozen):
    """One changed profile's step math, base -> head; a side is None where the profile is absent."""

    path: str
    name: str
    base: StepValues | None = None
    head: StepValues | None = None
    base_error: str | None = None
    head_error: str | None = None
    # "profile" (compat-profile file), "python" (literal dict in a module) or "prime-rl" (SFT config).
    kind: str = "profile"
    line: int | None = None
    # The StepValues fields that differ base -> head, for JSON readers.
    changed: tuple[str, ...] = ()
    # The format of the head side (else the base side): see StepValues.trainer.
    trainer: str | None = None
    # A port (rules/training/ports.py): the removed config the base side comes from, and its kind.
    ported_from: str | None = None
    base_kind: str | None = None


class Coverage(Frozen):
    """How much of the change was reviewed."""

    files_changed: int
    files_reviewed: int
    not_reviewed: tuple[str, ...] = ()
    files_excluded: int = 0


class PolicyChange(Frozen):
    """What a PR's edit of an AGENTS.md (or CLAUDE.md) changes; it takes effect after merge."""

    path: str
    added: tuple[str, ...] = ()  # rule codes the edit turns on
    removed: tuple[str, ...] = ()  # rule codes the edit turns off or no longer asks for


Verdict = Literal["ready", "needs-work"]


class Report(Frozen):
    """The outcome of a review: what every output (comment, JSON, labels, status) is made from."""

    verdict: Verdict
    labels: tuple[str, ...]
    findings: tuple[Finding, ...] = ()
    profiles: tuple[ProfileMath, ...] = ()
    coverage: Coverage
    waivers: tuple[Waiver, ...] = ()
    notes: tuple[str, ...] = ()
    # AGENTS.md / CLAUDE.md files read at base, and the PR's edits to them (judged after merge).
    policy_files: tuple[str, ...] = ()
    policy_changes: tuple[PolicyChange, ...] = ()
    base_sha: str | None = None
    head_sha: str | None = None
    pr_number: int | None = None
    # OWNER/NAME, set by `bot review`: what a saved Report was computed for (`bot publish` checks it).
    repository: str | None = None
    # Files a rule would read that the review could not see, each with why: such a review is never ready.
    incomplete: tuple[str, ...] = ()
    # `bot check --verify-tests`: each new or changed test run at head and on the base code, with its outcome.
    verifications: tuple[Verification, ...] = ()
    # `bot review`: the head commit's gating checks (`ready.checks`), read when a clean review waits on them.
    checks: Gate | None = None

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)
