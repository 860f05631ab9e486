"""The package as `pip install .` installs it (not editable): the bundled examples give what the docs show.

The wheel is built and installed offline from a copy of this checkout (`--no-build-isolation --no-index
--no-deps`, with the setuptools of the test extras), into a folder put first on the path of a fresh process;
the dependencies are this interpreter's. pip byte-compiles what it installs, as a user's `pip install .` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SOURCES = ("pyproject.toml", "README.md", "bot", "rules", "examples", "docs")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("setuptools.command.bdist_wheel", reason="needs the test extras' setuptools>=70.1")
    tmp = tmp_path_factory.mktemp("installed")
    src, site = tmp / "src", tmp / "site"
    src.mkdir()
    for name in _SOURCES:  # a clean copy: the build writes build/ and *.egg-info beside its sources
        item = ROOT / name
        if item.is_dir():
            shutil.copytree(item, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(item, src / name)
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    command += ["--no-build-isolation", "--disable-pip-version-check", "--target", str(site), str(src)]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list((site / "bot" / "example_prs").rglob("*.pyc")), "pip byte-compiles the examples"
    return site


def _bot(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], capture_output=True, text=True, cwd=cwd, env=env
    )


def _shown(doc: str, command: str) -> str:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return text.split(f"```text\n$ {command}\n", 1)[1].split("```", 1)[0]


def test_the_installed_package_is_the_one_run(installed, tmp_path):
    where = subprocess.run(
        [sys.executable, "-c", "import bot; print(bot.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)},
    )  # fmt: skip
    assert where.stdout.strip() == str(installed / "bot" / "__init__.py")


def test_the_installed_example_gives_the_documented_output_byte_for_byte(installed, tmp_path):
    """Before: the compiled `__pycache__/*.pyc` of the installed example were copied into its repository,
    reviewed as two more changed files ("5 of 5") and changed the commits' SHAs."""
    proc = _bot(installed, tmp_path, "example", "mobile300", "--format", "text")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == _shown("docs/output.md", "bot example mobile300")
    readme = _shown("README.md", "bot example mobile300").splitlines()
    real = proc.stdout.splitlines()
    for line in readme:  # the README abridges: `...` stands for rows, `[...]` for the rest of a message
        if line.strip() == "...":
            continue
        head, _, tail = line.partition(" [...] ")
        assert any(r.startswith(head) and r.endswith(tail) for r in real), line
    assert readme[-1] == real[-1]  # the summary, with both commits' SHAs


def test_the_doc_steps_help_names_is_installed_and_printed(installed, tmp_path):
    """Before: `bot steps --help` sent the reader to docs/stepmath.md, which the wheel did not hold."""
    assert (installed / "bot" / "docs" / "stepmath.md").is_file()
    help_text = _bot(installed, tmp_path, "steps", "--help").stdout
    assert "docs/stepmath.md, installed with the package (`bot steps --doc`" in " ".join(help_text.split())
    proc = _bot(installed, tmp_path, "steps", "--doc")
    assert proc.returncode == 0 and proc.stdout == (ROOT / "docs/stepmath.md").read_text(encoding="utf-8")
