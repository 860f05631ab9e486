"""action.yml run the way a runner runs it, in check mode, against the bundled example and hostile input."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

from bot.cli.examples import build_repo
from tests.actionrunner import ROOT, ActionRun, load_action, run_action

EXAMPLE = ROOT / "examples" / "mobile300"
PROFILE = "training/compat_profiles/env0-mobile300-pr828.toml"


def _setup_python(with_: dict, env: dict) -> dict:
    assert with_["update-environment"] == "false"  # the action must not change the user's Python
    return {"python-path": sys.executable, "python-version": "3.11"}


def _restore_cache(with_: dict, env: dict) -> dict:
    """Stand-in for actions/cache finding the environment the install step built on an earlier run.

    Building it for real means downloading the locked wheels, which a test must not need; that path is what
    benchmarks/startup.py runs. The environment seeded here sees this interpreter's packages, so the install
    step's cache-hit branch (key check, import check, putting the action folder on the path) runs for real.
    """
    venv = Path(with_["path"])
    shutil.copytree(_prepared_environment(), venv, symlinks=True)
    (venv / ".bot-key").write_text(with_["key"] + "\n", encoding="utf-8")
    return {"cache-hit": "true"}


@lru_cache(maxsize=1)
def _prepared_environment() -> Path:
    """One environment for every action run of this process, as the cache would restore it: each run gets
    a copy (its install step writes into it), not a new `python -m venv`."""
    venv = Path(tempfile.mkdtemp(prefix="bot-action-venv-")) / "venv"
    atexit.register(shutil.rmtree, venv.parent, True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # `--system-site-packages` would expose the base interpreter's packages, not those of a virtual
    # environment the tests run in; a .pth file naming this interpreter's site directories works in both.
    site_dirs = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    (_site_packages(venv) / "bot-test-outer.pth").write_text("\n".join(site_dirs) + "\n", encoding="utf-8")
    return venv


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages")) or sorted(venv.glob("Lib/site-packages"))
    return found[0]


USES = {"actions/setup-python": _setup_python, "actions/cache": _restore_cache}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def _run(tmp_path: Path, repo: Path, **inputs: str) -> ActionRun:
    event = {"pull_request": {"number": 828, "base": {"sha": _git(repo, "rev-parse", "main")}}}
    return run_action(
        inputs={"mode": "check", **inputs},
        workspace=repo,
        temp=tmp_path / "run",
        home=tmp_path / "home",
        uses=USES,
        github={"event_name": "pull_request", "event": event},
    )


@pytest.fixture(scope="module")
def example_run(tmp_path_factory) -> ActionRun:
    tmp = tmp_path_factory.mktemp("action")
    return _run(tmp, build_repo(EXAMPLE, tmp))


def test_every_step_ran_but_the_review_mode_ones(example_run):
    ran = {s.name: s.ran for s in example_run.steps}
    assert ran["Review the checkout"] and ran["Report to the workflow"]
    assert not ran["Review the pull request"] and not ran["Publish a saved Report"]
    assert all(s.returncode == 0 for s in example_run.steps if s.ran and s.id != "report")
    assert "Using the cached environment." in example_run.step("install").stdout


def test_fails_at_the_default_fail_level(example_run):
    assert example_run.step("report").returncode == 1
    assert "needs-work, 2 finding(s); fail level error: exit 1" in example_run.step("report").stdout


def test_outputs(example_run):
    out = example_run.outputs
    assert out["verdict"] == "needs-work"
    assert json.loads(out["labels"]) == ["status:needs-work"]
    assert out["findings"] == "2"
    assert json.loads(out["max-steps"]) == {PROFILE: {"base": 38, "head": 37}}
    report = json.loads(Path(out["report"]).read_text(encoding="utf-8"))
    assert report["pr_number"] == 828 and report["profiles"][0]["head"]["unapplied_micro_steps"] == 4


def test_job_summary_is_the_status_comment(example_run):
    summary = example_run.summary
    assert summary.startswith("<!-- bot-review:status -->")
    assert "| max_steps | 38 | **37** |" in summary
    assert "AGT001" in summary


def test_annotation_on_each_finding(example_run):
    ann, notice = example_run.commands
    assert notice.name == "notice" and notice.properties["title"] == "TRN004 training-exposure-changed"
    assert ann.name == "error"
    assert ann.properties == {
        "file": "tests/test_train_cli.py",
        "line": "9",
        "title": "AGT001 regression-test-without-reference",
    }
    assert ann.message.endswith("(per AGENTS.md:6)")


def test_log_is_fenced_against_workflow_commands(example_run):
    lines = example_run.step("report").stdout.splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and f"::{token}::" in lines
    assert "<!-- bot-review:status -->" in lines[1]


def test_the_bot_runs_from_the_action_folder(example_run):
    python = example_run.step("install").outputs["python"]
    where = subprocess.run([python, "-c", "import bot; print(bot.__file__)"], capture_output=True, text=True)
    assert Path(where.stdout.strip()) == ROOT / "bot" / "__init__.py"


def test_fail_level_none_passes(tmp_path):
    run = _run(tmp_path, build_repo(EXAMPLE, tmp_path), **{"fail-level": "none"})
    assert not run.failed
    assert run.outputs["verdict"] == "needs-work"


def test_hostile_file_name_cannot_issue_commands(tmp_path, make_repo):
    agents = "# Rules\n\n- Regression tests must name the PR they guard in the docstring.\n"
    name = "tests/test_x,y::warning file=evil::pwn%0A.py"
    body = 'def test_regression():\n    """::error::injected\n    ::add-mask::abc"""\n'
    repo = make_repo({"AGENTS.md": agents}, {name: body})
    run = _run(tmp_path, repo.path)
    (ann,) = run.commands
    assert ann.name == "error" and ann.properties["file"] == name
    assert run.outputs["findings"] == "1"


def test_bad_mode_is_refused(tmp_path):
    run = _run(tmp_path, build_repo(EXAMPLE, tmp_path), mode="deploy")
    assert run.step("inputs").returncode == 2
    assert [s.id for s in run.steps if s.ran][-1] == "inputs"


def test_no_expression_inside_run_scripts():
    for step in load_action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_verify_tests_in_check_mode_runs_the_new_tests(tmp_path, make_repo):
    # The project's command from its config (read at base): this interpreter, which has pytest.
    config = f"verify:\n  command: {sys.executable} -m pytest\n"
    base = {".github/bot.yml": config, "tiny/__init__.py": "def slug(text):\n    return text.lower()\n"}
    fixed = "def slug(text):\n    return text.lower().replace(' ', '-')\n"
    test = "from tiny import slug\n\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n"
    repo = make_repo(base, {"tiny/__init__.py": fixed, "tests/test_dash.py": test})
    run = _run(tmp_path, repo.path, **{"verify-tests": "true", "fail-level": "none"})
    assert not run.failed, [(s.name, s.stderr) for s in run.steps if s.ran]
    report = json.loads(Path(run.step("inputs").outputs["report"]).read_text(encoding="utf-8"))
    assert [(v["node_id"], v["outcome"]) for v in report["verifications"]] == [
        ("tests/test_dash.py::test_dash", "reproduces")
    ]


@pytest.mark.parametrize("mode", ["review", "publish"])
def test_verify_tests_is_refused_outside_check_mode(tmp_path, mode):
    run = _run(tmp_path, build_repo(EXAMPLE, tmp_path), mode=mode, **{"verify-tests": "true"})
    assert run.step("inputs").returncode == 2
    assert "only in check mode" in run.step("inputs").stdout
    assert [s.id for s in run.steps if s.ran][-1] == "inputs"


def test_check_mode_on_a_merge_queue_compares_with_the_queue_commits_base(tmp_path, make_repo):
    """merge_group: no pull request in the event; the base is the queue commit's own (`base_sha`)."""
    repo = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    # The queue's base is not main here (a queue of two: this commit's base is the one queued before it).
    repo.git("commit", "--allow-empty", "-q", "-m", "queued before")
    base = _git(repo.path, "rev-parse", "HEAD")
    repo.git("commit", "--allow-empty", "-q", "-m", "the queue commit")
    event = {"merge_group": {"base_sha": base, "head_sha": _git(repo.path, "rev-parse", "HEAD")}}
    run = run_action(
        inputs={"mode": "check", "fail-level": "none"},
        workspace=repo.path,
        temp=tmp_path / "run",
        home=tmp_path / "home",
        uses=USES,
        github={"event_name": "merge_group", "event": event},
    )
    assert not run.failed, [(s.name, s.stderr) for s in run.steps if s.ran]
    report = json.loads(Path(run.step("inputs").outputs["report"]).read_text(encoding="utf-8"))
    assert report["base_sha"] == base and report["pr_number"] is None
