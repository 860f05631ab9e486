"""Shared fixtures: real temporary git repositories."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# tests/fixtures holds real projects' test files as data (tests/fixtures/real): never collected here.
collect_ignore_glob = ["fixtures/*"]

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    # No `git maintenance run --auto` after each commit: a second process per commit, half its cost, for
    # repositories that live a few seconds.
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "maintenance.auto",
    "GIT_CONFIG_VALUE_0": "false",
}


NETWORK_ENV = "BOT_TEST_NETWORK"  # set to 1 to run the tests marked `network`

# Property tests draw the same examples on every run of the README's command, so that a result does not
# depend on luck; `pytest --hypothesis-profile=explore` draws new ones (and has found real bugs).
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile("repeatable")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"network: reaches the internet; skipped unless {NETWORK_ENV}=1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(NETWORK_ENV) == "1":
        return
    skip = pytest.mark.skip(reason=f"reaches the internet: run with {NETWORK_ENV}=1")
    for item in items:
        if "network" in item.keywords:
            item.add_marker(skip)


_LOOPBACK = ("127.", "::1", "localhost")


@pytest.fixture(autouse=True)
def _no_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The default run is hermetic: a connection from this process to anything but loopback fails loudly
    (HTTP to GitHub goes through `responses`, which never opens a socket)."""
    if request.node.get_closest_marker("network"):
        yield
        return
    real = socket.socket.connect

    def connect(sock: socket.socket, address):  # type: ignore[no-untyped-def]
        host = address[0] if isinstance(address, tuple) else str(address)
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
            raise RuntimeError(f"test tried to reach {host}: mark it `network` (see README)")
        return real(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield


@pytest.fixture(autouse=True)
def _loggers_as_they_were():
    """`bot review` and `bot publish` set up the "bot" logger (their own stderr handler, no propagation) and
    quieten PyGithub's: each test starts from the loggers as they were, so caplog sees every record."""
    saved = {
        name: (logger.handlers[:], logger.propagate, logger.level)
        for name in ("bot", "github")
        for logger in (logging.getLogger(name),)
    }
    yield
    for name, (handlers, propagate, level) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:], logger.propagate, logger.level = handlers, propagate, level


_EMPTY_REPO: list[Path] = []  # this process's `git init` result, copied for each new repository


def _empty_repo() -> Path:
    """The .git of a freshly initialised repository (branch main, no sample hooks), made once a process."""
    if not _EMPTY_REPO:
        top = Path(tempfile.mkdtemp(prefix="bot-tests-empty-repo-"))
        atexit.register(shutil.rmtree, top, True)
        env = {**os.environ, **GIT_ENV, "HOME": str(top)}
        subprocess.run(["git", "init", "-q", "-b", "main", "--template=", str(top)], env=env, check=True)
        _EMPTY_REPO.append(top / ".git")
    return _EMPTY_REPO[0]


class GitRepo:
    """A throwaway git repository with helpers to write files and commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        if (path / ".git").exists():
            self.git("init", "-q", "-b", "main")
        else:  # what `git init` makes, copied: a test builds hundreds of these
            shutil.copytree(_empty_repo(), path / ".git")

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV, "HOME": str(self.path)}
        proc = subprocess.run(["git", *args], cwd=self.path, env=env, capture_output=True, check=True)
        return proc.stdout.decode()

    def write(self, files: dict[str, str | bytes | None]) -> None:
        """Write (str/bytes) or delete (None) files."""
        for rel, content in files.items():
            target = self.path / rel
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")

    def commit(self, files: dict[str, str | bytes | None] | None = None, message: str = "change") -> str:
        if files:
            self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        """HEAD's commit, read from the ref file a fresh commit leaves (no process); rev-parse otherwise."""
        dot_git = self.path / ".git"
        head = (dot_git / "HEAD").read_text(encoding="ascii").strip()
        ref = dot_git / head.removeprefix("ref: ") if head.startswith("ref: ") else None
        sha = head if ref is None else ref.read_text(encoding="ascii").strip() if ref.is_file() else ""
        return sha if len(sha) == 40 else self.git("rev-parse", "HEAD").strip()

    def branch(self, name: str) -> None:
        self.git("checkout", "-q", "-b", name)

    def import_pr(self, base: dict[str, str | bytes | None], head: dict[str, str | bytes | None]) -> None:
        """Commit base on main and head on top of it on branch `pr` with one `git fast-import`, then check pr
        out: what commit, branch and commit do in a new repository (no .gitignore is read), in 3 processes
        instead of 6."""
        stream = bytearray()
        for mark, (branch, files) in enumerate((("main", base), ("pr", head)), start=1):
            message = b"base\n" if mark == 1 else b"head\n"
            stream += b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), mark)
            stream += b"committer Test <test@invalid> now\ndata %d\n%s" % (len(message), message)
            stream += b"from :1\n" if mark == 2 else b""
            for rel, content in files.items():
                if content is None:
                    stream += b"D %s\n" % _quoted(rel)
                    continue
                data = content if isinstance(content, bytes) else content.encode("utf-8")
                stream += b"M 100644 inline %s\ndata %d\n%s\n" % (_quoted(rel), len(data), data)
        env = {**os.environ, **GIT_ENV, "HOME": str(self.path)}
        subprocess.run(
            ["git", "fast-import", "--quiet", "--date-format=now"],
            cwd=self.path, env=env, input=bytes(stream), capture_output=True, check=True,
        )  # fmt: skip
        self.git("checkout", "-q", "-f", "pr")


def _quoted(path: str) -> bytes:
    """A path as fast-import reads it, C-quoted: any byte but a quote, a backslash or a control stays."""
    out = bytearray(b'"')
    for byte in os.fsencode(path):
        if byte in b'"\\':
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path: Path):
    """Build a repo with a base commit on main and a head commit on branch `pr`."""

    built: list[GitRepo] = []

    def build(base: dict[str, str | bytes | None], head: dict[str, str | bytes | None]) -> GitRepo:
        # A test may build more than one: each its own folder (a second import into the first repository
        # fails when the clock has moved on a second, as `main` would no longer fast-forward).
        r = GitRepo(tmp_path / ("pr-repo" if not built else f"pr-repo-{len(built)}"))
        r.import_pr(base, head)
        built.append(r)
        return r

    return build


@pytest.fixture
def gh():
    """A fake GitHub (api.github.com) whose every mocked body is checked against GitHub's schemas."""
    import responses

    from tests.ghapi import FakeGitHub

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield FakeGitHub(rsps)


def github_client(fake, retry=None):
    """A PyGithub-backed client for the fake: no throttling, and retries only as the case configures."""
    from bot.github.client import BoundedRetry, connect

    return connect(
        "ghs_testtoken123", fake.repo, fake.base_url, retry=retry or BoundedRetry(total=2), throttle=False
    )
