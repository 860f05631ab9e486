"""What a command imports: the fixed cost of a pre-commit run is mostly imports (issue 24, item 15), so a
check loads only what its format and mode use. Asserted on the modules a real run leaves in sys.modules,
not on timings (benchmarks/hook.py measures those)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Runs the command line in a fresh interpreter, then saves the names of every module it imported.
RUN = """
import json, sys
import bot.cli.main
code = bot.cli.main.main(sys.argv[2:])
sys.stdout.flush()
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""

AGENTS = "# Rules\n\n- Regression tests must name the PR or commit they guard in the docstring.\n"
TEST = 'def test_a():\n    """Guards PR #1."""\n    assert {}\n'

# Packages a text-format check of a staged one-file change has no use for: the comment's template engine,
# PyYAML (no YAML file is read), PyGithub and HTTP, the markdown parser of comment commands, the fallback
# Python parser, the property-testing library.
THIRD_PARTY = ("jinja2", "yaml", "github", "requests", "urllib3", "cmarkgfm", "libcst", "hypothesis")
# The bot's own modules such a check does not need: the GitHub API's models and client, the other output
# formats, the Prime-RL schema and the step math (no training profile changed).
OWN = (
    "bot.github.api",
    "bot.github.client",
    "bot.review.sarif",
    "bot.review.rdjson",
    "bot.git.fixing",
    "rules.training.primerl",
    "rules.training.stepmath",
)


def _imported(cwd: Path, tmp_path: Path, *argv: str) -> tuple[int, set[str], str]:
    """(exit code, modules imported, stdout) of `bot ARGV` run in cwd."""
    saved = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(saved), *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(saved.read_text(encoding="utf-8"))
    return data["code"], set(data["modules"]), proc.stdout


def _heavy(modules: set[str]) -> list[str]:
    top = {m.split(".")[0] for m in modules}
    return sorted({*(p for p in THIRD_PARTY if p in top), *(m for m in OWN if m in modules)})


@pytest.fixture
def staged_one_file(repo):
    """A repository whose AGENTS.md turns AGT001 on, with one staged edit of its one test file."""
    repo.commit({"AGENTS.md": AGENTS, "tests/test_a.py": TEST.format(1)}, message="base")
    repo.write({"tests/test_a.py": TEST.format(2)})
    repo.git("add", "-A")
    return repo


def test_hook_check_imports_only_what_text_output_needs(staged_one_file, tmp_path):
    code, modules, out = _imported(staged_one_file.path, tmp_path, "check", "--staged", "--format", "text")
    assert code == 0 and "1 of 1 changed file reviewed" in out  # the check ran and read the file
    assert _heavy(modules) == []


def test_markdown_check_imports_the_template(staged_one_file, tmp_path):
    """The same harness sees an import when the format needs it: the comment is rendered with jinja2."""
    argv = ("check", "--staged", "--format", "markdown")
    code, modules, out = _imported(staged_one_file.path, tmp_path, *argv)
    assert code == 0 and "jinja2" in {m.split(".")[0] for m in modules} and out.startswith("<!--")
    assert _heavy(modules) == ["jinja2"]


def test_profile_change_loads_the_step_math(repo, tmp_path):
    """What a one-file check leaves out is loaded when a change needs it: a training profile's values."""
    profile = 'name = "m300"\ntarget_examples = 300\nbatch_size = {}\n'
    repo.commit({"training/compat_profiles/m300.toml": profile.format(8)}, message="base")
    repo.write({"training/compat_profiles/m300.toml": profile.format(16)})
    repo.git("add", "-A")
    code, modules, out = _imported(repo.path, tmp_path, "check", "--staged", "--format", "text")
    assert code == 0 and "m300" in out
    assert "rules.training.stepmath" in modules


def test_rules_listing_loads_no_git_reader(tmp_path):
    """`bot rules` prints the catalog: it needs neither the local git loader nor the bundled examples."""
    code, modules, out = _imported(ROOT, tmp_path, "rules")
    assert code == 0 and "AGT001" in out
    assert not {"bot.git.local", "bot.cli.examples", "bot.github.api"} & modules
