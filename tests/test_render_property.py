"""Property tests: whatever text a pull request holds, the status comment keeps its structure.

Each untrusted field of a Report gets arbitrary text; the rendered markdown is then checked as written and as
GitHub's own parser (cmark-gfm, with raw HTML let through) turns it into HTML.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.review.render import INLINE_PROFILES, MARKER, render_comment
from rules.core.models import (
    Coverage,
    Finding,
    ProfileMath,
    Report,
    Severity,
    StepValues,
    Waiver,
)

# Pieces that have broken markdown comments somewhere: HTML, the marker, mentions, references, tables, code.
HOSTILE = [
    "<!--",
    "-->",
    MARKER,
    "<details><summary>x</summary>",
    '<img src="https://evil.example/x.png">',
    "<script>",
    "</sub>",
    "<br>",
    "@admin",
    "@org/team",
    "#12",
    "owner/repo#3",
    "GH-7",
    "[click](https://evil.example)",
    "https://evil.example",
    "www.evil.example",
    "a@b.co",
    "|",
    "\\|",
    "\\",
    "`",
    "```",
    "~~~",
    "\n",
    "\r\n",
    "\n\n",
    "\n# heading\n",
    "\n- item\n",
    "\n| a | b |\n|---|---|\n",
    "\n> quote\n",
    "    ",
    "*",
    "_",
    "&lt;",
    "&#64;",
    "\u202e",
    "\u2066",
    "\u200b",
    "\ufeff",
    "\u2060",
    "\x00",
    "\x1b[31m",
    "::error::",
]
ALPHABET = st.characters(codec="utf-8", exclude_categories=("Cs",))
UNTRUSTED = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(ALPHABET, max_size=12)), max_size=8).map(
    "".join
)

# What the template itself writes as HTML; anything else came from untrusted text.
TEMPLATE_TAGS = {
    "h3",
    "h4",
    "p",
    "code",
    "strong",
    "em",
    "ul",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "br",
    "sub",
    "blockquote",
    "details",
    "summary",
}
TEMPLATE_HTML = r"<br>|</?sub>|</?details>|</?summary>"
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
# GitHub's mention and reference filters skip text inside these elements.
SKIPPED = {"code", "pre", "a"}


class _Walk(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.comments: list[str] = []
        self.open: list[str] = []
        self.linkable = ""  # text where GitHub would link mentions and references

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag not in ("br",):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def handle_data(self, data: str) -> None:
        if not SKIPPED & set(self.open):
            self.linkable += data + "\n"


def html(markdown: str) -> _Walk:
    walk = _Walk()
    walk.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))
    return walk


def outside_code(markdown: str) -> str:
    """The markdown with its code spans removed, as CommonMark delimits them (backslashes escape outside)."""
    out, i = [], 0
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\":
            out.append(markdown[i : i + 2])
            i += 2
            continue
        if ch != "`":
            out.append(ch)
            i += 1
            continue
        run = len(markdown[i:]) - len(markdown[i:].lstrip("`"))
        close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(markdown, i + run)
        if close is None:  # an unmatched run is literal text
            out.append("`" * run)
            i += run
        else:
            i = close.end()
    return "".join(out)


def _unescaped_pipes(line: str) -> int:
    # cmark-gfm splits table cells at every `|` that is not written `\|`, inside code spans too.
    return len(re.findall(r"(?<!\\)\|", line))


@st.composite
def reports(draw: st.DrawFn) -> Report:
    t = lambda: draw(UNTRUSTED)  # noqa: E731 - a fresh draw per field
    findings = tuple(
        Finding(
            rule="AGT001",
            name="regression-test-without-reference",
            severity=draw(st.sampled_from(list(Severity))),
            path=draw(st.one_of(st.none(), UNTRUSTED)),
            line=draw(st.one_of(st.none(), st.integers(1, 10**6))),
            message=t(),
            source=t(),
            source_text=t(),
        )
        for _ in range(draw(st.integers(0, 3)))
    )
    side = lambda: StepValues(  # noqa: E731
        semantics="optimizer", max_steps=draw(st.sampled_from([37, 38])), scheduler=t(), config_path=t()
    )
    profiles = tuple(
        ProfileMath(
            path=t(), name=t(), base=side(), head=side(), base_error=t(), head_error=t(), kind="python"
        )
        for _ in range(draw(st.integers(0, 5)))  # past INLINE_PROFILES: the summary layout
    )
    waivers = tuple(
        Waiver(rule="AGT001", path=t(), line=3, reason=t(), by=t(), at=t())
        for _ in range(draw(st.integers(0, 2)))
    )
    return Report(
        verdict="needs-work",
        labels=("status:needs-work",),
        findings=findings,
        profiles=profiles,
        waivers=waivers,
        notes=(t(),),
        coverage=Coverage(files_changed=3, files_reviewed=2, not_reviewed=(t(),)),
        base_sha="a" * 40,
        head_sha="b" * 40,
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reports())
def test_untrusted_text_cannot_change_the_comment(report):
    body = render_comment(report)

    # Exactly one marker, first; nothing else that a marker search or an HTML comment could pick up.
    assert body.startswith(MARKER + "\n") and body.count(MARKER) == 1
    walk = html(body)
    assert walk.comments == [MARKER[4:-3]]

    # No HTML from untrusted text: every tag is one the template writes, and no links at all.
    assert set(walk.tags) <= TEMPLATE_TAGS, set(walk.tags) - TEMPLATE_TAGS

    # No raw `<` from untrusted text outside code spans, and none that could open a tag inside them.
    assert not re.search(r"<[A-Za-z!/?]", re.sub(TEMPLATE_HTML, "", body.replace(MARKER, "", 1)))
    assert "<" not in re.sub(TEMPLATE_HTML, "", outside_code(body.replace(MARKER, "", 1)))

    # No mention, team, issue or cross-repository reference that GitHub would link, in raw text or HTML.
    assert not re.search(r"@\w", body)
    assert not re.search(r"#\d|GH-\d|https?://|www\.", walk.linkable, re.IGNORECASE)

    # Bidi controls and zero-width characters are shown as code points, never present raw.
    assert not INVISIBLE.search(body)

    # Structure: one list item per finding and per waiver, only the template's headings, table rows intact.
    lines = body.splitlines()
    items = [ln for ln in lines if ln.startswith("- ")]
    assert len(items) == len(report.findings) + len(report.waivers)
    headings = re.compile(r"#{3,4} (❌ bot: needs work|Training step math|Findings|Waived)")
    assert all(headings.fullmatch(ln) for ln in lines if ln.startswith("#"))
    rows = [ln for ln in lines if ln.startswith("|")]
    if report.profiles and len(report.profiles) <= INLINE_PROFILES:
        assert rows[0] == "| Profile | Value | Base | Head |"
        assert rows[1] == "|---|---|---|---|"
        assert all(_unescaped_pipes(row) == 5 and row.endswith(" |") for row in rows[2:]), rows
        cells = walk.tags.count("td")
        assert cells == 4 * (len(rows) - 2)
    elif report.profiles:
        # A summary table of seven columns, then every value in a collapsed four-column table (both only
        # when some profile's numbers move).
        header = "| Profile | Value | Base | Head |"
        summary = rows[: rows.index(header)] if header in rows else rows
        detail = rows[len(summary) :]
        if summary:
            assert summary[0].startswith("| Profile | semantics | max_steps | optimizer steps |")
            assert summary[1] == "|---" * 7 + "|"
        assert all(_unescaped_pipes(row) == 8 and row.endswith(" |") for row in summary[2:]), summary
        # The learning-rate charts of several runs have a collapsed block of their own.
        charts = "<details><summary>Learning-rate schedules, base → head</summary>" in body
        assert bool(summary) == bool(detail) == (walk.tags.count("details") - charts == 1)
        assert detail == [] or detail[1] == "|---|---|---|---|"
        assert all(_unescaped_pipes(row) == 5 and row.endswith(" |") for row in detail[2:]), detail
        assert walk.tags.count("td") == 7 * max(len(summary) - 2, 0) + 4 * max(len(detail) - 2, 0)
    else:
        assert rows == []


@settings(max_examples=60, deadline=None)
@given(st.lists(UNTRUSTED, min_size=1, max_size=40))
def test_huge_comments_keep_the_marker_and_stay_under_the_limit(messages):
    findings = tuple(
        Finding(rule="AGT001", name="n", severity=Severity.ERROR, path=f"t{i}.py", message=m * 50)
        for i, m in enumerate(messages)
    )
    report = Report(
        verdict="needs-work",
        labels=(),
        findings=findings,
        coverage=Coverage(files_changed=1, files_reviewed=1),
    )
    body = render_comment(report, limit=4000)
    assert len(body) <= 4000 and body.startswith(MARKER) and body.count(MARKER) == 1
