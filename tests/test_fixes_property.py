"""Property: applying every fix of a review to the head text and reviewing again leaves no finding of that
rule for those tests or profiles."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.review.engine import review
from rules.core.fixes import apply
from rules.core.models import Report
from tests.helpers import AGENTS_AGT001, memory_changeset

ALL_NEW = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
BASE = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}
TESTS = "tests/test_p.py"


def _review(added: dict[str, str], pr: int) -> Report:
    return review(memory_changeset(BASE, added, pr))


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
# Docstring text: words and punctuation, no quotes or backslashes (those would change the string itself).
LINE = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,:;()-!?éü", min_size=1, max_size=60
).filter(lambda s: s.strip(" ") != "" and not s.startswith(" "))


@st.composite
def pytest_modules(draw: st.DrawFn) -> str:
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    quote = draw(st.sampled_from(['"""', "'''"]))
    in_class = draw(st.booleans())
    names = draw(st.lists(WORDS, min_size=1, max_size=4, unique=True))
    out = [f"{quote}Module.{quote}", ""] if draw(st.booleans()) else []
    if in_class:
        out.append("class TestThings:")
    pad = unit if in_class else ""
    for name in names:
        out.append(f"{pad}def test_{name}({'self' if in_class else ''}):")
        body = pad + unit
        shape = draw(st.sampled_from(["none", "one", "multi", "opening-alone", "comment"]))
        first = draw(LINE)
        if shape == "one":
            out.append(f"{body}{quote}{first}{quote}")
        elif shape == "multi":
            out += [f"{body}{quote}{first}", "", f"{body}{draw(LINE)}", f"{body}{quote}"]
        elif shape == "opening-alone":
            out += [f"{body}{quote}", f"{body}{first}", f"{body}{quote}"]
        elif shape == "comment":
            out.append(f"{body}# {first}")
        out += [f"{body}value = {len(name)}", f"{body}assert value", ""]
    return "\n".join(out) + "\n"


@st.composite
def profiles(draw: st.DrawFn) -> tuple[str, str]:
    batch = draw(st.integers(1, 64))
    micro = draw(st.integers(batch, 20_000))
    wrong = micro // batch + draw(st.sampled_from([-5, -3, -2, -1, 1, 2, 3, 5]))
    if draw(st.booleans()):
        text = f"name = 'p'\ntarget_micro_steps = {micro}\nbatch_size = {batch}\n"
        text += f"\n[expect]\nmax_steps = {wrong}\n"
        return "training/compat_profiles/p.toml", text
    text = (
        f"name: p\ntarget_micro_steps: {micro}\nbatch_size: {batch}\nexpect:\n  max_steps: {wrong}  # why\n"
    )
    return "training/compat_profiles/p.yaml", text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pytest_modules(), profiles(), st.integers(1, 99_999))
def test_applying_every_fix_leaves_no_finding_of_its_rule(source, profile, pr):
    path, text = profile
    added = {TESTS: source, path: text}
    first = _review(added, pr)
    errors = [f for f in first.findings if f.rule in ("AGT001", "TRN001")]
    assert errors, first.findings
    # Every such finding here has a certain fix: the property is not satisfied by offering none.
    assert all(f.fix is not None for f in errors), [f.message for f in errors if f.fix is None]
    fixes = [f.fix for f in errors if f.fix is not None]
    fixed = {p: apply(t, [x for x in fixes if x.path == p]).text for p, t in added.items()}
    ast.parse(fixed[TESTS])  # the fixed test file is still Python (this is the test's own generated code)
    again = _review(fixed, pr)
    assert [f.message for f in again.findings if f.rule in ("AGT001", "TRN001")] == []
    # And the fixes are stable: the fixed text offers none.
    assert [f for f in again.findings if f.fix is not None] == []
