"""What import-linter cannot see (tests/test_architecture.py runs its contracts): no file or environment
reads in rules/, one PyGithub importer, one environment reader, and no network in the suite."""

import ast
import socket
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _uses(path: Path, attr: str) -> bool:
    return attr in path.read_text(encoding="utf-8")


def test_rules_read_no_files_and_no_environment():
    # Calls, not imports: `pathlib` is fine for path arithmetic, reading through it is not.
    for path in sorted((ROOT / "rules").rglob("*.py")):
        for needle in ("os.environ", "getenv", "open(", "read_text(", "read_bytes("):
            assert not _uses(path, needle), f"{path.relative_to(ROOT)} uses {needle}"


def test_only_one_module_imports_pygithub():
    users = [p for p in (ROOT / "bot").rglob("*.py") if "github" in _imports(p)]
    assert len(users) <= 1, users


def test_only_the_entry_module_reads_the_environment():
    readers = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "bot").rglob("*.py")
        if _uses(p, "os.environ") or _uses(p, "getenv")
    ]
    # examples.py and worktree.py copy the environment to give git a fixed identity (and worktree.py a
    # temporary index file and object directory, kept beside any alternates already given to git);
    # local.py copies it to run git in an empty temporary work tree. They read no setting of the bot's.
    allowed = {"bot/github/entry.py", "bot/cli/examples.py", "bot/git/worktree.py", "bot/git/local.py"}
    assert set(readers) <= allowed, readers


def test_the_default_run_cannot_reach_the_network():
    """tests/conftest.py keeps the suite hermetic: a connection beyond loopback fails with a clear reason."""
    with socket.socket() as sock, pytest.raises(RuntimeError, match="mark it `network`"):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: never routed, so a real attempt would only hang
