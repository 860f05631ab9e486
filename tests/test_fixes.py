"""Mechanical fixes: AGT001's docstring naming the PR, TRN001's expected value, and applying them."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.review.engine import review
from rules.core.fixes import apply
from rules.core.models import Fix, PullRequest
from tests.helpers import AGENTS_AGT001

ALL_NEW = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
BASE = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW, "src/a.py": "x = 1\n"}
PR = PullRequest(number=828, title="Fix rounding")


def _review(make_repo, head: dict, pr: PullRequest | None = PR):
    r = make_repo(BASE, head)
    return r, review(load_changeset(r.path, base="main", head="pr", pr=pr))


def _again(r, head: dict, pr: PullRequest | None = PR):
    """Commit head on the PR branch and review again."""
    r.commit(head, "apply the fixes")
    return review(load_changeset(r.path, base="main", head="pr", pr=pr))


def _fixed(make_repo, source: str, pr: PullRequest | None = PR) -> tuple[str, list]:
    """The test file after applying every fix of the review, and the findings that carried them."""
    r, report = _review(make_repo, {"tests/test_a.py": source}, pr)
    fixes = [f.fix for f in report.findings if f.fix is not None]
    return apply(source, fixes).text, [f for f in report.findings if f.rule == "AGT001"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            'def test_round():\n    """Micro steps round down."""\n    assert 1\n',
            'def test_round():\n    """Micro steps round down. Guards PR #828."""\n    assert 1\n',
        ),
        (
            "class TestX:\n    def test_round(self):\n"
            "        '''Guards against overflow.'''\n        assert 1\n",
            "class TestX:\n    def test_round(self):\n        '''Guards against overflow. See PR #828.'''\n"
            "        assert 1\n",
        ),
        (
            'def test_round():\n    """\n    Micro steps round down.\n\n    More words.\n'
            '    """\n    assert 1\n',
            'def test_round():\n    """\n    Micro steps round down.\n\n'
            '    More words.\n\n    Guards PR #828.\n    """\n'
            "    assert 1\n",
        ),
        (
            # The first line goes on in the next: the sentence is never cut, the reference comes after it.
            'def test_effort():\n    """codex-acp declares no ACP effort config option; a requested\n'
            '    effort must be dropped."""\n    assert 1\n',
            'def test_effort():\n    """codex-acp declares no ACP effort config option; a requested\n'
            '    effort must be dropped.\n\n    Guards PR #828."""\n    assert 1\n',
        ),
        (
            # No sentence end to follow: the reference on a line of its own, the text left as it is.
            'def test_round():\n    """Micro steps: round down"""\n    assert 1\n',
            'def test_round():\n    """Micro steps: round down\n\n    Guards PR #828.\n    """\n'
            "    assert 1\n",
        ),
        (
            # Past the width a one-line docstring would reach: a line of its own.
            'def test_round():\n    """' + "Steps round. " * 6 + '"""\n    assert 1\n',
            'def test_round():\n    """'
            + "Steps round. " * 5
            + 'Steps round.\n\n    Guards PR #828.\n    """\n'
            "    assert 1\n",
        ),
        (
            "def test_steps_round_down():\n    # why\n    assert 1\n",
            "def test_steps_round_down():\n    # why\n"
            '    """Guards PR #828: steps round down."""\n    assert 1\n',
        ),
        (
            "'''Module.'''\n\n\ndef test_tabs():\n\tassert 1\n",
            "'''Module.'''\n\n\ndef test_tabs():\n\t'''Guards PR #828: tabs.'''\n\tassert 1\n",
        ),
        (
            # An escape stays as it is: only the reference is added after the text.
            'def test_round():\n    """Round \\"x\\" down."""\n    assert 1\n',
            'def test_round():\n    """Round \\"x\\" down. Guards PR #828."""\n    assert 1\n',
        ),
    ],
    ids=[
        "trailing-sentence",
        "says-what-it-guards",
        "multi-line",
        "first-line-goes-on",
        "no-sentence-end",
        "too-wide",
        "insert",
        "tabs-and-quotes",
        "escape",
    ],
)
def test_docstring_fix_names_the_pr_keeping_indentation_and_quotes(make_repo, source, expected):
    fixed, findings = _fixed(make_repo, source)
    assert fixed == expected
    assert [f.fix.key for f in findings] == [
        f"AGT001:tests/test_a.py:{findings[0].fix.key.rsplit(':', 1)[1]}"
    ]


@pytest.mark.parametrize(
    ("source", "pr"),
    [
        ('def test_round():\n    """Round."""\n    assert 1\n', None),
        ("def test_round(): assert 1\n", PR),
        # A one-line '...' string without a sentence end cannot take a line of its own.
        ("def test_round():\n    'Round down'\n    assert 1\n", PR),
    ],
    ids=["no-pr-number", "one-line-def", "single-quoted"],
)
def test_no_docstring_fix_where_it_is_not_certain(make_repo, source, pr):
    _, findings = _fixed(make_repo, source, pr=pr)
    assert findings and all(f.fix is None for f in findings)


def test_fixed_file_has_no_agt001_finding_left(make_repo):
    source = 'def test_round():\n    """Round."""\n    assert 1\n\n\ndef test_other():\n    assert 2\n'
    r, report = _review(make_repo, {"tests/test_a.py": source})
    findings = [f for f in report.findings if f.rule == "AGT001"]
    assert len(findings) == 2 and all(f.fix for f in findings)
    fixed = apply(source, [f.fix for f in findings if f.fix]).text
    again = _again(r, {"tests/test_a.py": fixed})
    assert [f for f in again.findings if f.rule == "AGT001"] == []


PROFILE = """name = "p"
target_micro_steps = 300
batch_size = 8

[expect]
max_steps = 38   # wrong: floor(300 / 8) = 37
"""


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("training/compat_profiles/p.toml", PROFILE, "max_steps = 37   # wrong: floor(300 / 8) = 37"),
        (
            "training/compat_profiles/p.yaml",
            "name: p\ntarget_micro_steps: 300\nbatch_size: 8\nexpect:\n  max_steps: 38\n",
            "  max_steps: 37",
        ),
        (
            "training/compat_profiles/p.toml",
            "[profiles.p]\ntarget_micro_steps = 300\nbatch_size = 8\n\n[profiles.p.expect]\nmax_steps = 38\n",
            "max_steps = 37",
        ),
    ],
    ids=["toml", "yaml", "profiles-table"],
)
def test_trn001_fix_writes_the_value_the_step_math_gives(make_repo, path, text, line):
    r, report = _review(make_repo, {path: text})
    (finding,) = [f for f in report.findings if f.rule == "TRN001"]
    assert finding.fix is not None
    assert finding.fix.key == f"TRN001:{path}:p:max_steps"
    assert finding.fix.lines == (line,)
    fixed = apply(text, [finding.fix]).text
    again = _again(r, {path: fixed})
    assert [f for f in again.findings if f.rule == "TRN001"] == []


def test_apply_keeps_line_endings_and_refuses_stale_or_overlapping_fixes():
    text = "a\r\nb\r\nc"
    fix = Fix(key="k", path="p", start_line=3, end_line=3, original=("c",), lines=("C1", "C2"))
    done = apply(text, [fix])
    assert done.text == "a\r\nb\r\nC1\r\nC2" and done.applied == (fix,)
    assert apply(done.text, [fix]).applied == ()
    stale = Fix(key="s", path="p", start_line=1, end_line=1, original=("x",), lines=("y",))
    assert apply(text, [stale]).stale == (stale,)
    same = Fix(key="t", path="p", start_line=2, end_line=2, original=("b",), lines=("B",))
    assert apply("a\nB\n", [same]).already == (same,)
    wide = Fix(key="w", path="p", start_line=2, end_line=3, original=("b", "c"), lines=("bc",))
    both = apply(text, [fix, wide])
    assert len(both.applied) == 1 and len(both.stale) == 1
