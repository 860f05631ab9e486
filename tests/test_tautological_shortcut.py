"""AGT002's shortcut: a test settled by its first check gets the verdict the full analysis gives it."""

from __future__ import annotations

import pytest

import rules.testcode.assertions as assertions
from rules.testcode.assertions import Scope, verdict
from rules.testcode.testfiles import parse_tests
from tests.test_tautological import CASES, _method, _test


def _verdicts(module: str) -> list[tuple[str, object, object]]:
    """(qualname, verdict with the test's source, verdict without) for every test of a module."""
    tf = parse_tests("tests/test_mod.py", module, frozenset(range(1, module.count("\n") + 2)))
    assert tf.module is not None, tf.error
    scope = Scope(tf.module)
    lines = module.split("\n")
    out = []
    for t in tf.tests:
        assert t.node is not None and t.node.end_lineno is not None
        source = "\n".join(lines[t.node.lineno - 1 : t.node.end_lineno])
        out.append(
            (t.qualname, verdict(t.node, t.qualname, scope, source), verdict(t.node, t.qualname, scope))
        )
    return out


@pytest.mark.parametrize("module", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_every_table_case_gets_the_same_verdict_with_the_shortcut(module):
    for qualname, fast, full in _verdicts(module):
        assert fast == full, qualname


# (id, test module, whether the first check settles it). Each is also checked against the full analysis.
SHORTCUT: list[tuple[str, str, bool]] = [
    ("call-result", _test("value = compute(1)\nassert value == 2"), True),
    ("raise-first", _test("raise AssertionError('todo')"), True),
    ("assert-on-call", _test("assert compute(1) == 2"), True),
    ("literal-then-mutated", _test('d = {"a": 1}\nmutate(d)\nassert d["a"] == 1'), True),
    ("later-assert-in-if", _test("if flag():\n    assert True\nassert compute() == 1"), True),
    ("method", _method("self.x = 1\nassert self.run() == 1"), True),
    # The full analysis decides these.
    ("literal-recheck", _test("x = 3\nassert x == 3"), False),
    ("same-value", _test("x = compute()\nassert x == x"), False),
    ("constant", _test("assert True"), False),
    ("tuple", _test('assert (compute() == 1, "msg")'), False),
    ("only-literals", _test('assert len("ab") == 2'), False),
    ("derived", _test("xs = [1, 2]\nn = len(xs)\nassert n == 2"), False),
    ("try-swallows", _test("try:\n    assert compute() == 1\nexcept AssertionError:\n    pass"), False),
    ("with-suppress", _test("with suppress(AssertionError):\n    assert compute() == 1"), False),
    ("with-raises", _test("with pytest.raises(ValueError):\n    compute()"), False),
    ("no-check", _test("compute()"), False),
    # Names are read through NFKC: ｘ is x, bound to a literal; keywords are ASCII whatever the text holds.
    ("non-ascii-name", _test("ｘ = 3\nassert x == 3"), False),
    ("non-ascii-text", _test('value = compute("é")\nassert value == "ü"'), True),
    # A builtin the test rebinds: its literals are worked out without it, as the full analysis does.
    ("rebound-builtin", _test('len = measure\nassert len("ab") == 2'), True),
    ("builtin-bound-later", _test('assert len("ab") == 2\nlen = 3'), True),
    ("builtin-not-rebound", _test('assert len("ab") == 3'), True),
    ("skipped", "@pytest.mark.skip\ndef test_x():\n    assert compute() == 1\n", False),
    # Shapes read off without the literals (_unknown_first): and the near misses they leave to the rest.
    ("name-from-unknown-call", _test("r: int = compute(1)\nassert r == 2 == r"), True),
    ("two-names", _test("a = compute()\nb = compute()\nassert a == b"), True),
    ("type-name-left", _test("assert list == compute()"), True),
    ("type-name-self", _test("assert list == list"), False),
    ("literal-in-prefix", _test("x = 3\ny = compute()\nassert y == x"), True),
    ("with-in-prefix", _test("with open(p) as f:\n    x = 3\nassert x == 3"), False),
    ("builtin-call-left", _test('assert len("ab") == compute()'), True),
]


@pytest.mark.parametrize(("module", "settled"), [c[1:] for c in SHORTCUT], ids=[c[0] for c in SHORTCUT])
def test_shortcut_settles_only_tests_whose_first_check_can_fail(module, settled, monkeypatch):
    taken: list[bool] = []
    first = assertions._first_check_fails
    monkeypatch.setattr(assertions, "_first_check_fails", lambda *a: taken.append(first(*a)) or taken[-1])
    ((qualname, fast, full),) = _verdicts(module)
    assert fast == full, qualname
    assert any(taken) is settled
    if settled:
        assert full is None


def test_a_settled_test_is_not_walked(monkeypatch):
    """The shortcut's point: a test settled by its first check costs no walk of its nodes."""
    walked: list[object] = []
    monkeypatch.setattr(assertions, "nodes_to_check", lambda *a: walked.append(a) or iter(()))
    module = "".join(_test(f"value = compute({n})\nassert value == {n}", name=f"test_{n}") for n in range(50))
    tf = parse_tests("tests/test_mod.py", module, frozenset())
    assert tf.module is not None
    scope, lines = Scope(tf.module), module.split("\n")
    for t in tf.tests:
        assert t.node is not None and t.node.end_lineno is not None
        source = "\n".join(lines[t.node.lineno - 1 : t.node.end_lineno])
        assert verdict(t.node, t.qualname, scope, source) is None
    assert len(tf.tests) == 50 and walked == []
