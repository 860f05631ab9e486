"""Every released Python's syntax (3.8 to 3.14) parses under the interpreter running the bot."""

import ast
import subprocess
import sys

import pytest

from rules.core.pysyntax import PythonSyntaxError, parse_python
from rules.testcode.testfiles import parse_tests

ALL = frozenset(range(1, 200))

# (version, file text, [(qualname, def line, docstring, decorators)])
NEWER = [
    (
        "3.8 walrus, positional-only",
        'def helper(a, /, b):\n    return a\n\n\ndef test_walrus():\n    """Guards #1."""\n'
        "    if (n := helper(1, b=2)) > 0:\n        assert n == 1\n",
        [("test_walrus", 5, "Guards #1.", ())],
    ),
    (
        "3.9 decorator expressions",
        "@buttons[0].clicked.connect\ndef test_click():\n    assert f() == 1\n",
        [("test_click", 2, None, ("",))],
    ),
    (
        "3.10 match",
        "def test_match():\n    match f():\n        case [1, *rest]:\n            assert rest == []\n"
        "        case _:\n            assert False\n",
        [("test_match", 1, None, ())],
    ),
    (
        "3.11 except*",
        "def test_group():\n    try:\n        f()\n    except* ValueError:\n        pass\n",
        [("test_group", 1, None, ())],
    ),
    (
        "3.12 f-strings",
        'def test_quotes():\n    """Guards PR #12."""\n    assert f"{d["a"]}" == "1"\n\n\n'
        "@pytest.mark.slow\ndef test_multiline():\n"
        '    x = f"""{\n        "\\n".join(a)  # a comment\n    }"""\n'
        "    assert x == g()\n",
        [("test_quotes", 1, "Guards PR #12.", ()), ("test_multiline", 7, None, ("pytest.mark.slow",))],
    ),
    (
        "3.12 type statement and generics",
        "type Pair[T] = tuple[T, T]\n\n\ndef first[T](p: Pair[T]) -> T:\n    return p[0]\n\n\n"
        "class TestBox[T]:\n    def test_first(self):\n        assert first((1, 2)) == 1\n",
        [("TestBox.test_first", 9, None, ())],
    ),
    (
        "3.13 type parameter defaults",
        "class Box[T: int = int]:\n    pass\n\n\ndef test_box[\n    T = str,\n]():\n    assert Box() != 1\n",
        [("test_box", 5, None, ())],
    ),
    (
        "3.14 t-strings and except without parentheses",
        'def test_template():\n    """Guards #14."""\n    assert t"{x}" != 1\n    try:\n        f()\n'
        "    except ValueError, TypeError:\n        pass\n\n\ndef test_after():\n    assert g() == 2\n",
        [("test_template", 1, "Guards #14.", ()), ("test_after", 10, None, ())],
    ),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in NEWER], ids=[c[0] for c in NEWER])
def test_newer_syntax_parses_into_tests(text, expected):
    tf = parse_tests("tests/test_new.py", text, ALL)
    assert tf.error is None
    got = [(t.qualname, t.line, t.docstring, t.decorators) for t in tf.tests]
    assert got == expected
    # Every test ends where the text says it does: no line was lost or added.
    last = tf.tests[-1]
    assert last.end_line == len(text.rstrip("\n").splitlines())


def test_lines_after_a_multiline_fstring_stay_put():
    text = (
        'x = f"""{\n    d["key"]\n}"""\ny = f"{\n    d[\'k\']\n}"\n\n\n'
        "class TestA:\n    def test_b(self):\n        assert f(x) == 1\n"
    )
    tree = parse_python(text)
    cls = tree.body[-1]
    assert isinstance(cls, ast.ClassDef) and cls.lineno == 9 and cls.body[0].lineno == 10
    assert cls.body[0].end_lineno == 11


@pytest.mark.parametrize(
    "text, kind",
    [
        # Not a constant: a placeholder call, where this Python cannot read it (3.12 reads PEP 701's).
        ('assert f"{d["a"]}"\n', ast.Call if sys.version_info < (3, 12) else ast.JoinedStr),
        ('assert t"{x}"\n', ast.Call if sys.version_info < (3, 14) else getattr(ast, "TemplateStr", None)),
        ("assert f\"{d['a']}\"\n", ast.JoinedStr),  # readable f-strings are left alone
        # An implicit concatenation is replaced whole.
        ('assert "a" f"{d["a"]}"\n', ast.Call if sys.version_info < (3, 12) else ast.JoinedStr),
    ],
)
def test_unreadable_strings_become_non_constant_placeholders(text, kind):
    (stmt,) = parse_python(text).body
    assert isinstance(stmt, ast.Assert) and isinstance(stmt.test, kind)


def test_different_strings_get_different_placeholders_and_equal_ones_equal():
    a, b, c = (s.value for s in parse_python('f"{d["a"]}"\nf"{d["b"]}"\nf"{d["a"]}"\n').body)
    assert ast.dump(a) != ast.dump(b) and ast.dump(a) == ast.dump(c)


def test_lowered_constructs():
    tree = parse_python("type X[T] = list[T]\ntry:\n    pass\nexcept A, B:\n    pass\n")
    alias, handler = tree.body[0], tree.body[1].handlers[0]
    if sys.version_info < (3, 12):  # lowered; 3.12 reads `type` statements itself
        assert isinstance(alias, ast.Assign) and alias.targets[0].id == "X"
    else:
        assert isinstance(alias, ast.TypeAlias) and alias.name.id == "X"
    assert isinstance(handler.type, ast.Tuple) and [e.id for e in handler.type.elts] == ["A", "B"]


@pytest.mark.parametrize(
    "text, reason, line",
    [
        ("def f(:\n    pass\n", "syntax error", 1),
        ("x = (1,\n\n\ny = 2\n", "never closed", 1),
        # Newer syntax first does not hide where the file really breaks.
        ('x = f"{d["a"]}"\n\n\ny = = 2\n', "syntax error", 4),
        ('x = f"{d["a"]}"\ny = ' + "(" * 300 + ")" * 300 + "\n", "too deeply nested", None),
        ('x = f"{d["a"]}"\ny = ' + "-" * 5000 + "1\n", "too deeply nested", None),
        ("x = 1\x00\n", "null bytes", None),
    ],
)
def test_what_no_python_reads_is_an_error_with_reason_and_line(text, reason, line):
    with pytest.raises(PythonSyntaxError) as exc:
        parse_python(text)
    assert reason in exc.value.reason and exc.value.line == line


def test_the_fast_path_does_not_import_libcst():
    code = (
        "import sys; from rules.core.pysyntax import parse_python; "
        "parse_python('def test_a():\\n    pass\\n');"
        "print('libcst' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# Nesting just inside the guard, for the shapes that overflow libcst's native stack first (brackets,
# lambda and subscript chains, nested f-strings, elif chains): they parse or are refused, never crash.
EDGE = """
import sys
from rules.core.pysyntax import PythonSyntaxError, parse_python
new = 'X = f"{d["a"]}"\\n'
shapes = [
    "x = " + "(" * 199 + ")" * 199 + "\\n",
    "x = " + "lambda: " * 990 + "1\\n",
    "x = a" + "[1]" * 990 + "\\n",
    "x = " + "-" * 990 + "1\\n",
    "x = " + 'f"{' * 390 + "1" + '}"' * 390 + "\\n",
    "if x:\\n    pass\\n" + "elif x:\\n    pass\\n" * 1000,
]
for shape in shapes:
    try:
        parse_python(new + shape)
    except PythonSyntaxError as exc:
        print(exc.reason)
print("survived")
"""


def test_deep_input_never_crashes_the_fallback():
    proc = subprocess.run([sys.executable, "-c", EDGE], capture_output=True, text=True)
    *refused, last = proc.stdout.splitlines()
    assert proc.returncode == 0 and last == "survived", proc.stderr[-300:]
    assert all("too deeply nested" in reason for reason in refused)
