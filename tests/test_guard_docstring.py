"""Property: the docstring AGT001 proposes and its fix keep the test's own text whole, every word in order,
cut nowhere and with no full stop added to it, and name the PR; the fixed file is still Python."""

from __future__ import annotations

import ast
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from bot.review.engine import review
from rules.core.fixes import apply
from tests.helpers import AGENTS_AGT001, memory_changeset

ALL_NEW = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
BASE = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}
TESTS = "tests/test_p.py"

# Words with the punctuation a sentence may hold or end with; no quotes or backslashes (they would end or
# change the string literal the test writes, not the docstring the fix works on).
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzACZ0123456789-éü", min_size=1, max_size=12)
TAIL = st.sampled_from(["", ".", ",", ";", ":", "!", "?", "...", ").", "-"])


@st.composite
def lines_of_text(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORD, min_size=1, max_size=18))
    return " ".join(words) + draw(TAIL)


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A test module and, for each test, the text of its docstring as written."""
    quote = draw(st.sampled_from(['"""', "'''"]))
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    texts: list[str] = []
    out: list[str] = []
    for i in range(draw(st.integers(1, 3))):
        out.append(f"def test_t{i}():")
        text = [draw(lines_of_text()) for _ in range(draw(st.integers(1, 4)))]
        shape = draw(st.sampled_from(["one", "closing-on-text", "closing-alone", "opening-alone"]))
        if shape == "one":
            text = text[:1]
            out.append(f"{unit}{quote}{text[0]}{quote}")
        elif shape == "closing-on-text":
            out += [
                f"{unit}{quote}{text[0]}",
                *(f"{unit}{t}" for t in text[1:-1]),
                f"{unit}{text[-1]}{quote}",
            ]
        elif shape == "closing-alone":
            out += [f"{unit}{quote}{text[0]}", *(f"{unit}{t}" for t in text[1:]), f"{unit}{quote}"]
        else:
            out += [f"{unit}{quote}", *(f"{unit}{t}" for t in text), f"{unit}{quote}"]
        out += [f"{unit}assert f({i})", "", ""]
        texts.append(" ".join(text))
    return "\n".join(out).rstrip("\n") + "\n", texts


def _in_order(words: list[str], within: list[str]) -> bool:
    rest = iter(within)
    return all(any(w == v for v in rest) for w in words)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules(), st.integers(1, 99_999))
def test_fixed_docstring_keeps_every_word_in_order_and_names_the_pr(module, pr):
    source, texts = module
    report = review(memory_changeset(BASE, {TESTS: source}, pr))
    findings = sorted((f for f in report.findings if f.rule == "AGT001"), key=lambda f: f.line or 0)
    assert len(findings) == len(texts)
    for finding, text in zip(findings, texts, strict=True):
        # The proposal quotes the test's text whole, or only says which line to add.
        shown = re.search(r'`"""(.*)"""`', finding.message)
        if shown:
            assert shown.group(1).startswith(text + " ") and shown.group(1).endswith(f"PR #{pr}.")
        else:
            assert f"the line `Guards PR #{pr}.` at the end of its docstring" in finding.message or (
                f"the line `See PR #{pr}.`" in finding.message
            )
    assert all(f.fix is not None for f in findings), [f.message for f in findings if f.fix is None]
    fixed = apply(source, [f.fix for f in findings if f.fix is not None])
    assert len(fixed.applied) == len(texts)
    tree = ast.parse(fixed.text)  # the test's own generated code, never a PR's
    docs = [
        ast.get_docstring(node, clean=False) or "" for node in tree.body if isinstance(node, ast.FunctionDef)
    ]
    for doc, text in zip(docs, texts, strict=True):
        words = text.split()
        assert _in_order(words, doc.split()), (text, doc)
        # Nothing cut, no full stop added: the text's own last word is still there as written.
        assert doc.split()[: len(words)] == words
        assert f"PR #{pr}." in doc
    # And a review of the fixed file finds nothing left to name.
    again = review(memory_changeset(BASE, {TESTS: fixed.text}, pr))
    assert [f.message for f in again.findings if f.rule == "AGT001"] == []


EFFORT = (
    "def test_effort_regression():\n"
    '    """codex-acp declares no ACP effort config option; a requested effort must\n'
    '    be dropped rather than sent."""\n'
    "    assert f()\n"
)


def test_check_fix_keeps_the_reported_sentence_whole(make_repo, capsys):
    """The docstring of the report: its first line goes on in the next one. Before, the message and the fix
    read `Guards PR #1044: codex-acp ...; a requested effort must.`"""
    repo = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": EFFORT})
    repo.git("checkout", "-q", "pr")
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--pr-number", "1044"])
    out = capsys.readouterr().out
    assert code == 1 and "effort must." not in out
    assert "e.g. the line `Guards PR #1044.` at the end of its docstring." in out
    code = main(["check", "--repo", str(repo.path), "--base", "main", "--pr-number", "1044", "--fix"])
    assert code == 0 and "AGT001 fixed" in capsys.readouterr().out
    assert (repo.path / "tests/test_a.py").read_text() == (
        "def test_effort_regression():\n"
        '    """codex-acp declares no ACP effort config option; a requested effort must\n'
        "    be dropped rather than sent.\n"
        "\n"
        '    Guards PR #1044."""\n'
        "    assert f()\n"
    )
