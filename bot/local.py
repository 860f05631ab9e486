"""A ChangeSet from a local git repository, read with git itself: nothing is imported or executed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.diff import DiffError, parse_diff
from bot.models import ChangeSet, PullRequest

_GIT_TIMEOUT = 120
# Commit messages are evidence for rules, not content to review: a bounded sample is enough.
MAX_COMMITS = 200
MAX_COMMIT_TEXT = 64 * 1024


class SourceError(Exception):
    """The repository or a ref cannot be used; the message is one line for the user."""


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    try:
        proc = subprocess.run(
            # No pager, no external diff or textconv drivers: a repository's config must not run code.
            ["git", "-c", "core.quotepath=off", "--no-pager", *args],
            cwd=repo,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise SourceError("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"git {args[0]} took longer than {_GIT_TIMEOUT}s") from None
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]} failed: {msg[-1] if msg else 'exit ' + str(proc.returncode)}")
    return proc


class GitReader:
    """Reads blobs and trees of one repository with `git cat-file` and `git ls-tree`."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._paths: dict[str, tuple[str, ...]] = {}

    def read(self, rev: str, path: str) -> bytes | None:
        # Symlinks are blobs holding their target: reading blobs never follows them.
        proc = _git(self.repo, "cat-file", "blob", f"{rev}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def read_many(self, rev: str, paths: list[str]) -> dict[str, bytes | None]:
        """Many blobs at rev from one `git cat-file --batch`: a process per file dominates a review."""
        paths = [p for p in paths if "\n" not in p]
        request = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8")
        try:
            proc = subprocess.run(
                ["git", "--no-pager", "cat-file", "--batch"],
                cwd=self.repo,
                input=request,
                capture_output=True,
                timeout=_GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return {}
        out: dict[str, bytes | None] = {}
        data, pos = proc.stdout, 0
        for path in paths:
            end = data.find(b"\n", pos)
            if end < 0:
                break
            header = data[pos:end].split()
            if len(header) == 3 and header[2].isdigit():
                # "<sha> <type> <size>", then the contents whatever the type: a tree's must be skipped too.
                size = int(header[2])
                out[path] = data[end + 1 : end + 1 + size] if header[1] == b"blob" else None
                pos = end + 1 + size + 1
            else:  # "<object> missing" or "<object> ambiguous": no contents follow
                out[path] = None
                pos = end + 1
        return out

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
        raise SourceError(f"repository has no commits: {top}")
    return top


def resolve(repo: Path, ref: str) -> str:
    """The commit SHA a ref names, or SourceError."""
    proc = _git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise SourceError(f"unknown ref: {ref}")
    return proc.stdout.decode().strip()


def default_base(repo: Path) -> str:
    """The remote's default branch when there is one, else `main`."""
    proc = _git(repo, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False)
    if proc.returncode == 0 and proc.stdout.strip():
        return proc.stdout.decode().strip()
    return "main"


def current_branch(repo: Path, ref: str) -> str | None:
    """The branch name of ref when it is one (used as the PR's head ref in local mode)."""
    proc = _git(repo, "rev-parse", "--abbrev-ref", ref, check=False)
    name = proc.stdout.decode().strip()
    return name if proc.returncode == 0 and name and name != "HEAD" else None


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


def load_changeset(
    repo: str | Path,
    base: str | None = None,
    head: str = "HEAD",
    pr: PullRequest | None = None,
    commits: bool = True,
) -> ChangeSet:
    """The changes from the merge-base of base and head to head, as a pull request would show them.

    Without a PR title or description (plain `bot check`), and unless commits is False, the commit
    messages of base..head are kept on the PullRequest: they are what a local user has written.
    """
    top = open_repo(repo)
    base_ref = base or default_base(top)
    head_sha = resolve(top, head)
    base_tip = resolve(top, base_ref)
    proc = _git(top, "merge-base", base_tip, head_sha, check=False)
    if proc.returncode != 0:
        raise SourceError(f"{base_ref} and {head} have no common ancestor")
    merge_base = proc.stdout.decode().strip()
    diff = _git(top, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", merge_base, head_sha)
    try:
        files = parse_diff(diff.stdout.decode("utf-8", "replace"))
    except DiffError as exc:
        raise SourceError(str(exc)) from None
    info = pr or PullRequest()
    # The base ref only says where the diff starts (it may be a SHA or HEAD~3); which branch the PR will
    # target is known only when the caller says so (`bot check --base-branch`).
    if info.head_ref is None:
        info = info.model_copy(update={"head_ref": current_branch(top, head)})
    if commits and not (info.title or info.body or info.commits):
        info = info.model_copy(update={"commits": commit_messages(top, merge_base, head_sha)})
    return ChangeSet(base_sha=merge_base, head_sha=head_sha, files=files, pr=info, reader=GitReader(top))
