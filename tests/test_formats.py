import pytest

from rules.core.formats import FormatError, format_of, load


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("a = 1\na = 2\n", "toml", "invalid TOML"),
        ("a = nan\n", "toml", "NaN"),
        ('{"a": 1, "a": 2}', "json", "duplicate key"),
        ('{"a": NaN}', "json", "NaN"),
        ('{"a": ' + "1" * 5000 + "}", "json", "invalid value"),
        ("[" * 5000 + "]" * 5000, "json", "nested"),
        ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 60)), "yaml", "nested"),
        ("a: &x 1\nb: *x\n", "yaml", "anchors"),
        ("a: !!python/object:os.system {}\n", "yaml", "invalid YAML"),
    ],
)
def test_hostile_input_is_refused(text, fmt, message):
    with pytest.raises(FormatError, match=message):
        load(text, fmt)


def test_valid_documents():
    assert load("a = 1\n[b]\nc = 'x'\n", "toml") == {"a": 1, "b": {"c": "x"}}
    assert load("a: 1\nb: [1, 2]\n", "yaml") == {"a": 1, "b": [1, 2]}
    assert load('{"a": [1]}', "json") == {"a": [1]}


def test_format_of():
    assert [format_of(p) for p in ("a.toml", "b.YAML", "c.yml", "d.json", "e.py")] == [
        "toml",
        "yaml",
        "yaml",
        "json",
        None,
    ]
