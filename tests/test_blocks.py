"""Commands are read where GitHub shows top-level paragraph text, checked against cmark-gfm itself."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.github.blocks import shown_lines
from bot.github.commands import addressed, parse_commands
from tests.commonmark_oracle import shown


def assert_sound(body: str) -> None:
    """Every command taken is, to cmark-gfm (with footnotes and without), shown on its own line of top-level
    paragraph text: its first words, as written, start a line of text right inside a `<p>` in no element."""
    views = (shown(body, footnotes=True), shown(body, footnotes=False))
    lines = re.split(r"\r\n|\r|\n", body)
    for cmd in parse_commands(body, "bot"):
        words = lines[cmd.line - 1].split()
        needed = words[:4] if cmd.name == "waive" else words
        for view in views:
            seen = view.get(cmd.line)
            assert seen is not None, f"line {cmd.line} {lines[cmd.line - 1]!r} is not shown as paragraph text"
            assert seen[: len(needed)] == needed, f"line {cmd.line}: shown {seen!r}, taken {needed!r}"
            if cmd.name != "waive":
                assert len(seen) == len(needed), f"line {cmd.line}: shown {seen!r}, taken {needed!r}"


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
    # Issue 22, item 10: shapes a hand-written reader took for paragraph text.
    "image alt text": "![\n@bot waive AGT001 in the alt text\n](https://example.com/a.png)",
    "image alt text after words": "see ![a\n@bot waive AGT001 in the alt text\nb](/a.png) here",
    "html comment opened mid-line": "<p><!--\n\n@bot waive AGT001 commented out\n\n-->",
    "lazy line, then an indented quote in the list item": (
        "- item\nlazy line\n\n    > quoted\n@bot waive AGT001 lazily quoted"
    ),
    "table row after a link reference definition and a rule": (
        "[ref]: https://example.com\n---\n| - |\n@bot waive AGT001 a table row"
    ),
    "details around a pasted log": (
        "<details><summary>log</summary>\n\n```\nerror: x\n```\n\n@bot waive AGT001 in the log\n\n</details>"
    ),
    "details with a paragraph": "<details>\n\n@bot review\n\n</details>",
    "inline tag left open": "Hello <span>\n@bot waive AGT001 inside a span",
    "inline comment over lines": "Hello <!-- a\n@bot waive AGT001 commented out\n-->",
    "inside a link's text": "[a\n@bot waive AGT001 in a link\n](https://example.com)",
    "a footnote's lazy line": "[^1]: note\n@bot waive AGT001 in a footnote\n\nsee[^1]",
    "hidden reason": "@bot waive AGT001 <!-- why -->",
    "review with hidden words": "@bot review <span>later</span>",
    "raw table": "<table>\n\n@bot waive AGT001 after a raw table",
    "tag left open in a table cell": "| a |\n| - |\n| <div> |\n\n@bot waive AGT001 after it",
    "raw paragraph forged": '<p data-sourcepos="2:1-2:11">\n@bot review</p>',
}


@pytest.mark.parametrize("name", sorted(IGNORED))
def test_quoted_or_code_commands_are_ignored(name):
    body = IGNORED[name]
    assert parse_commands(body, "bot") == ()


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
        # Markup around or after the command does not hide it.
        ("<details>\n<summary>log</summary>\n\nerror\n\n</details>\n\n@bot waive AGT001 after it", 8),
        ("<!-- a note -->\n@bot waive AGT001 after a comment", 2),
        ("Thanks `x`\n@bot waive AGT001 after a code span", 2),
        ("[a](/u)\n@bot waive AGT001 after a link\nmore", 2),
        ("[ref]: /u\n@bot waive AGT001 after a definition", 2),
        ("see &#10; here\nand\n@bot waive AGT001 after a reference", 3),
        ("@bot waive AGT001 a `fixture`, see [docs](/d)", 1),
        ("| a |\n| - |\n| `x` </table> |\n\n@bot waive AGT001 after a table", 5),
    ],
)
def test_paragraph_commands_are_read(body, line):
    (cmd,) = parse_commands(body, "bot")
    assert (cmd.name, cmd.rule, cmd.line) == ("waive", "AGT001", line)
    assert_sound(body)


def test_addressed_only_by_shown_text():
    # A comment whose only mention is hidden costs no API request.
    assert not addressed("![\n@bot review\n](https://example.com/a.png)")
    assert not addressed("<details>\n\n@bot review\n\n</details>")
    assert addressed("Thanks!\n@someone review")


def test_line_numbers_and_shown_text():
    body = "[ref]: /u\nThanks `x`\n@bot waive AGT001 a &amp; b\r\nend\rx\n@bot review"
    assert [(s.number, s.line, s.shown) for s in shown_lines(body)] == [
        # Line 2 is not matched: a definition (not shown) is above it and a code span (which may hide a
        # line break) in it, so its place can be counted from neither end.
        (3, "@bot waive AGT001 a &amp; b", "@bot waive AGT001 a & b"),
        # lines 4 and 5 meet at a lone CR, which some clients do not break at: neither is taken
        (6, "@bot review", "@bot review"),
    ]


PIECES = st.sampled_from(
    [
        "@bot review", "@bot waive AGT001 why", "text", "> ", ">", "- ", "1. ", "2) ", "    ", "\t", "```",
        "~~~", "<div>", "</div>", "<!--", "-->", "<pre>", "</pre>", "<span>", "---", "===", "***", "# ",
        "| a | b |", "|---|---|", "[a]:", "[a]: /u", "`", "``", "\\", "<", ">", "](", ")", "'", "\u2028",
        "\u00a0", "*", "_", "<?", "?>", "<![CDATA[", "]]>", "<!X", "|", "![", "](/a.png)", "<details>",
        "</details>", "<p><!--", "[^1]", "[^1]: ", "&#10;", "<span>", "</span>", "  ",
    ]
)  # fmt: skip
LINES = st.lists(PIECES, max_size=4).map("".join)
BODIES = st.tuples(st.lists(LINES, max_size=10), st.sampled_from(["\n", "\r\n"])).map(
    lambda t: t[1].join(t[0])
)


@settings(
    max_examples=int(__import__("os").environ.get("BLOCKS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(BODIES)
def test_no_line_outside_a_rendered_paragraph_is_taken(body):
    assert_sound(body)
