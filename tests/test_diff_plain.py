"""The one-pass reading of plain diffs gives what unidiff's reading gives, and leaves it everything else."""

from __future__ import annotations

import os
import random

import pytest

import bot.git.diff
from bot.git.diff import DiffError, DiffReader, parse_diff
from tests.conftest import GitRepo


def _by_unidiff(text: str, monkeypatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(bot.git.diff, "_plain_files", lambda t: None)
        try:
            return parse_diff(text)
        except DiffError as exc:
            return ("error", str(exc))


def _diff(repo: GitRepo) -> str:
    return repo.git("diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "main", "pr")


def _change(tmp_path, base: dict, head: dict, after=None) -> str:
    repo = GitRepo(tmp_path / "r")
    repo.commit(base, "base")
    repo.branch("pr")
    repo.write(head)
    if after:
        after(repo.path)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "head")
    return _diff(repo)


def _chmod(path):
    os.chmod(path / "tool.py", 0o755)


def _link(path):
    os.symlink("a.py", path / "link.py")


LINES = "".join(f"line {n}\n" for n in range(40))

# (id, base files, head files, a change made on disk before the commit, whether the diff is plain)
CASES = [
    ("modified", {"a.py": LINES}, {"a.py": LINES.replace("line 3\n", "line three\n")}, None, True),
    ("added", {"a.py": "x\n"}, {"b.py": "new\nfile\n"}, None, True),
    ("removed", {"a.py": "x\n", "b.py": "gone\n"}, {"b.py": None}, None, True),
    ("empty-at-base", {"a.py": "x\n", "e.py": ""}, {"e.py": "now\n"}, None, True),
    ("emptied", {"a.py": "x\n", "e.py": "was\n"}, {"e.py": ""}, None, True),
    ("no-newline-at-end", {"a.py": "x\ny"}, {"a.py": "x\nz"}, None, True),
    ("crlf", {"a.py": "x\r\ny\r\n"}, {"a.py": "x\r\nz\r\n\r\n"}, None, True),
    ("blank-context", {"a.py": "a\n\n\nb\n"}, {"a.py": "a\n\n\nc\n"}, None, True),
    ("mode-and-content", {"tool.py": "x\n"}, {"tool.py": "y\n"}, _chmod, True),
    ("symlink", {"a.py": "x\n"}, {}, _link, True),
    (
        "many-hunks",
        {"a.py": LINES},
        {"a.py": LINES.replace("line 2\n", "").replace("line 35", "l35")},
        None,
        True,
    ),
    (
        # One hunk holding several runs of removed and added lines, numbered on each side.
        "interleaved-runs",
        {"a.py": LINES},
        {
            "a.py": LINES.replace("line 3\n", "three\n3b\n")
            .replace("line 5\n", "")
            .replace("line 6\n", "six\n")
            .replace("line 8\n", "line 8\neight\n\n")
        },
        None,
        True,
    ),
    ("binary", {"a.bin": b"\x00\x01"}, {"a.bin": b"\x00\x02"}, None, True),
    ("binary-added", {"a.py": "x\n"}, {"a.bin": b"\x00\x01", "a.py": "y\n"}, None, True),
    ("binary-removed", {"a.py": "x\n", "a.bin": b"\x00\x01"}, {"a.bin": None}, None, True),
    ("binary-to-text", {"a.py": "x\n", "a.txt": b"\x00\x01"}, {"a.txt": "text\n"}, None, True),
    ("binary-and-mode", {"tool.py": b"\x00\x01"}, {"tool.py": b"\x00\x02"}, _chmod, True),
    # unidiff reads these.
    ("mode-only", {"tool.py": "x\n"}, {}, _chmod, False),
    ("new-empty-file", {"a.py": "x\n"}, {"e.py": ""}, None, False),
    ("renamed", {"a.py": LINES}, {"a.py": None, "b.py": LINES + "more\n"}, None, False),
    (
        "binary-renamed",
        {"a.bin": b"\x00" + LINES.encode()},
        {"a.bin": None, "b.bin": b"\x00" + LINES.encode() + b"x"},
        None,
        False,
    ),
    ("space-in-path", {"my file.py": "x\n"}, {"my file.py": "y\n"}, None, False),
    ("quoted-path", {"caf\u00e9.py": "x\n"}, {"caf\u00e9.py": "y\n"}, None, False),
]


@pytest.mark.parametrize(
    ("base", "head", "after", "plain"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_plain_reading_matches_unidiff(tmp_path, monkeypatch, base, head, after, plain):
    text = _change(tmp_path, base, head, after)
    assert (bot.git.diff._plain_files(text) is not None) is plain
    assert parse_diff(text) == _by_unidiff(text, monkeypatch)


# Text no git prints: the plain reading leaves it to unidiff, which says what is wrong as before.
BROKEN = [
    (
        "short-hunk",
        "diff --git a/a.py b/a.py\nindex 1..2 100644\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n-x\n+y\n",
    ),
    ("odd-line", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x\n+y\n*z\n"),
    ("target-differs", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/c.py\n@@ -1 +1 @@\n-x\n+y\n"),
    ("no-hunks", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"),
    ("trailing-junk", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\nnoise\n"),
]

HEAD = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
NEXT = "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1,2 @@\n x\n+z\n"
# A hunk followed by more `+`, `-` or context lines than its header counts: unidiff ends the hunk at its
# counts and drops the rest as text between files. The plain reading does the same without a Python step
# per dropped line (a megabyte of them: 2 s in unidiff, 0.2 s here).
LONG = [
    ("long-hunk", HEAD + "+z\n"),
    ("long-hunk-then-a-file", HEAD + "+z\n-w\n v\n+" * 50 + "\n" + NEXT),
    ("long-hunk-a-million-lines", HEAD + "+\n" * 1_000_000),
    ("long-hunk-no-newline-at-end", HEAD + "+z"),
    ("long-hunk-mixed", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1 @@\n+y\n-x\n-w\n+v\n"),
]
# What unidiff reads otherwise after a hunk: left to it.
NOT_DROPPED = [
    ("then-a-hunk", HEAD + "+z\n@@ -5 +5 @@\n-a\n+b\n"),
    ("then-headers", HEAD + "+z\n--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-a\n+b\n"),
    ("then-an-empty-line", HEAD + "+z\n\n+w\n"),
    ("then-a-note", HEAD + "+z\n\\ No newline at end of file\n"),
    ("then-a-cr", HEAD + "+z\n\r\n"),
    ("then-other-text", HEAD + "+z\nindex 1..2\n"),
    ("one-side-over", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n-x\n-w\n+y\n+v\n"),
]


@pytest.mark.parametrize("text", [c[1] for c in LONG], ids=[c[0] for c in LONG])
def test_lines_past_a_hunk_are_dropped_as_unidiff_drops_them(text, monkeypatch):
    assert bot.git.diff._plain_files(text) is not None
    assert parse_diff(text) == _by_unidiff(text, monkeypatch)
    assert _fed(text, [len(text.encode()) // 2]) == _whole(text)


@pytest.mark.parametrize("text", [c[1] for c in NOT_DROPPED], ids=[c[0] for c in NOT_DROPPED])
def test_other_text_past_a_hunk_goes_to_unidiff(text, monkeypatch):
    assert bot.git.diff._plain_files(text) is None
    assert _whole(text) == _by_unidiff(text, monkeypatch)


@pytest.mark.parametrize("text", [c[1] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_text_git_would_not_print_goes_to_unidiff(text, monkeypatch):
    assert bot.git.diff._plain_files(text) is None
    try:
        got: object = parse_diff(text)
    except DiffError as exc:
        got = ("error", str(exc))
    assert got == _by_unidiff(text, monkeypatch)


def _fed(text: str, cuts: list[int]) -> object:
    data = text.encode()
    reader = DiffReader()
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        reader.feed(data[start:end])
    try:
        return reader.finish(data)
    except DiffError as exc:
        return ("error", str(exc))


def _whole(text: str) -> object:
    try:
        return parse_diff(text)
    except DiffError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("seed", range(6))
def test_a_diff_read_in_pieces_reads_as_the_whole(tmp_path, seed):
    """Pieces cut anywhere (inside a line, inside a UTF-8 character) give what the whole text gives."""
    rng = random.Random(seed)
    base = {f"m{i}.py": LINES for i in range(6)} | {"gone.py": "x\n", "bin.dat": b"\x00"}
    head = {f"m{i}.py": LINES.replace(f"line {i}\n", f"línea {i} ü\n") for i in range(6)}
    head |= {"new.py": "nuevo ñ\n", "gone.py": None}
    if seed % 2:
        head["bin.dat"] = b"\x00\x01"  # a binary file among the pieces
    text = _change(tmp_path, base, head, None)
    data = text.encode()
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 40)))
        assert _fed(text, cuts) == _whole(text)
    assert _fed(text, list(range(1, len(data)))) == _whole(text)  # one byte at a time


@pytest.mark.parametrize("text", [c[1] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_text_read_in_pieces_fails_as_the_whole(text):
    joined = text + text.replace("a.py", "b.py")
    for cut in range(1, len(joined), 7):
        assert _fed(joined, [cut]) == _whole(joined)


def test_git_output_handed_over_as_written_and_failures_as_before(tmp_path):
    from bot.git.local import SourceError, _git

    repo = GitRepo(tmp_path / "r")
    repo.commit({"a.py": LINES}, "base")
    repo.commit({"a.py": LINES + "more\n"}, "head")
    pieces: list[bytes] = []
    proc = _git(repo.path, "diff", "HEAD~1", "HEAD", output=pieces.append)
    assert pieces and b"".join(pieces) == proc.stdout == _git(repo.path, "diff", "HEAD~1", "HEAD").stdout
    with pytest.raises(SourceError) as plain:
        _git(repo.path, "diff", "nope", "HEAD")
    with pytest.raises(SourceError) as streamed:
        _git(repo.path, "diff", "nope", "HEAD", output=pieces.append)
    assert str(streamed.value) == str(plain.value) and str(plain.value).startswith("git diff failed: ")


def test_git_in_the_background_prints_and_fails_as_git_run_in_front(tmp_path):
    from bot.git.local import SourceError, _Background, _git

    repo = GitRepo(tmp_path / "r")
    repo.commit({"a.py": LINES}, "base")
    repo.commit({"a.py": LINES + "more\n"}, "head")
    args = ["diff", "HEAD~1", "HEAD"]
    assert _Background(repo.path, args).output() == _git(repo.path, *args).stdout
    # With a setting for this command alone, as the diff runs with its size threshold.
    threshold = ("core.bigFileThreshold=10",)
    assert _Background(repo.path, args, threshold).output() == _git(repo.path, *args, config=threshold).stdout
    assert b"Binary files" in _git(repo.path, *args, config=threshold).stdout
    with pytest.raises(SourceError) as front:
        _git(repo.path, "diff", "nope", "HEAD")
    with pytest.raises(SourceError) as background:
        _Background(repo.path, ["diff", "nope", "HEAD"]).output()
    assert str(background.value) == str(front.value) and str(front.value).startswith("git diff failed: ")
    stopped = _Background(repo.path, args)
    stopped.stop()
    with pytest.raises(SourceError, match="git diff was stopped"):
        stopped.output()
