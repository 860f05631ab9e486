"""Which files the repository's pytest collects: `python_files` from its own configuration, read at base.

pytest's own repository collects `testing/python/*.py` through `python_files`; a bot that knows only
`test_*.py` never sees the tests added there. The configuration is read as data (TOML, or INI without
interpolation), never run, from the base revision: a pull request cannot widen or narrow what the rules
that judge it look at.
"""

from __future__ import annotations

import fnmatch

from rules.core import formats

# pytest's order: the first file holding a pytest section is the configuration.
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
MAX_PATTERNS = 50
MAX_CONFIG_BYTES = 256 * 1024


def python_files(path: str, text: str) -> tuple[str, ...] | None:
    """The `python_files` patterns one configuration file sets; None when it holds no pytest section (pytest
    then looks at the next file), () when the section does not set them. Unusable text counts as none."""
    if len(text) > MAX_CONFIG_BYTES:
        return None
    if path == "pyproject.toml":
        try:
            data = formats.load(text, "toml")
        except formats.FormatError:
            return None
        tool = data.get("tool")
        section = tool.get("pytest") if isinstance(tool, dict) else None
        if not isinstance(section, dict):
            return None
        # `[tool.pytest.ini_options]`, or since pytest 9 the native `[tool.pytest]` table itself.
        options = section.get("ini_options", section)
        if not isinstance(options, dict):
            return None
        value = options.get("python_files", ())
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        words = [w for item in items if isinstance(item, str) for w in item.split()]
        return tuple(words[:MAX_PATTERNS])
    import configparser  # setup.cfg and tox.ini only: most repositories configure pytest in pyproject.toml

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except (configparser.Error, UnicodeError):
        return None
    section_name = _SECTIONS.get(path, "pytest")
    if not parser.has_section(section_name):
        return None
    return tuple(parser.get(section_name, "python_files", fallback="").split()[:MAX_PATTERNS])


def collected_by(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether pytest, configured with patterns, collects path: a pattern with a `/` matches the path (from
    the repository root, as pytest matches it against the file's path), one without matches the name."""
    name = path.rpartition("/")[2]  # git's paths are normalised: the name PurePosixPath gives
    if not patterns or not name.endswith(".py") or name in (".py", "conftest.py"):
        return False
    for pattern in patterns:
        if "/" in pattern:
            if fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, "*/" + pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False
