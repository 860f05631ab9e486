"""Pure work done in a forked child beside the process's own, so that a large review uses a second core.

Python runs one thread of Python code at a time. Loading a large pull request has two such jobs that do
not depend on each other: parsing git's diff and parsing the head's test files. A child made with fork()
runs `git diff` and parses its output while the parent parses the test files; only the result comes
back, pickled through a pipe.

The child is an optimisation and never decides anything: when it cannot be made (not Linux), fails, dies,
answers something that does not unpickle or takes longer than the timeout, the work is done in the
parent instead, with the same function, so the outcome is the same either way. The child leaves with
os._exit, so nothing of the parent (buffered output, atexit handlers, long-lived git processes) is
flushed or stopped twice.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

# The length of the pickled answer, sent before it.
_SIZE = struct.Struct("<Q")
# A child still working after this long is stopped and its work done here (git's own timeout is 120 s).
TIMEOUT = 150.0


class _Pickler(pickle.Pickler):
    """Writes a pydantic model as its class, its fields' values and which of them were set.

    pydantic's own pickling writes a state mapping and a fresh set of field names for every model: for the
    6,000 models of a large diff's answer that took longer than the rest of it, both ways. A set of names
    is written once however many models share it.
    """

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._names: dict[frozenset[str], frozenset[str]] = {}

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, BaseModel):
            return NotImplemented
        names = frozenset(obj.__pydantic_fields_set__)
        names = self._names.setdefault(names, names)
        return _model, (type(obj), obj.__dict__, names, obj.__pydantic_extra__, obj.__pydantic_private__)


_set = object.__setattr__


def _model(
    cls: type[BaseModel],
    fields: dict[str, Any],
    names: frozenset[str],
    extra: dict[str, Any] | None,
    private: dict[str, Any] | None,
) -> BaseModel:
    # What pydantic's own __setstate__ sets, without the mapping it reads them from.
    model = cls.__new__(cls)
    _set(model, "__dict__", fields)
    _set(model, "__pydantic_fields_set__", set(names))
    _set(model, "__pydantic_extra__", extra)
    _set(model, "__pydantic_private__", private)
    return model


def dumps(value: Any) -> bytes:
    """value pickled for the parent (pickle.loads reads it), pydantic models as _Pickler writes them."""
    buffer = io.BytesIO()
    _Pickler(buffer).dump(value)
    return buffer.getvalue()


def can_fork() -> bool:
    # fork() is safe enough for pure Python work on Linux; macOS frameworks and Windows are not.
    return sys.platform == "linux" and hasattr(os, "fork")


class Pending:
    """Work started in a child (or not started: pid None); result() returns its value either way."""

    def __init__(self, work: Callable[[], Any], pid: int | None = None, fd: int | None = None) -> None:
        self.work = work
        self.pid = pid
        self.fd = fd
        self.used_child = False  # whether the value came from the child (for tests and benchmarks)

    def result(self, timeout: float = TIMEOUT) -> Any:
        data = self._collect(timeout)
        if data is not None:
            try:
                value = pickle.loads(data)  # noqa: S301 - our own child's pickle of our own function's value
            except Exception:  # noqa: BLE001 - a broken answer: the work is done here instead
                pass
            else:
                self.used_child = True
                return value
        return self.work()

    def ready(self) -> bool:
        """Whether result() would return without waiting on the child (its answer is in, or it died)."""
        if self.pid is None or self.fd is None:
            return True
        return bool(select.select([self.fd], [], [], 0)[0])

    def cancel(self) -> None:
        """Stop the child, if any, without waiting for its value."""
        if self.pid is not None:
            _stop(self.pid)
            self.pid = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _collect(self, timeout: float) -> bytes | None:
        """The child's pickled value, or None when it failed, died or took too long (it is stopped)."""
        if self.pid is None or self.fd is None:
            return None
        pid, fd = self.pid, self.fd
        self.pid = self.fd = None
        parts: list[bytes] = []
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    _stop(pid)
                    return None
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                parts.append(chunk)
        finally:
            os.close(fd)
        data = b"".join(parts)
        if len(data) < _SIZE.size or _SIZE.unpack_from(data)[0] != len(data) - _SIZE.size:
            _stop(pid)  # it died before it had written all of it
            return None
        # The whole answer is here. The child is still leaving (tearing down a copy of this process's
        # memory takes tens of milliseconds): it is reaped beside the work that follows, not waited for.
        threading.Thread(target=_reap, args=(pid,), daemon=True).start()
        return data[_SIZE.size :]


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def start(work: Callable[[], Any]) -> Pending:
    """Start work in a forked child when the platform allows; result() gives its value either way."""
    if not can_fork():
        return Pending(work)
    read_end, write_end = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns of fork() in a process with threads (a test runner's): the child runs
            # only the given work, which waits on no lock of another thread.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return Pending(work)
    if pid == 0:  # the child
        code = 1
        try:
            os.close(read_end)
            data = dumps(work())
            # Its length first: the parent knows it has the whole answer when the pipe closes.
            view = memoryview(_SIZE.pack(len(data)) + data)
            while view:
                view = view[os.write(write_end, view) :]
            os.close(write_end)  # the end of the answer, before this process's memory is torn down
            code = 0
        except BaseException:  # noqa: BLE001, S110 - the parent does the work itself
            pass
        finally:
            os._exit(code)
    os.close(write_end)
    return Pending(work, pid, read_end)
