"""The commands README.md and docs/*.md show, run through the console command and compared with what the docs
say they print, so that a doc claim cannot go stale silently.

- A fenced block that opens with `$ bot ...` shows that command's output: it must be the output, exactly.
- A `bot steps` line whose comment gives numbers (`# 37 / 37 / 296 / 4`) must answer them: max_steps,
  decay_steps, effective examples, unapplied micro steps, in that order.
- Every `--option` a doc writes after `bot SUBCOMMAND` must be one that subcommand's `--help` lists.
- Every line of the `bot steps` calculator block in docs/stepmath.md runs (exit 0 or 1, never a usage error),
  with the files it names made from the bundled linear-scheduler example.

The README's own local section runs in tests/test_readme_commands.py (in a real repository), its example
output in tests/test_output_formats.py and tests/test_installed.py (after a non-editable install).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
_BLOCK = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)
_NUMBERS = re.compile(r"#[^#]*?(\d+(?:\s*/\s*\d+){1,3})\s*$")
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def _blocks() -> list[tuple[str, int, str, str]]:
    """(doc, line, language, body) of every fenced block of the docs."""
    out = []
    for doc in DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            out.append((doc, text[: m.start()].count("\n") + 1, m["lang"], m["body"]))
    return out


def _command_lines() -> list[tuple[str, int, str]]:
    """(doc, line, command) of every `bot ...` command line of a shell or output block, comments kept."""
    out = []
    for doc, line, _, body in _blocks():
        for i, text in enumerate(body.splitlines()):
            command = text.strip().removeprefix("$ ").removeprefix("- run: ")
            if command.startswith("bot "):
                out.append((doc, line + 1 + i, command))
    return out


_INLINE = re.compile(r"`(bot [a-z][^`]*)`")


def _inline_commands() -> list[str]:
    """`bot ...` written in the prose of the docs, as code spans."""
    return [m[1] for doc in DOCS for m in _INLINE.finditer((ROOT / doc).read_text(encoding="utf-8"))]


def _bot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # A clean environment: no GitHub settings, no colour, the package of this checkout.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="100")
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


SHOWN = [
    pytest.param(body.split("\n", 1)[0][2:], body.split("\n", 1)[1], id=f"{doc}:{line}")
    for doc, line, _, body in _blocks()
    if body.startswith("$ bot ")
]


def test_the_docs_show_output_blocks_to_compare():
    docs = {p.id.split(":")[0] for p in SHOWN}  # type: ignore[union-attr]
    assert {"README.md", "docs/output.md", "docs/stepmath.md"} <= docs


@pytest.mark.parametrize("command, shown", SHOWN)
def test_a_shown_output_is_what_the_command_prints(tmp_path, command, shown):
    args = shlex.split(command)[1:]
    # The docs show what a terminal prints; through a pipe the default would be markdown.
    proc = _bot(*args, *([] if "--format" in args else ["--format", "text"]), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    readme_abridged = "\n...\n" in shown or " [...] " in shown
    if not readme_abridged:
        assert proc.stdout == shown
        return
    # The README abridges: `...` stands for rows, `[...]` for the rest of a message.
    real = proc.stdout.splitlines()
    for line in shown.splitlines():
        if line.strip() == "...":
            continue
        head, _, tail = line.partition(" [...] ")
        assert any(r.startswith(head) and r.endswith(tail) for r in real), line


NUMBERED = [
    pytest.param(command, id=f"{doc}:{line}")
    for doc, line, command in _command_lines()
    if command.startswith("bot steps ") and _NUMBERS.search(command)
]


def test_the_docs_give_numbers_to_check():
    assert len(NUMBERED) >= 3


@pytest.mark.parametrize("command", NUMBERED)
def test_numbers_in_a_steps_comment_are_the_answer(tmp_path, command):
    claimed = [int(n) for n in _NUMBERS.search(command)[1].split("/")]  # type: ignore[index]
    args = shlex.split(command.split("#", 1)[0])[1:]
    proc = _bot(*args, "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    keys = ("max_steps", "decay_steps", "effective_train_examples", "unapplied_micro_steps")
    assert [data[k] for k in keys[: len(claimed)]] == claimed


def _subcommand_options() -> dict[str, set[str]]:
    """The options each `bot SUBCOMMAND` is written with anywhere in the docs."""
    out: dict[str, set[str]] = {}
    for command in [c for _, _, c in _command_lines()] + _inline_commands():
        words = command.split("#", 1)[0].split()
        if len(words) > 1 and re.fullmatch(r"[a-z]+", words[1]):
            out.setdefault(words[1], set()).update(_OPTION.findall(" ".join(words[2:])))
    return out


OPTIONS = _subcommand_options()


def test_the_docs_write_options_to_check():
    assert {"check", "steps", "review"} <= set(OPTIONS) and len(OPTIONS["check"]) >= 10


@pytest.mark.parametrize("sub", sorted(OPTIONS))
def test_every_option_the_docs_write_is_one_the_command_takes(tmp_path, sub):
    proc = _bot(sub, "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listed = set(_OPTION.findall(proc.stdout))
    assert OPTIONS[sub] <= listed, OPTIONS[sub] - listed


def _calculator_lines() -> list[str]:
    text = (ROOT / "docs/stepmath.md").read_text(encoding="utf-8")
    block = text.split("## The calculator\n\n```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if " ... " not in line]


@pytest.mark.parametrize("command", _calculator_lines())
def test_every_calculator_line_of_stepmath_runs(tmp_path, command):
    """The files a line names are made from the bundled example: its Prime-RL config, and a profile on it."""
    example = ROOT / "examples/linear-scheduler/base"
    args = shlex.split(command)[1:]
    for flag, path in zip(args, args[1:], strict=False):
        target = tmp_path / path
        if flag == "--config" or flag == "--profile":
            target.parent.mkdir(parents=True, exist_ok=True)
        if flag == "--config":
            shutil.copy(example / "configs/sft/mobile300.toml", target)
        elif flag == "--profile":
            config = tmp_path / "configs/sft/run.toml"
            config.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(example / "configs/sft/mobile300.toml", config)
            target.write_text(
                'name = "run"\nconfig = "configs/sft/run.toml"\ntarget_micro_steps = 300\n'
                "sync_scheduler_to_max_steps = false\n\n[scheduler]\ndecay_steps = 32\n",
                encoding="utf-8",
            )
    proc = _bot(*args, cwd=tmp_path)
    assert proc.returncode in (0, 1) and proc.stdout.strip(), proc.stderr


def test_the_config_errors_configuration_md_shows_are_what_bot_check_prints(make_repo, tmp_path):
    """docs/configuration.md shows two BOT001 lines; a config with those two mistakes gives them."""
    text = (ROOT / "docs/configuration.md").read_text(encoding="utf-8")
    shown = text.split("with a suggestion where one is close:\n\n```text\n", 1)[1].split("```", 1)[0]
    config = 'rules:\n  AGT01:\n    enabled: true\n  AGT001:\n    enabled: "yes"\n'
    r = make_repo({".github/bot.yml": config, "a.py": "1\n"}, {"a.py": "2\n"})
    r.git("checkout", "-q", "pr")
    proc = _bot("check", "--base", "main", "--format", "text", cwd=r.path)
    assert proc.returncode == 1, proc.stderr
    assert [line for line in proc.stdout.splitlines() if " BOT001 " in line] == shown.splitlines()
