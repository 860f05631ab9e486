"""The one line model of every position the bot reads, shows or changes: git's (pure).

git, its diffs and GitHub's review comments break a file's lines at `\\n` only; a `\\r` before it belongs
to the line ending (a CRLF file), and is folded here. Every other reader of a file counts otherwise:
Python's tokenizer (so `ast`'s `lineno`) also breaks at a lone `\\r`, `str.splitlines` also at `\\x0b`,
`\\x0c`, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029, and YAML at a lone `\\r`, `\\x85`, U+2028 and U+2029.
A position from any of them is translated here before a rule, a renderer or a fix sees it, and a file's
lines are split here: the numbers a finding, a suggestion and `--fix` name are the lines of the diff.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

# Where Python's tokenizer ends a line: `\r\n`, a lone `\r`, `\n`.
_PYTHON_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_CR = re.compile(r"\r(?!\n)")


def git_lines(text: str) -> list[str]:
    """The text's lines as git numbers them (line n is item n - 1), without their endings: split at `\\n`,
    the `\\r` of a `\\r\\n` dropped; a final `\\n` starts no line (as with `str.splitlines`)."""
    lines = text.split("\n")
    last = lines.pop()  # the text after the last `\n`: a line only when not empty, and it has no ending
    out = [line[:-1] if line.endswith("\r") else line for line in lines] if "\r" in text else lines
    if last:
        out.append(last)
    return out


def git_lines_keepends(text: str) -> list[str]:
    """The text's lines as git numbers them, each with its ending (`\\n`, `\\r\\n`, or none for a last line
    without one): `"".join(...)` gives the text back."""
    pieces = text.split("\n")
    last = pieces.pop()
    out = [piece + "\n" for piece in pieces]
    if last:
        out.append(last)
    return out


def ending(line: str) -> str:
    """The ending of one line of git_lines_keepends: `\\r\\n`, `\\n` or ""."""
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def content(line: str) -> str:
    """One line of git_lines_keepends without its ending (what git_lines holds for it)."""
    return line[: len(line) - len(ending(line))]


def line_at(text: str, index: int) -> int:
    """The git line (1-based) of the character at index (a YAML mark's, say)."""
    return text.count("\n", 0, max(0, index)) + 1


def char_col(line: str, byte_col: int) -> int:
    """The index in line of the character `ast`'s col_offset (a count of UTF-8 bytes) points at."""
    if line.isascii():
        return byte_col
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


class PythonLines:
    """Positions of Python's tokenizer, in git's lines.

    Only a lone `\\r` makes the two differ: the tokenizer starts a line after it, git does not. For each
    tokenizer line, the git line it lies on and how many UTF-8 bytes of that git line come before it (what
    its col_offsets are shifted by).
    """

    def __init__(self, text: str) -> None:
        self.lines: list[int] = [1]
        self.shifts: list[int] = [0]
        line, shift, at = 1, 0, 0
        for m in _PYTHON_BREAK.finditer(text):
            if m.group() == "\r":
                shift += len(text[at : m.start()].encode("utf-8", "surrogatepass")) + 1
            else:
                line, shift = line + 1, 0
            at = m.end()
            self.lines.append(line)
            self.shifts.append(shift)

    def line(self, number: int) -> int:
        """The git line of tokenizer line number (1-based); past the end, counted on from the last."""
        if number < 1:
            return number
        if number > len(self.lines):
            return self.lines[-1] + number - len(self.lines)
        return self.lines[number - 1]

    def col(self, number: int, col: int) -> int:
        """The col_offset, in the git line, of col_offset col of tokenizer line number."""
        return col + self.shifts[number - 1] if 1 <= number <= len(self.shifts) else col


def differs(text: str) -> bool:
    """Whether Python's tokenizer numbers the text's lines otherwise than git (it holds a lone `\\r`)."""
    return "\r" in text and text.count("\r") != text.count("\r\n")


def as_python_reads(text: str) -> str:
    """The text with each lone `\\r` made the `\\n` Python's compiler reads it as. `tokenize`, fed a file
    line by line, reads a lone `\\r` inside a line otherwise (3.11's takes the rest of a line that starts
    with a comment for that comment); fed this text, it gives the compiler's tokens, numbered as
    PythonLines(text) counts."""
    return _LONE_CR.sub("\n", text)


def python_line(text: str, number: int | None) -> int | None:
    """The git line of line number as Python's tokenizer counts the text (a SyntaxError's, say)."""
    if number is None or not differs(text):
        return number
    return PythonLines(text).line(number)


_POSITIONED = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def to_git(tree: ast.AST, text: str) -> None:
    """Rewrite, in place, every position of a tree parsed from text into git's lines (and the columns
    into those lines), so that no rule sees the tokenizer's numbering. Nothing to do, and nothing done,
    for a text without a lone `\\r`."""
    if not differs(text):
        return
    where = PythonLines(text)
    for node in ast.walk(tree):
        values: Sequence[int | None] = [getattr(node, name, None) for name in _POSITIONED]
        line, col, end, end_col = values
        if line is None:
            continue
        if col is not None:
            node.col_offset = where.col(line, col)  # type: ignore[attr-defined]
        node.lineno = where.line(line)  # type: ignore[attr-defined]
        if end is not None:
            if end_col is not None:
                node.end_col_offset = where.col(end, end_col)  # type: ignore[attr-defined]
            node.end_lineno = where.line(end)  # type: ignore[attr-defined]
