"""AGT002 tautological-test: only tests that truly cannot fail are reported, and the message says why."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.review.engine import review
from tests.conftest import GitRepo
from tests.helpers import codes, review_change

AGENTS = "# Tests\n\n- No tautological tests.\n"


def _test(body: str, name: str = "test_x", head: str = "def", params: str = "") -> str:
    """A module-level test whose body starts on line 3."""
    lines = "\n".join(f"    {line}" if line else "" for line in body.splitlines())
    return f'{head} {name}({params}):\n    """Guards PR #1."""\n{lines}\n'


def _method(body: str, bases: str = "(unittest.TestCase)", extra: str = "", before: str = "") -> str:
    """A test method of class TestA whose body starts on line 4; extra holds more methods of the class."""
    lines = "\n".join(f"        {line}" if line else "" for line in body.splitlines())
    indented = "\n".join(f"    {line}" if line else "" for line in extra.splitlines())
    test = f'    def test_x(self):\n        """Guards PR #1."""\n{lines}\n'
    return f"{before}class TestA{bases}:\n{test}\n{indented}\n"


RAISES_ON = "    if not value:\n        raise ValueError('bad')\n"
VERIFY = "def _verify(self, value):\n    assert value.ok\n"

# (id, test module, fragments the one finding's message holds; None: no finding)
CASES: list[tuple[str, str, tuple[str, ...] | None]] = [
    # Fires: an empty body, or one that calls nothing and asserts nothing.
    ("pass-only", _test("pass"), ("`test_x` cannot fail: its body is empty",)),
    ("ellipsis-only", _test("..."), ("its body is empty",)),
    ("docstring-only", 'def test_x():\n    """Guards PR #1."""\n', ("its body is empty",)),
    ("async-empty", _test("pass", head="async def"), ("its body is empty",)),
    ("method-empty", _method("pass"), ("`TestA.test_x` cannot fail: its body is empty",)),
    (
        "empty-after-quiet-set-up",
        _method("pass", extra="def setUp(self):\n    self.n = 1\n"),
        ("body is empty",),
    ),
    (
        "literals-only",
        _test("x = 1\ny = [x, 2]\nreturn"),
        ("cannot fail: it calls nothing and asserts nothing",),
    ),
    (
        "parametrized-empty",
        "@pytest.mark.parametrize('n', [1, 2])\n" + _test("pass", params="n"),
        ("body is empty",),
    ),
    ("builtin-fixture-empty", _test("pass", params="tmp_path, monkeypatch"), ("body is empty",)),
    ("patched-empty", "@mock.patch('app.send')\n" + _test("pass"), ("body is empty",)),
    # Fires: constant or self-comparing assertions.
    (
        "assert-true",
        _test("assert True"),
        ("cannot fail: its only check, `assert True` (line 3), asserts a constant",),
    ),
    ("assert-one", _test("assert 1"), ("`assert 1` (line 3), asserts a constant",)),
    ("assert-string", _test('assert "always"'), ("asserts a constant",)),
    ("assert-not-none", _test("assert not None"), ("negates a false constant",)),
    (
        "assert-equal-constants",
        _test("assert 1 == 1"),
        ("`assert 1 == 1` (line 3), compares equal constants",),
    ),
    (
        "call-then-assert-true",
        _test("f()\nassert True"),
        ("`test_x` only fails if the code it runs raises: its only check, `assert True` (line 4)",),
    ),
    (
        "same-expression",
        _test("x = f()\nassert x == x"),
        ("`assert x == x` (line 4), compares a value with itself",),
    ),
    ("same-attribute", _test("r = f()\nassert r.n >= r.n"), ("compares a value with itself",)),
    (
        "nonempty-tuple",
        _test('assert (f() == 2, "message")'),
        ("`assert (f() == 2, 'message')` (line 3), asserts a non-empty tuple, which is always true",),
    ),
    (
        "unittest-assert-true",
        _method("self.assertTrue(True)"),
        ("`self.assertTrue(True)` (line 4), asserts a constant",),
    ),
    ("unittest-same-args", _method("x = f()\nself.assertEqual(x, x)"), ("compares a value with itself",)),
    (
        "two-constant-assertions",
        _test("assert True\nassert 2 == 2"),
        ("`assert True` (line 3) asserts a constant; `assert 2 == 2` (line 4) compares equal constants",),
    ),
    (
        "fixture-is-not-a-helper",
        "@pytest.fixture\ndef data():\n    assert load()\n\n\n"
        + _test("f(data)\nassert True", params="data"),
        ("`assert True` (line 9), asserts a constant",),
    ),
    ("checkout-is-not-a-check", _test('repo.checkout("main")\nassert True'), ("asserts a constant",)),
    (
        "helper-with-constant-assertion-only",
        "def _check(value):\n    assert True\n\n\n" + _test("_check(f())\nassert True", "test_x"),
        ("`assert True` (line 8)",),
    ),
    (
        "recursive-helpers-without-checks",
        "def _a(n):\n    return _b(n - 1)\n\n\ndef _b(n):\n    return n and _a(n)\n\n\n"
        + _test("_a(3)\nassert 1 == 1"),
        ("compares equal constants",),
    ),
    # Fires: assertions that only re-check a literal the test just assigned.
    (
        "literal-recheck",
        _test("x = 3\nassert x == 3"),
        (
            "cannot fail: its only check, `assert x == 3` (line 4), re-checks the literal",
            "assigned to `x` on line 3",
        ),
    ),
    ("literal-truthy", _test("x = 'yes'\nassert x"), ("re-checks the literal assigned to `x` on line 3",)),
    ("dict-literal-recheck", _test('d = {"a": 1}\nassert d["a"] == 1'), ("assigned to `d` on line 3",)),
    (
        "nested-literal-recheck",
        _test('d = {"a": [1, 2]}\nassert d["a"][-1] == 2'),
        ("assigned to `d` on line 3",),
    ),
    # Fires: checks whose outcome the test's own literals decide, through builtins, operators or `with`.
    (
        "derived-length",
        _test("expected = [1, 2, 3]\nunique = list(dict.fromkeys(expected))\nassert len(unique) == 3"),
        ("`assert len(unique) == 3` (line 5), re-checks `unique` (line 4), which the test computed",),
    ),
    (
        "small-nested-repeat",
        _test("x = [[1, 2] * 2] * 3\nassert x == [[1, 2, 1, 2]] * 3"),
        ("re-checks `x` (line 3), which the test computed",),
    ),
    (
        "literal-membership",
        _test("names = ['a', 'b']\nassert 'a' in names"),
        ("assigned to `names` on line 3",),
    ),
    (
        "literal-recheck-in-with",
        _test("with patch('app.send'):\n    x = 3\n    assert x == 3"),
        ("assigned to `x` on line 4",),
    ),
    ("unittest-assert-in", _method("x = {'a': 1}\nself.assertIn('a', x)"), ("assigned to `x` on line 4",)),
    (
        "literal-recheck-unittest",
        _method("x = [1, 2]\nself.assertEqual(x, [1, 2])"),
        ("assigned to `x` on line 4",),
    ),
    ("literal-reversed", _test("expected = 3\nassert 3 == expected"), ("assigned to `expected` on line 3",)),
    # An int stays 3 whatever a call does; only rebinding the name changes it.
    (
        "immutable-literal-across-call",
        _test("x = 3\nf()\nassert x == 3"),
        ("only fails if the code it runs raises",),
    ),
    # Fires: a try/except that swallows every failure of the assertions.
    (
        "except-exception-pass",
        _test("try:\n    assert f() == 1\nexcept Exception:\n    pass"),
        ("the `except Exception` on line 5 swallows the failure of `assert f() == 1` (line 4)",),
    ),
    (
        "bare-except",
        _test("try:\n    assert f() == 1\nexcept:\n    pass"),
        ("the `except` on line 5 swallows",),
    ),
    (
        "except-assertion-error-prints",
        _test("try:\n    assert f() == 1\n    assert g()\nexcept AssertionError as e:\n    print(e)"),
        ("the `except AssertionError` on line 6 swallows the failure of 2 checks",),
    ),
    (
        "except-tuple-logs",
        _test("try:\n    assert f() == 1\nexcept (ValueError, AssertionError):\n    logger.warning('flaky')"),
        ("the `except (ValueError, AssertionError)` on line 5 swallows",),
    ),
    (
        "base-exception-around-pytest-raises",
        _test("try:\n    with pytest.raises(ValueError):\n        f()\nexcept BaseException:\n    pass"),
        (
            "the `except BaseException` on line 6 swallows the failure of",
            "`pytest.raises(ValueError)` (line 4)",
        ),
    ),
    (
        "suppress",
        _test("with contextlib.suppress(AssertionError):\n    assert f() == 1"),
        ("the `contextlib.suppress(AssertionError)` on line 3 swallows",),
    ),
    (
        "nested-try-outer-swallows",
        _test(
            "try:\n    try:\n        assert f() == 1\n    except ValueError:\n        pass\n"
            "except Exception:\n    pass"
        ),
        ("the `except Exception` on line 8 swallows",),
    ),
    (
        "swallowed-helper",
        _method("try:\n    self._verify(f())\nexcept Exception:\n    pass", extra=VERIFY),
        ("swallows the failure of `self._verify(f())` (line 5)",),
    ),
    (
        "async-swallowed",
        _test("try:\n    assert await f()\nexcept Exception:\n    pass", head="async def"),
        ("the `except Exception` on line 5 swallows",),
    ),
    # Silent: the test calls code, and fails when that code raises.
    ("must-not-raise", _test("f()"), None),
    ("result-unused", _test("result = f()"), None),
    ("async-must-not-raise", _test("await f()", head="async def"), None),
    ("method-must-not-raise", _method("self.client.get('/')"), None),
    ("import-only", _test("import package.module"), None),
    ("attribute-only", _test("module.attribute"), None),
    ("raises-not-implemented", _test("raise NotImplementedError"), None),
    # Silent: checks that can fail.
    ("plain-assert", _test("assert f() == 1"), None),
    ("assert-truthy-call", _test("assert f()"), None),
    ("two-calls-compared", _test("assert f() == f()"), None),
    ("pytest-raises", _test("with pytest.raises(ValueError):\n    f()"), None),
    ("pytest-raises-and-assert-true", _test("with pytest.raises(ValueError):\n    f()\nassert True"), None),
    ("pytest-raises-call-form", _test("pytest.raises(ValueError, f, 1)\nassert True"), None),
    ("pytest-warns", _test("with pytest.warns(UserWarning):\n    f()"), None),
    ("pytest-fail", _test("if f():\n    pytest.fail('bad')"), None),
    ("unittest-method", _method("self.assertEqual(f(), 1)"), None),
    ("unittest-raises", _method("with self.assertRaises(KeyError):\n    f()"), None),
    ("self-fail", _method("if f():\n    self.fail('bad')\nassert True"), None),
    ("mock-assert", _test("m = Mock()\nf(m)\nm.assert_called_once_with(1)\nassert True"), None),
    ("helper-assert", _test("assert_valid(f())\nassert True"), None),
    ("helper-check", _test("check_profile(f())\nassert True"), None),
    ("helper-expect", _test("expect(f()).to_equal(1)\nassert True"), None),
    ("helper-verify", _test("verifySchema(f())\nassert True"), None),
    ("fluent-should", _test("f().should.equal(1)\nassert True"), None),
    ("raise-assertion-error", _test("if f():\n    raise AssertionError('bad')\nassert True"), None),
    ("raise-other-error", _test("if f() != 2:\n    raise RuntimeError('bad')\nassert True"), None),
    ("one-real-among-constant", _test("assert True\nassert f() == 2"), None),
    ("assert-in-loop", _test("x = 0\nfor item in f():\n    assert x == 0\n    x += item"), None),
    ("nested-function-asserts", _test("def check(v):\n    assert v == 1\nrun(check)\nassert True"), None),
    # Silent: the assertions live in helpers of the test's class, its bases in the file, or its module.
    (
        "class-helper",
        _method(
            "self._assert_unrecoverable(f())\nassert True",
            extra=VERIFY.replace("_verify", "_assert_unrecoverable"),
        ),
        None,
    ),
    ("class-helper-any-name", _method("self._verify(f())\nassert True", extra=VERIFY), None),
    (
        "classmethod-helper",
        _method(
            "self._run(f())\nassert True",
            extra="@classmethod\ndef _run(cls, v):\n    cls._verify(v)\n\n" + VERIFY,
        ),
        None,
    ),
    (
        "base-class-helper",
        _method(
            "self._verify(f())\nassert True",
            bases="(Base)",
            before="class Base(unittest.TestCase):\n"
            + "\n".join("    " + line for line in VERIFY.splitlines())
            + "\n\n\n",
        ),
        None,
    ),
    (
        "super-helper",
        _method("super()._verify(f())\nassert True", bases="(Base)", before="from suite import Base\n\n\n"),
        None,
    ),
    (
        "external-base-helper",
        _method(
            "self._verify(f())\nassert True", bases="(SuiteCase)", before="from suite import SuiteCase\n\n\n"
        ),
        None,
    ),
    ("unknown-self-attribute", _method("self.run_and_compare(f())\nassert True", bases=""), None),
    (
        "module-helper",
        "def _check_roundtrip(v):\n    assert load(dump(v)) == v\n\n\n"
        + _test("_check_roundtrip(f())\nassert True"),
        None,
    ),
    (
        "module-helper-raises",
        f"def _make(value):\n{RAISES_ON}    return value\n\n\n" + _test("_make(f())\nassert True"),
        None,
    ),
    (
        "helper-chain",
        "def _a(v):\n    _b(v)\n\n\ndef _b(v):\n    _c(v)\n\n\ndef _c(v):\n    assert v.ok\n\n\n"
        + _test("_a(f())\nassert True"),
        None,
    ),
    (
        "recursive-helpers",
        "def _a(n):\n    if n:\n        _b(n - 1)\n\n\ndef _b(n):\n    assert n >= 0\n    _a(n)\n\n\n"
        + _test("_a(3)\nassert True"),
        None,
    ),
    (
        "helper-swallowed-once-then-called",
        _method(
            # Met first inside the try (the walk is breadth first), then where it can fail.
            "try:\n    self._verify(f())\nexcept Exception:\n    pass\n"
            "if g():\n    with h():\n        self._verify(g())",
            extra=VERIFY,
        ),
        None,
    ),
    (
        "helper-named-like-a-test",
        "def test_roundtrip_of(v):\n    assert load(dump(v)) == v\n\n\n"
        + _test("test_roundtrip_of(f())\nassert True", "test_x"),
        None,
    ),
    (
        "helper-passed-not-called",
        "def _check(v):\n    assert v.ok\n\n\n" + _test("list(map(_check, f()))\nassert True"),
        None,
    ),
    (
        "imported-test-helper",
        "from tests.helpers import roundtrip\n\n\n" + _test("roundtrip(f())\nassert True"),
        None,
    ),
    (
        "relative-imported-helper",
        "from .support import roundtrip\n\n\n" + _test("roundtrip(f())\nassert True"),
        None,
    ),
    (
        "helper-module-attribute",
        "import tests.helpers as h\n\n\n" + _test("h.roundtrip(f())\nassert True"),
        None,
    ),
    # Silent: a literal that may have changed before the assertion.
    ("literal-rebound", _test("x = 3\nx = f()\nassert x == 3"), None),
    ("derived-then-changed", _test("x = [1]\ny = list(x)\nf(y)\nassert len(y) == 1"), None),
    ("rebound-builtin", _test("x = [1]\nassert len(x) == 1", head="len = f\n\n\ndef"), None),
    ("with-binds-the-name", _test("x = 3\nwith open('f') as x:\n    pass\nassert x == 3"), None),
    ("failing-literal-check", _test("x = [1, 2]\nassert len(x) == 3"), None),
    ("literal-augmented", _test("x = 3\nx += f()\nassert x == 3"), None),
    ("literal-rebound-in-block", _test("x = 3\nif f():\n    x = 4\nassert x == 3"), None),
    ("mutable-literal-passed", _test("x = [1]\nf(x)\nassert x == [1]"), None),
    ("mutable-literal-aliased", _test("x = [1]\ny = x\ny.append(2)\nassert x == [1]"), None),
    ("dict-missing-key", _test('d = {"a": 1}\nassert d["b"] == 1'), None),
    ("global-literal", _test("global X\nX = 3\nf()\nassert X == 3"), None),
    ("is-fresh-list", _test("x = [1]\nassert x is [1]"), None),
    # Silent: a try/except that lets failures through.
    ("except-value-error-pass", _test("try:\n    assert f() == 1\nexcept ValueError:\n    pass"), None),
    (
        "except-exception-fails",
        _test("try:\n    assert f() == 1\nexcept Exception:\n    pytest.fail('bad')"),
        None,
    ),
    (
        "except-exception-reraises",
        _test("try:\n    assert f() == 1\nexcept Exception:\n    cleanup()\n    raise"),
        None,
    ),
    (
        "except-exception-around-pytest-raises",
        _test("try:\n    with pytest.raises(ValueError):\n        f()\nexcept Exception:\n    pass"),
        None,
    ),
    ("assert-after-try", _test("try:\n    x = f()\nexcept Exception:\n    x = None\nassert x == 1"), None),
    (
        "assert-in-else",
        _test("try:\n    x = f()\nexcept Exception:\n    pass\nelse:\n    assert x == 1"),
        None,
    ),
    ("one-assert-outside", _test("try:\n    assert f() == 1\nexcept Exception:\n    pass\nassert g()"), None),
    (
        "except-calls-helper",
        _test("try:\n    assert f() == 1\nexcept AssertionError:\n    report_and_fail()"),
        None,
    ),
    ("suppress-other-error", _test("with contextlib.suppress(KeyError):\n    assert f() == 1"), None),
    ("swallowed-helper-maybe", _test("try:\n    verify(f())\nexcept Exception:\n    pass"), None),
    # Silent: an empty test whose fixtures run first, a test for the type checker, skipped or wrapped tests.
    ("empty-with-fixture", _test("pass", params="rl_process, no_error"), None),
    ("empty-with-usefixtures", "@pytest.mark.usefixtures('server')\n" + _test("pass"), None),
    (
        "empty-after-checking-set-up",
        _method("pass", extra="def setUp(self):\n    self.assertTrue(start())\n"),
        None,
    ),
    (
        "empty-with-foreign-base",
        _method("pass", bases="(ServerCase)", before="from suite import ServerCase\n\n\n"),
        None,
    ),
    ("returns-unbound-name", _test("return result"), None),
    ("typing-only", _test("_: Schema = {'type': 'wrong'}"), None),
    ("skipped-placeholder", "@pytest.mark.skip(reason='todo')\n" + _test("pass"), None),
    ("unittest-skipped", "@unittest.skip('todo')\n" + _test("assert True"), None),
    ("xfail", "@pytest.mark.xfail\n" + _test("assert True"), None),
    ("decorated-into-something-else", "@function_tool\n" + _test("return 'result'"), None),
]


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """One real repository holding every case as its own test module, reviewed once."""
    repo = GitRepo(tmp_path_factory.mktemp("tautological") / "repo")
    repo.commit({"AGENTS.md": AGENTS}, "base")
    repo.branch("pr")
    repo.commit({_path(case_id): source for case_id, source, _ in CASES}, "head")
    report = review(load_changeset(repo.path, base="main", head="pr"))
    by_path: dict[str, list] = {}
    for f in report.findings:
        by_path.setdefault(f.path or "", []).append(f)
    return by_path


def _path(case_id: str) -> str:
    return f"tests/test_{case_id.replace('-', '_')}.py"


@pytest.mark.parametrize(("case_id", "fragments"), [(c[0], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_case(reviewed, case_id, fragments):
    findings = reviewed.get(_path(case_id), [])
    if fragments is None:
        assert [(f.rule, f.message) for f in findings] == []
        return
    assert [f.rule for f in findings] == ["AGT002"]
    finding = findings[0]
    assert finding.source == "AGENTS.md:3"
    assert finding.message.endswith("; assert on what the code returns.")
    for fragment in fragments:
        assert fragment in finding.message


def test_untouched_tautology_is_not_reported(make_repo):
    old = _test("assert True", "test_old")
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS, "tests/test_a.py": old},
        {"tests/test_a.py": old + "\n\n" + _test("assert f() == 1", "test_new")},
    )
    assert codes(report) == []


@pytest.mark.parametrize(
    ("new_body", "expected"),
    [
        ("assert f() == 1\nassert True", []),  # still has a check that can fail
        ("f()", []),  # now only must not raise
        ("assert True", ["Changed test `test_old` cannot fail: its only check, `assert True` (line 3)"]),
        ("try:\n    assert f() == 1\nexcept Exception:\n    pass", ["Changed test `test_old` only fails if"]),
    ],
    ids=["kept-check", "must-not-raise", "now-constant", "now-swallowed"],
)
def test_changed_old_test(make_repo, new_body, expected):
    old = _test("assert f() == 1", "test_old")
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS, "tests/test_a.py": old},
        {"tests/test_a.py": _test(new_body, "test_old")},
    )
    assert [f.message[: len(e)] for f, e in zip(report.findings, expected, strict=False)] == expected
    assert len(report.findings) == len(expected)


def test_class_method_line_and_name(reviewed):
    (finding,) = reviewed[_path("method-empty")]
    assert finding.line == 2 and "`TestA.test_x`" in finding.message


def test_local_names_from_the_walked_nodes_match_walking_the_body_again():
    """verdict() passes the nodes it walked; the names must be those a walk of the body finds."""
    import ast
    from pathlib import Path

    from rules.testcode.assertions import local_names

    source = (
        "@deco(x := 1)\n"
        "def test_a(p, q=(y := 2), *r, s, **t) -> (z := int):\n"
        "    a = 1\n"
        "    def inner(u): v = 2\n"
        "    for b in c: pass\n"
        "    with m() as (d, e): del a\n"
        "    try: pass\n"
        "    except E as f: import g.h as i, j.k\n"
        "    match w:\n"
        "        case {**rest}: pass\n"
        "        case [*star, n] if (o := n): pass\n"
        "    class K: pass\n"
    )
    sources = [source] + [p.read_text() for p in sorted(Path(__file__).parent.glob("test_*.py"))[:10]]
    checked = 0
    for text in sources:
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert local_names(fn, list(ast.walk(fn))) == local_names(fn), fn.name
                checked += 1
    assert checked > 100
