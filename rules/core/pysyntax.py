"""Python source of any released version (3.8 to 3.14) parsed into this interpreter's `ast`.

`ast.parse` reads only the grammar of the Python running the bot: under 3.11 a test file written for 3.12
(`f"{d["a"]}"`, `type X = ...`, `def f[T]()`) or 3.14 (t-strings, `except A, B:`) is a syntax error. Such a
file is parsed again with libcst, whose parser reads every version's grammar, and the constructs this
interpreter lacks are lowered, in the text, into ones it reads, keeping every line where it was:

- an f-string or t-string this `ast` cannot read becomes a call of a name derived from its text, spanning
  the same lines (not a constant: `assert f"..."` is not an assertion of a literal; equal strings give
  equal names, different strings different ones, so `a == b` does not become a self-comparison);
- `type X[T] = v` becomes `X = v`; type parameter lists (`def f[T]`, `class A[T: int = str]`) go;
- `except A, B:` becomes `except (A, B):`.

libcst is imported only on that fallback. Its parser is native code that overflows the C stack on deeply
nested input instead of raising, so text nested beyond what CPython itself accepts never reaches it.
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
import warnings
from typing import Any

from rules.core import lines

# CPython's tokenizer refuses more than 200 nested brackets (MAXLEVEL) in every version 3.8 to 3.14.
MAX_BRACKETS = 200
# libcst's native parser survives expressions about 2,000 levels deep (lambda chains, subscript chains,
# nested brackets count more); this bound on the estimate below keeps it well inside that.
MAX_DEPTH = 1000
MAX_ELIFS = 1000
TOO_DEEP = "too deeply nested or too large to parse"

# A rough tokenizer for the depth estimate: strings and comments are skipped whole, operators and
# keywords that chain into nested trees are counted.
_TOKENS = re.compile(
    r"""(?P<skip>[rRbBfFtTuU]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")|\#[^\n]*)"""
    r"|(?P<cont>\\\r?\n)|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<sep>[,;])|(?P<nl>\n)"
    r"|(?P<op>[-+*/%@&|^~<>=!.]|\b(?:not|and|or|if|else|lambda|await|in|is)\b)"
    r"|(?P<elif>\belif\b)",
    re.S,
)
_BREAKS = re.compile(r"\r\n|\r|\n")


class PythonSyntaxError(ValueError):
    """Source that no released Python reads (or that is too deep or large to read), with where."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def parse_python(text: str, path: str = "<unknown>") -> ast.Module:
    """The module's `ast`, whichever released Python's syntax it uses; PythonSyntaxError if none reads it.

    Every position in the tree, and the line of an error, is in git's lines (rules.core.lines): Python
    also breaks lines at a lone carriage return, which git and the diff do not.
    """
    try:
        tree = _parse_any(text, path)
    except PythonSyntaxError as exc:
        raise PythonSyntaxError(exc.reason, lines.python_line(text, exc.line)) from None
    lines.to_git(tree, text)
    return tree


def _parse_any(text: str, path: str) -> ast.Module:
    try:
        return _parse(text, path)
    except SyntaxError as exc:
        error = exc
    except (RecursionError, MemoryError):
        raise PythonSyntaxError(TOO_DEEP) from None
    except ValueError as exc:  # NUL bytes (3.11 raises ValueError, 3.12 SyntaxError)
        raise PythonSyntaxError(str(exc)[:100]) from None
    return _parse_newer(text, path, error)


def _parse(text: str, path: str) -> ast.Module:
    # Invalid escape sequences warn (SyntaxWarning from 3.12), which is no business of the review's output.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=path)


def _reason(error: SyntaxError) -> str:
    return "syntax error: " + (error.msg or "invalid syntax")[:100]


def _parse_newer(text: str, path: str, error: SyntaxError) -> ast.Module:
    """Parse with libcst, lower what this `ast` lacks, parse again; or say why the file does not parse."""
    if _too_deep(text):
        raise PythonSyntaxError(TOO_DEEP) from None
    import libcst  # only here: it costs start-up time, and nearly every file takes the fast path

    try:
        module = libcst.parse_module(text)
    except libcst.ParserSyntaxError as exc:
        # CPython's message is the clearer one, unless newer syntax stopped it before the real error. An
        # unclosed bracket is where CPython says (libcst only notices at the end of the file).
        if error.lineno is None or error.lineno >= exc.raw_line - 1 or "never closed" in error.msg:
            raise PythonSyntaxError(_reason(error), error.lineno) from None
        detail = str(exc.message).rsplit(": ", 1)[-1][:80]
        raise PythonSyntaxError(f"syntax error: invalid syntax ({detail})", exc.raw_line) from None
    except (RecursionError, MemoryError):
        raise PythonSyntaxError(TOO_DEEP) from None
    except Exception:  # libcst's own checks (of identifiers, say) may refuse what its parser read
        raise PythonSyntaxError(_reason(error), error.lineno) from None
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    unread = PythonSyntaxError(f"uses syntax Python {version} cannot read ({_reason(error)})", error.lineno)
    try:
        lowered = _lower(libcst, module, text)
    except (RecursionError, MemoryError):  # libcst walks its tree recursively, in Python
        raise PythonSyntaxError(TOO_DEEP) from None
    except UnicodeError:
        raise unread from None
    try:
        tree = _parse(lowered, path)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        raise unread from None
    setattr(tree, _LOWERED, True)  # noqa: B010 - an attribute of our own on the stdlib's node
    return tree


# Marks a tree parsed from lowered text: its nodes are not those `ast.parse` gives for part of the text.
_LOWERED = "_bot_lowered"


def was_lowered(tree: ast.Module) -> bool:
    """Whether parse_python read this tree from lowered text (newer syntax), not with `ast.parse` alone."""
    return getattr(tree, _LOWERED, False)


def _too_deep(text: str) -> bool:
    """Whether a rough count of nesting (brackets, operator chains, elifs) exceeds what libcst survives.

    Each open bracket keeps the count of operators chained at its level; the depth at a point is the sum
    over the open levels, brackets weighing five (they cost libcst several levels each).
    """
    chains = [0]
    elifs = 0
    for m in _TOKENS.finditer(text):
        kind = m.lastgroup
        if kind == "open":
            chains.append(0)
            if len(chains) > MAX_BRACKETS:
                return True
        elif kind == "op" or kind == "close":
            if kind == "close" and len(chains) > 1:
                chains.pop()  # what closed is one link of the chain around it: `a[1][1]`, `f()()`
            chains[-1] += 1
            if sum(chains) + 5 * (len(chains) - 1) > MAX_DEPTH:
                return True
        elif kind == "sep" or (kind == "nl" and len(chains) == 1):
            chains[-1] = 0
        elif kind == "elif":
            elifs += 1
            if elifs > MAX_ELIFS:
                return True
    return False


def _blank(segment: str) -> str:
    """What replaces removed code: its line breaks, each continued with a backslash so lines stay put."""
    return "".join("\\" + br for br in _BREAKS.findall(segment))


def _readable(code: str) -> bool:
    try:
        _parse("(\n" + code + "\n)", "<string>")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


def _lower(libcst: Any, module: Any, text: str) -> str:
    """The text with every construct this `ast` lacks rewritten, line breaks kept.

    Walking a libcst tree is slow (pure Python), so only the top-level statements this `ast` cannot read
    are walked; the others are kept as they are.
    """
    if module.code != text:  # spans index the code libcst writes back, which must be the text itself
        raise UnicodeError("libcst did not reproduce the text")
    out: list[str] = []
    at = 0
    for stmt in module.body:
        code = module.code_for_node(stmt)
        start = text.find(code, at)
        if start < 0:  # a statement libcst writes differently in isolation: lower the whole module
            return _lower_module(libcst, module, text)
        out.append(text[at:start])
        at = start + len(code)
        if _readable_statement(code):
            out.append(code)
        else:
            part = module.with_changes(body=[stmt], header=[], footer=[])
            out.append(_lower_module(libcst, part, part.code))
    out.append(text[at:])
    return "".join(out)


def _readable_statement(code: str) -> bool:
    try:
        _parse(code, "<string>")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


def _lower_module(libcst: Any, module: Any, text: str) -> str:
    if module.code != text:
        raise UnicodeError("libcst did not reproduce the text")
    data = text.encode("utf-8")
    wrapper = libcst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    spans = wrapper.resolve(libcst.metadata.ByteSpanPositionProvider)
    edits: list[tuple[int, int, str]] = []

    def span(node: Any) -> tuple[int, int]:
        s = spans[node]
        return s.start, s.start + s.length

    def remove(start: int, end: int) -> None:
        edits.append((start, end, _blank(data[start:end].decode("utf-8"))))

    class Lowering(libcst.CSTVisitor):  # type: ignore[misc, name-defined]
        def _string(self, node: Any) -> bool:
            start, end = span(node)
            code = data[start:end].decode("utf-8")
            if not _readable(code):
                digest = hashlib.sha1(code.encode("utf-8")).hexdigest()[:12]
                edits.append((start, end, f"_bot_string_{digest}(" + "".join(_BREAKS.findall(code)) + ")"))
            return False  # a string this `ast` reads has nothing inside it that needs lowering

        visit_ConcatenatedString = _string
        visit_FormattedString = _string
        visit_TemplatedString = _string

        def visit_SimpleString(self, node: Any) -> bool:
            return False

        def visit_TypeParameters(self, node: Any) -> bool:
            remove(*span(node))
            return False

        def visit_TypeAlias(self, node: Any) -> bool:
            remove(span(node)[0], span(node.name)[0])  # the `type` keyword
            return True

        def _handler(self, node: Any) -> bool:
            if isinstance(node.type, libcst.Tuple) and not node.type.lpar:
                start, end = span(node.type)
                edits.extend([(start, start, "("), (end, end, ")")])
            return True

        visit_ExceptHandler = _handler
        visit_ExceptStarHandler = _handler

    wrapper.module.visit(Lowering())
    out = bytearray()
    at = 0
    for start, end, replacement in sorted(edits):
        out += data[at:start] + replacement.encode("utf-8")
        at = end
    out += data[at:]
    return out.decode("utf-8")
