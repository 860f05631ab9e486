"""action.yml and every workflow pass zizmor, actionlint and shellcheck, and keep the hardening rules."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml")) + sorted(
    (ROOT / "docs" / "workflows").glob("*.yml")
)
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _tool(name: str) -> str:
    """A linter installed by the `test` extra (next to this interpreter, else on PATH)."""
    local = Path(sysconfig.get_path("scripts")) / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: python3 -m pip install -e '.[test]'")
    return found


def _yaml(path: Path) -> dict:
    # PyYAML reads the key `on` as True; name it back.
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:
        data["on"] = data.pop(True)
    return data


def test_there_are_workflows():
    names = {p.relative_to(ROOT).as_posix() for p in WORKFLOWS}
    assert {
        "docs/workflows/bot.yml",
        "docs/workflows/bot-fork-review.yml",
        "docs/workflows/bot-fork-publish.yml",
        "docs/workflows/bot-org.yml",
        "docs/workflows/bot-checks.yml",
        ".github/workflows/ci.yml",
        ".github/workflows/bot.yml",
        ".github/workflows/bot-reusable.yml",
    } <= names


def test_zizmor_finds_nothing():
    files = [str(ACTION), *map(str, WORKFLOWS)]
    proc = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", "--format", "plain", *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr


def test_actionlint_finds_nothing():
    # `uses: ./` in .github/workflows/bot.yml makes actionlint check action.yml's inputs too.
    proc = subprocess.run(
        [_tool("actionlint"), "-shellcheck", _tool("shellcheck"), "-pyflakes", "", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and not proc.stdout, proc.stdout + proc.stderr


def test_shellcheck_on_the_action_scripts(tmp_path):
    # actionlint reads workflows only; the composite action's scripts get shellcheck directly.
    for i, step in enumerate(yaml.safe_load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]):
        if "run" not in step:
            continue
        assert step["shell"] == "bash"
        script = tmp_path / f"step{i}.sh"
        script.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + step["run"], encoding="utf-8")
        proc = subprocess.run([_tool("shellcheck"), str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{step['name']}:\n{proc.stdout}"


def _uses(data: dict) -> list[str]:
    """Every action a step uses, and every reusable workflow a job calls."""
    steps = data.get("runs", {}).get("steps", [])
    for job in data.get("jobs", {}).values():
        steps += job.get("steps", [])
    called = [job["uses"] for job in data.get("jobs", {}).values() if "uses" in job]
    return [s["uses"] for s in steps if "uses" in s] + called


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_uses_are_pinned_with_a_version_comment(path):
    text = path.read_text(encoding="utf-8")
    for ref in _uses(_yaml(path)):
        if ref.startswith("./"):
            continue
        assert PINNED.match(ref), ref
        assert re.search(re.escape(ref) + r" # v\d+(\.\d+)*\b", text), f"{ref} has no version comment"


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_expressions_inside_run(path):
    data = _yaml(path)
    steps = data.get("runs", {}).get("steps", [])
    for job in data.get("jobs", {}).values():
        steps += job.get("steps", [])
    for step in steps:
        assert "${{" not in step.get("run", ""), step.get("name", step.get("run"))


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_workflow_hardening(path):
    data = _yaml(path)
    assert data["permissions"] == {}
    assert "concurrency" in data
    for name, job in data["jobs"].items():
        assert "permissions" in job, name
        if "uses" in job:  # a call of a reusable workflow: its own jobs carry the time limit
            continue
        assert isinstance(job.get("timeout-minutes"), int), name
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, name


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_privileged_triggers_never_check_out_code(path):
    data = _yaml(path)
    if not {"workflow_run", "issue_comment", "pull_request_target"} & set(data["on"]):
        return
    for ref in _uses(data):
        assert not ref.startswith(("actions/checkout@", "./")), f"{path.name} checks out code: {ref}"


def test_lock_file_pins_every_runtime_dependency_with_hashes():
    lock = (ROOT / "requirements" / "action.txt").read_text(encoding="utf-8")
    entries = re.findall(
        r"^([A-Za-z0-9_.-]+)==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)", lock, re.M
    )
    pinned = {name.lower().replace("_", "-"): version for name, version, _ in entries}
    requirement_lines = [
        line for line in lock.splitlines() if line and not line[0].isspace() and line[0] != "#"
    ]
    assert len(entries) == len(requirement_lines), "every requirement needs its --hash lines"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for spec in project["dependencies"]:
        req = Requirement(spec)
        name = req.name.lower().replace("_", "-")
        assert name in pinned, f"{name} is not in requirements/action.txt; refresh it (docs/startup.md)"
        assert req.specifier.contains(pinned[name]), f"{name}=={pinned[name]} does not satisfy {spec}"


def test_help_is_import_light():
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    heavy = {"github", "pydantic", "jinja2", "yaml", "requests", "unidiff"}
    # Issue 11: these two cost half of a fresh install's `bot --help` and are needed by no parser.
    assert not imported & (heavy | {"logging", "rules.training.stepmath"}), imported


# The grants each example job needs, and no more (docs/github.md explains each).
EXAMPLE_PERMISSIONS = {
    ("bot.yml", "review"): {
        "checks": "read",
        "contents": "read",
        "issues": "write",
        "pull-requests": "write",
        "statuses": "write",
    },
    ("bot-org.yml", "bot"): {
        "checks": "read",
        "contents": "read",
        "issues": "write",
        "pull-requests": "write",
        "statuses": "write",
    },
    # issues: read for the labels of the issues the pull request closes (AGT001's evidence).
    ("bot-fork-review.yml", "review"): {"contents": "read", "issues": "read", "pull-requests": "read"},
    ("bot-fork-publish.yml", "publish"): {
        "actions": "read",
        "checks": "read",
        "contents": "read",
        "issues": "write",
        "pull-requests": "write",
        "statuses": "write",
    },
    # Relabelling when checks finish: reads the checks and the config, writes the labels and the comment only.
    ("bot-checks.yml", "relabel"): {
        "checks": "read",
        "contents": "read",
        "issues": "write",
        "pull-requests": "write",
        "statuses": "read",
    },
}


def test_example_jobs_have_minimal_permissions():
    found = {}
    for path in sorted((ROOT / "docs" / "workflows").glob("*.yml")):
        for name, job in _yaml(path)["jobs"].items():
            found[(path.name, name)] = job["permissions"]
    assert found == EXAMPLE_PERMISSIONS


def test_example_workflows_pass_only_declared_inputs():
    declared = set(yaml.safe_load(ACTION.read_text(encoding="utf-8"))["inputs"])
    for path in [*sorted((ROOT / "docs" / "workflows").glob("*.yml")), *WORKFLOWS]:
        for job in _yaml(path)["jobs"].values():
            for step in job.get("steps", []):
                if step.get("uses", "").startswith(("OWNER/bot@", "./")):
                    assert set(step.get("with", {})) <= declared, (path.name, step["with"])


def test_fork_pair_hands_the_report_over_by_name():
    review = _yaml(ROOT / "docs" / "workflows" / "bot-fork-review.yml")
    publish = _yaml(ROOT / "docs" / "workflows" / "bot-fork-publish.yml")
    assert publish["on"]["workflow_run"]["workflows"] == [review["name"]]
    (upload,) = [s for s in review["jobs"]["review"]["steps"] if "upload-artifact" in s.get("uses", "")]
    (download,) = [s for s in publish["jobs"]["publish"]["steps"] if "download-artifact" in s.get("uses", "")]
    assert upload["with"]["name"] == download["with"]["name"]
    (bot,) = [s for s in review["jobs"]["review"]["steps"] if s.get("uses", "").startswith("OWNER/bot@")]
    assert bot["with"]["mode"] == "review" and bot["with"]["dry-run"] == "true"
    (pub,) = [s for s in publish["jobs"]["publish"]["steps"] if s.get("uses", "").startswith("OWNER/bot@")]
    assert pub["with"]["mode"] == "publish" and pub["with"]["report"].endswith("/report.json")


def test_fork_publish_runs_on_every_phase1_conclusion():
    """Break 5b: a failed (or cancelled) phase 1 must still reach `bot publish`, which then reviews the run's
    pull request through the API; a gate on success, or on the download, would leave a stale ready."""
    publish = _yaml(ROOT / "docs" / "workflows" / "bot-fork-publish.yml")
    assert publish["on"]["workflow_run"]["types"] == ["completed"]
    job = publish["jobs"]["publish"]
    assert "conclusion" not in job.get("if", "")
    (pub,) = [s for s in job["steps"] if s.get("uses", "").startswith("OWNER/bot@")]
    (download,) = [s for s in job["steps"] if "download-artifact" in s.get("uses", "")]
    assert "if" not in pub and download.get("continue-on-error") is True


def test_the_reusable_workflow_is_called_with_its_own_inputs_and_grants():
    reusable = _yaml(ROOT / ".github" / "workflows" / "bot-reusable.yml")
    caller = _yaml(ROOT / "docs" / "workflows" / "bot-org.yml")
    declared = reusable["on"]["workflow_call"]["inputs"]
    (job,) = caller["jobs"].values()
    assert job["uses"].startswith("OWNER/bot/.github/workflows/bot-reusable.yml@")
    assert set(job.get("with", {})) <= set(declared)
    # A called job gets at most what its caller grants: the caller grants exactly what the review needs.
    (review,) = reusable["jobs"].values()
    assert review["permissions"] == job["permissions"]
    # The same concurrency group in caller and callee would leave the callee waiting on its caller.
    assert reusable["concurrency"]["group"] != caller["concurrency"]["group"]
    # Triggers are the caller's; the callee passes the same action inputs as the plain example.
    plain = _yaml(ROOT / "docs" / "workflows" / "bot.yml")
    assert set(caller["on"]) == set(plain["on"])
    (step,) = review["steps"]
    assert step["with"]["mode"] == "review" and set(step["with"]) <= set(
        yaml.safe_load(ACTION.read_text())["inputs"]
    )
