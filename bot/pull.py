"""A ChangeSet for a pull request on GitHub: files from the API, text from a checkout or the API."""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath

from bot import globs
from bot.api import Client, PullFile, PullInfo
from bot.config import CONFIG_PATH, Config
from bot.diff import DiffError, parse_hunks
from bot.local import GitReader, SourceError, load_changeset, open_repo, resolve
from bot.models import ChangeSet, FileChange, FileStatus, Hunk, PullRequest
from rules.testfiles import is_test_path

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
    """Reads file text at exact commit SHAs through the contents and trees APIs."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._paths: dict[str, tuple[str, ...]] = {}
        self._blobs: dict[tuple[str, str], bytes | None] = {}

    def read(self, rev: str, path: str) -> bytes | None:
        # The engine reads the config directly, not through the change set's cache: each blob is fetched once.
        if (rev, path) not in self._blobs:
            self._blobs[(rev, path)] = self.client.read_file(rev, path)
        return self._blobs[(rev, path)]

    def list_paths(self, rev: str) -> tuple[str, ...]:
        if rev not in self._paths:
            self._paths[rev] = self.client.tree_paths(rev)
        return self._paths[rev]


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
    client: Client, info: PullInfo, checkout: str | Path | None = None, reader: ApiReader | None = None
) -> ChangeSet:
    """The change set of a pull request; a checkout at the right commits fills what the API leaves out.

    reader is the run's API reader when it already read something (the config of a comment command).
    """
    files = [to_file_change(pf) for pf in client.pull_files(info.number)]
    unlisted = max(0, info.changed_files - len(files))
    top = local_checkout(checkout, info.base_sha, info.head_sha)
    pr = pull_request(info)
    if top is None:
        return ChangeSet(
            base_sha=info.base_sha,
            head_sha=info.head_sha,
            files=tuple(files),
            pr=pr,
            reader=reader if reader is not None else ApiReader(client),
            files_unlisted=unlisted,
        )
    # The API path has no commit messages: the checkout must not give the review other evidence.
    local = load_changeset(top, base=info.base_sha, head=info.head_sha, pr=pr, commits=False)
    by_path = {f.path: f for f in local.files}
    filled = [by_path.get(f.path, f) if f.patch_missing else f for f in files]
    listed = {f.path for f in files}
    extra = [f for f in local.files if f.path not in listed] if unlisted else []
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


def matters(path: str, config: Config) -> bool:
    """Whether a rule reads this file: tests, profiles, AGENTS.md, the bot's config."""
    p = config.profiles
    return (
        path == CONFIG_PATH
        or PurePosixPath(path).name == "AGENTS.md"
        or is_test_path(path)
        or globs.match(path, (*p.globs, *p.python_globs, *p.prime_rl_globs))
    )


def unreviewed_that_matter(changeset: ChangeSet, config: Config) -> tuple[str, ...]:
    """Files the review could not see although a rule would read them; unlisted files count as such."""
    missing = tuple(f.path for f in changeset.files if f.patch_missing and matters(f.path, config))
    if changeset.files_unlisted:
        missing += (f"{changeset.files_unlisted} files beyond GitHub's {FILES_CAP:,}-file list",)
    return missing
