from bot.git.diff import parse_diff, parse_hunks
from rules.core.models import FileStatus


def _diff(repo, base, head):
    repo.commit(base, "base")
    repo.commit(head, "head")
    return parse_diff(repo.git("diff", "-M", "HEAD~1", "HEAD"))


def test_modified_file_lines(repo):
    files = _diff(repo, {"x.txt": "a\nb\nc\n"}, {"x.txt": "a\nB\nc\nd\n"})
    (f,) = files
    assert f.status is FileStatus.MODIFIED
    assert f.added_lines == {2, 4}
    assert f.removed_lines == {2}


def test_rename_keeps_old_path(repo):
    body = "".join(f"line {i}\n" for i in range(20))
    files = _diff(repo, {"old/name.py": body}, {"old/name.py": None, "new/name.py": body + "extra\n"})
    (f,) = files
    assert (f.status, f.path, f.old_path, f.base_path) == (
        FileStatus.RENAMED,
        "new/name.py",
        "old/name.py",
        "old/name.py",
    )
    assert f.added_lines == {21}


def test_deleted_and_added_files(repo):
    files = {f.path: f for f in _diff(repo, {"gone.txt": "x\n"}, {"gone.txt": None, "new file.txt": "y\n"})}
    assert files["gone.txt"].status is FileStatus.REMOVED
    assert files["gone.txt"].base_path == "gone.txt"
    assert files["new file.txt"].status is FileStatus.ADDED
    assert files["new file.txt"].base_path is None
    assert files["new file.txt"].added_lines == {1}


def test_binary_file(repo):
    (f,) = _diff(repo, {"b.bin": b"\x00\x01"}, {"b.bin": b"\x00\x02"})
    assert f.binary and f.hunks == ()


def test_added_binary_file(repo):
    (f,) = _diff(repo, {"keep.txt": "k\n"}, {"b.bin": b"\x00\x01\x02"})
    assert f.binary and f.status is FileStatus.ADDED


def test_unicode_path(repo):
    (f,) = _diff(repo, {"a.txt": "a\n"}, {"café/ü.py": "x = 1\n"})
    assert f.path == "café/ü.py"


def test_empty_diff():
    assert parse_diff("") == ()
    assert parse_diff("\n\n") == ()


def test_github_patch_hunks():
    hunks = parse_hunks("@@ -1,2 +1,3 @@\n a\n-b\n+B\n+c", "f.py")
    (h,) = hunks
    assert (h.added, h.removed) == ((2, 3), (2,))


def _line_by_line(text):
    """The hunks as unidiff's full, line-by-line parse gives them (what parse_diff used before)."""
    import unidiff

    from bot.git.diff import _hunk

    return [tuple(_hunk(h) for h in pf) for pf in unidiff.PatchSet(text)]


def test_one_pass_line_numbers_match_unidiff_line_by_line(repo):
    """parse_diff counts hunk lines in one pass; on every shape git prints, it agrees with unidiff's parse."""
    body = "".join(f"line {i}\n" for i in range(40))
    base = {
        "crlf.txt": "a\r\nb\r\nc\r\n",
        "no_eol.txt": "one\ntwo",
        "blank.py": "x = 1\n\n\n\ny = 2\n",
        "far.txt": body,
        "old/moved.py": body,
        "gone.txt": "bye\n",
        "mode.sh": "echo hi\n",
        "tricky.txt": "keep\n",
    }
    head = {
        "crlf.txt": "a\r\nB\r\nc\r\n\r\n",
        "no_eol.txt": "one\nTWO",
        "blank.py": "x = 1\n\n\n\n\ny = 3\n",
        "far.txt": body.replace("line 3\n", "").replace("line 30\n", "line thirty\n") + "end",
        "old/moved.py": None,
        "new/moved.py": body + "more\n",
        "gone.txt": None,
        "tricky.txt": "keep\n@@ -1,2 +1,2 @@\n--- a/x\n+++ b/y\n\\ No newline at end of file\n",
        "new.bin": b"\x00\x01",
    }
    repo.commit(base, "base")
    (repo.path / "mode.sh").chmod(0o755)
    repo.commit(head, "head")
    text = repo.git("diff", "-M", "HEAD~1", "HEAD")
    files = parse_diff(text)
    assert [f.hunks for f in files] == _line_by_line(text)
    assert len(files) == 9 and any(f.added_lines for f in files)
