"""Bundled examples: a base tree, a head overlay and a PR description, built into a real git repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

# Imported where used: every command imports ExampleError, and only `bot example` builds an example.
if TYPE_CHECKING:
    from rules.core.models import ChangeSet, PullRequest


class ExampleError(Exception):
    """The example folder is not usable."""


_ENV = {
    "GIT_AUTHOR_NAME": "bot example",
    "GIT_AUTHOR_EMAIL": "example@invalid",
    "GIT_COMMITTER_NAME": "bot example",
    "GIT_COMMITTER_EMAIL": "example@invalid",
    "GIT_AUTHOR_DATE": "2026-06-30T12:00:00Z",
    "GIT_COMMITTER_DATE": "2026-06-30T12:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


def _git(repo: Path, *args: str) -> None:
    import os

    env = {**os.environ, **_ENV}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _copy_tree(src: Path, dest: Path) -> None:
    for item in sorted(src.rglob("*")):
        # pip byte-compiles the installed examples' Python files: their caches are no part of the example
        # (copied, they were reviewed as changed files and changed the commits' SHAs with each install).
        if "__pycache__" in item.relative_to(src).parts or item.suffix in (".pyc", ".pyo"):
            continue
        if item.is_file():
            target = dest / item.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item, target)


def read_pr(folder: Path) -> PullRequest:
    """pr.md: `# title` on the first line, then an optional `number: N` line, then the body."""
    from rules.core.models import PullRequest

    path = folder / "pr.md"
    if not path.is_file():
        return PullRequest()
    lines = path.read_text(encoding="utf-8").splitlines()
    title = lines[0].lstrip("# ").strip() if lines else ""
    number = None
    body_lines = lines[1:]
    if body_lines and body_lines[0].lower().startswith("number:"):
        try:
            number = int(body_lines[0].split(":", 1)[1])
        except ValueError:
            raise ExampleError(f"{path}: the `number:` line must hold a whole number") from None
        body_lines = body_lines[1:]
    return PullRequest(number=number, title=title, body="\n".join(body_lines).strip())


def build_repo(folder: Path, dest: Path) -> Path:
    """A git repository at dest: `main` holds folder/base, branch `pr` adds folder/head on top."""
    base, head = folder / "base", folder / "head"
    if not base.is_dir() or not head.is_dir():
        raise ExampleError(f"{folder} is not an example (it needs base/ and head/ folders)")
    repo = dest / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _copy_tree(base, repo)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    removed = head / ".removed"
    _copy_tree(head, repo)
    if removed.is_file():
        for rel in removed.read_text(encoding="utf-8").split():
            (repo / rel).unlink(missing_ok=True)
        (repo / ".removed").unlink()
    _git(repo, "add", "-A")
    # The commit carries the PR's title and description, as a squash merge does: `bot check` on the built
    # repository, given no title, reads the same evidence from it.
    pr = read_pr(folder)
    _git(repo, "commit", "-q", "-m", pr.title or "pull request", *(["-m", pr.body] if pr.body else []))
    return repo


def bundled() -> dict[str, Path]:
    """The examples installed with the package (the repository's `examples/`), by name."""
    here = Path(__file__).resolve().parents[1]  # the bot package, beside which the examples install
    root = here / "example_prs"  # where a wheel installs them (pyproject.toml maps `examples/` there)
    if not root.is_dir():  # a source checkout, installed editable or run in place
        root = here.parent / "examples"
    if not root.is_dir():
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "base").is_dir() and (p / "head").is_dir()}


def describe(folder: Path) -> str:
    """An example's one-line description: the title of its pr.md."""
    try:
        return read_pr(folder).title
    except (OSError, UnicodeDecodeError, ExampleError):
        return ""


def find(name_or_path: str | Path) -> Path:
    """An example folder: a path to one, or the name of a bundled one (`mobile300`)."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    known = bundled()
    if path.name in known and len(path.parts) <= 2:  # `mobile300`, or `examples/mobile300` outside a clone
        return known[path.name]
    names = ", ".join(known) or "none"
    raise ExampleError(f"no example called `{str(name_or_path)[:80]}`; bundled examples: {names}")


def runs_tests(name_or_path: str | Path) -> bool:
    """Whether the example asks `bot example` to run its tests (a `verify-tests` file beside pr.md)."""
    return (find(name_or_path) / "verify-tests").is_file()


def materialize(folder: Path, dest: Path) -> ChangeSet:
    """Build the example's repository under dest and load its change set, as `bot check` would."""
    from bot.git.local import load_changeset

    folder = find(folder)
    repo = build_repo(folder, dest)
    pr = read_pr(folder).model_copy(update={"base_ref": "main", "head_ref": "pr"})
    return load_changeset(repo, base="main", head="pr", pr=pr)
