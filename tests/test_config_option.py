"""`bot check --config PATH` (read at the base revision) and `--config-file FILE` (read from disk)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent
UNNAMED = "def test_crash_regression():\n    assert f()\n"
OFF = "rules:\n  AGT001:\n    enabled: false\n"


@pytest.fixture
def repo(make_repo):
    return make_repo({"AGENTS.md": AGENTS_AGT001, "ci/bot.yml": OFF}, {"tests/test_a.py": UNNAMED})


def _check(repo, capsys, *args: str) -> tuple[int, dict, str]:
    code = main(
        ["check", "--repo", str(repo.path), "--base", "main", "--head", "pr", "--format", "json", *args]
    )
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else {}, out.err


def test_a_config_path_missing_at_base_is_exit_2_naming_it(repo, capsys):
    """Before: silently ignored, the defaults used."""
    code, _, err = _check(repo, capsys, "--config", "ci/bot.yaml")
    assert code == 2
    assert err.startswith("bot: --config ci/bot.yaml: no such file at the base revision (main)")
    assert "--config-file ci/bot.yaml" in err and err.count("\n") == 1


def test_the_default_path_may_be_absent_and_an_existing_path_is_read_at_base(repo, capsys):
    assert _check(repo, capsys)[0] == 1  # no .github/bot.yml: defaults, AGT001 on
    assert _check(repo, capsys, "--config", ".github/bot.yml")[0] == 1  # the action passes it always
    code, report, _ = _check(repo, capsys, "--config", "ci/bot.yml")
    assert code == 0 and report["findings"] == []


def test_config_file_reads_the_file_on_disk_and_says_so(repo, capsys, tmp_path):
    trial = tmp_path / "trial.yml"
    trial.write_text(OFF, encoding="utf-8")
    code, report, _ = _check(repo, capsys, "--config-file", str(trial))
    assert code == 0 and report["findings"] == []
    assert any(f"Config read from `{trial}` on disk" in n for n in report["notes"])


def test_config_file_in_the_working_tree_is_tried_before_it_is_committed(repo, capsys):
    repo.write({".github/bot.yml": "rules:\n  AGT01:\n    enabled: false\n"})  # a typo, not committed
    code, report, _ = _check(repo, capsys, "--config-file", str(repo.path / ".github/bot.yml"))
    (finding,) = [f for f in report["findings"] if f["rule"] == "BOT001"]
    assert code == 1 and finding["line"] == 2 and "did you mean `AGT001`?" in finding["message"]


def test_a_missing_config_file_is_exit_2_through_the_console_command(repo, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    missing = tmp_path / "nope.yml"
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "check", "--base", "main", "--config-file", str(missing)],
        cwd=repo.path, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"bot: cannot read --config-file {missing}: No such file or directory\n"


def test_config_and_config_file_together_is_a_usage_error(repo, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--config", "a.yml", "--config-file", str(tmp_path / "b.yml")])
    assert exc.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
