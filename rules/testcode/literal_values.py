"""The value of an expression built only from literals, computed by this module, never by Python's eval.

A test that asserts `len(expected) == 3` right after writing `expected = [1, 2, 3]` checks nothing: its
outcome is decided before any code under test runs. To say so with certainty, and to say nothing about a
check that would fail (`d = {"a": 1}; d["b"]` raises), the value is worked out here over plain data:
constants, containers of them, a handful of builtins and methods that only compute, and operators. Any
other name, call or attribute, and any value that grows past a small bound, makes the value unknown.

The bound is on a value's whole size, not on each level's length: `[[[0] * n] * n] * n` is three lists of n
items, built at once, yet comparing or sorting it visits n**3 zeros (a 200-byte test took hours). So every
value is measured as what an operation over it may visit (every item at every level, a part shared by
reference counted each time it is reached, a string's characters), and a repeat is measured before it is
built.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Container, Mapping
from itertools import chain
from typing import Any


class Unknown(Exception):
    """The expression's value cannot be worked out from literals alone (or would raise)."""


# Past these sizes a value is unknown: the test text decides them, and a hostile one must stay cheap.
MAX_ITEMS = 10_000  # the length of one string or container
MAX_SIZE = 20_000  # items at every level of one value, shared parts counted each time (see Evaluator.size)
MAX_INT_BITS = 256
MAX_DEPTH = 50  # the expression's nesting, and the value's

Size = tuple[int, int]  # (items at every level, levels of containers): what an operation may visit
_CONTAINERS = (list, tuple, set, frozenset, dict)
_ATOMS = frozenset({int, float, bool, complex, type(None)})  # types whose values hold nothing

_TYPES: dict[str, type] = {
    t.__name__: t for t in (list, tuple, set, frozenset, dict, str, int, float, bool, bytes, complex)
}
_TYPES["NoneType"] = type(None)
TYPE_NAMES = frozenset(_TYPES)  # the names a value may read as a builtin type


def _bounded(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise Unknown
    if isinstance(value, (str, bytes, list, tuple, set, frozenset, dict)) and len(value) > MAX_ITEMS:
        raise Unknown
    return value


def _sized(*items: Any) -> None:
    """Before an operation that can grow a value: every operand within bounds."""
    for item in items:
        _bounded(item)


def _mul(a: Any, b: Any) -> Any:
    # `"a" * 10**9` must not be built to learn it is too big (Evaluator._repeat also bounds its whole size).
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int):
            if len(seq) * max(n, 0) > MAX_ITEMS:
                raise Unknown
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS:
        raise Unknown
    return a * b


def _pow(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and (b < 0 or b * max(a.bit_length(), 1) > MAX_INT_BITS):
        raise Unknown
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or abs(b) > 1_000:
        raise Unknown
    return a**b


def _numbers(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """An operator kept to numbers: `"%9999999d" % 1` would build a string first and be too big after."""

    def run(a: Any, b: Any) -> Any:
        if not all(isinstance(x, (int, float, complex)) for x in (a, b)):
            raise Unknown
        return op(a, b)

    return run


def _sum(items: Any, start: Any = 0) -> Any:
    values = list(items)
    if not all(isinstance(x, (int, float, complex)) for x in [*values, start]):
        raise Unknown  # `sum(lists, [])` grows quadratically
    return sum(values, start)


def _round(number: Any, ndigits: Any = None) -> Any:
    # `round(5, -10**7)` computes ten to the ten millionth power on the way.
    if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > 1_000):
        raise Unknown
    return round(number, ndigits)


def _shift(a: Any, b: Any) -> Any:
    if not isinstance(b, int) or b > MAX_INT_BITS:
        raise Unknown
    return a << b


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: _numbers(operator.mod), ast.Pow: _pow, ast.LShift: _shift,
    ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
}  # fmt: skip
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}  # fmt: skip


def is_instance(value: Any, kinds: Any) -> bool:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not all(isinstance(k, type) for k in kinds):
        raise Unknown
    return isinstance(value, kinds)


# Builtins that compute from their arguments alone. `str` and `repr` only of scalars (a container's text
# would be Python's spelling, which is fine, but cheap bounds are simpler on scalars).
_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len, "list": list, "tuple": tuple, "set": set, "frozenset": frozenset, "dict": dict,
    "sorted": sorted, "sum": _sum, "min": min, "max": max, "any": any, "all": all, "bool": bool,
    "abs": abs, "round": _round, "isinstance": is_instance, "int": int, "float": float,
    "reversed": lambda x: list(reversed(x)), "enumerate": lambda x, start=0: list(enumerate(x, start)),
    "zip": lambda *xs: list(zip(*xs, strict=False)),
}  # fmt: skip
_SCALAR_TEXT: dict[str, Callable[[Any], str]] = {"str": str, "repr": repr}
# Methods that return a new value and change nothing, by the type they belong to (not `join` or
# `replace`, whose result can be far larger than what they are given).
_METHODS: dict[type, frozenset[str]] = {
    str: frozenset(
        "upper lower strip lstrip rstrip split rsplit startswith endswith count index "
        "removeprefix removesuffix isdigit isalpha isspace title capitalize".split()
    ),
    bytes: frozenset("startswith endswith count index strip".split()),
    list: frozenset("count index copy".split()),
    tuple: frozenset("count index".split()),
    dict: frozenset("keys values items get copy".split()),
    set: frozenset("issubset issuperset union intersection difference copy isdisjoint".split()),
    frozenset: frozenset("issubset issuperset union intersection difference copy isdisjoint".split()),
}
_VIEWS = {"keys": list, "values": list, "items": list}  # views as lists: plain data, same membership


def unknown_call(node: ast.expr) -> bool:
    """A call of a name that is no builtin this module knows (`compute(1, 2)`): its value is unknown
    whatever its arguments are, with any env."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id not in _BUILTINS
        and node.func.id not in _SCALAR_TEXT
    )


class Evaluator:
    """Works out values over the literals a test bound to names (env) and the builtins it did not rebind."""

    def __init__(
        self, env: Mapping[str, Any], shadowed: Container[str], sizes: Mapping[str, Size] | None = None
    ) -> None:
        """sizes: the size of some of env's values, already measured (self.size), so not walked again."""
        self.env = env
        self.shadowed = shadowed
        self.sizes = sizes or {}
        self.used: list[str] = []  # the names of env the last evaluations read
        # Containers measured, by id, with the container itself: held, so that no other object takes its id.
        self._measured: dict[int, tuple[Any, Size]] = {}

    def value(self, node: ast.expr, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise Unknown
        try:
            result = _bounded(self._value(node, depth + 1))
            self.size(result)  # every value within MAX_SIZE and MAX_DEPTH before anything reads it
            return result
        except Unknown:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError, AttributeError):
            raise Unknown from None  # the test would raise here: that is a failure, not a fixed pass

    def size(self, value: Any, level: int = 0) -> Size:
        """What an operation over value may visit: (items at every level, with a string's characters and a
        part shared by reference counted each time it is reached; levels of containers). Unknown past
        MAX_SIZE or MAX_DEPTH, found without walking further: each container is walked once per evaluator,
        and a walk stops at the bound, so measuring costs no more than building did."""
        if isinstance(value, (str, bytes)):
            return len(value), 0
        if not isinstance(value, _CONTAINERS):
            return 0, 0
        hit = self._measured.get(id(value))
        if hit is None:
            hit = (value, self._walk(value, level))
            self._measured[id(value)] = hit
        if level + hit[1][1] > MAX_DEPTH:
            raise Unknown
        return hit[1]

    def _walk(self, value: Any, level: int) -> Size:
        if level >= MAX_DEPTH:
            raise Unknown
        items, depth = 0, 0
        for child in chain.from_iterable(value.items()) if isinstance(value, dict) else value:
            items += 1
            if type(child) not in _ATOMS:
                n, d = self.size(child, level + 1)
                items, depth = items + n, max(depth, d)
            if items > MAX_SIZE:
                raise Unknown
        return items, depth + 1

    def _known_size(self, value: Any, size: Size) -> Any:
        """value, whose size was worked out before it was built: not walked."""
        if size[0] > MAX_SIZE or size[1] > MAX_DEPTH:
            raise Unknown
        if isinstance(value, _CONTAINERS):
            self._measured[id(value)] = (value, size)
        return value

    def _repeat(self, a: Any, b: Any) -> Any:
        """a * b, where a sequence repeated is measured before it is built: `[[[0] * n] * n] * n`."""
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, (list, tuple)) and isinstance(n, int):
                items, depth = self.size(seq)
                return self._known_size(_mul(a, b), (items * max(n, 0), depth))
        return _mul(a, b)

    def _builtin_type(self, name: str) -> type | None:
        kind = _TYPES.get(name)  # looked up first: asking shadowed may cost a walk of the test
        return kind if kind is not None and name not in self.shadowed else None

    def _value(self, node: ast.expr, depth: int) -> Any:  # noqa: C901, PLR0911, PLR0912
        v = self.value
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.env:
                self.used.append(node.id)
                found = self.env[node.id]
                if node.id in self.sizes:
                    return self._known_size(found, self.sizes[node.id])
                return found
            kind = self._builtin_type(node.id)
            if kind is None:
                raise Unknown
            return kind
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items: list[Any] = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    items.extend(v(e.value, depth))
                else:
                    items.append(v(e, depth))
                _sized(items)
            kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
            return kind(items)
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for k, val in zip(node.keys, node.values, strict=True):
                if k is None:
                    out.update(v(val, depth))
                else:
                    out[v(k, depth)] = v(val, depth)
                _sized(out)
            return out
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise Unknown
            if isinstance(node.op, ast.Mult):
                return self._repeat(v(node.left, depth), v(node.right, depth))
            return op(v(node.left, depth), v(node.right, depth))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](v(node.operand, depth))
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for operand in node.values:
                result = v(operand, depth)
                if bool(result) is isinstance(node.op, ast.Or):
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = v(node.left, depth)
            for cmp, comp in zip(node.ops, node.comparators, strict=True):
                right = v(comp, depth)
                if isinstance(cmp, (ast.Is, ast.IsNot)):
                    # Identity is known only for the singletons; `[1] is [1]` depends on object identity.
                    if not all(x is None or isinstance(x, bool) for x in (left, right)):
                        raise Unknown
                    ok = (left is right) is isinstance(cmp, ast.Is)
                else:
                    ok = bool(_CMPOPS[type(cmp)](left, right))
                if not ok:
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return v(node.body, depth) if v(node.test, depth) else v(node.orelse, depth)
        if isinstance(node, ast.Subscript):
            base = v(node.value, depth)
            if isinstance(node.slice, ast.Slice):
                parts = [
                    v(p, depth) if p is not None else None
                    for p in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                return base[slice(*parts)]
            return base[v(node.slice, depth)]
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise Unknown

    def _call(self, node: ast.Call, depth: int) -> Any:
        if unknown_call(node) or (isinstance(node.func, ast.Name) and node.func.id in self.shadowed):
            raise Unknown  # `compute(1, 2)`: unknown whatever its arguments are, so they are not worked out
        args = [self.value(a, depth) for a in node.args if not isinstance(a, ast.Starred)]
        if len(args) != len(node.args) or any(k.arg is None for k in node.keywords):
            raise Unknown
        kwargs = {k.arg: self.value(k.value, depth) for k in node.keywords if k.arg}
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.shadowed:
            if func.id in _BUILTINS and (not kwargs or func.id in ("sorted", "enumerate", "round")):
                if kwargs.keys() - {"reverse", "start", "ndigits"}:
                    raise Unknown  # `sorted(key=...)` would call code
                return _BUILTINS[func.id](*args, **kwargs)
            if func.id in _SCALAR_TEXT and len(args) == 1 and isinstance(args[0], (int, float, str, bool)):
                return _SCALAR_TEXT[func.id](args[0])
            raise Unknown
        if not isinstance(func, ast.Attribute) or kwargs:
            raise Unknown
        if isinstance(func.value, ast.Name) and func.attr == "fromkeys":
            kind = self._builtin_type(func.value.id)
            if kind is dict and 1 <= len(args) <= 2:
                return dict.fromkeys(*args)
        owner = self.value(func.value, depth)
        if func.attr not in _METHODS.get(type(owner), frozenset()):
            raise Unknown
        result = getattr(owner, func.attr)(*args)
        return _VIEWS[func.attr](result) if func.attr in _VIEWS and isinstance(owner, dict) else result


# The builtin names this module gives a value to: a test or module that rebinds one makes it unknown.
NAMES = frozenset(_TYPES) | frozenset(_BUILTINS) | frozenset(_SCALAR_TEXT)
