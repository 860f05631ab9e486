"""A ChangeSet from a local git repository, read with git itself: nothing is imported or executed."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from bot.git import forked
from bot.git.catfile import CatFile, CatFileError, ObjectInfo
from bot.git.diff import DiffError, DiffReader, parse_diff
from bot.git.gcpause import paused
from rules.core.models import (
    MAX_TEXT_BYTES,
    ChangeSet,
    CommitUnit,
    FileChange,
    FileStatus,
    PullRequest,
    UnreadableFile,
    decode_python,
    oversized,
)
from rules.testcode.testfiles import collects, read_ahead

_GIT_TIMEOUT = 120
# Blob ids by length: SHA-1 repositories and SHA-256 ones.
_BLOB_HASHES = {40: "sha1", 64: "sha256"}
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NON_BLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO put where a file was must not block the open
# Commit messages are evidence for rules, not content to review: a bounded sample is enough.
MAX_COMMITS = 200
MAX_COMMIT_TEXT = 64 * 1024
# Paths per `git grep` command line, well below any system's argument limit.
_GREP_PATHS = 1000


class SourceError(Exception):
    """The repository or a ref cannot be used; the message is one line for the user."""


class NoCommits(SourceError):
    """The repository has no commit yet (before its first `git commit`)."""


def _git(
    repo: Path,
    *args: str,
    check: bool = True,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    output: Callable[[bytes], None] | None = None,
    config: tuple[str, ...] = (),
    tree_attributes: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run git; output, when given, is handed what git prints as it prints it (stdout is kept too);
    config: `name=value` settings for this command alone; tree_attributes=False: run it where no
    .gitattributes of a tree can reach it (_without_tree_attributes)."""
    if not tree_attributes:
        with _without_tree_attributes(repo, env) as (cwd, plain_env, plain_config):
            return _run_git(cwd, args, check, plain_env, stdin, output, (*config, *plain_config))
    return _run_git(repo, args, check, env, stdin, output, config)


def _run_git(
    repo: Path,
    args: tuple[str, ...],
    check: bool,
    env: dict[str, str] | None,
    stdin: bytes | None,
    output: Callable[[bytes], None] | None,
    config: tuple[str, ...],
) -> subprocess.CompletedProcess[bytes]:
    command = _command(args, config)
    try:
        if output is None:
            proc = subprocess.run(
                command,
                cwd=repo,
                input=stdin,
                capture_output=True,
                timeout=_GIT_TIMEOUT,
                check=False,
                env=env,
            )
        else:
            proc = _streamed(command, repo, env, output)
    except FileNotFoundError:
        raise SourceError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"git {args[0]} took longer than {_GIT_TIMEOUT}s") from None
    if check and proc.returncode != 0:
        raise _failed(args[0], proc.returncode, proc.stderr)
    return proc


def _command(args: Iterable[str], config: tuple[str, ...] = ()) -> list[str]:
    # No pager, no external diff or textconv drivers: a repository's config must not run code.
    settings = [arg for setting in ("core.quotepath=off", *config) for arg in ("-c", setting)]
    return ["git", *settings, "--no-pager", *args]


# The git directory of each work tree's top, asked once a process (_locate learns it with the rest).
_GIT_DIRS: dict[Path, str] = {}


def _git_dir(top: Path) -> str:
    if top not in _GIT_DIRS:
        proc = _git(top, "rev-parse", "--absolute-git-dir")
        _GIT_DIRS[top] = os.fsdecode(proc.stdout).removesuffix("\n")
    return _GIT_DIRS[top]


@contextlib.contextmanager
def _without_tree_attributes(
    top: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[Path, dict[str, str], tuple[str, ...]]]:
    """Where to run git on top's repository, its environment and its config, so that no `.gitattributes`
    of the work tree or the index is read: an empty temporary work tree and index.

    The files a review diffs come from the pull request, and so would its `.gitattributes`: `*.py binary`
    (or `-diff`) in it made git print "Binary files differ" for every test file, which then counted as
    reviewed with no lines (issue 22). Reviewing commits needs no work tree, and git 2.39 has no option to
    read attributes from elsewhere (`--attr-source` came in 2.40). git runs from inside the empty tree:
    run from another folder it reads that folder's `.gitattributes`. The user's global and the system's
    attribute files are left out too, so the same commits give the same diff on every machine; only the
    repository's own $GIT_DIR/info/attributes remains, and a text file it makes binary is not reviewed
    (_binary_by_attribute).
    """
    git_dir = _git_dir(top)
    with tempfile.TemporaryDirectory(prefix="bot-git-") as tmp:
        tree = Path(tmp, "tree")
        tree.mkdir()
        plain = {
            **(os.environ if env is None else env),
            "GIT_DIR": git_dir,
            "GIT_WORK_TREE": str(tree),
            "GIT_INDEX_FILE": str(Path(tmp, "index")),  # never made: an empty index
            "GIT_ATTR_NOSYSTEM": "1",
        }
        yield tree, plain, (f"core.attributesFile={os.devnull}",)


def _failed(name: str, code: int, stderr: bytes) -> SourceError:
    """git's failure in one line: its last line of stderr, or its exit code."""
    msg = stderr.decode("utf-8", "replace").strip().splitlines()
    return SourceError(f"git {name} failed: {msg[-1] if msg else 'exit ' + str(code)}")


# Room in the pipe git writes to, past the usual 64 KiB: git need not stop each time it is 64 KiB ahead of
# the reader (Linux, up to fs.pipe-max-size, 1 MiB by default).
_PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    try:
        import fcntl
    except ImportError:
        return  # Windows: the default size works, only more slowly
    # Only where Python names the command (Linux): the same number may mean something else elsewhere.
    command = getattr(fcntl, "F_SETPIPE_SZ", None)
    if command is not None:
        try:
            fcntl.fcntl(fd, command, _PIPE_BYTES)
        except OSError:
            pass  # a smaller system limit: the pipe keeps its size


def _streamed(
    command: list[str], repo: Path, env: dict[str, str] | None, output: Callable[[bytes], None]
) -> subprocess.CompletedProcess[bytes]:
    """subprocess.run() of command, with its stdout handed to output piece by piece as git writes it."""
    proc = subprocess.Popen(command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout, proc.stderr
    assert out is not None and err is not None
    _widen(out.fileno())
    errors: list[bytes] = []
    # stderr in a thread: git must never wait on a full stderr pipe while this one reads stdout.
    drain = threading.Thread(target=lambda: errors.append(err.read()), daemon=True)
    drain.start()
    late = threading.Event()

    def stop() -> None:
        late.set()
        proc.kill()

    watchdog = threading.Timer(_GIT_TIMEOUT, stop)
    watchdog.start()
    parts: list[bytes] = []
    try:
        while data := os.read(out.fileno(), 1 << 18):  # what the pipe holds, as soon as it holds some
            parts.append(data)
            output(data)
    finally:
        watchdog.cancel()
        if proc.poll() is None and sys.exc_info()[0] is not None:
            proc.kill()
        proc.wait()
        drain.join()
        out.close()
        err.close()
    if late.is_set():
        raise subprocess.TimeoutExpired(command, _GIT_TIMEOUT)
    return subprocess.CompletedProcess(command, proc.returncode, b"".join(parts), b"".join(errors))


@dataclass
class _Search:
    """A `git grep` running in a thread for a later grep(): the paths asked, and what it found."""

    paths: frozenset[str]
    thread: threading.Thread | None = None
    found: frozenset[str] | None = None  # None: git could not tell
    error: SourceError | None = None  # raised by the later grep(), as a search made then would raise it


_UNKNOWN = ObjectInfo("", "", -1)  # not looked up yet


class GitReader:
    """Reads blobs of one repository: sizes first, then contents, from long-lived `git cat-file`s."""

    def __init__(self, repo: Path, limit: int = MAX_TEXT_BYTES) -> None:
        self.repo = repo
        self.limit = limit
        self._check = CatFile(repo, "--batch-check")
        self._batch = CatFile(repo, "--batch")
        self._paths: dict[str, tuple[str, ...]] = {}
        self._known: dict[tuple[str, str], ObjectInfo | None] = {}
        self.bytes_read = 0  # blob bytes that reached this process: the size cap keeps big files out
        self._ahead: dict[tuple[str, tuple[str, ...]], _Search] = {}  # searches started by grep_ahead

    @property
    def processes(self) -> int:
        """cat-file processes started so far (one per mode for a whole review)."""
        return self._check.started + self._batch.started

    def close(self) -> None:
        self._check.close()
        self._batch.close()

    def info(self, names: list[str]) -> list[ObjectInfo | None]:
        """Type and size of objects named `<rev>:<path>` or by SHA, without reading them."""
        return self._check.info(names)

    def remember(self, rev: str, path: str, info: ObjectInfo | None) -> None:
        """What is at rev:path, known already (from `git diff --raw`): looking a path up costs a tree walk."""
        self._known[(rev, path)] = info

    def _objects(self, rev: str, paths: list[str]) -> list[ObjectInfo | None]:
        todo = [p for p in paths if (rev, p) not in self._known]
        for path, info in zip(todo, self.info([f"{rev}:{p}" for p in todo]), strict=True):
            self._known[(rev, path)] = info
        return [self._known[(rev, p)] for p in paths]

    def _read_one(self, rev: str, path: str) -> bytes | None:
        # A name with a newline cannot go through the batch protocol: one process for it alone.
        size = _git(self.repo, "cat-file", "-s", f"{rev}:{path}", check=False)
        if size.returncode == 0 and int(size.stdout or 0) > self.limit:
            raise oversized(path, int(size.stdout))
        proc = _git(self.repo, "cat-file", "blob", f"{rev}:{path}", check=False)
        self.bytes_read += len(proc.stdout)
        return proc.stdout if proc.returncode == 0 else None

    def read(self, rev: str, path: str) -> bytes | None:
        # Symlinks are blobs holding their target: reading blobs never follows them.
        if "\n" in path:
            return self._read_one(rev, path)
        try:
            (head,) = self._objects(rev, [path])
            if head is None or head.type != "blob":
                return None
            if head.size > self.limit:
                raise oversized(path, head.size)
            data = self._from_worktree(path, head)
            if data is None:
                (data,) = self._batch.contents([head.sha])
        except CatFileError:
            return self._read_one(rev, path)
        self.bytes_read += len(data or b"")
        return data

    def read_many(self, rev: str, paths: list[str]) -> dict[str, bytes | None]:
        """Many blobs at rev in one batch; blobs over the size cap are left out (read() says why)."""
        paths = [p for p in dict.fromkeys(paths) if "\n" not in p]
        try:
            infos = self._objects(rev, paths)
            wanted = [(p, i) for p, i in zip(paths, infos, strict=True) if i and i.type == "blob"]
            small = [(p, i) for p, i in wanted if i.size <= self.limit]
            local = {p: data for p, i in small if (data := self._from_worktree(p, i)) is not None}
            small = [(p, i) for p, i in small if p not in local]
            blobs = self._batch.contents([i.sha for _, i in small])
        except CatFileError:
            return {}
        out: dict[str, bytes | None] = {
            p: None for p, i in zip(paths, infos, strict=True) if not i or i.type != "blob"
        }
        for path, data in [*local.items(), *zip((p for p, _ in small), blobs, strict=True)]:
            out[path] = data
            self.bytes_read += len(data or b"")
        return out

    def checked_out(self, path: str, sha: str) -> bytes | None:
        """The bytes of blob sha when the work tree's file at path holds exactly them (and is no larger
        than the size cap); else None. Asks git nothing, so it may run beside git's own work."""
        data = self._from_worktree(path, ObjectInfo(sha, "blob", -1))
        if data is not None:
            self.bytes_read += len(data)
        return data

    def _from_worktree(self, path: str, blob: ObjectInfo) -> bytes | None:
        """The work tree's copy of a blob, when the file there holds exactly its bytes; else None.

        Reading a checked-out file costs a fraction of asking git to inflate the object, and the blob id
        is the hash of the bytes (`blob <size>\\0<bytes>`), so a file that hashes to it is the blob: an
        edited, filtered (CRLF), missing or other-revision copy does not, and git is asked as before.
        A symbolic link is never opened (its blob is the link's target), nor anything but a regular
        file of the blob's size.
        """
        algorithm = _BLOB_HASHES.get(len(blob.sha))
        if algorithm is None or not blob.size or "\0" in path or "\n" in path:
            return None
        try:
            fd = os.open(self.repo / path, os.O_RDONLY | _NO_FOLLOW | _NON_BLOCK)
        except (OSError, ValueError):
            return None
        try:
            st = os.fstat(fd)
            size = blob.size if blob.size >= 0 else st.st_size  # -1: not known, the hash decides
            if not stat.S_ISREG(st.st_mode) or st.st_size != size or size > self.limit:
                return None
            data = os.read(fd, size + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(data) != size:
            return None
        digest = hashlib.new(algorithm, b"blob %d\0" % len(data), usedforsecurity=False)
        digest.update(data)
        return data if digest.hexdigest() == blob.sha else None

    def grep(self, rev: str, paths: list[str], words: tuple[str, ...]) -> frozenset[str]:
        """The paths whose blob at rev holds one of words (`git grep`, so nothing is read here).

        Blobs this reader knows to be over the size cap are not searched but returned: reading them raises
        the cap's error, as reading any file would; the others are searched, whatever their size. Missing
        paths and non-blobs are not returned. A search started ahead for these paths (grep_ahead) is
        waited for instead of searching again.
        """
        paths = [p for p in dict.fromkeys(paths) if "\n" not in p]
        if not paths or not words:
            return frozenset()
        ahead = self._ahead.get((rev, words))
        if ahead is not None and ahead.thread is not None and ahead.paths.issuperset(paths):
            ahead.thread.join()
            if ahead.error is not None:
                raise ahead.error
            return frozenset(paths) if ahead.found is None else ahead.found & frozenset(paths)
        big, todo = self._searchable(rev, paths)
        found = self._grep_blobs(rev, todo, words)
        return frozenset(paths) if found is None else frozenset((big | found) & set(paths))

    def grep_ahead(self, rev: str, paths: list[str], words: tuple[str, ...]) -> None:
        """Start the `git grep` a later grep() of these paths (or some of them) will ask for, in a thread.

        git searches while this process parses the test files; the answer is the same as searching later,
        since each path's answer depends on its blob at rev alone.
        """
        paths = [p for p in dict.fromkeys(paths) if "\n" not in p]
        if not paths or not words or (rev, words) in self._ahead:
            return
        big, todo = self._searchable(rev, paths)
        search = _Search(frozenset(paths))

        def run() -> None:
            try:
                found = self._grep_blobs(rev, todo, words)
            except SourceError as exc:
                search.error = exc
                return
            search.found = None if found is None else frozenset(big | found)

        search.thread = threading.Thread(target=run, daemon=True)
        self._ahead[(rev, words)] = search
        search.thread.start()

    def _searchable(self, rev: str, paths: list[str]) -> tuple[set[str], list[str]]:
        """The paths known to be over the size cap, and the rest, which `git grep` searches.

        Nothing is asked of git here: a path whose object is not known yet is searched as it is (`git
        grep` passes over a missing path or a submodule, and reads a large blob at C speed). Asking the
        sizes of every changed module first cost more than the search.
        """
        big: set[str] = set()
        todo: list[str] = []
        for path in paths:
            info = self._known.get((rev, path), _UNKNOWN)
            if info is _UNKNOWN:
                todo.append(path)
            elif info is not None and info.type == "blob":
                if info.size > self.limit:
                    big.add(path)
                else:
                    todo.append(path)
        return big, todo

    def _grep_blobs(self, rev: str, todo: list[str], words: tuple[str, ...]) -> set[str] | None:
        """The blobs among todo that hold one of words; None when git could not tell."""
        patterns = [arg for w in words for arg in ("-e", w)]
        prefix = f"{rev}:".encode()
        found: set[str] = set()
        for start in range(0, len(todo), _GREP_PATHS):
            chunk = todo[start : start + _GREP_PATHS]
            # Fixed strings, no textconv: the same test as looking for the word in the text.
            proc = _git(
                self.repo,
                "--literal-pathspecs",
                "grep",
                "-l",
                "-z",
                "-F",
                "--no-color",
                "--no-textconv",
                *patterns,
                rev,
                "--",
                *chunk,
                check=False,
                tree_attributes=False,  # the PR's `-diff` must not decide what is searched
            )
            if proc.returncode not in (0, 1):  # 1: no match
                return None  # cannot tell: every file may hold a word
            for name in proc.stdout.split(b"\0"):
                if name.startswith(prefix):
                    found.add(name[len(prefix) :].decode("utf-8", "surrogateescape"))
        return found

    def list_paths(self, rev: str) -> tuple[str, ...]:
        if rev not in self._paths:
            out = _git(self.repo, "ls-tree", "-r", "-z", "--name-only", rev).stdout
            self._paths[rev] = tuple(p.decode("utf-8", "replace") for p in out.split(b"\0") if p)
        return self._paths[rev]


def open_repo(path: str | Path) -> Path:
    """The top of the git work tree at path, or SourceError."""
    p = Path(path)
    if not p.is_dir():
        raise SourceError(f"not a directory: {p}")
    proc = _git(p, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        raise SourceError(f"not a git repository: {p}")
    top = Path(proc.stdout.decode().strip())
    if _git(top, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        raise NoCommits(f"repository has no commits: {top}")
    return top


def _branches(repo: Path) -> list[str]:
    proc = _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes", check=False)
    return [b for b in proc.stdout.decode("utf-8", "replace").split() if not b.endswith("/HEAD")]


def resolve(repo: Path, ref: str, option: str = "base") -> str:
    """The commit SHA a ref names, or SourceError naming the branches there are and the option (`base` or
    `head`) to give one with."""
    proc = _git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    if proc.returncode != 0:
        if ".." in ref:  # `--base main..fix`: a range where one ref belongs
            start, _, end = ref.replace("...", "..").partition("..")
            raise SourceError(
                f"--{option} {ref} is a range, not a ref: give it as `bot check {ref}`, or as "
                f"--base {start or 'BASE'} --head {end or 'HEAD'}"
            )
        known = _branches(repo)
        shown = ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
        hint = f"; branches here: {shown}. Name the {option} with --{option} BRANCH" if known else ""
        shallow = _git(repo, "rev-parse", "--is-shallow-repository", check=False).stdout.strip() == b"true"
        if shallow:  # the ref may well exist, just not in the little history a shallow clone fetched
            hint += f". This is a shallow clone: fetch it (`git fetch origin {ref}`) or the whole history"
        raise SourceError(f"unknown ref: {ref}{hint}")
    return proc.stdout.decode().strip()


def default_base(repo: Path) -> str:
    """The remote's default branch when there is one, else `main`, else `master` (when that exists)."""
    proc = _git(repo, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False)
    if proc.returncode == 0 and proc.stdout.strip():
        return proc.stdout.decode().strip()
    for name in ("main", "master"):
        if _git(repo, "rev-parse", "--verify", "-q", f"{name}^{{commit}}", check=False).returncode == 0:
            return name
    return "main"


def _no_common_ancestor(top: Path, base_ref: str, head: str) -> SourceError:
    shallow = _git(top, "rev-parse", "--is-shallow-repository", check=False).stdout.decode().strip()
    if shallow == "true":
        return SourceError(
            f"{base_ref} and {head} have no common ancestor in this shallow clone: fetch the history "
            "(`git fetch --unshallow`; in GitHub Actions, `actions/checkout` with `fetch-depth: 0`)"
        )
    return SourceError(f"{base_ref} and {head} have no common ancestor")


def current_branch(repo: Path, ref: str) -> str | None:
    """The branch name of ref when it is one (used as the PR's head ref in local mode)."""
    proc = _git(repo, "rev-parse", "--abbrev-ref", ref, check=False)
    name = proc.stdout.decode().strip()
    return name if proc.returncode == 0 and name and name != "HEAD" else None


def stored_credentials(repo: Path) -> tuple[str, ...]:
    """The git config keys of repo that hold an HTTP authorization header (`actions/checkout` saves the job's
    token as `http.https://github.com/.extraheader` unless `persist-credentials: false`): code run in the
    checkout could read the token there."""
    proc = _git(
        repo, "config", "--includes", "--name-only", "--get-regexp", r"^http\..*\.extraheader$", check=False
    )
    return tuple(line for line in proc.stdout.decode("utf-8", "replace").splitlines() if line)


def commit_messages(repo: Path, base: str, head: str) -> tuple[str, ...]:
    """The messages of the commits base..head, newest first, capped in number and total size."""
    proc = _git(repo, "log", f"--max-count={MAX_COMMITS}", "--format=%B%x00", f"{base}..{head}", check=False)
    if proc.returncode != 0:
        return ()
    out: list[str] = []
    room = MAX_COMMIT_TEXT
    for raw in proc.stdout.split(b"\0"):
        message = raw.decode("utf-8", "replace").strip()
        if not message:
            continue
        out.append(message[:room])
        room -= len(out[-1])
        if room <= 0:
            break
    return tuple(out)


# A subject that names the PR it merged: GitHub's squash "Title (#958)", merge "Merge pull request #958 from".
_NAMES_PR = re.compile(r"\(#(\d{1,9})\)[ \t]*$|^Merge pull request #(\d{1,9})\b")


def pr_number_of(subject: str) -> int | None:
    """The PR a squash or merge commit's subject names (`Fix the parser (#958)` -> 958), else None."""
    m = _NAMES_PR.search(subject.strip()[:1000])
    return int(m.group(1) or m.group(2)) if m is not None else None


def commit_units(repo: Path, base: str, head: str) -> tuple[CommitUnit, ...]:
    """The first-parent commits of base..head, newest first, each with the files it changes against its
    first parent and the PR its subject names; capped as commit_messages is."""
    proc = _git(
        repo,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--name-only",
        "-z",
        f"--max-count={MAX_COMMITS}",
        "--format=%x01%B%x02",
        f"{base}..{head}",
        check=False,
    )
    if proc.returncode != 0:
        return ()
    out: list[CommitUnit] = []
    room = MAX_COMMIT_TEXT
    for record in proc.stdout.split(b"\x01")[1:]:
        message_bytes, _, names = record.partition(b"\x02")
        message = message_bytes.decode("utf-8", "replace").strip()[: max(room, 0)]
        room -= len(message)
        paths = (n.decode("utf-8", "replace").strip("\n") for n in names.split(b"\0"))
        subject = message.split("\n", 1)[0]
        out.append(
            CommitUnit(message=message, paths=tuple(p for p in paths if p), number=pr_number_of(subject))
        )
    return tuple(out)


def _as_prs(units: tuple[CommitUnit, ...]) -> tuple[CommitUnit, ...]:
    """The units when the range is one of merged PRs (two or more of its commits name their PR), else ()."""
    return units if sum(1 for u in units if u.number is not None) >= 2 else ()


class RawChange(NamedTuple):
    """One record of `git diff --raw`: modes, blob ids, status letter and the path(s)."""

    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    status: str
    path: str
    old_path: str | None = None


_RAW_STATUS = {"A": FileStatus.ADDED, "D": FileStatus.REMOVED, "R": FileStatus.RENAMED, "C": FileStatus.ADDED}
_NO_BLOB = "0" * 40


def _binary_past(limit: int) -> tuple[str, ...]:
    """The setting under which git's diff takes a blob over limit bytes for binary and prints one line."""
    return (f"core.bigFileThreshold={limit}",)


def raw_changes(top: Path, base: str, head: str, limit: int = MAX_TEXT_BYTES) -> list[RawChange]:
    """The changed files base..head with their blob ids, as git pairs them (renames included): with the
    setting the diff of their lines has (_diff_command), so that both pair the same files."""
    args = ("diff", "--raw", "-z", "--no-abbrev", "--no-ext-diff", "--no-textconv", "-M", base, head)
    out = _git(top, *args, config=_binary_past(limit), tree_attributes=False)
    fields = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    changes: list[RawChange] = []
    i = 0
    while i + 1 < len(fields) and fields[i].startswith(":"):
        meta = fields[i][1:].split()
        if len(meta) < 5:
            raise SourceError("git diff --raw printed a record it does not document")
        old_mode, new_mode, old_sha, new_sha, status = meta[:5]
        if status[0] in "RC":
            changes.append(
                RawChange(old_mode, new_mode, old_sha, new_sha, status[0], fields[i + 2], fields[i + 1])
            )
            i += 3
        else:
            changes.append(RawChange(old_mode, new_mode, old_sha, new_sha, status[0], fields[i + 1]))
            i += 2
    return changes


# The diff is parsed in a forked child only past this many changed blobs: for a small diff, making the
# child costs more than the parsing it takes away.
_FORK_PAST = 256


def _blob_shas(changes: list[RawChange]) -> list[str]:
    return sorted({s for c in changes for s in (c.old_sha, c.new_sha) if s != _NO_BLOB})


def _attribute_paths(changes: list[RawChange]) -> list[str]:
    return list(dict.fromkeys(p for c in changes for p in (c.old_path or c.path, c.path)))


def _diff_attributes(top: Path, changes: list[RawChange]) -> dict[str, str] | None:
    """The changed paths with a `diff` attribute, and its value (set, unset or a driver's name); usually
    none, since no tree's attributes are read (_without_tree_attributes): only the repository's own
    $GIT_DIR/info/attributes can give one. None when git gives no answer it documents.

    `git check-attr` reads the same attribute files as the diff, and runs nothing.
    """
    paths = [p for p in _attribute_paths(changes) if "\0" not in p]
    if not paths:
        return {}
    asked = "\0".join(paths).encode("utf-8", "surrogateescape") + b"\0"
    out = _git(top, "check-attr", "-z", "--stdin", "diff", stdin=asked, check=False, tree_attributes=False)
    fields = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    # path, attribute, value; repeated, and a last empty field after the final NUL.
    if out.returncode != 0 or len(fields) % 3 != 1:
        return None
    return {fields[i]: fields[i + 2] for i in range(0, len(fields) - 1, 3) if fields[i + 2] != "unspecified"}


def _may_print_as_text(changes: list[RawChange], attributes: dict[str, str] | None) -> set[str]:
    """The changed paths whose `diff` attribute may make git print them as text whatever their size: set
    (`*.dat diff`), or a named driver, whose config may say the same. Every path when git could not say.

    Without one, git's diff takes a blob over core.bigFileThreshold for binary and prints one line for it.
    """
    if attributes is None:
        return set(_attribute_paths(changes))  # no answer: size them all, as before
    return {path for path, value in attributes.items() if value != "unset"}


# git takes a blob for binary when its first 8,000 bytes hold a NUL (xdiff-interface.c, buffer_is_binary).
_BINARY_PEEK = 8000


def _binary_by_attribute(
    reader: GitReader,
    files: tuple[FileChange, ...],
    changes: list[RawChange],
    attributes: dict[str, str] | None,
    base: str,
    head: str,
) -> list[RawChange]:
    """The changes git printed as binary only because an attribute said so: a `diff` attribute applies
    (or git could not say) and no side's blob looks binary to git itself. Such a file's lines were never
    shown, so it is not reviewed (issue 22): a review that trusted "Binary files differ" counted a test
    file it never read as reviewed. Only these few blobs are read, and only those under the size cap.
    """
    binary = {f.path for f in files if f.binary}
    suspects = [
        c
        for c in changes
        if c.path in binary and (attributes is None or {c.path, c.old_path or c.path} & attributes.keys())
    ]
    out = []
    for c in suspects:
        sides = [(base, c.old_path or c.path, c.old_sha), (head, c.path, c.new_sha)]
        blobs = []
        for rev, path, sha in sides:
            if sha == _NO_BLOB:
                continue
            try:
                blobs.append(reader.read(rev, path))
            except UnreadableFile:  # over the cap: listed as not reviewed already
                blobs.append(None)
        if all(data is not None and b"\0" not in data[:_BINARY_PEEK] for data in blobs):
            out.append(c)
    return out


def _too_large(reader: GitReader, changes: list[RawChange], base: str, head: str) -> list[RawChange]:
    """Changes with a side over the size cap, found from blob sizes alone (nothing is read).

    The reader keeps what it learns for the reads that follow.
    """
    shas = _blob_shas(changes)
    try:
        sizes = dict(zip(shas, reader.info(shas), strict=True))
    except CatFileError as exc:
        raise SourceError(str(exc)) from None
    for c in changes:
        if c.old_sha != _NO_BLOB and sizes.get(c.old_sha) is not None:
            reader.remember(base, c.old_path or c.path, sizes[c.old_sha])
        if c.new_sha != _NO_BLOB and sizes.get(c.new_sha) is not None:
            reader.remember(head, c.path, sizes[c.new_sha])

    def big(sha: str) -> bool:
        info = sizes.get(sha)
        return info is not None and info.type == "blob" and info.size > reader.limit

    return [c for c in changes if big(c.old_sha) or big(c.new_sha)]


def _unreviewed(change: RawChange) -> FileChange:
    # Counted, not reviewed, as GitHub does with a file whose patch it will not show.
    status = _RAW_STATUS.get(change.status, FileStatus.MODIFIED)
    return FileChange(
        path=change.path,
        status=status,
        old_path=change.old_path if status is FileStatus.RENAMED else None,
        patch_missing=True,
        symlink=status is not FileStatus.REMOVED and change.new_mode == "120000",
    )


def changed_files(
    top: Path,
    base: str,
    head: str,
    reader: GitReader | None = None,
    meanwhile: Callable[[list[RawChange]], None] | None = None,
    idle: Iterable[Callable[[], None]] = (),
) -> tuple[FileChange, ...]:
    """The diff base..head as FileChanges; a file over the size cap is listed without being diffed.

    A PR adding a 50 MB file must not cost a 50 MB diff parsed line by line (issue 10). git's diff takes
    a blob over the cap for binary (core.bigFileThreshold) and prints one line for it; such files are
    then sized (only those git found binary) and marked patch_missing, so the review counts them as not
    reviewed. A path whose `diff` attribute may make git print it as text anyway is sized first and, over
    the cap, left out of the diff by pathspec. meanwhile(changes), when given, runs while git works; then
    each task of idle, as long as the diff is not in yet.
    """
    reader = reader or GitReader(top)
    limit = reader.limit
    changes = raw_changes(top, base, head, limit)
    attributes = _diff_attributes(top, changes)
    texty = _may_print_as_text(changes, attributes)
    big = (
        _too_large(reader, [c for c in changes if {c.path, c.old_path} & texty], base, head) if texty else []
    )
    # git diffs in its own process while this one does what needs only the blob ids (meanwhile: parsing
    # the head's test files takes about as long as git's diff). For a large diff, where fork() is safe, a
    # child runs `git diff` and parses it beside that; otherwise git writes the diff to a file (no thread
    # of ours waits on a pipe), parsed after.
    parsing: forked.Pending | None = None
    diff: _Background | None = None
    arrived: Callable[[], bool]
    collect: Callable[[], tuple[FileChange, ...]]
    if len(_blob_shas(changes)) > _FORK_PAST and forked.can_fork():
        parsing = forked.start(functools.partial(_diff_files, top, base, head, big, limit))
        arrived, collect = parsing.ready, parsing.result
    else:
        background = diff = _Background(top, *_diff_command(base, head, big, limit))
        arrived, collect = background.done, lambda: _parse(background.output())
    try:
        if meanwhile is not None:
            with paused():
                meanwhile(changes)
        for task in idle:
            if arrived():
                break
            _spare(task)
        files = collect()
    finally:
        if parsing is not None:
            parsing.cancel()
        if diff is not None:
            diff.stop()
    return _listed(reader, files, changes, big, base, head, attributes)


def _spare(task: Callable[[], None]) -> None:
    """Run work done ahead only to save time later: a fault in it is met again, and said, where the work
    is needed."""
    try:
        task()
    except Exception:  # noqa: BLE001, S110 - see the docstring
        pass


def _diff_files(top: Path, base: str, head: str, big: list[RawChange], limit: int) -> tuple[FileChange, ...]:
    """The parsed diff base..head without the files in big, read as git writes it: the files already
    written are parsed while git diffs the next ones."""
    reading = DiffReader()
    args, config = _diff_command(base, head, big, limit)
    try:
        with paused():
            diff = _git(top, *args, output=reading.feed, config=config, tree_attributes=False)
            return reading.finish(diff.stdout)
    except DiffError as exc:
        raise SourceError(str(exc)) from None


def _parse(diff: bytes) -> tuple[FileChange, ...]:
    try:
        with paused():
            return parse_diff(diff.decode("utf-8", "replace"))
    except DiffError as exc:
        raise SourceError(str(exc)) from None


def _diff_command(
    base: str, head: str, big: list[RawChange], limit: int
) -> tuple[list[str], tuple[str, ...]]:
    """The diff's arguments, and its config: blobs over limit are binary to it."""
    excluded = [f":(top,exclude,literal){p}" for c in big for p in (c.path, c.old_path) if p]
    args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", base, head]
    return [*args, *(["--", *excluded] if excluded else [])], _binary_past(limit)


def _listed(
    reader: GitReader,
    files: tuple[FileChange, ...],
    changes: list[RawChange],
    big: list[RawChange],
    base: str,
    head: str,
    attributes: dict[str, str] | None = None,
) -> tuple[FileChange, ...]:
    """files, with the changes over the cap listed as not reviewed, in git's order: those left out of the
    diff (big), and those git printed no line of (found binary, or renamed or copied unchanged) whose
    blobs turn out to be over the cap; then the text files an attribute made git print as binary."""
    lineless = {f.path for f in files if f.binary or not f.hunks}
    if lineless:
        big = big + _too_large(reader, [c for c in changes if c.path in lineless], base, head)
    if attributes != {}:
        seen = {c.path for c in big}
        unseen = tuple(f for f in files if f.path not in seen)
        big = big + _binary_by_attribute(reader, unseen, changes, attributes, base, head)
    if not big:
        return files
    over = {c.path for c in big}
    order = {c.path: n for n, c in enumerate(changes)}
    kept = [f for f in files if f.path not in over]
    listed = sorted([*kept, *(_unreviewed(c) for c in big)], key=lambda f: order.get(f.path, len(order)))
    return tuple(listed)


class _Background:
    """A git command that writes to unnamed temporary files while this process does other work."""

    def __init__(self, repo: Path, args: list[str], config: tuple[str, ...] = ()) -> None:
        self.args = args
        self.deadline = time.monotonic() + _GIT_TIMEOUT
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        # The diff of the PR's commits: with no attributes from any tree, kept until git is done.
        self._plain = contextlib.ExitStack()
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            cwd, env, plain_config = self._plain.enter_context(_without_tree_attributes(repo))
            self.proc = subprocess.Popen(
                _command(args, (*config, *plain_config)),
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self.out,
                stderr=self.err,
            )
        except FileNotFoundError:
            self.stop()
            raise SourceError("git is not installed or not on PATH") from None
        except BaseException:
            self.stop()
            raise

    def output(self) -> bytes:
        """What git printed, once it is done; SourceError as _git() says it when git fails or is late."""
        if self.proc is None:
            raise SourceError(f"git {self.args[0]} was stopped")
        try:
            code = self.proc.wait(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            raise SourceError(f"git {self.args[0]} took longer than {_GIT_TIMEOUT}s") from None
        self.out.seek(0)
        self.err.seek(0)
        out, err = self.out.read(), self.err.read()
        self.stop()
        if code != 0:
            raise _failed(self.args[0], code, err)
        return out

    def done(self) -> bool:
        """Whether git has finished (output() would not wait)."""
        return self.proc is None or self.proc.poll() is not None

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
        self.out.close()
        self.err.close()
        self._plain.close()


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _locate(path: Path, base: str | None, head: str) -> tuple[Path, str, str, str, str | None] | None:
    """The work tree's top, the base ref, the head and base commits and the head's branch name, from one
    `git rev-parse` (open_repo, resolve twice and current_branch cost five); None when any part fails or
    looks odd, and the caller goes step by step to say which."""
    if not path.is_dir():
        return None
    base_ref = base or default_base(path)
    if any(ref.startswith("-") or not ref.strip() or "\n" in ref for ref in (base_ref, head)):
        return None
    proc = _git(
        path,
        "rev-parse",
        "--show-toplevel",
        "--absolute-git-dir",
        "HEAD^{commit}",  # a repository with no commits fails here, as open_repo would
        f"{head}^{{commit}}",
        f"{base_ref}^{{commit}}",
        "--abbrev-ref",  # prints nothing for a ref that is no branch
        head,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")
    if proc.returncode != 0 or len(lines) not in (6, 7) or lines[-1]:
        return None
    top, git_dir, head_commit, head_sha, base_sha = lines[:5]
    if not (top and _SHA.fullmatch(head_commit) and _SHA.fullmatch(head_sha) and _SHA.fullmatch(base_sha)):
        return None  # "^main" or "a..b" print more or other than one commit each
    if git_dir:
        _GIT_DIRS[Path(top)] = git_dir
    name = lines[5] if len(lines) == 7 else ""
    return Path(top), base_ref, head_sha, base_sha, name if name and name != "HEAD" else None


def load_changeset(
    repo: str | Path,
    base: str | None = None,
    head: str = "HEAD",
    pr: PullRequest | None = None,
    commits: bool = True,
    idle: Iterable[Callable[[], None]] = (),
    left_out: tuple[str, ...] = (),
) -> ChangeSet:
    """The changes from the merge-base of base and head to head, as a pull request would show them.

    Without a PR title or description (plain `bot check`), and unless commits is False, the commit
    messages of base..head are kept on the PullRequest: they are what a local user has written. idle:
    work for later that needs no change set (bot.review.engine.warm_ups), done while the loader would
    otherwise wait on git. left_out: files added at head that were kept out of it for their size (the
    working tree's untracked files over the cap, bot.git.worktree): listed as not reviewed.
    """
    located = _locate(Path(repo), base, head)
    if located is not None:
        top, base_ref, head_sha, base_tip, branch = located
    else:  # step by step, so that the error says which part is wrong
        top = open_repo(repo)
        base_ref = base or default_base(top)
        head_sha = resolve(top, head, "head")
        base_tip = resolve(top, base_ref)
        branch = current_branch(top, head)
    proc = _git(top, "merge-base", base_tip, head_sha, check=False)
    if proc.returncode != 0:
        raise _no_common_ancestor(top, base_ref, head)
    merge_base = proc.stdout.decode().strip()
    reader = GitReader(top)
    info = pr or PullRequest()
    messages = commits and not (info.title or info.body or info.commits)
    parsed: dict[str, tuple[str, object]] = {}
    logged: list[tuple[str, ...]] = []
    units: list[tuple[CommitUnit, ...]] = []

    def meanwhile(changes: list[RawChange]) -> None:
        parsed.update(_tests_ahead(reader, changes))
        # Work that needs no diff, done while git diffs: the review lists the base tree for its policy.
        reader.list_paths(merge_base)
        if messages:
            logged.append(commit_messages(top, merge_base, head_sha))
            # Per-commit units matter only where a commit names its PR; most branches have none, and the
            # second `git log` would be thrown away.
            if any(pr_number_of(m.split("\n", 1)[0]) is not None for m in logged[0]):
                units.append(commit_units(top, merge_base, head_sha))

    files = changed_files(top, merge_base, head_sha, reader, meanwhile, idle)
    if left_out:
        listed = {f.path for f in files}
        extra = [FileChange(path=p, status=FileStatus.ADDED, patch_missing=True) for p in left_out]
        files = (*files, *(f for f in extra if f.path not in listed))
    # The base ref only says where the diff starts (it may be a SHA or HEAD~3); which branch the PR will
    # target is known only when the caller says so (`bot check --base-branch`).
    if info.head_ref is None:
        info = info.model_copy(update={"head_ref": branch})
    if logged:
        info = info.model_copy(update={"commits": logged[0]})
    if units:
        # One merged PR reviewed (a squash commit, or a merge and its commits): its subject gives the PR's
        # number, as `--pr-number` would; a range of several merged PRs is reviewed PR by PR.
        if len(units[0]) == 1 and info.number is None:
            info = info.model_copy(update={"number": units[0][0].number})
        info = info.model_copy(update={"units": _as_prs(units[0])})
    changeset = ChangeSet(base_sha=merge_base, head_sha=head_sha, files=files, pr=info, reader=reader)
    for path, (text, ahead) in parsed.items():
        changeset.prepare(head_sha, path, text, ahead)
    return changeset


def _tests_ahead(reader: GitReader, changes: list[RawChange]) -> dict[str, tuple[str, object]]:
    """The head's test files (as pytest collects them by default) that are checked out as they are at
    head, read, parsed and their tests collected while git writes the diff: their text and
    rules.testcode.testfiles.ReadAhead, by path.

    The rules would read, parse and collect them next (rules.testcode.testfiles), with the same parser and
    collector; a file that is not checked out as it is at head, is no text or does not parse is left to
    them, and so are the tests of a file the repository's own settings collect otherwise.
    """
    out: dict[str, tuple[str, object]] = {}
    for c in changes:
        if c.status == "D" or c.new_mode not in ("100644", "100755") or collects(c.path) is None:
            continue
        data = reader.checked_out(c.path, c.new_sha)
        if data is None:
            continue
        try:
            text = decode_python(c.path, data)  # as the change set decodes it (PEP 263)
            ahead = read_ahead(c.path, text)
        except Exception:  # noqa: BLE001 - no text, no parse or a fault in collecting: the rules' to report
            continue
        if ahead is not None:
            out[c.path] = (text, ahead)
    return out
