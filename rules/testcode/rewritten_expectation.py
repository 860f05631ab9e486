'''AGT003 rewritten-test-expectation: an existing test's expected values changed while no code did.

## What it does
In a pull request that changes no non-test code, reports every test that existed at base and whose
expected literal values changed: a literal compared in an `assert` (`== 38`, `in (1, 2)`,
`pytest.approx(0.5)`), passed to a unittest `assert*` method or a mock `assert_*` call, or in a column
named like `expected` of its `@pytest.mark.parametrize` table, that is no longer there at head. Adding
assertions or cases is not a rewrite; only expected values that disappear count.
Documentation (`*.md`, `*.rst`, `*.txt`, `docs/`) and AGENTS.md/CLAUDE.md do not count as code.
With the option `when: always` it also looks at PRs that change code. Warning by default.

## Why is this bad?
When a passing test's expectation changes and no code changed with it, the test was rewritten to agree
with whatever the code does now. The check it made is gone, and the review shows only a tidy diff of
numbers.

## Example
```python
def test_target_examples_round_up():
    """Guards PR #812."""
    assert max_steps_for_examples(300, 8) == 37  # was 38, and no code changed
```

## Use instead
```python
def test_target_examples_round_up():
    """Guards PR #812."""
    assert max_steps_for_examples(300, 8) == 38  # fix the code, or change both with a reason
```
'''

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import PurePosixPath

from rules.core.base import Context, Rule
from rules.core.models import ChangeSet, FileStatus, Finding, Severity
from rules.core.policy_files import is_policy_path
from rules.testcode.testfiles import base_test_file, dotted, is_test_path, touched_tests

# AGENTS.md wording.
_PROHIBITION = r"(?:\b(?:no|not|never|avoid|stop)\b|n't\b)"
_EDIT = (
    r"(?:rewrit|chang|edit|modif|updat|adjust|tweak|alter|hack|bend|massag|fudg|relax|loosen|weaken|"
    r"hard-?cod)\w*"
)
# The verb's object, within a few words: tests (not the test harness or helpers), or their expectations.
_TESTS = (
    r"(?:[\w']+\s+){0,3}?tests?\b(?:'s)?(?!\s+(?:harness|helpers?|utils?|utilities|infra\w*|runner|framework|"
    r"config\w*|setup|suite\s+config|environment|names?|files?\s+names?))"
)
_EXPECTED = (
    r"(?:[\w']+[\s,]+){0,3}?(?:expectations?|expected\s+(?:values?|outputs?|results?)|assertions?|"
    r"golden\s+(?:files?|values?))\b"
)
WHEN = ("test-only-prs", "always")
DOC_SUFFIXES = frozenset({".md", ".rst", ".txt", ".adoc"})


def changes_code(changeset: ChangeSet) -> bool:
    """Whether the change touches any file that is neither a test nor documentation."""
    for f in changeset.files:
        for path in {f.path, f.old_path or f.path}:
            p = PurePosixPath(path)
            if is_test_path(path) or is_policy_path(path) or p.suffix.lower() in DOC_SUFFIXES:
                continue
            if "docs" in p.parts[:-1]:
                continue
            return True
    return False


def _literal(node: ast.expr) -> str | None:
    """The source of a literal expected value, or None when node is computed."""
    if isinstance(node, ast.Constant) and node.value is not None and not isinstance(node.value, bool):
        return ast.unparse(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return ast.unparse(node)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        return ast.unparse(node) if all(_literal(e) for e in node.elts) else None
    if isinstance(node, ast.Dict) and node.keys:
        parts = [*node.keys, *node.values]
        return ast.unparse(node) if all(p is not None and _literal(p) for p in parts) else None
    if isinstance(node, ast.Call) and dotted(node.func).endswith("approx") and node.args:
        return _literal(node.args[0])
    return None


# Parametrize columns holding the expected value ("expected", "want", "result", ...); the others are cases.
_EXPECTED_NAME = re.compile(r"^(?:expect\w*|exp|want\w*|result\w*|out(?:put)?\w*|answer\w*|target)$")


def _argnames(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",")]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [
            e.value.strip() for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def _parametrized(fn: ast.AST) -> list[ast.expr]:
    """Expected values in a test's `@pytest.mark.parametrize` tables (the columns named like `expected`)."""
    values: list[ast.expr] = []
    for deco in getattr(fn, "decorator_list", ()):
        if not (
            isinstance(deco, ast.Call) and dotted(deco.func).endswith("parametrize") and len(deco.args) >= 2
        ):
            continue
        names, table = _argnames(deco.args[0]), deco.args[1]
        columns = [i for i, name in enumerate(names) if _EXPECTED_NAME.match(name)]
        if not columns or not isinstance(table, (ast.List, ast.Tuple)):
            continue
        for row in table.elts:
            if len(names) == 1:
                values.append(row)
            elif isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) == len(names):
                values.extend(row.elts[i] for i in columns)
    return values


def expectations(fn: ast.AST) -> list[tuple[int, str]]:
    """(line, literal) for every expected value in a test's assertions and parametrize tables."""
    out: list[tuple[int, str]] = []
    for cell in _parametrized(fn):
        value = _literal(cell)
        if value is not None:
            out.append((cell.lineno, value))
    for node in ast.walk(fn):
        operands: list[ast.expr] = []
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            operands = [node.test.left, *node.test.comparators]
        elif isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1].lower().startswith("assert"):
            operands = [*node.args, *(k.value for k in node.keywords if k.arg != "msg")]
        for operand in operands:
            value = _literal(operand)
            if value is not None:
                out.append((operand.lineno, value))
    return out


def _shown(values: list[str]) -> str:
    text = ", ".join(f"`{v[:40]}`" for v in values[:3])
    return text + (", ..." if len(values) > 3 else "")


def check(ctx: Context) -> Iterator[Finding]:
    when, wrong = ctx.choice("when", WHEN)
    if wrong is not None:
        yield wrong
    # Tests whose parametrize table alone changed count as "same" code; their expectations still matter.
    errors, tests = touched_tests(ctx, include_same=True)
    yield from errors
    if when == WHEN[0] and changes_code(ctx.changeset):
        return
    for tf, test in tests:
        change = ctx.changeset.file(tf.path)
        if test.node is None or change is None or change.status is FileStatus.ADDED:
            continue
        base = base_test_file(ctx.review, change)
        before = next((t for t in base.tests if t.qualname == test.qualname), None) if base else None
        if before is None or before.node is None:
            continue
        old = Counter(v for _, v in expectations(before.node))
        now = expectations(test.node)
        gone = sorted((old - Counter(v for _, v in now)).elements())
        if not gone:
            continue
        new = [v for _, v in now if v not in old]
        line = next((n for n, v in now if v in new), test.line)
        instead = f" and now expects {_shown(new)}" if new else ""
        scope = "in a PR that changes no non-test code" if when == WHEN[0] else "in this PR"
        yield ctx.finding(
            f"Existing test `{test.qualname}` no longer expects {_shown(gone)}{instead} {scope}; "
            "if the behaviour really changed, change the code with it and say why.",
            path=tf.path,
            line=line,
        )


RULE = Rule(
    code="AGT003",
    name="rewritten-test-expectation",
    severity=Severity.WARNING,
    check=check,
    doc=__doc__ or "",
    summary="Existing tests' expected values must not change in a PR that changes no code.",
    recognisers=(
        # A prohibition, a verb of editing whose object is tests, and the motive: "Don't rewrite passing
        # tests to match new behavior" (not "Don't change the API to make tests pass").
        r"^(?=.*\b(?:match\w*|fit|suit|pass|passes|passing|green|accommodate|agree\w*|force|forcing|"
        r"new\s+behaviou?r|broken|implementation)\b).*?" + _PROHIBITION + r".*?\b" + _EDIT + r"\s+" + _TESTS,
        # Expected values and assertions are never to be edited, whatever the motive.
        _PROHIBITION + r".*?\b" + _EDIT + r"\s+" + _EXPECTED,
        # A verdict after the fact: "Hard-coding expected values to force a green run is unacceptable".
        r"\b" + _EDIT + r"\s+(?:" + _TESTS + r"|" + _EXPECTED + r").*\b(?:is|are)\s+(?:unacceptable|not\s+"
        r"(?:acceptable|allowed|permitted|ok(?:ay)?)|forbidden|prohibited|banned)\b",
        # A list of verbs that includes deleting or skipping, with a motive or an existing test as the object,
        # tests perhaps in a list of objects: "Do not delete, weaken, or skip an existing test merely to make
        # new code pass", "Never modify gates, tests, or verification commands to make them pass".
        r"^(?=.*\b(?:match\w*|fit|suit|pass|passes|passing|green|accommodate|force|forcing|"
        r"(?:merely|just|solely|simply)\s+to)\b).*?"
        + _PROHIBITION
        + r".*?\b"
        + (
            _EDITS := r"(?:(?:{v})(?:\s*,\s*(?:or\s+|and\s+)?(?:{v})|\s+(?:or|and)\s+(?:{v}))*)".format(
                v=r"(?:rewrit|chang|edit|modif|updat|adjust|tweak|alter|hack|bend|massag|fudg|relax|loosen|weaken|"
                r"hard-?cod|delet|remov|skip|disabl|xfail|silenc)\w*"
            )
        )
        + r"\s+(?:[\w']+(?:\s+[\w']+)?,\s+(?:(?:or|and)\s+)?){0,2}"
        + _TESTS,
        _PROHIBITION
        + r".*?\b"
        + _EDITS
        + r"\s+(?:(?:an?|the|any|all)\s+)?(?:existing|passing|failing|current)\s+tests?\b",
        # Expectations that must not be changed, said in the passive: "The golden fixtures must never be
        # modified" (not how or by whom: "... must not be edited by hand", "... modified by tests").
        r"^(?!.*\b(?:manually|by\s+hand|by\s+(?:the\s+)?tests?|at\s+runtime)\b).*\b(?:golden\s+(?:files?|outputs?|values?)|(?:test\s+)?fixtures?|"
        r"expected\s+(?:values?|outputs?|results?)|expectations?|assertions?|(?:existing|passing)\s+tests?)\b.*?"
        r"\b(?:must|should|shall|may|can|are\s+to|is\s+to)(?:\s+not|\s+never|n't)\s+(?:ever\s+)?(?:be\s+)?"
        r"(?:modified|changed|edited|updated|rewritten|altered|weakened|relaxed|deleted|removed|skipped|touched)\b",
        # What the rule is about, for opt-outs: "Updating expected values is fine in this folder".
        r"(?P<topic>\b" + _EDIT + r"\s+(?:" + _TESTS + r"|" + _EXPECTED + r"))",
    ),
    options={"when": WHEN[0]},
    phrases=(
        "Don't rewrite passing tests to match new behavior.",
        "Never change a test's expected values just to make it pass.",
        "Do not weaken assertions.",
        "Agents must not edit existing tests to fit the new behaviour.",
        "Do not delete, weaken, or skip an existing test merely to make new code pass.",
        "The golden fixtures must never be modified.",
        "Never modify gates, tests, or verification commands to make them pass.",
    ),
)
