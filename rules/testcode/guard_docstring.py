"""The docstring AGT001 asks for: as a proposal in its message, and as a fix of the test's source lines."""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from rules.core.fixes import fix_key, lines_of, replacement
from rules.core.lines import char_col
from rules.core.models import Fix
from rules.testcode.testfiles import TestFile, TestFunction

# A docstring opening that already says what the test guards: the reference is added, not prefixed.
SAYS_WHAT_IT_GUARDS = re.compile(
    r"(?:guard(?:s|ing)?|protects?|prevents?|regression(?:\s+test)?\s+(?:for|of|from|against|in)|"
    r"reproduces?|reproducer\s+for|(?:tests?|checks?)\s+(?:the\s+)?fix)\b",
    re.IGNORECASE,
)
_STRING_PREFIX = re.compile(r"[rRuU]?")


# Past this width a reference added at the end of a one-line docstring goes on a line of its own instead.
WIDTH = 88
# A text that ends a sentence: the reference can follow it as a sentence of its own.
_ENDS_SENTENCE = re.compile(r"[.!?][\"')\]]*$")
_PROPOSED_INLINE = 100  # a one-line docstring longer than this is not repeated in the message


def reference_sentence(text: str, ref: str) -> str:
    """The sentence naming ref that is added to a docstring: "See PR #12." where its text already says what
    it guards ("Guards against ..."), "Guards PR #12." otherwise."""
    return f"See {ref}." if SAYS_WHAT_IT_GUARDS.match(text.strip()) else f"Guards {ref}."


def proposal(test: TestFunction, pr: int | None) -> str:
    """The docstring the message proposes: the test's own text, never cut, with the reference after it."""
    ref = f"PR #{pr}" if pr else "PR #<number>"
    text = (test.docstring or "").strip()
    if not text:
        return f'`"""Guards {ref}: what it protects."""`'
    sentence = reference_sentence(text, ref)
    if "\n" not in text and _ENDS_SENTENCE.search(text) and len(text) <= _PROPOSED_INLINE:
        return f'`"""{text} {sentence}"""`'
    return f"the line `{sentence}` at the end of its docstring"


def _phrase(test: TestFunction) -> str:
    """What a test without a docstring is about, from its name: `test_steps_round` -> "steps round"."""
    words = test.name.removeprefix("test").strip("_").replace("_", " ").strip()
    return words or "what it protects"


@lru_cache(maxsize=16)
def _quote(text: str) -> str:
    """The docstring quotes the file already uses: `'''` only where it uses them more than `\"\"\"`."""
    return "'''" if text.count("'''") > text.count('"""') else '"""'


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _add_reference(tf: TestFile, test: TestFunction, doc: ast.Expr, ref: str) -> Fix | None:
    """The reference added to an existing docstring, whose text stays as it is: after its last sentence on
    a one-line docstring that ends one and stays within WIDTH, else as a paragraph of its own before the
    closing quotes."""
    lines = lines_of(tf.text)
    start, end = doc.lineno, doc.end_lineno or doc.lineno
    if end > len(lines) or doc.end_col_offset is None:
        return None
    first, last = lines[start - 1], lines[end - 1]
    open_at = char_col(first, doc.col_offset)  # the parser counts columns in UTF-8 bytes
    prefix = _STRING_PREFIX.match(first, open_at)
    quote_at = prefix.end() if prefix else open_at
    quote = first[quote_at : quote_at + 3]
    quote = quote if quote in ('"""', "'''") else first[quote_at : quote_at + 1]
    close_end = char_col(last, doc.end_col_offset)
    close_at = close_end - len(quote)
    if not quote or last[close_at:close_end] != quote:
        return None  # an implicit concatenation or a source the positions do not fit: no certain fix
    text = (test.docstring or "").strip()
    sentence = reference_sentence(text, ref)
    before, after = last[:close_at], last[close_at:]
    new: tuple[str, ...] | None = None
    if start == end:
        inner = first[quote_at + len(quote) : close_at]
        kept = before[: len(before) - len(inner)] + inner.rstrip()
        inline = f"{kept} {sentence}{inner[len(inner.rstrip()) :]}{after}"
        if _ENDS_SENTENCE.search(inner.rstrip()) and len(inline) <= max(WIDTH, len(last)):
            new = (inline,)
        elif len(quote) == 3:
            indent = _indent(first)
            new = (kept, "", f"{indent}{sentence}", f"{indent}{after}")
    elif len(quote) == 3:
        if before.strip():  # the closing quotes end the last line of text
            indent = _indent(first)
            new = (before.rstrip(), "", f"{indent}{sentence}{after}")
        else:  # the closing quotes on a line of their own: a paragraph before them
            blank = () if not lines[end - 2].strip() else ("",)
            new = (*blank, f"{before}{sentence}", last)
    if new is None:
        return None  # a one-line '...' string cannot take a line of its own
    if not _keeps_text(tf.text, doc, new, ref):
        return None
    key = fix_key("AGT001", tf.path, test.qualname)
    return replacement(key, tf.path, tf.text, end, end, new)


def _keeps_text(text: str, doc: ast.Expr, new: tuple[str, ...], ref: str) -> bool:
    """Whether the docstring, with its last line replaced by new, still parses to its own text followed by
    the reference (and nothing else): the check that no line or column was misread."""
    lines = lines_of(text)
    start, end = doc.lineno, doc.end_lineno or doc.lineno
    first = lines[start - 1]
    open_at = char_col(first, doc.col_offset)
    original = "\n".join(lines[start - 1 : end])
    suffix = len(lines[end - 1]) - char_col(lines[end - 1], doc.end_col_offset or 0)
    changed = "\n".join((*lines[start - 1 : end - 1], *new))
    try:
        before = ast.literal_eval(original[open_at : len(original) - suffix])
        after = ast.literal_eval(changed[open_at : len(changed) - suffix])
    except (SyntaxError, ValueError):
        return False
    assert isinstance(doc.value, ast.Constant)
    if before != doc.value.value or not isinstance(after, str):
        return False
    return after.split() == [*before.split(), *reference_sentence(before, ref).split()]


def _insert(
    tf: TestFile, test: TestFunction, node: ast.FunctionDef | ast.AsyncFunctionDef, sentence: str
) -> Fix | None:
    """A new docstring line above the first statement of the body, at its indentation."""
    body = node.body[0]
    decorators = getattr(body, "decorator_list", None) or []
    number = min([body.lineno, *(d.lineno for d in decorators)])
    lines = lines_of(tf.text)
    if number <= node.lineno or number > len(lines):
        return None  # `def test(): ...` on one line: no line of its own to put a docstring above
    line = lines[number - 1]
    indent = line[: len(line) - len(line.lstrip())]
    if not decorators and len(indent) != char_col(line, body.col_offset):
        return None
    quote = _quote(tf.text)
    if quote in sentence or sentence.endswith(quote[0]) or "\\" in sentence:
        return None
    key = fix_key("AGT001", tf.path, test.qualname)
    return replacement(key, tf.path, tf.text, number, number, (f"{indent}{quote}{sentence}{quote}", line))


def docstring_fix(tf: TestFile, test: TestFunction, pr: int) -> Fix | None:
    """The fix naming PR #pr in the test's docstring: the reference added to its text, or a docstring
    inserted."""
    node = test.node
    if node is None or not node.body or not tf.text:
        return None
    ref = f"PR #{pr}"
    body = node.body[0]
    if (
        isinstance(body, ast.Expr)
        and isinstance(body.value, ast.Constant)
        and isinstance(body.value.value, str)
    ):
        # An empty docstring: filling its quotes is not what a person would expect of a reference fix.
        return _add_reference(tf, test, body, ref) if body.value.value.strip() else None
    return _insert(tf, test, node, f"Guards {ref}: {_phrase(test)}.")
