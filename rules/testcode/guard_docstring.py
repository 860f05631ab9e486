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


def _shorten(text: str, limit: int = 80) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


def first_line(test: TestFunction) -> str:
    """The first line of the test's own docstring, stripped, or ""."""
    # Split at `\n` only: the other characters str.splitlines breaks at sit inside one line of the source,
    # where the fix looks for this text.
    return test.docstring.strip().split("\n")[0].strip() if test.docstring and test.docstring.strip() else ""


def guard_sentence(first: str, ref: str) -> str:
    """A docstring line naming ref, built from the test's own first line (its end punctuation already
    stripped) so that it reads as one sentence."""
    if SAYS_WHAT_IT_GUARDS.match(first):
        # "Guards against X" already says what it guards: only the reference is missing.
        return f"{first[0].upper()}{first[1:]} ({ref})."
    first = first[0].lower() + first[1:] if first[:1].isupper() and first[1:2].islower() else first
    end = "" if first.endswith("...") else "."
    return f"Guards {ref}: {first}{end}"


def proposal(test: TestFunction, pr: int | None) -> str:
    """The docstring the message proposes (shortened to one readable line)."""
    ref = f"PR #{pr}" if pr else "PR #<number>"
    first = _shorten(first_line(test).rstrip(".:;, "))
    if not first:
        return f'`"""Guards {ref}: what it protects."""`'
    sentence = guard_sentence(first, ref)
    if SAYS_WHAT_IT_GUARDS.match(first):
        return f'add `({ref})`: `"""{sentence}"""`'
    return f'`"""{sentence}"""`'


def _phrase(test: TestFunction) -> str:
    """What a test without a docstring is about, from its name: `test_steps_round` -> "steps round"."""
    words = test.name.removeprefix("test").strip("_").replace("_", " ").strip()
    return words or "what it protects"


@lru_cache(maxsize=16)
def _quote(text: str) -> str:
    """The docstring quotes the file already uses: `'''` only where it uses them more than `\"\"\"`."""
    return "'''" if text.count("'''") > text.count('"""') else '"""'


def _replace_first_line(tf: TestFile, test: TestFunction, doc: ast.Expr, sentence: str) -> Fix | None:
    """Replace the docstring's first line of text in place, keeping its quotes and the lines after it."""
    lines = lines_of(tf.text)
    first = first_line(test)
    end = doc.end_lineno or doc.lineno
    for number in range(doc.lineno, min(end, len(lines)) + 1):
        line = lines[number - 1]
        start = 0
        if number == doc.lineno:
            # Past the opening prefix and quote, so the search cannot match the code before the string.
            col = char_col(line, doc.col_offset)  # the parser counts columns in UTF-8 bytes
            prefix = _STRING_PREFIX.match(line, col)
            quote_at = prefix.end() if prefix else col
            quote = 3 if line[quote_at : quote_at + 3] in ('"""', "'''") else 1
            start = quote_at + quote
        if not line[start:].strip(" \t\"'"):
            continue  # the opening quotes alone on their line
        at = line.find(first, start)
        if at < 0:
            return None  # escapes or a continuation make the source differ from the text: no certain fix
        new = line[:at] + sentence + line[at + len(first) :]
        key = fix_key("AGT001", tf.path, test.qualname)
        return replacement(key, tf.path, tf.text, number, number, (new,))
    return None


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
    """The fix naming PR #pr in the test's docstring: its first line rewritten, or a docstring inserted."""
    node = test.node
    if node is None or not node.body or not tf.text:
        return None
    ref = f"PR #{pr}"
    first = first_line(test)
    body = node.body[0]
    has_doc = (
        isinstance(body, ast.Expr)
        and isinstance(body.value, ast.Constant)
        and isinstance(body.value.value, str)
    )
    if has_doc and first:
        assert isinstance(body, ast.Expr)
        sentence = guard_sentence(first.rstrip(".:;, ") or _phrase(test), ref)
        return _replace_first_line(tf, test, body, sentence)
    if has_doc:
        return None  # an empty docstring: rewriting its quotes is not a one-line change
    return _insert(tf, test, node, guard_sentence(_phrase(test), ref))
