"""AGT002 tautological-test: an added or changed test that cannot fail.

## What it does
Reports every test the change adds or edits that asserts nothing, or whose every assertion is constant.
Assertions are `assert` statements, `pytest.raises`/`warns`/`deprecated_call`, `pytest.fail` and
`self.fail`, unittest `assert*` methods, mock `assert_*` calls, `raise AssertionError`, and calls of
helpers whose name starts with `assert`, `check`, `expect` or `verify`. Constant assertions are
`assert True`, `assert 1`, `assert "text"`, `assert (a, b)` (a non-empty tuple is always true),
`assert 1 == 1`, `assert x == x`, and their unittest forms (`assertTrue(True)`, `assertEqual(x, x)`).
Tests the change did not touch are never reported, nor are tests whose code it left as it was (only
their docstring, decorators, name or file changed).

## Why is this bad?
A test that cannot fail reports green whatever the code does. It adds to the count of passing tests while
guarding nothing, and hides that the behaviour it names was never checked.

## Example
```python
def test_decay_steps_follow_max_steps():
    profile = load("env0-mobile300")
    derive(profile)
    assert True
```

## Use instead
```python
def test_decay_steps_follow_max_steps():
    profile = load("env0-mobile300")
    assert derive(profile).decay_steps == 37
```
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from bot.models import Finding, Severity
from rules.base import Context, Rule
from rules.testfiles import dotted, touched_tests

# AGENTS.md wording.
_PROHIBITION = (
    r"(?:\b(?:no|not|never|avoid\w*|forbid\w*|ban(?:ned)?|reject\w*|prohibit\w*|disallow\w*|unacceptable)\b"
    r"|n't\b)"
)
_MUST = r"(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|(?:is|are)\s+required\s+to)"
_ASSERT_PREFIXES = ("assert", "check", "expect", "verify")
_PYTEST_CHECKS = {"raises", "warns", "deprecated_call", "fail"}
_ALWAYS_TRUE_OPS = (ast.Eq, ast.Is, ast.LtE, ast.GtE)
_SAME_ARGS = {
    "assertEqual", "assertEquals", "assertIs", "assertCountEqual", "assertListEqual", "assertDictEqual",
    "assertSequenceEqual", "assertTupleEqual", "assertSetEqual", "assertGreaterEqual", "assertLessEqual",
    "assertAlmostEqual",
}  # fmt: skip


def _truthy_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    # A non-empty tuple literal is always true, whatever it holds: the classic `assert (x, "msg")` slip.
    return isinstance(node, ast.Tuple) and bool(node.elts)


def _always_true(test: ast.expr) -> bool:
    """Whether an assert condition holds whatever the code under test does."""
    if _truthy_constant(test):
        return True
    if isinstance(test, ast.Compare) and all(isinstance(op, _ALWAYS_TRUE_OPS) for op in test.ops):
        operands = [test.left, *test.comparators]
        dumps = {ast.dump(o) for o in operands}
        # `x == x` for the same expression, or `1 == 1` for the same constant.
        return len(dumps) == 1
    return False


def _check_name(call: ast.Call) -> str:
    return dotted(call.func).rsplit(".", 1)[-1]


def _is_check_name(name: str) -> bool:
    """assert, assertEqual, assert_called_once, check_output, expect, verify_schema; not checkout."""
    for prefix in _ASSERT_PREFIXES:
        if name.lower().startswith(prefix):
            rest = name[len(prefix) :]
            return not rest or rest[0] == "_" or rest[0].isupper()
    return False


def _is_check_call(call: ast.Call) -> bool:
    name = dotted(call.func)
    last = name.rsplit(".", 1)[-1]
    if _is_check_name(last) or (last == "fail" and "." in name):
        return True
    return name.split(".", 1)[0] == "pytest" and last in _PYTEST_CHECKS


def _constant_call(call: ast.Call) -> bool:
    """unittest assertions that cannot fail: assertTrue(True), assertEqual(x, x)."""
    name = _check_name(call)
    args = call.args
    if name in ("assertTrue", "assert_") and args:
        return _truthy_constant(args[0])
    if name in ("assertFalse",) and args:
        return isinstance(args[0], ast.Constant) and not args[0].value
    if name in _SAME_ARGS and len(args) >= 2:
        return ast.dump(args[0]) == ast.dump(args[1])
    return False


def assertions(fn: ast.AST) -> tuple[int, int]:
    """(assertions, constant assertions) in a test's body."""
    total = constant = 0
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            total += 1
            constant += _always_true(node.test)
        elif isinstance(node, ast.Call) and _is_check_call(node):
            total += 1
            constant += _constant_call(node)
        elif isinstance(node, ast.Raise) and node.exc is not None and "AssertionError" in dotted(node.exc):
            total += 1
    return total, constant


def check(ctx: Context) -> Iterator[Finding]:
    errors, tests = touched_tests(ctx)
    yield from errors
    for tf, test in tests:
        if test.node is None:
            continue
        total, constant = assertions(test.node)
        if total == 0:
            problem = "asserts nothing"
        elif total == constant:
            problem = "only has assertions that always hold" if total > 1 else "only asserts a constant"
        else:
            continue
        verb = "New" if test.added else "Changed"
        yield ctx.finding(
            f"{verb} test `{test.qualname}` {problem}, so it cannot fail; assert on what the code returns.",
            path=tf.path,
            line=test.line,
        )


RULE = Rule(
    code="AGT002",
    name="tautological-test",
    severity=Severity.ERROR,
    check=check,
    doc=__doc__ or "",
    summary="Added or changed tests must assert something that can fail.",
    recognisers=(
        # A prohibition before tautological tests or assertions: "No tautological tests", "Tests must not
        # be tautological" (not "re-asserting this is near-tautological, not our code").
        _PROHIBITION + r".*?\btautolog\w*\s+(?:\w+\s+){0,2}?(?:tests?|assert\w*|checks?|expectations?)\b",
        r"\b(?:tests?|assert\w*)\b.*?" + _PROHIBITION + r".*?\btautolog",
        r"\btautolog\w*\s+(?:\w+\s+){0,2}?(?:tests?|assert\w*|checks?)\b.*\b(?:are|is|will\s+be|get)\s+"
        r"(?:rejected|forbidden|banned|prohibited|not\s+(?:allowed|accepted|permitted))\b",
        # Tests described as unable to fail: "Never write tests that always pass" (not "tests always pass").
        r"\btests?\s+(?:that|which)\s+(?:\w+\s+){0,2}?(?:always\s+pass(?:es)?|can(?:not|'t|\s+not)\s+"
        r"(?:possibly\s+)?fail|never\s+fails?|(?:would|will)\s+pass\s+(?:anyway|regardless|no\s+matter\s+what)|"
        r"pass(?:es)?\s+no\s+matter\s+what|trivially\s+pass(?:es)?)\b",
        r"\btests?\b.*\b(?:must|should|needs?\s+to|has\s+to|have\s+to)\s+be\s+able\s+to\s+fail\b",
        # Tests must assert something: "Every test must assert something", "... at least one real assertion".
        r"\btests?\b(?:\s+[\w/.-]+){0,3}?\s+" + _MUST + r"\s+(?:\w+\s+){0,2}?(?:assert|check|verify)\w*\s+"
        r"(?:on\s+)?(?:something|at\s+least\s+one|anything\s+real)\b",
        r"\btests?\b(?:\s+[\w/.-]+){0,3}?\s+(?:"
        + _MUST
        + r"\s+(?:\w+\s+){0,2}?(?:contain|have|include|make)|"
        r"needs?|requires?)\s+(?:at\s+least\s+one|an?|one)(?:\s+(?:real|meaningful|actual|proper))?"
        r"\s+(?:assert\w*|checks?|expectations?)\b",
        # Imperative leaving them out: "Skip tautological tests (simple mappings, copies of the code)".
        r"^\W*(?:skip|omit|drop|leave\s+out)\s+(?:\w+\s+){0,2}?tautolog\w*\s+(?:\w+\s+){0,2}?"
        r"(?:tests?|assert\w*|checks?)\b",
        # Tests without assertions, and what they are worth: "Tests without proper assertions create false
        # positives", "No tests without assertions".
        r"\btests?\s+(?:without|with\s+no|that\s+(?:have|has|contain|make)\s+no|lacking)\s+(?:\w+\s+){0,2}?"
        r"(?:assert\w*|checks?|expectations?)\b.*\b(?:false\s+(?:positives?|confidence|sense\s+of\s+security)|"
        r"(?:prove|verify|test|check|validate)s?\s+nothing|(?:are|is)\s+(?:not\s+(?:allowed|accepted|acceptable|"
        r"permitted)|forbidden|useless|worthless|rejected|banned|prohibited|meaningless|pointless))",
        r"^\W*no\s+tests?\s+(?:without|with\s+no)\s+(?:\w+\s+){0,2}?(?:assert\w*|checks?|expectations?)\b",
        # What the rule is about, for opt-outs: "Tautological tests are fine in this folder".
        r"(?P<topic>\btautolog\w*\s+(?:\w+\s+){0,2}?(?:tests?|assert\w*|checks?))",
    ),
    phrases=(
        "No tautological tests.",
        "Avoid tautological assertions.",
        "Never write tests that always pass.",
        "Every test must assert something.",
        "Tests should contain at least one real assertion.",
        "Skip tautological tests.",
        "Tests without proper assertions create false positives.",
    ),
)
