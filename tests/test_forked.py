"""Work done in a forked child gives the value it gives in the parent, whatever happens to the child."""

from __future__ import annotations

import os
import pickle
import time

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from bot.git import forked

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="fork() is used on Linux only")


def test_the_value_comes_from_a_child():
    parent = os.getpid()
    pending = forked.start(lambda: (os.getpid(), list(range(5))))
    pid, value = pending.result()
    assert pending.used_child and pid != parent and value == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("how", ["raises", "exits", "unpicklable"])
def test_a_failing_child_leaves_the_work_to_the_parent(how):
    parent = os.getpid()

    def work():
        if os.getpid() != parent:
            if how == "raises":
                raise RuntimeError("only in the child")
            if how == "exits":
                os._exit(3)
            return lambda: None  # a lambda does not pickle
        return "done here"

    pending = forked.start(work)
    assert pending.result() == "done here" and not pending.used_child


def test_a_late_child_is_stopped_and_the_work_done_here():
    parent = os.getpid()

    def work():
        if os.getpid() != parent:
            time.sleep(30)
        return "done here"

    pending = forked.start(work)
    pid = pending.pid
    started = time.monotonic()
    assert pending.result(timeout=0.3) == "done here" and not pending.used_child
    assert time.monotonic() - started < 5
    with pytest.raises(ChildProcessError):  # stopped and reaped: no process left behind
        os.waitpid(pid, os.WNOHANG)


def test_a_cancelled_child_is_stopped_and_reaped():
    pending = forked.start(lambda: time.sleep(30))
    pid = pending.pid
    pending.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_without_fork_the_work_runs_in_the_parent(monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    parent = os.getpid()
    pending = forked.start(os.getpid)
    assert pending.pid is None and pending.result() == parent and not pending.used_child


def test_a_change_set_is_the_same_with_or_without_the_child(make_repo, monkeypatch):
    import bot.git.local
    from bot.git.local import load_changeset

    monkeypatch.setattr(bot.git.local, "_FORK_PAST", 0)  # a child even for this small diff

    base = {f"src/m{i}.py": f"x = {i}\n" for i in range(5)} | {"tests/test_a.py": "def test_a():\n    pass\n"}
    head = {f"src/m{i}.py": f"x = {i + 1}\ny = 2\n" for i in range(5)}
    head |= {"tests/test_a.py": "def test_a():\n    assert f() == 1\n", "img.bin": b"\x00\x01"}
    r = make_repo(base, head)
    children: list[bool] = []
    result = forked.Pending.result

    def counted(self, *args, **kw):
        value = result(self, *args, **kw)
        children.append(self.used_child)
        return value

    monkeypatch.setattr(forked.Pending, "result", counted)
    with_child = load_changeset(r.path, base="main", head="pr")
    assert children == [True]
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    without = load_changeset(r.path, base="main", head="pr")
    assert with_child.files == without.files and len(without.files) == 7


def test_a_child_diffing_a_file_over_the_cap_gets_one_line_for_it(make_repo, monkeypatch):
    import bot.git.local
    from bot.git.local import load_changeset
    from rules.core.models import MAX_TEXT_BYTES

    big = "ab\n" * (MAX_TEXT_BYTES // 3 + 1000)
    r = make_repo({"a.py": "a = 1\n"}, {"a.py": "a = 2\n", "big.txt": big, "b.py": "b = 1\n"})
    monkeypatch.setattr(bot.git.local, "_FORK_PAST", 0)
    used: list[bool] = []
    result = forked.Pending.result

    def recorded(self, *args):
        value = result(self, *args)
        used.append(self.used_child)
        return value

    monkeypatch.setattr(forked.Pending, "result", recorded)
    cs = load_changeset(r.path, base="main", head="pr")
    assert used == [True]  # the child's answer, with big.txt binary to git: nothing of it read
    assert [(f.path, f.patch_missing) for f in cs.files] == [
        ("a.py", False),
        ("b.py", False),
        ("big.txt", True),
    ]
    assert cs.reader.bytes_read < len(big)


def _fake_child(answer: bytes) -> forked.Pending:
    """A child that writes answer to the pipe as-is and leaves."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write_end, answer)
        finally:
            os._exit(0)
    os.close(write_end)
    return forked.Pending(lambda: "done here", pid, read_end)


@pytest.mark.parametrize(
    "answer",
    [b"", b"\x05\x00", forked._SIZE.pack(100) + pickle.dumps("x"), forked._SIZE.pack(1) + pickle.dumps("x")],
    ids=["nothing", "half-a-length", "cut-short", "too-long"],
)
def test_an_answer_of_the_wrong_length_leaves_the_work_to_the_parent(answer):
    pending = _fake_child(answer)
    pid = pending.pid
    assert pending.result() == "done here" and not pending.used_child
    with pytest.raises(ChildProcessError):  # stopped and reaped
        os.waitpid(pid, os.WNOHANG)


def test_a_whole_answer_is_taken_and_the_child_reaped_beside_it():
    data = pickle.dumps(("value", 3))
    pending = _fake_child(forked._SIZE.pack(len(data)) + data)
    pid = pending.pid
    assert pending.result() == ("value", 3) and pending.used_child
    deadline = time.monotonic() + 10
    # Reaped by a thread of this process, not left behind as a zombie (which keeps its /proc entry).
    while os.path.exists(f"/proc/{pid}"):
        assert time.monotonic() < deadline, "the child was never reaped"
        time.sleep(0.01)


class _Private(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    size: int = 0
    _seen: int = PrivateAttr(default=0)


def test_models_in_the_answer_come_back_as_pydantic_pickles_them():
    from rules.core.models import FileChange, FileStatus, Hunk

    hunk = Hunk(old_start=1, old_length=2, new_start=1, new_length=3, added=(2, 3))
    files = (
        FileChange(path="a.py", status=FileStatus.MODIFIED, hunks=(hunk, hunk)),
        FileChange(path="b.py", status=FileStatus.ADDED, binary=True),
        FileChange(path="c.py", status=FileStatus.RENAMED, old_path="d.py", hunks=(hunk,)),
    )
    extra = _Private(name="x", colour="red")
    extra._seen = 3
    value = (files, [extra, _Private(name="y", size=2)])
    ours = pickle.loads(forked.dumps(value))
    theirs = pickle.loads(pickle.dumps(value))
    assert ours == theirs == value
    for mine, pydantics in zip([*ours[0], *ours[1]], [*theirs[0], *theirs[1]], strict=True):
        assert type(mine) is type(pydantics)
        assert mine.model_fields_set == pydantics.model_fields_set
        assert mine.model_extra == pydantics.model_extra
        assert mine.__pydantic_private__ == pydantics.__pydantic_private__
    assert ours[1][0]._seen == 3 and ours[1][0].colour == "red"
    ours[1][1].size = 5  # each model keeps a set of its own: changing one changes no other
    assert ours[1][1].model_fields_set == {"name", "size"} and ours[1][0].model_fields_set == {
        "name",
        "colour",
    }
    # Frozen models stay frozen.
    with pytest.raises(Exception, match="frozen"):
        ours[0][0].path = "z.py"


def test_ready_says_whether_the_answer_is_in():
    pending = forked.start(lambda: time.sleep(0.5) or "late")
    assert not pending.ready()
    deadline = time.monotonic() + 10
    while not pending.ready() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pending.ready() and pending.result() == "late" and pending.used_child
    assert forked.Pending(lambda: 1).ready()  # no child: nothing to wait on
