"""A ChangeSet for a pull request on GitHub: files from the API, text from a checkout or the API."""

from __future__ import annotations

import io
import logging
import re
import tokenize
from collections.abc import Iterable
from pathlib import Path

from bot.git.diff import HUNK_HEADER, DiffError, parse_hunks
from bot.git.local import GitReader, SourceError, load_changeset, open_repo, resolve
from bot.github.api import Client, GitHubError, PullFile, PullInfo
from bot.review.engine import matters
from rules.core import globs
from rules.core.config import Config
from rules.core.models import (
    MAX_TEXT_BYTES,
    ChangeSet,
    FileChange,
    FileStatus,
    Hunk,
    PullRequest,
    ReadFault,
    UnreadableFile,
    oversized,
)
from rules.core.policy_files import AGENT_GUIDES, is_policy_path
from rules.testcode.changelog import is_changelog, is_reno_note
from rules.testcode.regression_evidence import FIX_KINDS, fragment_kind

log = logging.getLogger(__name__)

# The pull request files API lists at most this many files.
FILES_CAP = 3000

_STATUS = {
    "added": FileStatus.ADDED,
    "removed": FileStatus.REMOVED,
    "modified": FileStatus.MODIFIED,
    "renamed": FileStatus.RENAMED,
    "copied": FileStatus.ADDED,
    "changed": FileStatus.MODIFIED,
    "unchanged": FileStatus.MODIFIED,
}


class ApiReader:
    """Reads file text at exact commit SHAs: from the patch when it holds the whole file, else the API.

    Reads a review will make are fetched ahead in GraphQL batches (prefetch); any other read is one
    contents request. A read that fails for GitHub's or the network's sake is a ReadFault, recorded in
    faults: the review is then not complete. A 404 for a file the pull request's list says exists is one.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self._paths: dict[str, tuple[str, ...]] = {}
        # (rev, path) -> bytes, None (no file there) or the UnreadableFile a read of it raises.
        self._blobs: dict[tuple[str, str], bytes | UnreadableFile | None] = {}
        self._listed: set[tuple[str, str]] = set()
        # base (rev, path) -> (head (rev, path), patch, changes): a modified file's base, from head and patch.
        self._rebuild: dict[tuple[str, str], tuple[tuple[str, str], str, int]] = {}
        self.faults: dict[str, str] = {}
        # The folders of every changed path, root ("") first: where the AGENTS.md that govern them are.
        self._folders: set[str] = {""}
        # The folders below a changed file's folder that may hold one of its agent guides (use_guides).
        self.guide_folders = guide_folders(AGENT_GUIDES)
        # rev -> why its file list is partial (GitHub truncated it); only the changed folders are whole.
        self._partial: dict[str, str] = {}

    def expect(
        self, base_sha: str, head_sha: str, files: list[FileChange], patches: dict[str, tuple[str, int]]
    ) -> None:
        """What the files list says exists at each side; the text of files whose patch holds all of it; which
        base texts can be rebuilt from the head text and the patch. patches: path -> (patch, changes)."""
        for f in files:
            for path in (f.path, f.base_path):
                self._folders.update(folders_of(path) if path is not None else ())
            if f.status is not FileStatus.REMOVED:
                self._listed.add((head_sha, f.path))
            if f.base_path is not None:
                self._listed.add((base_sha, f.base_path))
            if f.path not in patches or f.patch_missing:
                continue
            patch, changes = patches[f.path]
            if recoded(f.path, patch, patch=True):
                continue  # GitHub's text of bytes in another encoding than UTF-8: read the bytes
            if f.status is FileStatus.ADDED:
                self._blobs.setdefault((head_sha, f.path), whole_text(patch, added=True))
            elif f.status is FileStatus.REMOVED:
                self._blobs.setdefault((base_sha, f.path), whole_text(patch, added=False))
            elif f.base_path is not None:
                self._rebuild[(base_sha, f.base_path)] = ((head_sha, f.path), patch, changes)
        # whole_text gives None when the patch is not the whole file: that is "read it", not "absent".
        self._blobs = {k: v for k, v in self._blobs.items() if v is not None or k not in self._listed}

    def read(self, rev: str, path: str) -> bytes | None:
        # The engine reads the config directly, not through the change set's cache: each blob is fetched once.
        key = (rev, path)
        if key not in self._blobs and self._rebuilt(key):
            return self.read(rev, path)
        if key not in self._blobs:
            self._blobs[key] = self._fetch(rev, path)
        got = self._blobs[key]
        if isinstance(got, UnreadableFile):
            raise got
        return got

    def _fetch(self, rev: str, path: str) -> bytes | UnreadableFile | None:
        try:
            data = self.client.read_file(rev, path)
        except UnreadableFile as exc:
            return exc
        except GitHubError as exc:
            if exc.kind not in TRANSIENT:
                raise  # the token or the rate limit: the run cannot go on, whatever file it was
            return self._fault(path, str(exc))
        if data is None and (rev, path) in self._listed:
            return self._fault(path, "GitHub answered 404 for a file the pull request's files list names")
        return data

    def _fault(self, path: str, why: str, quiet: bool = False) -> ReadFault:
        self.faults.setdefault(path, why)
        if not quiet:
            log.warning("could not read %s: %s", path, why)
        return ReadFault(path, why)

    def _rebuilt(self, key: tuple[str, str]) -> bool:
        """Whether key's text was rebuilt from its head text and patch (reading the head if need be)."""
        if key not in self._rebuild:
            return False
        head_key, patch, changes = self._rebuild.pop(key)
        try:
            head = self.read(*head_key)
        except UnreadableFile:
            return False
        text = None if head is None else base_from_head(head, patch, changes)
        if text is None:
            return False
        self._blobs[key] = text
        return True

    def prefetch(self, wanted: Iterable[tuple[str, str]]) -> None:
        """Fetch these (rev, path) reads ahead in GraphQL batches; reads already known are skipped.

        A base side the patch can rebuild costs its head side only; if rebuilding fails, it is fetched.
        """
        keys = tuple(dict.fromkeys(wanted))
        rebuild = [k for k in keys if k in self._rebuild and k not in self._blobs]
        self._fetch_many([k for k in keys if k not in self._rebuild] + [self._rebuild[k][0] for k in rebuild])
        self._fetch_many([k for k in rebuild if not self._rebuilt(k)])

    def _fetch_many(self, wanted: Iterable[tuple[str, str]]) -> None:
        todo = tuple(k for k in dict.fromkeys(wanted) if k not in self._blobs)
        if not todo:
            return
        try:
            blobs = self.client.read_blobs(todo)
        except GitHubError as exc:
            if exc.kind not in TRANSIENT:
                raise
            log.warning("could not read %d files: %s", len(todo), exc)
            for key in todo:
                self._blobs[key] = self._fault(key[1], str(exc), quiet=True)
            return
        for key, blob in blobs.items():
            rev, path = key
            if blob is None:
                listed = key in self._listed
                self._blobs[key] = self._fault(path, _GONE) if listed else None
            elif blob.size > MAX_TEXT_BYTES:
                self._blobs[key] = oversized(path, blob.size)
            elif blob.text is None and not path.endswith(".py"):
                self._blobs[key] = UnreadableFile(path, "binary file (GitHub has no text for it)")
            elif blob.text is not None and not blob.truncated and not recoded(path, blob.text):
                self._blobs[key] = blob.text.encode("utf-8")
            # A truncated text is left out: a rule that reads it gets it from the contents API. So is Python
            # source GitHub has no text for or whose coding line names another encoding than UTF-8: its
            # bytes, decoded as Python decodes them (rules.core.models.decode_python), are what it holds.

    def list_paths(self, rev: str) -> tuple[str, ...]:
        if rev not in self._paths:
            tree = self.client.tree(rev)
            paths = tuple(e.path for e in tree.entries if e.type == "blob")
            if tree.truncated:
                self._partial[rev] = f"GitHub listed only part of the files at {rev[:12]} (over 100,000)"
            self._paths[rev] = self._filled(rev, paths) if tree.truncated else paths
            # What the tree lists is there: GitHub then finding nothing at such a path is a fault too.
            self._listed.update((rev, path) for path in self._paths[rev])
        return self._paths[rev]

    def partial_listing(self, rev: str) -> str | None:
        """Why list_paths(rev) may miss files outside the changed files' folders, or None (see _filled)."""
        return self._partial.get(rev)

    def _filled(self, rev: str, paths: tuple[str, ...]) -> tuple[str, ...]:
        """A truncated listing (GitHub stops a recursive one at 100,000 entries) with the files of every
        folder on a changed path added, each folder read on its own, root first.

        The policy that governs a file is the AGENTS.md (and CLAUDE.md) in its folder and the folders above
        it, and pytest's settings are at the root: with those folders complete, every policy file the
        review applies is seen, wherever the cut fell (and a `.github/` or `.claude/` such a folder holds,
        for the agent guides kept there). Past TREE_READS folders, or when a read fails, the review is not
        complete (a fault) rather than judged on a partial policy.
        """
        where = f"the file list at {rev[:12]}"
        log.info("GitHub gave only part of %s (%d files); reading folders", where, len(paths))
        folders = sorted(self._folders, key=lambda d: (d.count("/") + (d != ""), d))
        if len(folders) > TREE_READS:
            why = f"GitHub listed only part of it, and the {len(folders):,} folders of the changed files are "
            self._fault(where, why + f"more than the {TREE_READS} the bot reads one by one")
            return paths
        found = dict.fromkeys(paths)
        shas = {"": rev}  # each folder's tree SHA, from its parent's listing
        inside: dict[str, str] = {}  # a guide's folder read -> its path below the changed file's folder
        for folder in folders:
            sha = shas.get(folder)
            if sha is None:
                continue  # no such folder at rev (a changed file's new folder): no policy there
            try:
                tree = self.client.tree(sha, recursive=False)
            except GitHubError as exc:
                if exc.kind not in TRANSIENT:
                    raise
                failed = f"reading `{folder or '/'}` failed: {exc}"
                self._fault(where, f"GitHub listed only part of it, and {failed}")
                return tuple(found)
            if tree.truncated:
                self._fault(where, f"GitHub listed only part of it, and of `{folder or '/'}` too")
                return tuple(found)
            for e in tree.entries:
                path = f"{folder}/{e.path}" if folder else e.path
                if e.type == "blob":
                    found[path] = None
                elif e.type == "tree" and path in self._folders:
                    shas[path] = e.sha
                elif e.type == "tree" and (below := _below(inside.get(folder), e.path)) in self.guide_folders:
                    # `.github/copilot-instructions.md`, `.claude/CLAUDE.md` or a configured guide further
                    # down: a guide of a changed file's folder in a folder below it. Read only where that
                    # folder is there (one request each, most often none).
                    shas[path] = e.sha
                    inside[path] = below
                    folders.append(path)
        return tuple(found)

    def use_guides(self, guides: tuple[str, ...]) -> None:
        """The agent guides the config names (`agent_guides`), for the folders a truncated listing reads."""
        self.guide_folders = guide_folders(guides)


def _below(within: str | None, name: str) -> str:
    """The path of folder `name` relative to the changed file's folder it is in (within: its parent's)."""
    return f"{within}/{name}" if within else name


def guide_folders(guides: tuple[str, ...]) -> frozenset[str]:
    """The folders (relative to the folder a guide governs) that hold an agent guide, and those above them:
    `.github/copilot-instructions.md` -> {".github"}, `docs/ai/GUIDE.md` -> {"docs", "docs/ai"}."""
    out: set[str] = set()
    for guide in guides:
        parts = guide.split("/")[:-1]
        out.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(out)


def folders_of(path: str) -> tuple[str, ...]:
    """The folders above path, nearest last: "a/b/c.py" -> ("a", "a/b"); the root ("") is not among them."""
    parts = path.split("/")[:-1]
    return tuple("/".join(parts[: i + 1]) for i in range(len(parts)))


# Folders a truncated tree listing is completed with, one request each (see ApiReader._filled).
TREE_READS = 200
# Errors that fail one read (the review goes on, not complete); any other GitHubError ends the run.
TRANSIENT = ("unavailable", "malformed")
_GONE = "GitHub found no file at a path the pull request's files list names"
_WHOLE = {True: re.compile(r"@@ -0,0 \+1(?:,(\d+))? @@"), False: re.compile(r"@@ -1(?:,(\d+))? \+0,0 @@")}


def recoded(path: str, text: str, patch: bool = False) -> bool:
    """Whether GitHub's text of a file (Unicode; or a patch of it) may not be the file as Python reads it:
    Python source whose coding line (PEP 263) names another encoding than UTF-8 or cannot be used, or whose
    text holds U+FFFD (GitHub's stand-in for bytes that are not UTF-8). Its bytes are then read instead.
    """
    if not path.endswith(".py"):
        return False
    if "\ufffd" in text:
        return True
    lines = text.split("\n", 3)
    if patch:  # the file's first lines, when the patch starts at them: the hunk header, then signed lines
        lines = [line[1:] for line in lines[1:3]] if text.startswith(("@@ -0,0 +1", "@@ -1")) else []
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO("\n".join(lines[:2]).encode("utf-8")).readline)
    except SyntaxError:
        return True
    return encoding not in ("utf-8", "utf-8-sig")


def whole_text(patch: str, added: bool) -> bytes | None:
    """The whole file an added (or deleted) file's patch holds, or None when the patch is not all of it.

    Such a patch is one hunk of every line, so its text costs no request; the line count is checked
    against the hunk header, so a cut patch is never taken for the file.
    """
    if patch == "":
        return b""  # an empty file: GitHub lists it with an empty patch
    lines = patch.split("\n")
    if lines[-1] == "":
        lines.pop()
    m = _WHOLE[added].match(lines[0])
    if m is None:
        return None
    sign = "+" if added else "-"
    body, newline = [], True
    for line in lines[1:]:
        if line.startswith("\\"):
            newline = False  # "\ No newline at end of file"
        elif line.startswith(sign) and newline:
            body.append(line[1:])
        else:
            return None
    if len(body) != int(m.group(1) if m.group(1) is not None else 1):
        return None
    return ("\n".join(body) + ("\n" if newline else "")).encode("utf-8")


def base_from_head(head: bytes, patch: str, changes: int) -> bytes | None:
    """A modified file's base text: its head text with the patch taken back, or None when that is unsure.

    Sure means: every context and added line of the patch is the head's line at that place, the patch's
    added and removed lines are all GitHub counted (changes), and both sides end in a newline.
    """
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.endswith("\n") or "\n\\" in "\n" + patch:
        return None  # a side without a final newline: left to a read
    lines = text.split("\n")[:-1]
    out: list[str] = []
    at = 0  # head lines copied or matched so far
    counted = 0
    rows = patch.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    i = 0
    while i < len(rows):
        m = HUNK_HEADER.match(rows[i])
        if m is None:
            return None
        new_start, new_len = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
        before = new_start if new_len == 0 else new_start - 1  # head lines ahead of the hunk
        if before < at or before > len(lines):
            return None
        out.extend(lines[at:before])
        at = before
        i += 1
        while i < len(rows) and not rows[i].startswith("@@"):
            sign, line = rows[i][:1], rows[i][1:]
            if sign == "-":
                out.append(line)
                counted += 1
            elif sign in (" ", "+"):
                if at >= len(lines) or lines[at] != line:
                    return None
                if sign == " ":
                    out.append(line)
                else:
                    counted += 1
                at += 1
            else:
                return None
            i += 1
    if counted != changes:
        return None
    out.extend(lines[at:])
    return ("\n".join(out) + "\n").encode("utf-8")


def to_file_change(pf: PullFile) -> FileChange:
    """One API file entry as a FileChange; a missing or unparsable patch is counted, not reviewed."""
    status = _STATUS.get(pf.status, FileStatus.MODIFIED)
    old = pf.previous_path if status is FileStatus.RENAMED else None
    # A pure rename has nothing to show; any other entry without a patch is binary or too large.
    missing = pf.patch is None and not (status is FileStatus.RENAMED and pf.changes == 0)
    hunks: tuple[Hunk, ...] = ()
    if pf.patch:
        try:
            hunks = parse_hunks(pf.patch, pf.path)
        except DiffError:
            missing = True
    return FileChange(path=pf.path, status=status, old_path=old, hunks=hunks, patch_missing=missing)


def pull_request(info: PullInfo) -> PullRequest:
    return PullRequest(
        number=info.number,
        title=info.title,
        body=info.body,
        author=info.author,
        base_ref=info.base_ref,
        head_ref=info.head_ref,
        labels=info.labels,
        draft=info.draft,
        url=info.url,
    )


def local_checkout(path: str | Path | None, *shas: str) -> Path | None:
    """The checkout's top folder when it holds every given commit, else None (then the API is used)."""
    if path is None:
        return None
    try:
        top = open_repo(path)
        for sha in shas:
            resolve(top, sha)
    except SourceError:
        return None
    return top


def load_pull(
    client: Client,
    info: PullInfo,
    checkout: str | Path | None = None,
    reader: ApiReader | None = None,
    listed: tuple[PullFile, ...] | None = None,
) -> ChangeSet:
    """The change set of a pull request; a checkout at the right commits fills what the API leaves out.

    reader is the run's API reader when it already read something (the config of a comment command); listed,
    the changed files when already read (a merge queue's commit compared with its base).
    """
    if listed is None:
        listed = client.pull_files(info.number)
    files = [to_file_change(pf) for pf in listed]
    unlisted = max(0, info.changed_files - len(files))
    top = local_checkout(checkout, info.base_sha, info.head_sha)
    pr = pull_request(info)
    if top is None:
        reader = reader if reader is not None else ApiReader(client)
        patches = {pf.path: (pf.patch, pf.changes) for pf in listed if pf.patch is not None}
        reader.expect(info.base_sha, info.head_sha, files, patches)
        return ChangeSet(
            base_sha=info.base_sha,
            head_sha=info.head_sha,
            files=tuple(files),
            pr=pr,
            reader=reader,
            files_unlisted=unlisted,
        )
    # The API path has no commit messages: the checkout must not give the review other evidence.
    local = load_changeset(top, base=info.base_sha, head=info.head_sha, pr=pr, commits=False)
    by_path = {f.path: f for f in local.files}
    filled = [by_path.get(f.path, f) if f.patch_missing else f for f in files]
    paths = {f.path for f in files}
    extra = [f for f in local.files if f.path not in paths] if unlisted else []
    if unlisted:
        log.info("filled %d files beyond the API's list from the local checkout", len(extra))
    return ChangeSet(
        base_sha=local.base_sha,
        head_sha=info.head_sha,
        files=tuple(filled + extra),
        pr=pr,
        reader=GitReader(top),
        files_unlisted=0,
    )


def read_by_rules(path: str, config: Config) -> bool:
    """Whether a rule reads this file's text: what matters, any TOML (recognised by shape), Python modules
    the profile globs name (they may hold profile dicts), the agent guides, and the changelogs and bugfix
    fragments (and reno notes) AGT001 reads for what the PR says it fixes."""
    p = config.profiles
    return (
        matters(path, config)
        or is_policy_path(path, config.agent_guides)
        or path.endswith(".toml")
        or (path.endswith(".py") and globs.match(path, p.python_globs))
        or is_changelog(path)
        or is_reno_note(path)
        or fragment_kind(path) in FIX_KINDS
    )


def reads_needed(changeset: ChangeSet, config: Config) -> tuple[tuple[str, str], ...]:
    """The (rev, path) reads the rules will make of this change set, decided from paths alone."""
    cs = changeset.without(config.exclude)
    wanted: list[tuple[str, str]] = []
    for f in cs.files:
        if f.status is not FileStatus.REMOVED and read_by_rules(f.path, config):
            wanted.append((cs.head_sha, f.path))
        if f.base_path is not None and read_by_rules(f.base_path, config):
            wanted.append((cs.base_sha, f.base_path))
    # The policy at base: every AGENTS.md and other agent guide the base tree lists (the listing is read
    # anyway).
    wanted += [(cs.base_sha, p) for p in cs.base_paths() if is_policy_path(p, config.agent_guides)]
    return tuple(wanted)


def prefetch(changeset: ChangeSet, config: Config) -> None:
    """Fetch the review's reads in batches before the rules ask for them one by one (API reads only)."""
    if isinstance(changeset.reader, ApiReader):
        changeset.reader.use_guides(config.agent_guides)
        changeset.reader.prefetch(reads_needed(changeset, config))


def read_faults(changeset: ChangeSet) -> dict[str, str]:
    """Files whose read failed for GitHub's or the network's sake, with why."""
    return dict(getattr(changeset.reader, "faults", {}))


def unreviewed_that_matter(changeset: ChangeSet, config: Config) -> tuple[str, ...]:
    """Files the review could not see although a rule would read them, each with why.

    Unlisted files (GitHub's 3,000-file cap) and files whose read failed; the review itself names the
    files without a patch (bot.review.engine, in every mode).
    """
    missing = tuple(f"{path} ({why})" for path, why in read_faults(changeset).items())
    if changeset.files_unlisted:
        missing += (
            f"{changeset.files_unlisted} files beyond GitHub's {FILES_CAP:,}-file list (it stops there)",
        )
    return missing
