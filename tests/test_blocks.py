"""Commands are read where GitHub renders top-level paragraph text, checked against cmark-gfm itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.github.blocks import paragraph_lines
from bot.github.commands import parse_commands

EXTENSIONS = ["table", "autolink", "tagfilter", "strikethrough", "tasklist"]


class _TopLevel(HTMLParser):
    """Top-level <p> blocks of cmark-gfm's HTML: their source lines and their text outside code spans."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.code = 0
        self.paragraphs: list[tuple[range, list[str]]] = []
        self.current: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if self.depth == 0 and tag == "p":
            pos = dict(attrs)["data-sourcepos"]
            first, last = re.match(r"(\d+):\d+-(\d+):\d+", pos).groups()
            self.current = []
            self.paragraphs.append((range(int(first), int(last) + 1), self.current))
        if tag == "code":
            self.code += 1
        self.depth += 1

    def handle_endtag(self, tag):
        self.depth -= 1
        if tag == "code":
            self.code -= 1
        if self.depth == 0:
            self.current = None

    def handle_data(self, data):
        if self.current is not None and not self.code:
            self.current.append(data)


def rendered_paragraphs(body: str) -> list[tuple[range, list[str]]]:
    html = cmarkgfm.cmark.markdown_to_html_with_extensions(
        body, options=Options.CMARK_OPT_SOURCEPOS, extensions=EXTENSIONS
    )
    parser = _TopLevel()
    parser.feed(html)
    return [(lines, "".join(text).split("\n")) for lines, text in parser.paragraphs]


def assert_sound(body: str) -> None:
    """Every line taken for paragraph text is, to cmark-gfm, visible text of a top-level paragraph."""
    paragraphs = rendered_paragraphs(body)
    for number, line in paragraph_lines(body):
        words = line.split()
        if not words or not words[0].startswith("@"):
            continue  # only lines that could be commands matter
        holders = [text for lines, text in paragraphs if number in lines]
        assert holders, f"line {number} {line!r} is not in a top-level paragraph"
        (text,) = holders
        assert any(t.split()[:1] == words[:1] for t in text if t.strip()), (
            f"line {number} {line!r} is not visible paragraph text: {text!r}"
        )


IGNORED = {
    # U+2028 is no line break in markdown: the waiver is still inside the quote.
    "line separator in a quote": "> Earlier I wrote:\u2028@bot waive AGT001 quoted, not meant",
    "paragraph separator in a quote": "> quoted\u2029@bot waive AGT001 not meant",
    "next line in a quote": "> text\x85@bot waive AGT001 not meant",
    "lazy continuation of a quote": "> Someone wrote\n@bot waive AGT001 lazily quoted",
    "lazy continuation of a list item": "- an item\n@bot waive AGT001 lazily in the list",
    "html block": "<details>\n@bot waive AGT001 inside html\n</details>",
    "html comment": "<!--\n@bot waive AGT001 commented out\n-->",
    # Found by the property test below: the first line is indented code, not a declaration's start, so
    # `<div>` opens an HTML block that holds the command.
    "html block after indented code": "    <!X\n<div>\n@bot waive AGT001 inside html",
    "html block after a guessed one in a list": "- a\n  <!X\n<div>\n@bot waive AGT001 inside html",
    "backtick fence": "```\n@bot waive AGT001 in code\n```",
    "tilde fence": "~~~md\n@bot waive AGT001 in code\n~~~",
    "unclosed fence": "```\n@bot waive AGT001 in code",
    # Found by the property test below: a closing fence holds nothing after its spaces.
    "fence closed only in looks": "```\n```    ```\n@bot waive AGT001 in code",
    "tilde fence closed only in looks": "~~~\n~~~ ~\n@bot waive AGT001 in code",
    "indented code": "    @bot waive AGT001 in code",
    "tab-indented code": "\t@bot waive AGT001 in code",
    "code span over lines": "see `this\n@bot waive AGT001 in a span\n` here",
    "setext heading": "@bot waive AGT001 a heading\n---",
    "table cell": "| a |\n|---|\n@bot waive AGT001 a row",
    "lone carriage return": "hello\r@bot waive AGT001 after a lone CR",
    "link title over lines": "[x](/u 'a\n@bot waive AGT001 in a title\n')",
}


@pytest.mark.parametrize("name", sorted(IGNORED))
def test_quoted_or_code_commands_are_ignored(name):
    body = IGNORED[name]
    assert parse_commands(body, "bot") == ()
    if "\r" not in body.replace("\r\n", ""):
        assert_sound(body)


@pytest.mark.parametrize(
    "body, line",
    [
        ("@bot waive AGT001 fixture data", 1),
        ("Thanks!\n@bot waive AGT001 fixture data", 2),
        ("Thanks!\r\n\r\n@bot waive AGT001 fixture data\r\n", 3),
        ("> quoted\n\n@bot waive AGT001 after the quote", 3),
        ("```\ncode\n```\n@bot waive AGT001 after the fence", 4),
        ("- item\n\n@bot waive AGT001 after the list", 3),
        ("   @bot waive AGT001 three spaces", 1),
    ],
)
def test_paragraph_commands_are_read(body, line):
    (cmd,) = parse_commands(body, "bot")
    assert (cmd.name, cmd.rule, cmd.line) == ("waive", "AGT001", line)
    assert_sound(body)


PIECES = st.sampled_from(
    [
        "@bot review", "@bot waive AGT001 why", "text", "> ", ">", "- ", "1. ", "2) ", "    ", "\t", "```",
        "~~~", "<div>", "</div>", "<!--", "-->", "<pre>", "</pre>", "<span>", "---", "===", "***", "# ",
        "| a | b |", "|---|---|", "[a]:", "[a]: /u", "`", "``", "\\", "<", ">", "](", ")", "'", "\u2028",
        "\u00a0", "*", "_", "<?", "?>", "<![CDATA[", "]]>", "<!X", "|",
    ]
)  # fmt: skip
LINES = st.lists(PIECES, max_size=4).map("".join)
BODIES = st.tuples(st.lists(LINES, max_size=10), st.sampled_from(["\n", "\r\n"])).map(
    lambda t: t[1].join(t[0])
)


@settings(
    max_examples=int(__import__("os").environ.get("BLOCKS_EXAMPLES", "1500")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(BODIES)
def test_no_line_outside_a_rendered_paragraph_is_taken(body):
    assert_sound(body)
