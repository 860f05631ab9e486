"""Validation errors of a config or profile file in the words of someone editing it: no Python type names,
and "did you mean" for a key that is almost one the file may hold."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, get_args, get_origin

from pydantic import BaseModel

# pydantic's error types, said plainly.
_WORDS = {
    "bool_type": "should be true or false",
    "bool_parsing": "should be true or false",
    "string_type": "should be text",
    "tuple_type": 'should be a list, e.g. ["examples/**"]',
    "list_type": 'should be a list, e.g. ["examples/**"]',
    "dict_type": "should be a mapping of keys to values",
    "model_type": "should be a mapping of keys to values",
    "model_attributes_type": "should be a mapping of keys to values",
    "enum": "should be one of: error, warning, notice",
    "int_type": "should be a whole number",
    "int_parsing": "should be a whole number",
    "float_type": "should be a number",
}


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`; did you mean `x`?` for the closest known word (also ignoring case), or ""."""
    choices = list(known)
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6) or difflib.get_close_matches(
        word.upper(), choices, n=1, cutoff=0.6
    )
    return f"; did you mean `{match[0]}`?" if match else ""


def keys_at(model: type[BaseModel], parents: Iterable[Any]) -> list[str]:
    """The keys a nested model allows under parents (the key path down to it), or [] past a non-model.
    A mapping of names to models (`rules: {AGT001: {...}}`) takes one more part, the name."""
    parts = iter(parents)
    for part in parts:
        info = model.model_fields.get(str(part))
        kind = info.annotation if info else None
        if get_origin(kind) is dict:
            kind = get_args(kind)[1]
            next(parts, None)  # the mapping's own key
        if not isinstance(kind, type) or not issubclass(kind, BaseModel):
            return []
        model = kind
    return list(model.model_fields)


def _deeper(word: str, model: type[BaseModel], parents: tuple[Any, ...]) -> str:
    """`; did you mean `scheduler.warmup_steps`?` for a key that belongs one level further down."""
    nested: dict[str, str] = {}
    for key in keys_at(model, parents):
        if keys_at(model, (*parents, key, "")) == keys_at(model, (*parents, key)):
            continue  # a mapping of names to models (`rules:`): its keys are names, not settings
        for inner in keys_at(model, (*parents, key)):
            nested.setdefault(inner, f"{key}.{inner}")
    hint = did_you_mean(word, nested)
    return hint and f"; did you mean `{nested[hint.split('`')[1]]}`?"


def describe(err: Any, model: type[BaseModel]) -> str:
    """One pydantic error (`exc.errors()` item) of a file validated as model, in plain words."""
    loc = tuple(err["loc"])
    if err["type"] == "extra_forbidden":
        word = str(loc[-1])
        return "unknown key" + (
            did_you_mean(word, keys_at(model, loc[:-1])) or _deeper(word, model, loc[:-1])
        )
    if err["type"] == "value_error":
        return str(err.get("ctx", {}).get("error", err["msg"]))
    return _WORDS.get(err["type"], err["msg"].replace("Input should be", "should be"))
