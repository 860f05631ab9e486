import pydantic
import pytest

from rules.core.models import (
    ChangeSet,
    FileChange,
    FileStatus,
    Finding,
    Hunk,
    Report,
    Severity,
    UnreadableFile,
    decode_text,
)


class FakeReader:
    def __init__(self, files):
        self.files = files
        self.reads = 0

    def read(self, rev, path):
        self.reads += 1
        return self.files.get((rev, path))

    def list_paths(self, rev):
        return tuple(p for r, p in self.files if r == rev)


def test_models_are_frozen():
    f = Finding(rule="AGT001", name="n", severity=Severity.ERROR, message="m")
    with pytest.raises(pydantic.ValidationError):
        f.message = "other"  # type: ignore[misc]


def test_unknown_fields_are_rejected():
    with pytest.raises(pydantic.ValidationError):
        Finding(rule="A", name="n", severity="error", message="m", colour="red")  # type: ignore[call-arg]


def test_file_change_lines_and_base_path():
    f = FileChange(
        path="b.py",
        status=FileStatus.RENAMED,
        old_path="a.py",
        hunks=(Hunk(old_start=1, old_length=1, new_start=1, new_length=2, added=(1, 2), removed=(1,)),),
    )
    assert f.added_lines == {1, 2} and f.removed_lines == {1} and f.base_path == "a.py"
    assert FileChange(path="n.py", status=FileStatus.ADDED).base_path is None


def test_changeset_reads_lazily_and_caches():
    reader = FakeReader({("b", "x.py"): b"old\n", ("h", "x.py"): b"new\n"})
    cs = ChangeSet(base_sha="b", head_sha="h", files=(), reader=reader)
    assert reader.reads == 0
    assert cs.head_text("x.py") == "new\n" and cs.head_text("x.py") == "new\n"
    assert cs.base_text("x.py") == "old\n" and cs.base_text("missing.py") is None
    assert reader.reads == 3
    assert cs.base_paths() == ("x.py",)


@pytest.mark.parametrize(
    "data, reason",
    [(b"\x00abc", "NUL"), (b"\xc3\x28", "UTF-8"), (b"x" * 11, "limit")],
)
def test_decode_text_refuses(data, reason):
    with pytest.raises(UnreadableFile, match=reason):
        decode_text("f.py", data, limit=10)


def test_decode_text_strips_bom():
    assert decode_text("f.py", "\ufeffx = 1".encode()) == "x = 1"


def test_report_counts():
    def mk(s):
        return Finding(rule="X", name="x", severity=s, message="m")

    r = Report(
        verdict="needs-work",
        labels=("status:needs-work",),
        findings=(mk(Severity.NOTICE), mk(Severity.ERROR), mk(Severity.NOTICE)),
        coverage={"files_changed": 1, "files_reviewed": 1},
    )
    assert r.count(Severity.NOTICE) == 2 and r.count(Severity.ERROR) == 1 and r.count(Severity.WARNING) == 0
