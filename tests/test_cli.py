import json
import os
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent
NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'


def test_example_shows_mobile300_numbers(capsys):
    code = main(["example", str(ROOT / "examples/mobile300"), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    (profile,) = data["profiles"]
    assert profile["base"]["max_steps"] == 38
    head = profile["head"]
    assert (
        head["max_steps"],
        head["decay_steps"],
        head["effective_train_examples"],
        head["unapplied_micro_steps"],
    ) == (
        37,
        37,
        296,
        4,
    )
    assert [f["rule"] for f in data["findings"]] == ["AGT001", "TRN004"]
    assert data["findings"][0]["source"] == "AGENTS.md:6"
    assert "sees 296 examples instead of 304" in data["findings"][1]["message"]


def test_example_markdown(capsys):
    main(["example", str(ROOT / "examples/mobile300")])
    out = capsys.readouterr().out
    assert out.startswith("<!-- bot-review:status -->")
    assert "| max_steps | 38 | **37** |" in out
    assert "AGT001" in out


def test_json_keys_are_stable(make_repo, capsys):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})
    code = main(["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {"verdict", "labels", "findings", "profiles", "coverage", "schema_version"} <= set(data)
    assert {"rule", "name", "severity", "path", "line", "message", "source"} <= set(data["findings"][0])
    assert {"files_changed", "files_reviewed"} <= set(data["coverage"])


@pytest.mark.parametrize(
    "fail_level, expected",
    [("error", 1), ("warning", 1), ("notice", 1), ("none", 0)],
)
def test_fail_levels_with_an_error(make_repo, capsys, fail_level, expected):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})
    assert main(["check", "--repo", str(r.path), "--head", "pr", "--fail-level", fail_level]) == expected


def test_fail_level_error_ignores_warnings(make_repo, capsys):
    cfg = "rules:\n  AGT001:\n    severity: warning\n"
    r = make_repo({"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": cfg}, {"tests/test_a.py": NEW_TEST})
    assert main(["check", "--repo", str(r.path), "--head", "pr"]) == 0
    assert main(["check", "--repo", str(r.path), "--head", "pr", "--fail-level", "warning"]) == 1


def test_clean_repo_exits_zero(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    assert main(["check", "--repo", str(r.path), "--head", "pr"]) == 0
    assert "ready for review" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--base", "nope"], "unknown ref: nope"),
        (["--head", "nope"], "unknown ref: nope"),
        (["--pr-body-file", "/nonexistent/body.md"], "cannot read --pr-body-file"),
    ],
)
def test_bad_input_is_one_line_exit_2(make_repo, capsys, args, message):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    assert main(["check", "--repo", str(r.path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_bad_repo_exit_2(tmp_path, capsys):
    assert main(["check", "--repo", str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_empty_repo_exit_2(repo, capsys):
    assert main(["check", "--repo", str(repo.path)]) == 2
    assert "no commits" in capsys.readouterr().err


def test_rules_lists_every_rule(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "AGT001  regression-test-without-reference" in out
    assert "TRN001" in out


def test_python_m_bot_runs():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "bot", "rules"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "AGT001" in proc.stdout


def test_example_with_bad_pr_number_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    (tmp_path / "base" / "a.py").write_text("a = 1\n")
    (tmp_path / "head" / "a.py").write_text("a = 2\n")
    (tmp_path / "pr.md").write_text("# Title\nnumber: twelve\n\nBody.\n")
    assert main(["example", str(tmp_path)]) == 2
    assert "the `number:` line must hold a whole number" in capsys.readouterr().err


def test_a_bundled_example_is_found_by_name_from_any_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no examples/ folder here
    assert main(["example", "mobile300", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["profiles"][0]["head"]["max_steps"] == 37


def test_an_unknown_example_lists_the_bundled_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["example", "mobile3000"]) == 2
    assert capsys.readouterr().err.strip() == (
        "bot: no example called `mobile3000`; bundled examples: linear-scheduler, mobile300, partial-batch"
    )


def test_the_wheel_ships_the_examples():
    """pyproject.toml maps `examples/` into the package as `bot.example_prs`, with every file as data."""
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "bot.example_prs" in setup["packages"]
    assert setup["package-dir"]["bot.example_prs"] == "examples"
    assert setup["package-data"]["bot.example_prs"] == ["**/*"]


def _bot(*args: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "bot", *args]


def test_the_command_leaves_with_all_its_output_written_and_its_exit_code(make_repo):
    import subprocess

    # run() ends the process with os._exit (no teardown): what it printed must all be written first.
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {f"tests/test_{n}.py": NEW_TEST for n in range(40)})
    args = ["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "json"]
    proc = subprocess.run(_bot(*args), capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1 and proc.stderr == ""
    report = json.loads(proc.stdout)
    assert len(report["findings"]) == 40


def test_a_reader_that_leaves_early_gets_no_traceback():
    import subprocess

    # `bot rules | true`: the pipe is closed before the command writes to it. Buffered, as a terminal's
    # pipe is: the only write is the last flush, after main() has returned.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen(_bot("rules"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 0
    assert err == b""


def _check_args(r) -> list[str]:  # type: ignore[no-untyped-def]
    return ["check", "--repo", str(r.path), "--base", "main", "--head", "pr"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
# One test: the output waits in the buffer to the end; 40: it is written (and fails) inside main().
@pytest.mark.parametrize("n_tests", [1, 40])
def test_a_full_stdout_is_one_line_and_exit_74(make_repo, n_tests):
    import subprocess

    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {f"tests/test_{n}.py": NEW_TEST for n in range(n_tests)})
    with open("/dev/full", "w") as full:
        args = _bot(*_check_args(r), "--format", "json")
        proc = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.returncode == 74  # EX_IOERR: not 1 (findings), which a script would take for a review
    assert proc.stderr == "bot: cannot write the output: No space left on device\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_help_into_a_full_stdout_is_one_line_too():
    import subprocess

    with open("/dev/full", "w") as full:
        proc = subprocess.run(_bot("--help"), stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert (proc.returncode, proc.stderr) == (74, "bot: cannot write the output: No space left on device\n")


@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_closed_pipe_is_silent_and_keeps_the_reviews_exit_code(make_repo, unbuffered):
    import subprocess

    # `bot check | head -0`: the reader leaves before anything is written. Unbuffered, the failing write is
    # inside the command; buffered, it is the last flush. Either way nothing is said and the exit code is
    # the review's (1: an AGT001 error), so a script with pipefail still sees the findings.
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {f"tests/test_{n}.py": NEW_TEST for n in range(40)})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(
            _bot(*_check_args(r), "--format", "json"), stdout=write, stderr=subprocess.PIPE, cwd=ROOT, env=env
        )
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (1, b"")


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
def test_a_console_that_cannot_show_every_character_gets_replacements(encoding):
    """PYTHONIOENCODING=ascii or a Windows cp1252 console: before, a UnicodeEncodeError traceback and exit 1
    (the arrow of "38 → 37")."""
    import subprocess

    env = {**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1"}
    proc = subprocess.run(
        _bot("example", "mobile300", "--format", "text"), capture_output=True, cwd=ROOT, env=env
    )
    assert proc.returncode == 1 and proc.stderr == b"", proc.stderr.decode(errors="replace")
    assert b"(`max_steps` 38 ? 37; its length" in proc.stdout


def test_an_internal_error_has_its_own_exit_code_never_1():
    """A bug of the bot must not read as "findings at the fail level" (1) or "change your input" (2)."""
    import subprocess
    import sys

    crash = (
        "import bot.cli.main as m\n"
        "def boom(args):\n"
        "    raise KeyError('planted')\n"
        "m.COMMANDS['rules'] = boom\n"
        "import sys; sys.argv = ['bot', 'rules']\n"
        "m.run()\n"
    )
    proc = subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 3
    assert "KeyError: 'planted'" in proc.stderr
    assert proc.stderr.endswith("bot: internal error (exit 3); the traceback above belongs in a bug report\n")


def test_version():
    import subprocess

    proc = subprocess.run(_bot("--version"), capture_output=True, text=True, cwd=ROOT)
    assert (proc.returncode, proc.stdout) == (0, "bot 0.1.0\n")


@pytest.mark.parametrize("dots", ["..", "..."])
def test_a_positional_range_is_base_and_head(make_repo, capsys, dots):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})
    r.git("checkout", "-q", "main")  # the range names the head: what is checked out does not matter
    code = main(["check", f"main{dots}pr", "--repo", str(r.path), "--format", "text"])
    out = capsys.readouterr().out
    assert (
        code == 1
        and "tests/test_a.py:1: AGT001 " in out
        and out.rstrip().endswith("(main...pr); labels: status:needs-work")
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--base", "main..pr"],
            "bot: --base main..pr is a range, not a ref: give it as `bot check main..pr`, or as --base main "
            "--head pr",
        ),
        (
            ["--head", "nope"],
            "bot: unknown ref: nope; branches here: main, pr. Name the head with --head BRANCH",
        ),
        (
            ["main.."],
            "bot: main..: give a range as BASE..HEAD (e.g. main..my-branch), or use --base and --head",
        ),
        (
            ["main..pr", "--head", "pr"],
            "bot: main..pr names the base and the head: leave out --base, --head and --staged",
        ),
    ],
)
def test_range_and_ref_mistakes_name_the_option_and_what_to_type(make_repo, capsys, args, message):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    assert main(["check", "--repo", str(r.path), *args]) == 2
    assert capsys.readouterr().err == message + "\n"


def test_a_ref_missing_from_a_shallow_clone_says_it_is_shallow(make_repo, tmp_path, capsys):
    import subprocess

    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "-b", "pr", f"file://{r.path}", str(shallow)], check=True
    )
    assert main(["check", "--repo", str(shallow), "--base", "main"]) == 2
    assert "This is a shallow clone: fetch it (`git fetch origin main`)" in capsys.readouterr().err


def test_example_without_a_name_lists_the_bundled_ones(capsys):
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("linear-scheduler  ") and "\nmobile300  Match Mobile300" in out


def test_check_help_has_a_description_examples_and_help_for_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "Needs no token and no network." in out and "examples:\n  bot check " in out
    assert "exit codes: 0 " in out


def test_every_option_of_every_command_has_help():
    import argparse

    from bot.cli.main import build_parser

    missing = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, f"{name} {sub}")
            elif not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "bot")
    assert missing == []
