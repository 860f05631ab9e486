"""rules.testcode.literal_values: values of literal-only expressions, worked out without eval, or unknown."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from rules.testcode.literal_values import MAX_ITEMS, Evaluator, Unknown


def _value(source: str, env: dict[str, Any] | None = None, shadowed: frozenset[str] = frozenset()) -> Any:
    return Evaluator(env or {}, shadowed).value(ast.parse(source, mode="eval").body)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("[1, 2] + [3]", [1, 2, 3]),
        ("{'a': 1, **{'b': 2}}", {"a": 1, "b": 2}),
        ("len([1, 2, 3]) == 3", True),
        ("'b' in {'a': 1}", False),
        ("sorted({3, 1, 2}, reverse=True)", [3, 2, 1]),
        ("sum([1, 2, 3], 10)", 16),
        ("'Abc'.lower().startswith('ab')", True),
        ("list({'a': 1}.items())", [("a", 1)]),
        ("dict.fromkeys('ab', 0)", {"a": 0, "b": 0}),
        ("isinstance(3, (int, str))", True),
        ("str(3) + repr('x')", "3'x'"),
        ("None is None", True),
        ("1 < 2 < 3 != 3", False),
        ("(1, 2, 3)[1:]", (2, 3)),
        ("0 or [] or 'last'", "last"),
        ("round(2.567, 2)", 2.57),
        ("2 ** 10", 1024),
    ],
)
def test_known_values(source: str, expected: Any) -> None:
    assert _value(source) == expected


def test_names_come_from_the_bindings_and_are_recorded() -> None:
    evaluator = Evaluator({"expected": [1, 2, 3]}, frozenset())
    assert evaluator.value(ast.parse("len(expected)", mode="eval").body) == 3
    assert evaluator.used == ["expected"]


@pytest.mark.parametrize(
    "source",
    [
        "f()",  # code under test
        "x",  # a name nobody bound
        "obj.attr",
        "[1] is [1]",  # identity of fresh objects is not a literal fact
        "sorted([2, 1], key=f)",  # would call code
        "{'a': 1}['b']",  # the test raises here: a failure, not a fixed pass
        "1 / 0",
        "[1].append(2)",  # mutates
        "' '.join(['a'])",  # can grow past what it is given
        "'%s' % 1",  # string formatting is left unknown
        "sum([[1], [2]], [])",  # quadratic on lists
        "print(1)",
        "[x for x in []]",
    ],
)
def test_unknown_values(source: str) -> None:
    with pytest.raises(Unknown):
        _value(source)


def test_a_rebound_builtin_is_unknown() -> None:
    with pytest.raises(Unknown):
        _value("len([1])", shadowed=frozenset({"len"}))
    with pytest.raises(Unknown):
        _value("isinstance(1, int)", shadowed=frozenset({"int"}))


@pytest.mark.parametrize(
    "source",
    [
        "'a' * 10 ** 9",  # refused before the string is built
        "[0] * (10 ** 6)",
        "10 ** 10 ** 6",
        "1 << 10 ** 6",
        "(1 << 200) * (1 << 200)",
        "round(5, -10 ** 7)",
        "'%99999999d' % 1",
        "int('1' * 5000)",
        "-" * 2000 + "1",  # deep nesting
    ],
)
def test_hostile_sizes_are_unknown_not_built(source: str) -> None:
    with pytest.raises((Unknown, RecursionError, MemoryError, SyntaxError)) as caught:
        _value(source)
    # Only the evaluator's own refusal counts; a parser limit on the hostile text is not ours to test.
    if not isinstance(caught.value, Unknown):
        pytest.skip(f"the parser refused first: {type(caught.value).__name__}")


def test_growth_stops_at_the_item_bound() -> None:
    env = {"big": list(range(MAX_ITEMS))}
    assert len(_value("big + []", env)) == MAX_ITEMS
    with pytest.raises(Unknown):
        _value("big + [1]", env)
