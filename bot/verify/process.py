"""One test command run under a time limit: its own process group, killed whole on timeout, output capped."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

# What is kept of a run's output (its end: where pytest prints the summary and the errors).
OUTPUT_CAP = 64 * 1024
# After SIGTERM, how long the group gets to end before SIGKILL.
_GRACE_SECONDS = 2.0


class Finished(NamedTuple):
    """How a command ended: its exit code (None: killed at the time limit) and the end of its output."""

    code: int | None
    output: str

    @property
    def timed_out(self) -> bool:
        return self.code is None


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):  # the group is gone already
        pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """End the command and everything it started (a test's own subprocesses would otherwise outlive it):
    SIGTERM to the group, a moment to finish, then SIGKILL to whatever of the group is left."""
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc, signal.SIGKILL)
    proc.wait()


def _tail(path: Path, cap: int) -> str:
    with path.open("rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - cap))
        data = f.read(cap)
    cut = f"[... {size - cap:,} bytes of output left out ...]\n" if size > cap else ""
    return cut + data.decode("utf-8", "replace")


class Cancelled(Exception):
    """The runs were cancelled: another thread was interrupted (Ctrl-C) or failed."""


class Runs:
    """The live commands of one verification, whichever thread started them: cancel() kills every one of
    their process groups, and no command starts after it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self.cancelled = False

    def add(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            if not self.cancelled:
                self._live.add(proc)
                return
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
        raise Cancelled

    def discard(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(proc)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            live = list(self._live)
        for proc in live:  # its own thread waits for it and cleans up
            _signal_group(proc, signal.SIGKILL)


def run(
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    cap: int = OUTPUT_CAP,
    runs: Runs | None = None,
) -> Finished:
    """Run command in cwd with stdin closed and stdout and stderr into one file (a pipe nobody reads could
    fill and stall it); on timeout, or when this process is interrupted, its whole process group is killed.
    With runs, the command is one of them: Cancelled instead of a start once they are cancelled."""
    if runs is not None and runs.cancelled:
        raise Cancelled
    with tempfile.TemporaryDirectory(prefix="bot-verify-out-") as tmp:
        out = Path(tmp, "output")
        with out.open("wb") as sink:
            proc = subprocess.Popen(
                list(command),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so that the whole group can be killed
            )
            try:
                if runs is not None:
                    runs.add(proc)
                code: int | None = proc.wait(timeout=max(timeout, 0.01))
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                code = None
            except BaseException:  # Ctrl-C: nothing of the test run may be left behind
                _kill_group(proc)
                raise
            else:  # the leader ended; what it started in its group ends with it
                _signal_group(proc, signal.SIGKILL)
            finally:
                if runs is not None:
                    runs.discard(proc)
        return Finished(code, _tail(out, cap))
