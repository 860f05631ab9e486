"""rules.testcode.runner_config: the files a repository's own pytest configuration collects, read at base."""

from __future__ import annotations

import pytest

from rules.testcode.runner_config import collected_by, python_files
from tests.helpers import AGENTS_AGT001, codes, review_change

PYPROJECT = '[tool.pytest.ini_options]\npython_files = ["test_*.py", "testing/python/*.py"]\n'


@pytest.mark.parametrize(
    "path, text, expected",
    [
        ("pyproject.toml", PYPROJECT, ("test_*.py", "testing/python/*.py")),
        ("pyproject.toml", '[tool.pytest]\npython_files = ["check_*.py"]\n', ("check_*.py",)),  # pytest 9
        ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n', ()),
        ("pyproject.toml", "[tool.ruff]\nline-length = 1\n", None),  # no pytest section: the next file
        ("pyproject.toml", "[tool.pytest\n", None),  # does not parse: as if absent
        ("pytest.ini", "[pytest]\npython_files = check_*.py  *_spec.py\n", ("check_*.py", "*_spec.py")),
        ("setup.cfg", "[tool:pytest]\npython_files = check_*.py\n", ("check_*.py",)),
        ("tox.ini", "[tox]\nenvlist = py3\n", None),
        ("tox.ini", "[pytest]\npython_files = %(x)s.py\n", ("%(x)s.py",)),  # no interpolation
    ],
)
def test_python_files(path, text, expected):
    assert python_files(path, text) == expected


@pytest.mark.parametrize(
    "path, collected",
    [
        ("testing/python/raises.py", True),
        ("src/testing/python/raises.py", True),
        ("testing/test_x.py", True),
        ("testing/python/conftest.py", False),
        ("testing/helpers.py", False),
        ("testing/python/data.txt", False),
    ],
)
def test_collected_by(path, collected):
    assert collected_by(path, ("test_*.py", "testing/python/*.py")) is collected


NEW_TEST = 'def test_raises_regression():\n    """Checks raises."""\n    assert f()\n'


@pytest.mark.parametrize(
    "base_config, expected",
    [
        ({"pyproject.toml": PYPROJECT}, ["AGT001"]),
        ({}, []),  # without the setting, testing/python/raises.py is not a test file
        # The PR cannot widen what the rules see: the config is read at base.
        ({"pytest.ini": "[pytest]\naddopts = -q\n", "pyproject.toml": PYPROJECT}, []),  # pytest.ini wins
    ],
)
def test_the_repositorys_python_files_decide_what_is_a_test_file(make_repo, base_config, expected):
    base = {"AGENTS.md": AGENTS_AGT001, **base_config}
    report = review_change(make_repo, base, {"testing/python/raises.py": NEW_TEST})
    assert codes(report) == expected


def test_a_pr_widening_python_files_does_not_change_its_own_review(make_repo):
    head = {"pyproject.toml": PYPROJECT, "testing/python/raises.py": NEW_TEST}
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001}, head)
    assert codes(report) == []
