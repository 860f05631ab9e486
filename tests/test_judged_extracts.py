"""The machinery behind the judged cases: the sampling rule's test names and how an extract is replayed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.judged import COMMIT_SEPARATOR, build_extract
from benchmarks.sample_cases import qualified_tests


def test_qualified_tests_follow_pytest_naming_in_file_order() -> None:
    text = """
def helper(): ...
def test_top(): ...
class TestOuter:
    def test_a(self): ...
    def helper(self): ...
    class TestInner:
        async def test_b(self): ...
class Helper:
    def test_not_collected(self): ...
"""
    assert qualified_tests(text) == ["test_top", "TestOuter.test_a", "TestOuter.TestInner.test_b"]


def _log(repo: Path, base: str, head: str) -> list[str]:
    out = subprocess.run(
        ["git", "log", "--format=%B%x00", f"{base}..{head}"], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    return [m.strip() for m in out.split("\0") if m.strip()]


def test_extract_replays_each_commit_message_and_the_head_tree(tmp_path: Path) -> None:
    extract = tmp_path / "extract"
    (extract / "base" / "pkg").mkdir(parents=True)
    (extract / "head" / "pkg").mkdir(parents=True)
    (extract / "base" / "pkg" / "mod.py").write_text("A = 1\n")
    (extract / "base" / "pkg" / "gone.py").write_text("B = 2\n")
    (extract / "head" / "pkg" / "mod.py").write_text("A = 2\n")
    messages = ["Merge pull request #1 from a/fix-thing\n\nFix the thing", "fix: the thing", "add a test"]
    (extract / "message.txt").write_text(COMMIT_SEPARATOR.join(messages) + "\n")

    base, head = build_extract(extract, tmp_path / "repo")

    repo = tmp_path / "repo"
    assert _log(repo, base, head) == messages
    changed = subprocess.run(
        ["git", "diff", "--name-status", base, head], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    assert changed.split() == ["D", "pkg/gone.py", "M", "pkg/mod.py"]


def test_extract_with_one_message_is_one_commit(tmp_path: Path) -> None:
    extract = tmp_path / "extract"
    (extract / "base").mkdir(parents=True)
    (extract / "head").mkdir(parents=True)
    (extract / "head" / "test_x.py").write_text("def test_x(): ...\n")
    (extract / "message.txt").write_text("Add test_x\n")

    base, head = build_extract(extract, tmp_path / "repo")

    assert _log(tmp_path / "repo", base, head) == ["Add test_x"]
