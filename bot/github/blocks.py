"""Which lines of a comment GitHub renders as top-level paragraph text: where a command may stand.

A CommonMark/GFM block reader cut down to that one question, and conservative where it is unsure: a line it
calls paragraph text is one cmark-gfm puts in a top-level paragraph, outside code spans, inline HTML and
link titles (tests/test_blocks.py checks this against cmark-gfm on generated comments). Unsure cases (the lazy
continuation of a quote or list, an HTML block, a table, a paragraph that may be a link definition or a
setext heading) count as not paragraph text: a command there is ignored, never run.

Lines break at `\\n` and `\\r\\n` only. A lone `\\r`, which some renderers break at and others do not, makes
its line no paragraph line; U+2028 and the other breaks `str.splitlines` knows are ordinary characters, as
they are to markdown.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"(`{3,})(?!.*`)|(~{3,})")
_BLOCKQUOTE = re.compile(r">")
_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_THEMATIC = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
# Ends with `(?:\|[ \t]*)?$`, not `\|?[ \t]*$`: two `[ \t]*` in a row split a run of spaces every way.
_TABLE_DELIMITER = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$")
_LINK_DEFINITION = re.compile(r"\[")
_TAG_START = re.compile(r"<[A-Za-z/!?]")
# HTML blocks 1-5 end at a marker; 6 and 7 (any other tag) at a blank line.
_HTML_ENDS = (
    (
        re.compile(r"<(?:script|pre|style|textarea)(?:[\s>]|$)", re.IGNORECASE),
        re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE),
    ),
    (re.compile(r"<!--"), re.compile(r"-->")),
    (re.compile(r"<\?"), re.compile(r"\?>")),
    (re.compile(r"<![A-Za-z]"), re.compile(r">")),
    (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>")),
)


def split_lines(body: str) -> list[str]:
    """The lines of a comment as markdown sees them: broken at \\n and \\r\\n only."""
    return re.split(r"\r?\n", body)


def _indent(line: str) -> tuple[int, str]:
    width = 0
    for i, ch in enumerate(line):
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            return width, line[i:]
    return width, ""


class _Before:
    """What paragraph text so far leaves open across the next line (a code span, a tag, a link), kept line
    by line: rescanning the paragraph for every line would be quadratic in a long comment."""

    def __init__(self) -> None:
        self.tag = False  # a tag, comment or instruction may run on over lines: not worth guessing its end
        self.link = False  # a `](` not closed by a later `)`
        self.ticks = False
        self.risky = False  # `\` or `<`: escaped backticks, backticks inside tags
        self.opened: int | None = None  # the length of the backtick run that opened a code span

    @property
    def unsafe(self) -> bool:
        if self.tag or self.link:
            return True
        if not self.ticks:
            return False
        return self.risky or self.opened is not None

    def add(self, line: str) -> None:
        self.tag = self.tag or _TAG_START.search(line) is not None
        link, close = line.rfind("]("), line.rfind(")")
        if link >= 0 or close >= 0:
            self.link = link > close
        self.risky = self.risky or "\\" in line or "<" in line
        if "`" in line:
            self.ticks = True
            for run in _TICKS.findall(line):
                if self.opened is None:
                    self.opened = len(run)
                elif len(run) == self.opened:
                    self.opened = None


_TICKS = re.compile(r"`+")


def paragraph_lines(body: str) -> list[tuple[int, str]]:
    """(line number, line) of every line that is surely top-level paragraph text."""
    lines = split_lines(body)
    out: list[tuple[int, str]] = []
    para: list[int] = []
    fence: tuple[str, int] | None = None
    html_end: re.Pattern[str] | None = None
    html_blank = False
    html_guessed = False  # the open HTML block was taken for one only because the reader is unsure
    lazy = False  # inside a quote or list item until a blank line: a line here may be its lazy continuation
    in_list = False  # a list item is open: indented lines after a blank still belong to it
    table = False

    def close(keep: bool = True) -> None:
        if keep and para and not _LINK_DEFINITION.match(lines[para[0]].lstrip()):
            before = _Before()
            for index in para:
                line = lines[index]
                if "\r" not in line and not before.unsafe:
                    out.append((index + 1, line))
                before.add(line)
        para.clear()

    for index, line in enumerate(lines):
        width, rest = _indent(line)
        if fence is not None:
            # A closing fence is fence characters and then only spaces or tabs: "```  ```" is code.
            if (
                width <= 3
                and rest.startswith(fence[0] * fence[1])
                and not rest.rstrip(" \t").lstrip(fence[0])
            ):
                fence = None
            continue
        if html_end is not None:
            if html_end.search(line):
                html_end = None
                # A block only guessed to be HTML (in a list, a quote...) may not have been one: its "end"
                # line may start a block of its own, which runs to a blank line.
                html_blank = html_guessed
            continue
        if not rest:
            close()
            html_blank = lazy = table = False
            continue
        if para and width >= 4:
            para.append(index)  # a paragraph's continuation: indentation cannot start a block inside it
            continue
        m = _FENCE.match(rest)
        if m and (width <= 3 or lazy or in_list or html_blank or table):
            # Where the reader is unsure of the block (a quote's lazy line, a list, an HTML block), a fence
            # is still taken for one: everything up to its end is then not paragraph text.
            close()
            fence = ("`", len(m.group(1))) if m.group(1) else ("~", len(m.group(2)))
            continue
        unsure = lazy or in_list or html_blank or table
        ender = next((end for start, end in _HTML_ENDS if start.match(rest)), None)
        if ender is not None and not ender.search(rest) and (width <= 3 or unsure):
            # So is an HTML block that runs to an end marker (a comment, `<pre>`, `<?`); indented by four
            # or more outside a list or quote, it is code.
            close()
            html_end = ender
            html_guessed = unsure
            continue
        if html_blank or table:
            continue
        if in_list and width >= 1 and not para:
            lazy = True  # list content, which the next lines may continue lazily
            continue
        if in_list and width == 0 and not _LIST_ITEM.match(rest):
            in_list = False
        if width >= 4:
            if para:
                para.append(index)
            elif not lazy:
                continue  # indented code
            continue
        if lazy:
            continue
        if para and _SETEXT.match(rest):
            close(keep=False)  # the paragraph is a heading
            continue
        if para and "|" in rest + lines[para[-1]] and _TABLE_DELIMITER.match(rest):
            close(keep=False)  # a table: its rows are cells, not paragraph text
            table = True
            continue
        if _THEMATIC.match(rest) or _ATX.match(rest):
            close()
            continue
        if _BLOCKQUOTE.match(rest):
            close()
            lazy = True
            continue
        if _LIST_ITEM.match(rest):
            # Some list items cannot interrupt a paragraph (empty ones, numbers other than 1): the paragraph
            # may go on, even into a setext heading. Unsure, it is dropped.
            close(keep=False)
            lazy = in_list = True
            continue
        if rest.startswith("<"):
            close(keep=False)  # likewise: most tags cannot interrupt a paragraph
            for start, end in _HTML_ENDS:
                if start.match(rest):
                    html_end = None if end.search(rest) else end
                    break
            else:
                html_blank = True
            continue
        para.append(index)
    if fence is None:
        close()
    return out
