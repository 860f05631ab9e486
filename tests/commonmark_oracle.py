"""What cmark-gfm shows as top-level paragraph text, found without the reader's own method (for tests).

Each line that could be a command has its handle replaced by a token of its own (letters and digits only, so
the block structure does not change); the comment is rendered by cmark-gfm and read by the standard library's
HTML parser: a line is shown when its token starts a line of text directly inside a `<p>` that no element
encloses, and the words after it are the line's own words.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from cmarkgfm import cmark

EXTENSIONS = ["table", "autolink", "tagfilter", "strikethrough", "tasklist"]
VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())
_BREAK = re.compile(r"(\r\n|\r|\n)")
_CANDIDATE = re.compile(r"^( {0,3})@bot(?=\s|$)", re.IGNORECASE)
_TOKEN = re.compile(r"@Qz(\d{5})x(?=\s|$)")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.in_top_p = False
        self.line_start = False
        self.found: dict[int, str] = {}

    def handle_starttag(self, tag, attrs):
        self.line_start = False
        if tag in VOID:
            return
        if tag == "p" and not self.stack:
            self.in_top_p = True
            self.line_start = True
        self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        self.line_start = False
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
            if not self.stack:
                self.in_top_p = False

    def handle_comment(self, data):
        self.line_start = False

    def handle_decl(self, decl):
        self.line_start = False

    def handle_pi(self, data):
        self.line_start = False

    def unknown_decl(self, data):
        self.line_start = False

    def handle_data(self, data):
        if not (self.in_top_p and len(self.stack) == 1):
            return
        for i, piece in enumerate(data.split("\n")):
            if i > 0 or self.line_start:
                text = piece.lstrip(" \t")
                m = _TOKEN.match(text)
                if m:
                    self.found[int(m.group(1))] = text
        self.line_start = False
        # The last piece may go on after this data (nothing else does: convert_charrefs joins text).


def shown(body: str, footnotes: bool) -> dict[int, list[str]]:
    """1-based line -> the words shown from its token on, for lines that could be commands to @bot."""
    parts = _BREAK.split(body)
    lines, seps = parts[0::2], parts[1::2]
    tokens: dict[int, str] = {}
    for i, line in enumerate(lines):
        m = _CANDIDATE.match(line)
        if m:
            lines[i] = f"{m.group(1)}@Qz{i:05d}x{line[m.end() :]}"
            tokens[i] = line[len(m.group(1)) : m.end()]  # the handle as written
    if not tokens:
        return {}
    marked = "".join(a + b for a, b in zip(lines, [*seps, ""], strict=True))
    options = cmark.Options.CMARK_OPT_UNSAFE | (cmark.Options.CMARK_OPT_FOOTNOTES if footnotes else 0)
    reader = _Reader()
    try:
        reader.feed(cmark.markdown_to_html_with_extensions(marked, options=options, extensions=EXTENSIONS))
    except AssertionError:
        pass  # markup the standard library's parser gives up on (`<![`): nothing after it is counted as shown
    out = {}
    for i, text in reader.found.items():
        out[i + 1] = [tokens[i], *text.split()[1:]]
    return out
