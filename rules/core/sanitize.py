"""The one way untrusted text (PR files, titles, bodies, comments) reaches rendered markdown."""

from __future__ import annotations

import re
import unicodedata

_MENTION = re.compile(r"@")  # also e-mail autolinks, which need no word character after it
_ISSUE_REF = re.compile(r"#(?=\d)|GH-(?=\d)", re.IGNORECASE)
# Bare URLs and `www.` hosts become links under GitHub's autolink extension.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)
# In a code span GitHub neither parses HTML nor links mentions; a word joiner after `@` or a tag-opening `<`
# keeps it so even where the raw body is shown (notifications, other renderers) or a span is misparsed.
_CODE_MENTION = re.compile(r"@(?=\w)")
_CODE_TAG = re.compile(r"<(?=[A-Za-z!/?])")
# Characters that matter mid-line: emphasis, code, links, HTML, table cells.
_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# Text may start a block's content (a note after `> `): a heading, list, quote or rule must not begin there.
_BLOCK_START = re.compile(r"^(\s?)(?:([#+\-=>])|(\d{1,9})([.)]))")


def _visible(text: str, keep: str = "") -> str:
    # Format characters (Cf: bidi controls, zero-width characters, soft hyphen) can hide or reorder text
    # (Trojan Source), and control characters (Cc) can break lines: show their code points instead.
    return "".join(
        f"<U+{ord(ch):04X}>" if ch not in keep and unicodedata.category(ch) in ("Cc", "Cf") else ch
        for ch in text
    )


def visible(text: str) -> str:
    """Plain text (an annotation, a log line) with invisible characters shown as `<U+202E>`; lines stay."""
    return _visible(text, keep="\n\r\t")


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace and newlines, make invisible characters visible, and cap the length."""
    # Only a prefix can be shown: do not scan megabytes of it character by character.
    text = _visible(re.sub(r"[\r\n\t ]+", " ", text[: limit * 8]))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text(value: str, limit: int = 300) -> str:
    """Untrusted text as inert markdown: no HTML, links, mentions, cross-references or table breaks."""
    value = one_line(value, limit)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _SPECIAL.sub(r"\\\1", value)
    value = _BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[2] else f"{m[1]}{m[3]}\\{m[4]}", value)
    # Escaping alone still lets GitHub link @user and #12; a word joiner after the sigil stops it.
    value = _MENTION.sub("@\u2060", value)
    value = _ISSUE_REF.sub(lambda m: m.group() + "\u2060", value)
    value = _AUTOLINK.sub("\u2060", value)
    return value


def code(value: str, limit: int = 200, table: bool = False) -> str:
    """Untrusted text as an inline code span that cannot be closed early (or, in a table, break it)."""
    value = one_line(value, limit).strip()
    # Inert inside a code span, but the raw body must never contain a second marker-like comment.
    value = _CODE_TAG.sub("<\u2060", value)
    value = _CODE_MENTION.sub("@\u2060", value)
    if table:
        value = value.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value else ""
    return f"{fence}{pad}{value}{pad}{fence}"


_SPAN = re.compile(r"`([^`\n]+)`")


def message(value: str, limit: int = 1000) -> str:
    """A rule's message: its `code spans` stay code, every piece of it is made inert."""
    value = one_line(value, limit).strip()
    out, pos = [], 0
    for m in _SPAN.finditer(value):
        out.append(text(value[pos : m.start()], limit))
        out.append(code(m.group(1), limit))
        pos = m.end()
    out.append(text(value[pos:], limit))
    return "".join(out)


# An address a link may point at: https only, no spaces, quotes or characters that could end the link early.
_SAFE_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::\d+)?(?:/[A-Za-z0-9._~%!$&'*+,;=:@/?#-]*)?")


def link(label: str, url: str | None, limit: int = 100) -> str:
    """Untrusted text as a link to url when url is a plain https address, else as inert text alone."""
    shown = text(label, limit)
    if url and len(url) <= 500 and _SAFE_URL.fullmatch(url) and "'" not in url:
        return f"[{shown}]({url})"
    return shown
