"""What a test checks, found by parsing it and the helpers it calls: which checks can fail, and why not.

A check is anything that fails the test when what it looks at is wrong: an `assert`, a call of an
assertion function (`assertEqual`, `assert_called_once`, `pytest.raises`, `check_x`, `verify_x`...), a
`raise`, or a call of a helper from the same file (a function of the module, a method of the test's
class or of its bases defined in the file) that holds one. A helper that cannot be read (a method of a
base class from another file, a function from a test-helper module) is assumed to check.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from rules.testcode.literal_values import (
    NAMES,
    TYPE_NAMES,
    Evaluator,
    Size,
    Unknown,
    is_instance,
    unknown_call,
)
from rules.testcode.testfiles import dotted

_ASSERT_PREFIXES = ("assert", "check", "expect", "verify")
_PYTEST_CHECKS = {"raises", "warns", "deprecated_call", "fail"}
_FLUENT = {"should", "must", "expect"}  # `x.should.equal(1)`, `expect(x).to.equal(1)`
_ALWAYS_TRUE_OPS = (ast.Eq, ast.Is, ast.LtE, ast.GtE)
_SAME_ARGS = {
    "assertEqual", "assertEquals", "assertIs", "assertCountEqual", "assertListEqual", "assertDictEqual",
    "assertSequenceEqual", "assertTupleEqual", "assertSetEqual", "assertGreaterEqual", "assertLessEqual",
    "assertAlmostEqual",
}  # fmt: skip
# Bases whose helpers are known: the standard test cases, whose checks are all named assert*/fail.
_KNOWN_BASES = {
    "object", "TestCase", "IsolatedAsyncioTestCase", "SimpleTestCase", "TransactionTestCase",
    "LiveServerTestCase", "AsyncTestCase", "Generic", "ABC",
}  # fmt: skip
_TESTCASE_METHODS = {
    "setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown", "addCleanup",
    "addAsyncCleanup", "addClassCleanup", "doCleanups", "enterContext", "enterAsyncContext", "subTest",
    "skipTest", "id", "shortDescription", "setup_method", "teardown_method",
}  # fmt: skip
# Where imported helpers come from: test-support modules, whose functions may check.
_HELPER_MODULE_PARTS = {"conftest", "helpers", "helper", "support", "fixtures", "testutils", "testing"}
# Handlers that catch what a failed assert raises (AssertionError).
_CATCH_ASSERTION = {"", "Exception", "BaseException", "AssertionError"}
# Handlers that catch anything, pytest's outcomes (pytest.fail, a failed pytest.raises) included.
_CATCH_ALL = {"", "BaseException"}
_MAX_DEPTH = 6
_MAX_VISITS = 64

# What a failed check raises: AssertionError, a pytest outcome (a BaseException), or anything.
ASSERTION, OUTCOME, UNKNOWN = 0, 1, 2


def _is_check_name(name: str) -> bool:
    """assert, assertEqual, assert_called_once, check_output, expect, verify_schema; not checkout."""
    for prefix in _ASSERT_PREFIXES:
        if name.lower().startswith(prefix):
            rest = name[len(prefix) :]
            return not rest or rest[0] == "_" or rest[0].isupper()
    return False


def check_level(call: ast.Call) -> int | None:
    """What a call of an assertion function raises when it fails, or None if it is no such call."""
    name = dotted(call.func)
    parts = name.split(".")
    last = parts[-1]
    if parts[0] == "pytest" and last in _PYTEST_CHECKS:
        return OUTCOME
    if last.lower().startswith("assert") and _is_check_name(last):
        return ASSERTION
    if last == "fail" and len(parts) > 1:
        return ASSERTION if parts[0] in ("self", "cls") else UNKNOWN
    # `expect(x).to_be(1)` is found at its root call, `expect(x)`; `f().should.equal(1)` by its chain.
    attrs = []
    node = call.func
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if _is_check_name(last) or _FLUENT & set(attrs):
        return UNKNOWN
    return None


def show(node: ast.AST, limit: int = 60) -> str:
    """Source of a node for a message, shortened, without backticks."""
    text = " ".join(ast.unparse(node).split()).replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- Literals the test assigns itself -------------------------------------------------------------


def _is_literal(node: ast.expr) -> bool:
    """A literal of constants: 3, "a", None, (1, 2), [1], {"a": 1}, {1, 2}."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float, complex)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(not isinstance(e, ast.Starred) and _is_literal(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in node.keys) and all(
            _is_literal(v) for v in node.values
        )
    return False


def _mutable(node: ast.expr) -> bool:
    return any(isinstance(n, (ast.List, ast.Dict, ast.Set)) for n in ast.walk(node))


_UNSET = object()
Reason = tuple[str, str]  # what (an assertion, a handler) and why it cannot fail the test


@dataclass(frozen=True)
class Bound:
    """A local name the test bound to a literal, still holding it."""

    name: str
    value: ast.expr
    line: int
    derived: bool = False  # computed from literals (`list(dict.fromkeys(xs))`), not a literal itself
    data: object = field(default=None, compare=False)  # its value, worked out (_UNSET when unknown)
    size: Size | None = field(default=None, compare=False)  # data's size, measured once (Evaluator.size)


def _index(container: ast.expr, key: ast.expr) -> ast.expr | None:
    """`{"a": 1}["a"]` or `[1, 2][-1]` read without running anything; None when unsure or out of range."""
    if (
        isinstance(key, ast.UnaryOp)
        and isinstance(key.op, ast.USub)
        and isinstance(key.operand, ast.Constant)
    ):
        if type(key.operand.value) is int:
            key = ast.Constant(-key.operand.value)
    if not isinstance(key, ast.Constant):
        return None
    if isinstance(container, ast.Dict):
        keys = [k.value for k in container.keys if isinstance(k, ast.Constant)]
        # Only one kind of key and no repeats: `{1: "a", True: "b"}` would merge keys.
        if (
            len({type(k) for k in keys}) != 1
            or len(set(keys)) != len(keys)
            or type(key.value) is not type(keys[0])
        ):
            return None
        if key.value in keys:
            return container.values[keys.index(key.value)]
        return None
    if isinstance(container, (ast.Tuple, ast.List)) and type(key.value) is int:
        i = key.value
        return container.elts[i] if -len(container.elts) <= i < len(container.elts) else None
    return None


def _resolve(node: ast.expr, env: Mapping[str, Bound], used: list[Bound]) -> ast.expr:
    """node with the test's own literals put in for the names and indexes that hold them."""
    if isinstance(node, ast.Name) and node.id in env:
        used.append(env[node.id])
        return env[node.id].value
    if isinstance(node, ast.Subscript):
        base = _resolve(node.value, env, used)
        if base is not node.value:
            found = _index(base, node.slice)
            if found is not None:
                return found
    return node


# --- Assertions that always hold ------------------------------------------------------------------


def _pure(node: ast.expr) -> bool:
    """An expression that reads the same value twice in a row: names, attributes, indexes, constants."""
    if isinstance(node, (ast.Name, ast.Constant)):  # the common case, without a walk
        return True
    return all(
        isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.List, ast.Slice))
        or isinstance(n, (ast.expr_context, ast.UnaryOp, ast.unaryop))
        for n in ast.walk(node)
    )


@dataclass
class _Why:
    reason: str = ""
    used: list[Bound] = field(default_factory=list)


def _truthy(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and node.value:
        return "asserts a constant"
    # A non-empty tuple literal is always true, whatever it holds: the classic `assert (x, "msg")` slip.
    if isinstance(node, ast.Tuple) and node.elts:
        return "asserts a non-empty tuple, which is always true"
    if (isinstance(node, (ast.List, ast.Set)) and node.elts) or (isinstance(node, ast.Dict) and node.keys):
        return "asserts a non-empty literal, which is always true"
    return ""


def _same(a: ast.expr, b: ast.expr, env: Mapping[str, Bound], why: _Why) -> bool:
    """Whether a and b are the same value: one pure expression twice, or a name and the literal it holds."""
    if not (_pure(a) and _pure(b)):
        return False
    if type(a) is type(b) and ast.dump(a) == ast.dump(b):  # dumps of different node types differ
        return True
    used: list[Bound] = []
    ra, rb = _resolve(a, env, used), _resolve(b, env, used)
    if used and _is_literal(ra) and ast.dump(ra) == ast.dump(rb):
        why.used.extend(used)
        return True
    return False


def _always_true(test: ast.expr, env: Mapping[str, Bound], why: _Why) -> bool:
    """Whether an assert condition holds whatever the code under test does; why says how."""
    reason = _truthy(test)
    if not reason:
        used: list[Bound] = []
        resolved = _resolve(test, env, used)
        if used and _truthy(resolved) and resolved is not test:
            why.used.extend(used)
            reason = "is always true"
    if reason:
        why.reason = why.reason or reason
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = _resolve(test.operand, env, why.used)
        if isinstance(operand, ast.Constant) and not operand.value:
            why.reason = why.reason or "negates a false constant"
            return True
        return False
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.Or):  # short-circuits: nothing after a true operand runs
            return _always_true(test.values[0], env, why)
        return all(_always_true(v, env, why) for v in test.values)
    if isinstance(test, ast.Compare):
        operands = [test.left, *test.comparators]
        for op, a, b in zip(test.ops, operands, operands[1:], strict=False):
            if not isinstance(op, _ALWAYS_TRUE_OPS) or not _same(a, b, env, why):
                return False
            # `is` holds for the same object: not for two equal container literals.
            if isinstance(op, ast.Is) and ast.dump(a) != ast.dump(b) and _mutable(_resolve(a, env, [])):
                return False
        if not why.reason:
            const = all(isinstance(o, ast.Constant) for o in operands)
            why.reason = "compares equal constants" if const else "compares a value with itself"
        return True
    return False


def constant_call(call: ast.Call, env: Mapping[str, Bound]) -> _Why | None:
    """Unittest checks that always pass: assertTrue(True), assertEqual(x, x), or x = 3; assertEqual(x, 3)."""
    name = dotted(call.func).rsplit(".", 1)[-1]
    args = call.args
    why = _Why()
    if name in ("assertTrue", "assert_") and args:
        return why if _always_true(args[0], env, why) else None
    if name == "assertFalse" and args:
        value = _resolve(args[0], env, why.used)
        if isinstance(value, ast.Constant) and not value.value:
            why.reason = "asserts a false constant is false"
            return why
        return None
    if name in _SAME_ARGS and len(args) >= 2 and _same(args[0], args[1], env, why):
        if not why.used:
            const = isinstance(args[0], ast.Constant)
            why.reason = "compares equal constants" if const else "compares a value with itself"
        return why
    return None


def constant_assert(node: ast.Assert, env: Mapping[str, Bound]) -> _Why | None:
    why = _Why()
    return why if _always_true(node.test, env, why) else None


def explain(node: ast.AST, why: _Why) -> Reason:
    """(`assert x == 3` (line 4), re-checks the literal assigned to `x` on line 3)."""
    where = f"`{show(node)}` (line {node.lineno})"  # type: ignore[attr-defined]
    if why.used:
        bound = why.used[0]
        if bound.derived:
            return where, (
                f"re-checks `{bound.name}` (line {bound.line}), which the test computed from its own literals"
            )
        return where, f"re-checks the literal assigned to `{bound.name}` on line {bound.line}"
    return where, why.reason


# --- Values fixed by the test's own literals ------------------------------------------------------

# Calls that reach a function's locals without naming them.
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "globals"})
# unittest assertions as the condition they check, on their first two arguments.
_UNITTEST: dict[str, Callable[..., bool]] = {
    "assertTrue": bool, "assertFalse": lambda x: not x, "assertEqual": lambda a, b: a == b,
    "assertEquals": lambda a, b: a == b, "assertNotEqual": lambda a, b: a != b,
    "assertIn": lambda a, b: a in b, "assertNotIn": lambda a, b: a not in b,
    "assertIsNone": lambda x: x is None, "assertIsNotNone": lambda x: x is not None,
    "assertGreater": lambda a, b: a > b, "assertGreaterEqual": lambda a, b: a >= b,
    "assertLess": lambda a, b: a < b, "assertLessEqual": lambda a, b: a <= b,
    "assertListEqual": lambda a, b: a == b, "assertDictEqual": lambda a, b: a == b,
    "assertTupleEqual": lambda a, b: a == b, "assertSetEqual": lambda a, b: a == b,
    "assertIsInstance": is_instance,
}  # fmt: skip


def _known(env: Mapping[str, Bound]) -> dict[str, object]:
    return {k: b.data for k, b in env.items() if b.data is not _UNSET}


def _evaluator(env: Mapping[str, Bound], shadowed: Container[str]) -> Evaluator:
    """An evaluator over the known literals, told their sizes: a value a thousand checks read is measured
    once, when it is bound, not by each check."""
    sizes = {k: b.size for k, b in env.items() if b.size is not None}
    return Evaluator(_known(env), shadowed, sizes)


def fixed_check(
    node: ast.Assert | ast.Call, env: Mapping[str, Bound], shadowed: Container[str]
) -> _Why | None:
    """An assert, or a unittest assertion of the test's class, that the test's own literals make pass.

    Its value is worked out from the literals (rules.testcode.literal_values); one that would fail or raise,
    or that reads anything else, is not reported.
    """
    ev = _evaluator(env, shadowed)
    try:
        if isinstance(node, ast.Assert):
            holds = bool(ev.value(node.test))
        else:
            func = node.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
                return None
            check = _UNITTEST.get(func.attr)
            if check is None or func.value.id not in ("self", "cls"):
                return None
            args = [ev.value(a) for a in node.args[:2]]
            holds = bool(check(*args))
    except (Unknown, TypeError):
        return None
    if not holds:
        return None
    used = [env[name] for name in ev.used]
    return _Why(reason="always holds: it reads only constants", used=used)


# --- Names a statement binds ----------------------------------------------------------------------


def bound_names(nodes: list[ast.stmt]) -> set[str]:
    """Every name the statements could bind or unbind, nested blocks included."""
    return _bound_in(n for stmt in nodes for n in ast.walk(stmt))


def _bound_in(walked: Iterable[ast.AST]) -> set[str]:
    """The names these nodes (statements walked, with everything under them) bind or unbind."""
    names: set[str] = set()
    for n in walked:
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            names.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            names.add(n.rest)
    return names


def _inert_expr(node: ast.expr | None) -> bool:
    """An expression that runs no code: constants, local names, and lists, tuples and dicts of them."""
    if node is None or _is_literal(node) or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(not isinstance(e, ast.Starred) and _inert_expr(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in node.keys) and all(
            _inert_expr(v) for v in node.values
        )
    return False


def inert(stmt: ast.stmt) -> bool:
    """A statement that calls nothing and can raise nothing: `pass`, `...`, `x = 3`, `return`."""
    if isinstance(stmt, (ast.Pass, ast.Break, ast.Continue)):
        return True
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Constant)
    if isinstance(stmt, ast.Return):
        return _inert_expr(stmt.value)
    if isinstance(stmt, ast.Assign):
        return all(isinstance(t, ast.Name) for t in stmt.targets) and _inert_expr(stmt.value)
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and _inert_expr(stmt.value)
    return False


def literal_bindings(stmt: ast.stmt) -> Iterator[Bound]:
    """`x = 3`, `x = y = [1]`, `x: int = 3`: the names bound to a literal."""
    if isinstance(stmt, ast.Assign) and _is_literal(stmt.value):
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                yield _literal(t.id, stmt.value, stmt.lineno)
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        if _is_literal(stmt.value):
            yield _literal(stmt.target.id, stmt.value, stmt.lineno)


def _literal(name: str, literal: ast.expr, line: int) -> Bound:
    ev = Evaluator({}, frozenset())
    try:
        data = ev.value(literal)
    except Unknown:
        return Bound(name, literal, line, data=_UNSET)
    return Bound(name, literal, line, data=data, size=ev.size(data))


def iter_checks(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function that is an assert, a raise or a call (nested functions included)."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Assert, ast.Raise, ast.Call)):
            yield n


def handler_names(handler: ast.ExceptHandler) -> set[str]:
    """`except:` -> {""}, `except (ValueError, Exception)` -> {"ValueError", "Exception"}."""
    if handler.type is None:
        return {""}
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {dotted(t).rsplit(".", 1)[-1] or "?" for t in types}


def catches(names: set[str], level: int) -> str:
    """ "yes", "maybe" or "no": whether a handler of these types catches a check's failure."""
    certain = _CATCH_ASSERTION if level == ASSERTION else _CATCH_ALL
    if names & certain:
        return "yes"
    # A check whose failure is unknown may raise anything, so any handler may catch it.
    return "maybe" if level == UNKNOWN else "no"


def silent(body: list[ast.stmt]) -> bool:
    """A handler that neither re-raises nor fails: it passes, returns, or prints or logs."""
    for stmt in body:
        if inert(stmt):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            name = dotted(stmt.value.func)
            root, last = name.split(".", 1)[0], name.rsplit(".", 1)[-1]
            if name == "print" or root in ("logging", "logger", "log", "LOGGER", "LOG") and last in (
                "debug", "info", "warning", "error", "exception", "critical",
            ):  # fmt: skip
                if not any(
                    isinstance(n, (ast.Call, ast.Await)) for a in stmt.value.args for n in ast.walk(a)
                ):
                    continue
        return False
    return True


def suppressing(item: ast.withitem) -> set[str]:
    """The types `contextlib.suppress(...)` swallows, or nothing for another context manager."""
    expr = item.context_expr
    if isinstance(expr, ast.Call) and dotted(expr.func).rsplit(".", 1)[-1] == "suppress":
        return {dotted(a).rsplit(".", 1)[-1] or "?" for a in expr.args}
    return set()


def helper_module(module: str, level: int) -> bool:
    """A module test helpers come from: a relative import in a test file, tests.*, conftest, helpers."""
    if level > 0:
        return True
    parts = module.split(".")
    return any(p.startswith("test") or p in _HELPER_MODULE_PARTS for p in parts)


def class_bases(cls: ast.ClassDef) -> list[str]:
    return [dotted(b.value if isinstance(b, ast.Subscript) else b).rsplit(".", 1)[-1] for b in cls.bases]


# --- Helpers the test calls -----------------------------------------------------------------------

Function = ast.FunctionDef | ast.AsyncFunctionDef
_SKIPS = ("skip", "skipif", "skipIf", "skipUnless", "xfail", "expectedFailure")
# pytest's own fixtures, which check nothing about the code under test.
_BUILTIN_FIXTURES = {
    "tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory", "monkeypatch", "capsys", "capsysbinary",
    "capfd", "capfdbinary", "caplog", "recwarn", "request", "pytestconfig", "record_property",
    "record_testsuite_property", "record_xml_attribute", "doctest_namespace", "cache", "pytester", "testdir",
    "mocker",
}  # fmt: skip


class Scope:
    """The module around a test: its functions, classes and imports, to follow calls into helpers."""

    def __init__(self, module: ast.Module | None) -> None:
        # Read when first asked: most tests are settled by their first check without it.
        self.module = module
        self._built = False
        self._functions: dict[str, Function] = {}
        self._classes: dict[str, ast.ClassDef] = {}
        self._imports: dict[str, bool] = {}
        self._rebound: frozenset[str] = frozenset()

    def _build(self) -> None:
        self._built = True
        if self.module is not None:
            self._collect(self.module.body)
            top = set().union(*(_top_names(stmt) for stmt in self.module.body))
            self._rebound = NAMES & (top | set(self._functions) | set(self._classes))

    def _ready(self) -> Scope:
        if not self._built:
            self._build()
        return self

    @property
    def functions(self) -> dict[str, Function]:
        return self._ready()._functions

    @property
    def classes(self) -> dict[str, ast.ClassDef]:
        return self._ready()._classes

    @property
    def imports(self) -> dict[str, bool]:
        """Local name -> whether it comes from a test-helper module."""
        return self._ready()._imports

    @property
    def rebound(self) -> frozenset[str]:
        """The builtins the module rebinds (`def list(): ...`)."""
        return self._ready()._rebound

    def _collect(self, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fixture = any(
                    dotted(d).rsplit(".", 1)[-1] in ("fixture", "yield_fixture") for d in node.decorator_list
                )
                if not fixture:  # fixtures are not helpers of a test's body
                    self._functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self._classes[node.name] = node
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self._imports[(a.asname or a.name).split(".")[0]] = helper_module(a.name, 0)
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    self._imports[a.asname or a.name] = helper_module(node.module or "", node.level)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    self._collect(getattr(node, block, []))
                for handler in getattr(node, "handlers", []):
                    self._collect(handler.body)

    def test_class(self, qualname: str) -> ast.ClassDef | None:
        """The class a test method sits in, from its qualified name (`TestA.TestB.test_x`)."""
        parts = qualname.split(".")[:-1]
        cls = self.classes.get(parts[0]) if parts else None
        for name in parts[1:]:
            if cls is None:
                return None
            cls = next((n for n in cls.body if isinstance(n, ast.ClassDef) and n.name == name), None)
        return cls

    def method(self, cls: ast.ClassDef, name: str, skip_own: bool = False) -> tuple[Function | None, bool]:
        """A method of cls or of its bases in this file, and whether a base from elsewhere could hold it."""
        seen: set[str] = set()
        external = False

        def find(c: ast.ClassDef, own: bool) -> Function | None:
            nonlocal external
            if own:
                found = [n for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                hit = [n for n in found if n.name == name]
                if hit:
                    return hit[-1]
            for base in class_bases(c):
                if base in self.classes and base not in seen:
                    seen.add(base)
                    got = find(self.classes[base], True)
                    if got is not None:
                        return got
                elif base not in _KNOWN_BASES:
                    external = True
            return None

        got = find(cls, not skip_own)
        return got, external

    def callee(self, func: ast.expr, cls: ast.ClassDef | None) -> tuple[str, Function | None]:
        """What a call or reference reaches: ("helper", def), ("unknown", None) or ("code", None)."""
        if isinstance(func, ast.Name):
            if func.id in self.functions:
                return "helper", self.functions[func.id]
            return ("unknown", None) if self.imports.get(func.id) else ("code", None)
        if not isinstance(func, ast.Attribute):
            return "code", None
        owner = func.value
        is_super = isinstance(owner, ast.Call) and dotted(owner.func) == "super"
        mine = isinstance(owner, ast.Name) and cls is not None and owner.id in ("self", "cls", cls.name)
        if cls is not None and (mine or is_super):
            found, external = self.method(cls, func.attr, skip_own=is_super)
            if found is not None:
                return "helper", found
            if external or func.attr not in _TESTCASE_METHODS:
                return "unknown", None
            return "code", None
        root = dotted(func).split(".", 1)[0]
        return ("unknown", None) if root and self.imports.get(root) else ("code", None)


class _Walk:
    """One test's walk into its helpers, bounded in depth and in helpers visited."""

    def __init__(self, scope: Scope, cls: ast.ClassDef | None) -> None:
        self.scope = scope
        self.cls = cls
        self.visited: set[int] = set()  # helpers met in the current search from one call of the test
        self.known: dict[int, int | None] = {}  # helpers searched from the test, by their def

    def level(self, node: ast.AST, depth: int, local: frozenset[str] = frozenset()) -> int | None:
        """What a node's failure raises if it is a check that can fail; None if it is none."""
        if isinstance(node, ast.Assert):
            return None if constant_assert(node, {}) else ASSERTION
        if isinstance(node, ast.Raise):
            return ASSERTION if node.exc is not None and "AssertionError" in dotted(node.exc) else UNKNOWN
        if isinstance(node, ast.Call):
            level = check_level(node)
            if level is not None:
                return None if constant_call(node, {}) else level
            func = node.func
            if isinstance(func, ast.Name) and func.id in local:
                return None
            return self.reaches(func, depth, called=True)
        if isinstance(node, ast.Name) and node.id in local:
            return None  # a parameter or variable of the function, not the module's function of that name
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.reaches(node, depth, called=False)
        return None

    def reaches(self, func: ast.expr, depth: int, called: bool) -> int | None:
        kind, fn = self.scope.callee(func, self.cls)
        if kind == "unknown":
            # A call of what cannot be read may check; a mere name (`self.value`) checks nothing.
            return UNKNOWN if called else None
        if fn is None:
            return None
        if depth > 0:
            return self.helper(fn, depth + 1)
        # Each call in the test searches afresh: a helper met twice must count both times.
        if id(fn) not in self.known:
            self.visited = set()
            self.known[id(fn)] = self.helper(fn, 1)
        return self.known[id(fn)]

    def helper(self, fn: Function, depth: int) -> int | None:
        """The level of the checks a helper holds (itself or through helpers it calls), None if none."""
        if id(fn) in self.visited:
            return None  # met before in this search (a cycle): its checks count where it was first met
        if depth > _MAX_DEPTH or len(self.visited) >= _MAX_VISITS:
            return UNKNOWN  # too far to follow: assume it checks
        self.visited.add(id(fn))
        found: int | None = None
        local = local_names(fn)
        for node in nodes_to_check(fn):
            level = self.level(node, depth, local)
            if level is not None:
                found = level if found is None else max(found, level)
                if found == UNKNOWN:
                    break
        return found


def local_names(fn: Function, nodes: Sequence[ast.AST] | None = None) -> frozenset[str]:
    """The parameters of a function and the names its body binds.

    nodes: every node of fn (`ast.walk(fn)`) when the caller has them: the body's are those not under the
    signature or the decorators, so the body need not be walked again.
    """
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
    if nodes is None:
        bound = bound_names(fn.body)
    else:
        parts = [fn.args, *fn.decorator_list, fn.returns, *getattr(fn, "type_params", ())]
        outside = {id(n) for part in parts if part is not None for n in ast.walk(part)}
        outside.add(id(fn))
        bound = _bound_in(n for n in nodes if id(n) not in outside)
    return frozenset({a.arg for a in args if a is not None} | bound)


def nodes_to_check(fn: ast.AST, nodes: Sequence[ast.AST] | None = None) -> Iterator[ast.AST]:
    """Asserts, raises and calls, and functions named without being called (`map(_check, xs)`).

    nodes: every node of fn (`ast.walk` order) when the caller has them already.
    """
    if nodes is None:
        nodes = list(ast.walk(fn))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for n in nodes:
        if isinstance(n, (ast.Assert, ast.Raise, ast.Call)):
            yield n
        elif isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) and id(n) not in called:
            yield n


# --- Why a test cannot fail -----------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """Why a test cannot fail: an empty body, a body that does nothing, or checks that always pass."""

    kind: str  # "empty", "inert" or "checks"
    reasons: tuple[Reason, ...] = ()
    certain: bool = True  # False: nothing it asserts can fail, but code it runs may still raise


def _literal_rechecks(
    fn: Function,
    shadowed: frozenset[str] = frozenset(),
    nodes: Sequence[ast.AST] | None = None,
    local: frozenset[str] | None = None,
    plain: set[int] | None = None,
) -> dict[int, Reason]:
    """Assertions whose outcome the test's own literals decide (top level and inside `with` blocks).

    nodes and local: every node of fn and local_names(fn), when the caller has them already; plain
    collects the checks that are not constant by themselves (see _recheck_block).
    """
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in (ast.walk(fn) if nodes is None else nodes)):
        return {}
    out: dict[int, Reason] = {}
    rebound = NAMES & (local_names(fn) if local is None else local)
    _recheck_block(fn.body, {}, shadowed | rebound, out, plain)
    return out


def _top_names(stmt: ast.stmt) -> set[str]:
    """Names a module-level statement binds in the module (not those bound inside a function it defines)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return bound_names([stmt])


def local_builtins(fn: Function) -> frozenset[str]:
    """The builtin names a function rebinds (`list = ...`): calls of them are not the builtins'."""
    return NAMES & local_names(fn)


def _recheck_block(
    body: list[ast.stmt],
    env: dict[str, Bound],
    shadowed: Container[str],
    out: dict[int, Reason],
    plain: set[int] | None = None,
) -> dict[str, Bound]:
    """plain collects the checks found not constant with no literal known: verdict() need not ask again."""
    for stmt in body:
        check: ast.Assert | ast.Call | None = None
        if isinstance(stmt, ast.Assert):
            check = stmt
        elif (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and check_level(stmt.value) is not None
        ):
            check = stmt.value
        if check is not None:
            constant = (
                constant_assert(check, env) if isinstance(check, ast.Assert) else constant_call(check, env)
            )
            if constant is None and not env and plain is not None:
                plain.add(id(check))
            why = constant or fixed_check(check, env, shadowed)
            if why:
                out[id(check)] = explain(check, why)
                continue  # it reads the literals and changes nothing
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            items = [i.context_expr for i in stmt.items] + [
                i.optional_vars for i in stmt.items if i.optional_vars
            ]
            env = _after(items, env) if env else env
            for item in stmt.items:
                for name in bound_names([ast.Expr(item.optional_vars)] if item.optional_vars else []):
                    env.pop(name, None)
            env = _recheck_block(stmt.body, env, shadowed, out, plain)
            continue
        derived = _derived(stmt, env, shadowed)
        # With nothing known there is nothing to forget: skip walking the statement (thousands of tests).
        if env and derived is None and not inert(stmt):
            env = _after([stmt], env)
        if env:
            for name in bound_names([stmt]):
                env.pop(name, None)
        for bound in literal_bindings(stmt):
            env[bound.name] = bound
        if derived is not None:
            env[derived.name] = derived
    return env


def _derived(stmt: ast.stmt, env: Mapping[str, Bound], shadowed: Container[str]) -> Bound | None:
    """`x = len(ys)`, `x = list(dict.fromkeys(ys))`: a name bound to a value the literals decide."""
    if not (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
    ):
        return None
    if _is_literal(stmt.value) or unknown_call(stmt.value):
        return None  # a literal binding, kept as such; or a value nothing here can know
    ev = _evaluator(env, shadowed)
    try:
        data = ev.value(stmt.value)
    except Unknown:
        return None
    return Bound(stmt.targets[0].id, stmt.value, stmt.lineno, derived=True, data=data, size=ev.size(data))


def _after(nodes: Sequence[ast.AST], env: dict[str, Bound]) -> dict[str, Bound]:
    """The literals still known after code runs that may reach them.

    The test's literals are its own new objects, so code can change one only through a name that holds
    it (or through the frame): when code reads such a name, every mutable value is dropped, since names
    may alias one another.
    """
    read = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                read.add(n.id)
    mutable = {k for k, b in env.items() if b.derived or _mutable(b.value)}
    if read & (mutable | _FRAME_READERS):
        return {k: b for k, b in env.items() if k not in mutable}
    return env


_QUIET = (
    ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Compare, ast.BoolOp, ast.UnaryOp,
    ast.expr_context, ast.cmpop, ast.boolop, ast.unaryop,
)  # fmt: skip


def _quiet(stmt: ast.stmt) -> bool:
    """An assert that runs no code of its own: it can fail, but nothing in it can raise or mutate."""
    return (
        isinstance(stmt, ast.Assert)
        and all(isinstance(n, _QUIET) for n in ast.walk(stmt.test))
        and (stmt.msg is None or isinstance(stmt.msg, ast.Constant))
    )


# What _swallowed looks for between a check and its test: without one, nothing swallows a failure.
_GUARDS = (ast.Try, ast.TryStar, ast.With, ast.AsyncWith)


def _swallowed(node: ast.AST, level: int, parents: dict[int, ast.AST], fn: ast.AST) -> str:
    """The handler that swallows a check's failure, as `except X` on line N; "" if none surely does."""
    prev, cur = node, parents.get(id(node))
    while cur is not None and cur is not fn:
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return ""  # a nested function may run anywhere
        if isinstance(cur, (ast.Try, ast.TryStar)) and any(prev is s for s in cur.body):
            for handler in cur.handlers:
                caught = catches(handler_names(handler), level)
                if caught == "no":
                    continue
                if not silent(handler.body):
                    return ""
                if caught == "yes":
                    kind = "except" if handler.type is None else f"except {show(handler.type, 40)}"
                    return f"the `{kind}` on line {handler.lineno}"
        if isinstance(cur, (ast.With, ast.AsyncWith)) and any(prev is s for s in cur.body):
            for item in cur.items:
                types = suppressing(item)
                if types and catches(types, level) == "yes":
                    return f"the `{show(item.context_expr, 40)}` on line {cur.lineno}"
        prev, cur = cur, parents.get(id(cur))
    return ""


def _plain_decorators(fn: Function) -> bool:
    """Only pytest marks and mock patches: no skip, and nothing that may replace or wrap the test."""
    for d in fn.decorator_list:
        name = dotted(d)
        last = name.rsplit(".", 1)[-1]
        if last in _SKIPS:
            return False  # a skipped test reports as skipped, not as passing
        if not (name.startswith(("pytest.mark.", "mark.")) or "patch" in name.split(".")):
            return False
    return True


def _fixtures(fn: Function, in_class: bool) -> set[str]:
    """The fixtures a test requests that may check something: its parameters, parametrized ones aside."""
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    names = {a.arg for a in args[1:]} if in_class and args else {a.arg for a in args}
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and dotted(d.func).endswith("parametrize") and d.args:
            first = d.args[0]
            items = first.elts if isinstance(first, (ast.Tuple, ast.List)) else [first]
            for item in items:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names -= {n.strip() for n in item.value.split(",")}
        if dotted(d).endswith("usefixtures"):
            names.add("usefixtures")
    return names - _BUILTIN_FIXTURES


# Words that send a test to the full analysis below when its source holds them: a `try` or `with` may
# swallow a failure. Keywords are spelled in ASCII (only identifiers are read through NFKC).
_GUARD_WORDS = re.compile(r"\b(?:try|with)\b")


class _Shadowed:
    """The builtins a test cannot use as such: those its module rebinds and those it binds itself (a walk
    of the test, made only when a builtin's name comes up while its literals are worked out)."""

    def __init__(self, module: frozenset[str], fn: Function) -> None:
        self.module = module
        self.fn = fn
        self.local: frozenset[str] | None = None

    def __contains__(self, name: object) -> bool:
        if name in self.module:
            return True
        if name not in NAMES:
            return False
        if self.local is None:
            self.local = NAMES & local_names(self.fn)
        return name in self.local


def _binds_no_literal(body: list[ast.stmt]) -> bool:
    """Statements after which _recheck_block knows no literal: none binds a name to anything but a call
    of an unknown function, and none is a `with` (whose body it reads too)."""
    for stmt in body:
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            return False
        if (
            isinstance(stmt, (ast.Assign, ast.AnnAssign))
            and stmt.value is not None
            and not unknown_call(stmt.value)
        ):
            return False
    return True


def _unknown_first(test: ast.expr) -> bool:
    """A condition that, with no literal known, is neither constant_assert's nor fixed_check's: a
    comparison whose first two operands differ (so it is no self-comparison) and whose left one, read
    first, has no value the literals could give (a name that is no builtin type, a call of an unknown
    function): `value == 3`, `compute(1) == 2`."""
    if not isinstance(test, ast.Compare):
        return False
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Name):
        return left.id not in TYPE_NAMES and not (isinstance(right, ast.Name) and right.id == left.id)
    return unknown_call(left)


def _first_check_fails(fn: Function, source: str, scope: Scope) -> bool:
    """Whether the test's first top-level `assert` or `raise` can fail and nothing could swallow it.

    Then verdict() is None, and this finds it without walking the whole test (a PR may add thousands):
    that statement is the first check verdict() meets (its walk is breadth-first, and statements come
    before the decorators), and the test's source, which holds every node of it, names no `try` and no
    `with`. The assert is judged as verdict() judges it: with the literals the statements before it bind
    (the same _recheck_block, with the same builtins shadowed), and with nothing known.
    """
    if ("try" in source or "with" in source) and _GUARD_WORDS.search(source):
        return False
    for i, stmt in enumerate(fn.body):
        if isinstance(stmt, ast.Raise):
            return True
        if isinstance(stmt, ast.Assert):
            if _unknown_first(stmt.test) and _binds_no_literal(fn.body[:i]):
                return True  # what the lines below conclude, read off the shapes alone
            shadowed = _Shadowed(scope.rebound, fn)
            env = _recheck_block(fn.body[:i], {}, shadowed, {})
            if constant_assert(stmt, {}) is not None:
                return False
            if env and constant_assert(stmt, env) is not None:
                return False
            return fixed_check(stmt, env, shadowed) is None
    return False


def verdict(fn: Function, qualname: str, scope: Scope, source: str | None = None) -> Verdict | None:
    """Why the test cannot fail, or None when it can (or when that is not certain).

    source: the text of the test's lines (its `def` line to its last), when the caller has it; it lets
    most tests be settled by their first check (see _first_check_fails).
    """
    if not _plain_decorators(fn):
        return None
    if source is not None and _first_check_fails(fn, source, scope):
        return None
    body = fn.body
    walk = _Walk(scope, scope.test_class(qualname))
    # Walked once for every use below: a PR may add thousands of tests.
    nodes = list(ast.walk(fn))
    local = local_names(fn, nodes)
    plain: set[int] = set()
    rechecks = _literal_rechecks(fn, scope.rebound, nodes, local, plain)
    parents: dict[int, ast.AST] = {}
    reasons: list[Reason] = []
    swallowers: dict[str, list[ast.AST]] = {}
    checks = 0
    for node in nodes_to_check(fn, nodes):
        if isinstance(node, ast.Assert):
            why = None if id(node) in plain else constant_assert(node, {})
            vacuous: Reason | None = rechecks.get(id(node)) or (explain(node, why) if why else None)
            level: int | None = ASSERTION
        elif isinstance(node, ast.Call) and check_level(node) is not None:
            why = None if id(node) in plain else constant_call(node, {})
            vacuous = rechecks.get(id(node)) or (explain(node, why) if why else None)
            level = check_level(node)
        else:
            vacuous = None
            level = walk.level(node, 0, local)
        if level is None and not vacuous:
            continue
        checks += 1
        if vacuous:
            reasons.append(vacuous)
            continue
        assert level is not None
        if not any(isinstance(n, _GUARDS) for n in nodes):
            return None  # a check that can fail, and no `try` or `with` that could swallow its failure
        if not parents:  # needed only for a check that can fail
            parents = {id(c): p for p in nodes for c in ast.iter_child_nodes(p)}
        swallower = _swallowed(node, level, parents, fn)
        if not swallower:
            return None  # a check that can fail
        swallowers.setdefault(swallower, []).append(node)
    if checks == 0:
        if not _inert_body(fn):
            return None  # it runs code, and fails when that raises
        if _fixtures(fn, "." in qualname) or _set_up_checks(walk):
            return None  # an empty test can still check through its fixtures or setUp, which run before it
        if any(isinstance(s, ast.AnnAssign) for s in body):
            return None  # `x: Schema = {...}`: a test for the type checker, not for the runner
        empty = all(
            isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            for s in body
        )
        return Verdict("empty" if empty else "inert")
    for where, nodes in swallowers.items():
        what = f"`{show(nodes[0])}` (line {nodes[0].lineno})" if len(nodes) == 1 else f"{len(nodes)} checks"  # type: ignore[attr-defined]
        reasons.append((where, f"swallows the failure of {what}"))
    certain = not swallowers and _inert_body(fn, checks=True)
    return Verdict("checks", tuple(reasons), certain)


def _inert_body(fn: Function, checks: bool = False) -> bool:
    """Statements that run nothing, reading only names bound before them (an unbound one would raise).

    With checks, asserts and unittest assertions on such names and literals count as running nothing.
    """
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
    known = {a.arg for a in args if a is not None}
    for stmt in fn.body:
        if not (inert(stmt) or (checks and (_quiet(stmt) or _quiet_check(stmt)))):
            return False
        read = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if not read <= known:
            return False
        known |= bound_names([stmt])
    return True


def _set_up_checks(walk: _Walk) -> bool:
    """Whether the test's class sets up through code that may check: its own setUp, or a foreign base."""
    if walk.cls is None:
        return False
    for name in ("setUp", "asyncSetUp", "setUpClass", "setup_method", "setup_class", "setup"):
        found, external = walk.scope.method(walk.cls, name)
        if external:
            return True
        if found is not None:
            walk.visited = set()
            if walk.helper(found, 1) is not None:
                return True
    return False


def _quiet_check(stmt: ast.stmt) -> bool:
    """`self.assertTrue(True)`: a unittest assertion on names and literals only."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    return dotted(call.func).split(".", 1)[0] in ("self", "cls") and all(
        isinstance(n, _QUIET) for a in call.args for n in ast.walk(a)
    )
