"""AGT002 tautological-test: tests that assert nothing, or only constants."""

import pytest

from tests.helpers import codes, review_change

AGENTS = "# Tests\n\n- No tautological tests.\n"


def _test(body: str, name: str = "test_x") -> str:
    lines = "\n".join(f"    {line}" for line in body.splitlines())
    return f'def {name}():\n    """Guards PR #1."""\n{lines}\n'


FIRES = [
    ("no-assertion", "result = f()"),
    ("assert-true", "f()\nassert True"),
    ("assert-constant", "assert 1"),
    ("assert-string", 'assert "always"'),
    ("assert-equal-constants", "assert 1 == 1"),
    ("assert-same-expression", "x = f()\nassert x == x"),
    ("assert-nonempty-tuple", 'assert (f() == 2, "message")'),
    ("unittest-assert-true-constant", "self.assertTrue(True)"),
    ("unittest-same-args", "x = f()\nself.assertEqual(x, x)"),
    ("two-constant-assertions", "assert True\nassert 2 == 2"),
    ("checkout-is-not-a-check", 'repo.checkout("main")'),
    ("pass-only", "pass"),
]

SILENT = [
    ("plain-assert", "assert f() == 1"),
    ("assert-truthy-call", "assert f()"),
    ("pytest-raises", "with pytest.raises(ValueError):\n    f()"),
    ("pytest-warns", "with pytest.warns(UserWarning):\n    f()"),
    ("pytest-fail", "if f():\n    pytest.fail('bad')"),
    ("unittest-method", "self.assertEqual(f(), 1)"),
    ("unittest-raises", "with self.assertRaises(KeyError):\n    f()"),
    ("mock-assert", "m = Mock()\nf(m)\nm.assert_called_once_with(1)"),
    ("helper-assert", "assert_valid(f())"),
    ("helper-check", "check_profile(f())"),
    ("helper-expect", "expect(f()).to_equal(1)"),
    ("helper-verify", "verifySchema(f())"),
    ("raise-assertion-error", "if f():\n    raise AssertionError('bad')"),
    ("one-real-among-constant", "assert True\nassert f() == 2"),
    ("assert-in-loop", "for x in f():\n    assert x > 0"),
]


@pytest.mark.parametrize("body", [c[1] for c in FIRES], ids=[c[0] for c in FIRES])
def test_fires(make_repo, body):
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": _test(body)})
    assert codes(report) == ["AGT002"]
    assert report.findings[0].source == "AGENTS.md:3" and "cannot fail" in report.findings[0].message


@pytest.mark.parametrize("body", [c[1] for c in SILENT], ids=[c[0] for c in SILENT])
def test_silent(make_repo, body):
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": _test(body)})
    assert codes(report) == []


def test_untouched_tautology_is_not_reported(make_repo):
    old = _test("assert True", "test_old")
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS, "tests/test_a.py": old},
        {"tests/test_a.py": old + "\n\n" + _test("assert f() == 1", "test_new")},
    )
    assert codes(report) == []


def test_changed_old_test_is_reported(make_repo):
    old = _test("assert f() == 1", "test_old")
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS, "tests/test_a.py": old},
        {"tests/test_a.py": old.replace("assert f() == 1", "f()")},
    )
    assert codes(report) == ["AGT002"]
    assert report.findings[0].message.startswith("Changed test `test_old`")


def test_class_method_and_async(make_repo):
    src = 'class TestA:\n    async def test_x(self):\n        """Guards #1."""\n        await f()\n'
    report = review_change(make_repo, {"AGENTS.md": AGENTS}, {"tests/test_a.py": src})
    assert [(f.rule, f.line) for f in report.findings] == [("AGT002", 2)]
    assert "`TestA.test_x`" in report.findings[0].message
