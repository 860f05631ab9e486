"""AGT002 tautological-test: an added or changed test that cannot fail.

## What it does
Reports a test the change adds or edits only when it truly cannot fail, and says why:

- its body is empty (`pass`, `...`, a docstring), or calls nothing and asserts nothing (`x = 1`);
- every check in it always passes: a constant (`assert True`, `assert 1`, `assert not None`), a
  non-empty tuple (`assert (x == 1, "msg")`), a value compared with itself (`assert x == x`,
  `assertEqual(x, x)`, `assertTrue(True)`), or a re-check of a literal the test just assigned to a local
  name with nothing in between that could change it (`x = 3; assert x == 3`,
  `d = {"a": 1}; assert d["a"] == 1`);
- a `try`/`except` swallows the failure of every check: a bare `except:`, `except Exception`,
  `except BaseException` or `except AssertionError` (or `contextlib.suppress` of one) whose handler
  only passes, returns, prints or logs. `except Exception` does not catch `pytest.fail` or a failed
  `pytest.raises`, which only a bare `except:` or `except BaseException` swallows.

Checks are `assert` statements, `raise`, `pytest.raises`/`warns`/`deprecated_call`/`fail`,
`self.fail`, unittest `assert*` methods, mock `assert_*` calls, calls named `assert*`, `check*`,
`expect*` or `verify*`, and calls of helpers that hold a check: functions of the test's module (any
name), methods of its class and of base classes defined in the same file (`self._verify(...)`,
`cls._x(...)`), followed through the helpers they call (at most 6 deep, 64 helpers). A method of a base
class from another file and a function imported from a test-helper module (`tests.*`, `conftest`, a
relative import) are assumed to check. Fixtures are not helpers of the body.

When a reported test also runs code, the message says it fails only if that code raises. Not reported:

- a test that calls code and asserts nothing: it fails when the call raises ("must not raise" tests);
- a check inside a helper, a `try` whose handler catches something narrower (`except ValueError:
  pass`) or re-raises or fails;
- an empty test that requests fixtures of its own (they run before it and may check; pytest's
  `tmp_path`, `monkeypatch`... do not count), or whose class sets up through a `setUp` that checks or
  through a base class from another file;
- a body that only annotates names (`x: Schema = {...}`, a test for the type checker);
- skipped and xfail tests, and tests under a decorator other than a pytest mark or a mock patch (it may
  replace or wrap the test);
- tests the change did not touch, or whose code it left as it was (only their docstring, decorators,
  name or file changed).

## Why is this bad?
A test that cannot fail reports green whatever the code does. It adds to the count of passing tests while
guarding nothing, and hides that the behaviour it names was never checked.

## Example
```python
def test_decay_steps_follow_max_steps():
    steps = derive(load("env0-mobile300")).decay_steps
    assert (steps == 37, "decay follows max_steps")  # a non-empty tuple: always true
```

## Use instead
```python
def test_decay_steps_follow_max_steps():
    steps = derive(load("env0-mobile300")).decay_steps
    assert steps == 37, "decay follows max_steps"
```
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.core.base import Context, Rule
from rules.core.models import Finding, Severity
from rules.testcode.assertions import Scope, Verdict, verdict
from rules.testcode.testfiles import touched_tests

# AGENTS.md wording.
_PROHIBITION = (
    r"(?:\b(?:no|not|never|avoid\w*|forbid\w*|ban(?:ned)?|reject\w*|prohibit\w*|disallow\w*|unacceptable)\b"
    r"|n't\b)"
)
_MUST = r"(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|(?:is|are)\s+required\s+to)"


def _message(verb: str, qualname: str, verdict: Verdict) -> str:
    test = f"{verb} test `{qualname}`"
    if verdict.kind == "empty":
        return f"{test} cannot fail: its body is empty; assert on what the code returns."
    if verdict.kind == "inert":
        return f"{test} cannot fail: it calls nothing and asserts nothing; assert on what the code returns."
    reasons = [f"{what} {why}" for what, why in verdict.reasons]
    if len(reasons) > 3:
        reasons = [*reasons[:2], f"{len(reasons) - 2} more checks always pass"]
    what, why = verdict.reasons[0]
    if len(verdict.reasons) == 1 and not why.startswith("swallows"):
        reasons = [f"its only check, {what}, {why}"]
    # A test that also runs code fails when that code raises: say exactly what cannot fail.
    head = "cannot fail" if verdict.certain else "only fails if the code it runs raises"
    return f"{test} {head}: {'; '.join(reasons)}; assert on what the code returns."


def check(ctx: Context) -> Iterator[Finding]:
    errors, tests = touched_tests(ctx)
    yield from errors
    scopes: dict[str, tuple[Scope, tuple[str, ...]]] = {}
    for tf, test in tests:
        if test.node is None:
            continue
        known = scopes.get(tf.path)
        if known is None:  # one per file: building it walks the whole module
            # The tree's positions are git's lines (rules.core.lines), as tf.lines are.
            known = scopes[tf.path] = (Scope(tf.module), tf.lines)
        scope, lines = known
        node = test.node
        source = "\n".join(lines[node.lineno - 1 : node.end_lineno]) if lines and node.end_lineno else None
        found = verdict(node, test.qualname, scope, source)
        if found is None:
            continue
        yield ctx.finding(
            _message("New" if test.added else "Changed", test.qualname, found), path=tf.path, line=test.line
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
