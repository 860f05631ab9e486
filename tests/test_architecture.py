"""The layers of docs/architecture.md: import-linter contracts (pyproject.toml) that a planted break fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
CONTRACTS = {
    "layers": "Arrows point down",
    "pure-rules": "rules/ is pure",
    "no-circles": "No import circles",
}


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the packages under root, with root's pyproject.toml, as CI runs it."""
    env = {**os.environ, "PYTHONPATH": str(root)}  # root's bot/ and rules/, not the installed ones
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", "--no-logo", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_keeps_every_contract():
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(CONTRACTS)} kept, 0 broken" in proc.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages and their contracts, to plant a violation in."""
    for package in ("bot", "rules"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


PLANTED = [
    # (what breaks, where it is planted, the line added, the contracts it breaks, what the report says)
    # An import up the layers also closes a circle between two rooms, so no-circles reports it too.
    (
        "rules import bot",
        "rules/core/globs.py",
        "from bot.review import engine",
        {"layers", "pure-rules"},
        "rules.core.globs -> bot.review.engine",
    ),
    (
        "a rule runs a process",
        "rules/training/stepmath.py",
        "import subprocess",
        {"pure-rules"},
        "rules.training.stepmath -> subprocess",
    ),
    (
        "a rule reads the environment",
        "rules/agents_md/reader.py",
        "import os",
        {"pure-rules"},
        "rules.agents_md.reader -> os",
    ),
    (
        "the git room imports GitHub",
        "bot/git/ranges.py",
        "import bot.github.api",
        {"layers", "no-circles"},
        "bot.git is not allowed to import bot.github",
    ),
    (
        "the review imports the terminal",
        "bot/review/output.py",
        "from bot.cli import usage",
        {"layers", "no-circles"},
        "bot.review is not allowed to import bot.cli",
    ),
    (
        "a family imports another",
        "rules/training/batch.py",
        "from rules.testcode import testfiles",
        {"layers"},
        "rules.training is not allowed to import rules.testcode",
    ),
    (
        "the vocabulary imports the registry",
        "rules/core/base.py",
        "import rules.catalog",
        {"layers", "no-circles"},
        "rules.core is not allowed to import rules.catalog",
    ),
    (
        "a circle in one room",
        "bot/cli/calculator.py",
        "from bot.cli import main",
        {"no-circles"},
        "No cycles are allowed in bot.cli",
    ),
]


@pytest.mark.parametrize(
    ("module", "line", "broken", "said"), [p[1:] for p in PLANTED], ids=[p[0] for p in PLANTED]
)
def test_a_planted_violation_fails_with_the_tools_message(tree, module, line, broken, said):
    path = tree / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # planted\n", encoding="utf-8")
    proc = lint_imports(tree)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = " ".join(proc.stdout.split())  # the report wraps long contract names
    assert {key for key, name in CONTRACTS.items() if _status(out, name) == "BROKEN"} == broken, out
    assert said in out, out


def _status(out: str, name: str) -> str:
    """KEPT or BROKEN, as the summary says of the contract whose name starts with name."""
    start = out.index(name)
    kept, broken = out.find(" KEPT", start), out.find(" BROKEN", start)
    return "KEPT" if kept != -1 and (broken == -1 or kept < broken) else "BROKEN"
