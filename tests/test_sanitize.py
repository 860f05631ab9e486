import pytest

from rules.core import sanitize


@pytest.mark.parametrize(
    "raw, absent",
    [
        ("@octocat please look", "@octocat"),
        ("@org/team ping", "@org"),
        ("fixes #12", "#12"),
        ("see owner/repo#3", "repo#3"),
        ("<!-- bot-review:status -->", "<!--"),
        ("<details><summary>x</summary>", "<details>"),
        ('<img src="https://evil.example/x.png">', "<img"),
        ("[click](https://evil.example)", "[click]"),
        ("a | b", " | "),
        ("line one\nline two", "\n"),
        ("`code` run", "`code`"),
    ],
)
def test_text_neutralises(raw, absent):
    assert absent not in sanitize.text(raw)


def test_text_keeps_plain_words():
    assert sanitize.text("max_steps 37 is fine") == "max\\_steps 37 is fine"


@pytest.mark.parametrize("ch", ["\u202e", "\u200b", "\u2066", "\ufeff", "\u00ad", "\x1b"])
def test_invisible_characters_are_made_visible(ch):
    out = sanitize.text(f"a{ch}b")
    assert ch not in out and f"U+{ord(ch):04X}" in out


def test_code_span_cannot_be_closed_early():
    out = sanitize.code("a`b``c")
    assert out.startswith("```") and out.endswith("```")


def test_code_span_in_table_escapes_pipes():
    assert "\\|" in sanitize.code("a|b", table=True)
    assert "\\|" not in sanitize.code("a|b")


def test_message_keeps_rule_code_spans_and_neutralises_the_rest():
    out = sanitize.message("Test `test_x` by @someone fixes #9 <b>")
    assert "`test_x`" in out
    assert "@someone" not in out and "#9" not in out and "<b>" not in out


def test_length_is_capped():
    assert len(sanitize.text("x" * 5000, limit=100)) <= 100
