"""Every command of the README's local section runs, in a real repository, as the README shows it."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent


def _local_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("Locally it needs no\ntoken and no network:\n\n```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [c for c in commands if c]


COMMANDS = _local_commands()


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(make_repo, monkeypatch, capsys, tmp_path, command):
    repo = make_repo(
        {"AGENTS.md": AGENTS_AGT001},
        {"tests/test_a.py": "def test_crash_regression():\n    assert f()\n"},
    )
    repo.git("branch", "my-branch", "pr")
    repo.git("checkout", "-q", "pr")
    if "--staged" in command:  # with nothing staged the hook's command says so and prints no review
        repo.write({"tests/test_b.py": "def test_hang_regression():\n    assert g()\n"})
        repo.git("add", "tests/test_b.py")
    monkeypatch.chdir(repo.path)
    words = shlex.split(command)
    assert words[0] == "bot", command
    argv, target = words[1:], None
    if ">" in argv:  # `bot check --format sarif > bot.review.sarif`
        argv, target = argv[: argv.index(">")], argv[argv.index(">") + 1]
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 1), (command, out.err)
    assert out.out.strip(), command
    if target:
        (tmp_path / target).write_text(out.out, encoding="utf-8")
    if "--output" in argv:
        assert (repo.path / argv[argv.index("--output") + 1]).is_file()


def test_the_readme_shows_the_commands_this_test_runs():
    assert any(c.startswith("bot check --staged") for c in COMMANDS)
    assert any(c.startswith("bot example") for c in COMMANDS)
