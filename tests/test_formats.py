from pathlib import Path

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


def _pure(text: str) -> object:
    """What the pure-Python loader alone makes of a YAML text: its data, or its error."""
    import yaml

    from rules.core import formats

    try:
        data = yaml.load(text, Loader=formats._loader())  # noqa: S506 - the SafeLoader subclass
        formats.check(data)
        return data
    except FormatError as exc:
        return ("error", str(exc), exc.line)
    except yaml.YAMLError:
        return ("error", "invalid YAML")


def _both(text: str) -> tuple[object, object]:
    try:
        got: object = load(text, "yaml")
    except FormatError as exc:
        got = (
            ("error", str(exc), exc.line)
            if not str(exc).startswith("invalid YAML")
            else ("error", "invalid YAML")
        )
    return got, _pure(text)


_CORPUS = sorted(
    p
    for p in (Path(__file__).parent / "fixtures").rglob("*")
    if p.is_file() and p.suffix in (".yaml", ".yml")
)


@pytest.mark.parametrize("path", _CORPUS, ids=lambda p: str(p.relative_to(Path(__file__).parent)))
def test_the_c_parser_path_reads_real_yaml_as_the_pure_loader_does(path):
    """Plain YAML is read by libyaml's parser for speed (issue 25: 200 trainer configs); every fixture of
    the repository must come out exactly as the pure loader reads it."""
    got, want = _both(path.read_text(encoding="utf-8", errors="replace"))
    assert got == want


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicate key: the pure loader's message and line
        "a: [1, 2\n",  # unclosed: invalid either way
        "a:\n  - b: 1\n    b: 2\n",
        "x: 0o17\ny: 1_000\nz: 1:20\nw: 2024-01-01\nv: ~\nu: yes\n",  # YAML 1.1 resolution
        "a: 'it''s'\nb: \"\\t\"\nc: |\n  two\n  lines\n",
        # Tabs libyaml takes after a plain scalar and the pure loader refuses: the same file must not be
        # valid on a machine with libyaml and invalid on one without.
        "a: 1\t# c\n",
        "a:\t1\n",
        "lr: 1e-5\t\n",
    ],
)
def test_the_c_parser_path_agrees_with_the_pure_loader_on_edge_cases(text):
    got, want = _both(text)
    assert got == want


@pytest.mark.parametrize("path", _CORPUS, ids=lambda p: str(p.relative_to(Path(__file__).parent)))
def test_key_lines_are_the_same_from_libyaml_and_the_pure_composer(path, monkeypatch):
    """Where a key sits is read with libyaml's composer for plain text (issue 25: a review of 200 trainer
    configs spent most of its time composing them twice in pure Python); every fixture's keys must come
    out on the same lines as the pure composer puts them."""
    from rules.core import formats

    text = path.read_text(encoding="utf-8", errors="replace")
    fast = formats.key_lines(text, "yaml")
    monkeypatch.setattr(formats, "_fast_loader", lambda: None)
    assert fast == formats.key_lines(text, "yaml")


@pytest.mark.parametrize(
    "text",
    ["a: 1\r\nb:\r\n  c: 2\r\n", "a: 1\rb: 2\n", "a: 1\na: 2\n", "a: [1, 2\n", "- x: 1\n- y: {z: 3}\n"],
)
def test_key_lines_agree_on_line_breaks_duplicates_and_errors(text, monkeypatch):
    from rules.core import formats

    fast = formats.key_lines(text, "yaml")
    monkeypatch.setattr(formats, "_fast_loader", lambda: None)
    assert fast == formats.key_lines(text, "yaml")
