"""One long-lived `git cat-file` process per mode, answering every object lookup of a review in batches.

A process per file read dominated large reviews (issue 11: 5,510 `git` processes for a 3,000-file PR);
`--batch-check` tells an object's type and size before anything is read, so a file over the size cap is
never read at all (issue 10).
"""

from __future__ import annotations

import subprocess
import threading
import weakref
from pathlib import Path
from typing import IO, NamedTuple

# Requests larger than this are written from a thread: git answers while it reads, and with both pipes
# full a single-threaded writer and reader would wait on each other forever.
_INLINE_REQUEST = 16 * 1024


class CatFileError(Exception):
    """The cat-file process could not be started or stopped answering."""


class ObjectInfo(NamedTuple):
    """What `--batch-check` says of one object: its id, type (blob, tree, commit) and size in bytes."""

    sha: str
    type: str
    size: int


def parse_info(line: bytes) -> ObjectInfo | None:
    """One `--batch-check` answer: "<sha> <type> <size>"; anything else ("<name> missing") names no object."""
    parts = line.split()
    if len(parts) == 3 and parts[2].isdigit():
        return ObjectInfo(parts[0].decode(), parts[1].decode(), int(parts[2]))
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def _write_all(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass  # the reader notices the missing answers


class CatFile:
    """`git cat-file --batch-check` or `--batch` in one repository, started on first use."""

    def __init__(self, repo: Path, mode: str) -> None:
        self.repo = repo
        self.mode = mode
        self._proc: subprocess.Popen[bytes] | None = None
        self.started = 0  # processes started: a review should need one per mode

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._proc = subprocess.Popen(
                    ["git", "--no-pager", "cat-file", self.mode],
                    cwd=self.repo,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError as exc:
                raise CatFileError(f"cannot run git cat-file: {exc.strerror}") from None
            self.started += 1
            weakref.finalize(self, _stop, self._proc)
        return self._proc

    def close(self) -> None:
        if self._proc is not None:
            _stop(self._proc)
            self._proc = None

    def _send(self, names: list[str]) -> tuple[subprocess.Popen[bytes], threading.Thread | None]:
        proc = self._process()
        assert proc.stdin is not None
        request = "".join(f"{n}\n" for n in names).encode("utf-8", "surrogateescape")
        if len(request) <= _INLINE_REQUEST:
            _write_all(proc.stdin, request)
            return proc, None
        writer = threading.Thread(target=_write_all, args=(proc.stdin, request), daemon=True)
        writer.start()
        return proc, writer

    def _header(self, proc: subprocess.Popen[bytes]) -> ObjectInfo | None:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.endswith(b"\n"):
            self.close()
            raise CatFileError("git cat-file stopped answering")
        return parse_info(line)

    def info(self, names: list[str]) -> list[ObjectInfo | None]:
        """Type and size of each named object (`<rev>:<path>` or a SHA), None where there is none."""
        if self.mode != "--batch-check":
            raise ValueError("info() needs a --batch-check process")
        if not names:
            return []
        proc, writer = self._send(names)
        out = [self._header(proc) for _ in names]
        if writer is not None:
            writer.join()
        return out

    def contents(self, names: list[str]) -> list[bytes | None]:
        """Contents of each named blob, None for a missing object or one that is not a blob.

        Callers ask only for objects whose size they checked first: the whole object is read.
        """
        if self.mode != "--batch":
            raise ValueError("contents() needs a --batch process")
        if not names:
            return []
        proc, writer = self._send(names)
        assert proc.stdout is not None
        out: list[bytes | None] = []
        for _ in names:
            head = self._header(proc)
            if head is None:
                out.append(None)
                continue
            data = proc.stdout.read(head.size + 1)  # the contents, then a newline
            if len(data) != head.size + 1:
                self.close()
                raise CatFileError("git cat-file stopped answering")
            out.append(data[:-1] if head.type == "blob" else None)
        if writer is not None:
            writer.join()
        return out
