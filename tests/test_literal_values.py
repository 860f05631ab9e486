"""rules.testcode.literal_values: values of literal-only expressions, worked out without eval, or unknown."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from rules.testcode.literal_values import MAX_DEPTH, MAX_ITEMS, MAX_SIZE, Evaluator, Unknown


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


@pytest.mark.parametrize(
    "source",
    [
        "[[[0] * 9999] * 9999] * 9999",  # three lists of 9,999 items, 10**12 zeros to compare
        "[[0] * 200] * 200 == [[0] * 200] * 200",
        "(('a' * 10_000,) * 3)",  # a string's characters count
        "[[0] * 10_000, [0] * 10_000, [0] * 10_000]",
        "{1: [0] * 8_000, 2: [0] * 8_000, 3: [0] * 8_000}",
        "2 * [[0] * 8_000] * 2",
    ],
)
def test_a_value_too_big_in_all_is_unknown_whatever_each_level_holds(source: str) -> None:
    with pytest.raises(Unknown):
        _value(source)


def test_a_value_doubled_by_name_stops_at_the_size_bound() -> None:
    """`x = [x, x]` forty times holds 2**40 leaves in forty small lists: the bound is reached by name too."""
    x: Any = 0
    for _ in range(20):
        x = [x, x]
    with pytest.raises(Unknown):
        _value("[x, 1]", {"x": x})
    with pytest.raises(Unknown):
        _value("x == x", {"x": x})


def test_a_value_nested_too_deep_is_unknown() -> None:
    deep: Any = 0
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(Unknown):
        _value("deep", {"deep": deep})


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("[[1, 2]] * 2", [[1, 2], [1, 2]]),
        ("2 * [[0] * 3]", [[0, 0, 0], [0, 0, 0]]),
        ("[[0] * 99] * 99 == [[0] * 99] * 99", True),
        ("[('ab',) * 2] * 2", [("ab", "ab"), ("ab", "ab")]),
        ("{'a': [1] * 3, 'b': 'xy' * 2}", {"a": [1, 1, 1], "b": "xyxy"}),
        ("[0] * -1", []),
    ],
)
def test_small_nested_values_still_evaluate(source: str, expected: Any) -> None:
    assert _value(source) == expected


def test_sizes_given_for_names_are_trusted_and_kept() -> None:
    """A value the caller measured once is not walked again; its size is what the evaluator reports."""
    big = [0] * 100
    evaluator = Evaluator({"big": big}, frozenset(), {"big": (100, 1)})
    assert evaluator.value(ast.parse("[big] * 3", mode="eval").body) == [big] * 3
    assert evaluator.size([big] * 3) == (303, 2)  # a fresh list: walked, its item found measured
    with pytest.raises(Unknown):
        Evaluator({"big": big}, frozenset(), {"big": (MAX_SIZE, 1)}).value(
            ast.parse("[big, big]", mode="eval").body
        )
