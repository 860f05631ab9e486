"""Which lines of a comment GitHub shows as top-level paragraph text: where a command may stand.

Decided by GitHub's own markdown parser, cmark-gfm (the `cmarkgfm` bindings), not by a reader of our own: a
hand-written CommonMark reader was fooled by image alt text, HTML comments opened mid-line, lazy list lines,
link reference definitions before a table and `<details>` blocks. The comment is rendered to HTML with
GitHub's extensions and raw HTML kept (as GitHub keeps it before sanitising), then the HTML is read the way a
browser nests it. A source line counts only when all of this holds, else it is ignored, never run:

- it lies in a `<p>` that no element encloses (not in a list, quote, table, `<details>`, `<div>`...);
- it starts a line of that paragraph's text, and its first words are shown there as text directly inside
  the `<p>` (not inside a link, image alt text, code span, emphasis or inline HTML), exactly as written;
- the paragraph's lines can be matched to the source lines one to one (a code span or inline HTML over a
  line break, or a `&#10;` that makes a break of its own, leaves the whole paragraph unsure);
- every piece of raw HTML before it was read without doubt: an unclosed comment, a tag this reader does not
  parse, or an element whose content browsers read differently (`<table>`, `<textarea>`, `<svg>`...) ends
  the reading there;
- it is read so both with and without footnotes (GitHub renders them in comments; other clients may not).

Lines break at `\\n`, `\\r\\n` and a lone `\\r`, as in cmark; a line next to a lone `\\r`, which some clients
do not break at, is never taken.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

# GitHub's extensions for comments. Options: keep raw HTML (to read how it nests) and say where each block is.
EXTENSIONS = ("table", "autolink", "tagfilter", "strikethrough", "tasklist")

_SPLIT = re.compile(r"\r\n|\r|\n")
_SOURCEPOS = re.compile(r'data-sourcepos="(\d+):\d+-(\d+):\d+"')
# A character reference that makes a line break of its own inside text.
_NEWLINE_REFERENCE = re.compile(r"&(?:#0*1[03]|#[xX]0*[aAdD]|NewLine);")
_WS = "[ \\t\\n\\f\\r]"
_COMMENT = re.compile(r"<!--(?!-?>).*?-->", re.DOTALL)
_END = re.compile(rf"</([A-Za-z][A-Za-z0-9-]*){_WS}*>")
_START = re.compile(
    rf"<([A-Za-z][A-Za-z0-9-]*)((?:{_WS}+[^ \t\n\f\r\"'>/=<]+"
    rf"(?:{_WS}*={_WS}*(?:\"[^\"]*\"|'[^']*'|[^ \t\n\f\r\"'=<>`]+))?)*){_WS}*/?>"
)
_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())
# Elements whose content a browser tokenises or places differently (raw text, foreign content, tables'
# foster parenting): not worth following; whatever comes after one is unsure.
_TABLE_PARTS = frozenset("thead tbody tr th td".split())
_STOP = frozenset(
    "script style textarea title xmp iframe noembed noframes noscript plaintext template svg math "
    "table caption colgroup tbody thead tfoot tr td th select option optgroup frameset frame object "
    "image".split()
)


class Shown(NamedTuple):
    """A source line that starts a line of top-level paragraph text, and the direct text shown there."""

    number: int  # 1-based, in cmark's line numbering
    line: str  # the source line
    shown: str  # the text directly inside the <p> from the start of the rendered line to the first tag


class _Paragraph(NamedTuple):
    first: int  # its source lines, as cmark gives them
    last: int
    runs: tuple[str, ...]  # per rendered line, its leading direct text
    # The rendered lines in which the first and the last markup other than `<br>` stands (a link, code span,
    # image, emphasis, inline HTML): a source line break inside one leaves no `\n` of its own in the text.
    first_markup: int | None
    last_markup: int | None
    complete: bool  # closed before the reading stopped


def split_lines(body: str) -> list[str]:
    """The lines of a comment as cmark sees them: broken at \\n, \\r\\n and a lone \\r."""
    return _SPLIT.split(body)


def _render(body: str, footnotes: bool) -> str:
    # Imported here: most runs of the bot read no comment, and start-up stays fast.
    from cmarkgfm import cmark  # type: ignore[import-untyped]

    opt = cmark.Options
    options = opt.CMARK_OPT_SOURCEPOS | opt.CMARK_OPT_UNSAFE | opt.CMARK_OPT_VALIDATE_UTF8
    if footnotes:
        options |= opt.CMARK_OPT_FOOTNOTES
    # A lone surrogate (JSON allows "\ud800") cannot be encoded as UTF-8; it becomes U+FFFD, as cmark's own
    # validation would make any other invalid byte. It is never a line break, so line numbers stay.
    text = body.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return str(cmark.markdown_to_html_with_extensions(text, options, EXTENSIONS))


def _own_table(name: str, attrs: str, stack: list[str]) -> bool:
    """A table cmark-gfm wrote itself (from `|` rows): whole, with cells, and never raw text between them."""
    if name == "table":
        return "data-sourcepos=" in attrs  # the comment holds no such text: it is the renderer's own
    return name in _TABLE_PARTS and "table" in stack  # only the renderer's own tables are ever on the stack


def _low(marks: list[int]) -> int | None:
    return marks[0] if marks else None


def _high(marks: list[int]) -> int | None:
    return marks[-1] if marks else None


def _paragraphs(rendered: str) -> list[_Paragraph]:
    """Top-level paragraphs of the HTML, read until the first piece of HTML the reader is unsure of."""
    out: list[_Paragraph] = []
    stack: list[str] = []
    pos = 0
    para: tuple[int, int] | None = None
    runs: list[str] = []
    markup: list[int] = []
    open_run = False  # the current rendered line has seen only direct text so far
    while True:
        lt = rendered.find("<", pos)
        if para is not None and len(stack) == 1:
            pieces = rendered[pos : lt if lt >= 0 else len(rendered)].split("\n")
            if open_run:
                runs[-1] += pieces[0]
            if len(pieces) > 1:
                runs.extend(pieces[1:])
                open_run = True
        if lt < 0:
            break
        open_run = False
        after = rendered[lt + 1 : lt + 2]
        if after == "!":
            m = _COMMENT.match(rendered, lt)
            if m is None:
                break  # an unclosed comment, a declaration, CDATA: the rest is unsure
            pos = m.end()
            if para is not None:
                markup.append(len(runs) - 1)
            continue
        if after == "/":
            m = _END.match(rendered, lt)
            if m is None:
                break
            pos = m.end()
            # A browser may close more on an end tag, never less, than popping only a matching top.
            if stack and stack[-1] == m.group(1).lower():
                stack.pop()
                if para is not None and not stack:
                    out.append(_Paragraph(*para, tuple(runs), _low(markup), _high(markup), True))
                    para = None
                    continue
            if para is not None:
                markup.append(len(runs) - 1)  # `</span\n>` holds a line break
            continue
        m = _START.match(rendered, lt)
        if m is None:
            break  # a `<` that starts nothing this reader parses (a processing instruction...): unsure
        pos = m.end()
        name = m.group(1).lower()
        if para is not None and name != "br":
            markup.append(len(runs) - 1)
        if name in _VOID:
            continue
        if name in _STOP and not _own_table(name, m.group(2), stack):
            break
        if name == "p" and not stack:
            pos_m = _SOURCEPOS.fullmatch(m.group(2).strip())
            if pos_m is not None:
                para = (int(pos_m.group(1)), int(pos_m.group(2)))
                runs = [""]
                markup = []
                open_run = True
        stack.append(name)
    if para is not None:
        # Up to where the reading stopped: what a browser shows before that does not depend on what follows.
        out.append(_Paragraph(*para, tuple(runs), _low(markup), _high(markup), False))
    return out


def _shown(body: str, lines: list[str], seps: list[str], footnotes: bool) -> dict[int, str]:
    import html  # here, not at the top: html.entities is a large table that start-up need not load

    shown: dict[int, str] = {}
    for para in _paragraphs(_render(body, footnotes)):
        span = para.last - para.first
        breaks = len(para.runs) - 1
        if para.first < 1 or para.last > len(lines) or span < 0:
            continue
        source = lines[para.first - 1 : para.last]
        # A `&#10;` makes a line break of its own: count from the top only down to its line, from the bottom
        # only up to it.
        entities = [para.first + i for i, line in enumerate(source) if _NEWLINE_REFERENCE.search(line)]
        top_limit = entities[0] if entities else para.last
        bottom_limit = entities[-1] if entities else 0
        # A rendered line is matched to its source line by counting lines from the paragraph's top while no
        # markup before it may hide a line break (nor link reference definitions, which are not shown, at
        # its start), or from its bottom while none after it may.
        refs = source[0].lstrip(" ").startswith("[")
        exact = para.complete and breaks == span and not entities
        for k, run in enumerate(para.runs):
            top = para.first + k
            bottom = para.last - breaks + k
            if exact or (
                not refs and (para.first_markup is None or k <= para.first_markup) and top <= top_limit
            ):
                number = top
            elif (
                para.complete
                and (para.last_markup is None or k > para.last_markup)
                and para.first <= bottom
                and bottom > bottom_limit
            ):
                number = bottom
            else:
                continue
            if number > para.last:
                break
            if seps[number - 1] == "\r" or seps[number] == "\r":
                continue  # next to a lone CR, which some clients do not break at
            shown[number] = html.unescape(run)
    return shown


@functools.lru_cache(maxsize=4)
def shown_lines(body: str) -> tuple[Shown, ...]:
    """Every source line that starts a line of top-level paragraph text, with the text shown there."""
    if "data-sourcepos" in body.lower():
        return ()  # raw HTML could pass for the renderer's own paragraphs: unsure
    lines = split_lines(body)
    # seps[i] is the line break before line i+1 (1-based), "" at either end.
    seps = ["", *_SPLIT.findall(body), ""]
    with_notes = _shown(body, lines, seps, footnotes=True)
    # Footnotes change the blocks only where a footnote can be: `[^`.
    without = _shown(body, lines, seps, footnotes=False) if "[^" in body else with_notes
    return tuple(
        Shown(number, lines[number - 1], text)
        for number, text in sorted(with_notes.items())
        if without.get(number) == text
    )
