"""Outcomes another job reported: the fork-safe pair carries `bot check --verify-tests` outcomes from the pull
request's own job to the comment, shown as reported by it, never trusted, never making the PR ready."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bot.cli.main import build_parser, main
from bot.github import app
from bot.github.actions import annotation_lines
from bot.github.entry import settings
from bot.review.rdjson import to_rdjson
from bot.review.render import render_comment
from bot.review.terminal import render_text
from rules.core.models import Coverage, Report
from rules.core.verification import Outcome, Run, Verification
from tests import ghapi
from tests.conftest import github_client
from tests.test_fork import READ_ONLY, WRITES, _env, phase2, pull_state
from tests.test_publish import mine

BASE = {
    "AGENTS.md": "# Rules\n\nRegression tests must name the PR they guard.\n",
    "tiny/__init__.py": "def slug(text):\n    return text.lower()\n",
}
HEAD = {
    "tiny/__init__.py": "def slug(text):\n    return text.lower().replace(' ', '-')\n",
    "tests/test_new.py": (
        'from tiny import slug\n\n\ndef test_new():\n    """Checks a bug fix."""\n'
        "    assert slug('A b') == 'a-b'\n"
    ),
}
NODE = "tests/test_new.py::test_new"


@pytest.fixture(autouse=True)
def _no_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "BOT_TOKEN", "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fork(gh, make_repo):
    r = make_repo(BASE, HEAD)
    st = pull_state(r, BASE, HEAD)
    st.head_repo = "mallory/repo"
    st.repo_labels = ["status:needs-work"]
    ghapi.serve(gh, st)
    return r, st


def _verify_job(r, tmp_path: Path, capsys) -> Path:  # type: ignore[no-untyped-def]
    """The pull request's own unprivileged job: `bot check --verify-tests --output verify.json`, run."""
    out = tmp_path / "verify.json"
    main(["check", "main..pr", "--repo", str(r.path), "--verify-tests", "--verify-command",
          f"{sys.executable} -m pytest", "--format", "json", "--output", str(out)])  # fmt: skip
    capsys.readouterr()
    return out


def _phase1(gh, r, st, tmp_path: Path, verify: Path) -> Path:  # type: ignore[no-untyped-def]
    for key in WRITES:
        st.fail[key] = [READ_ONLY] * 10
    artifact = tmp_path / "artifact" / "report.json"
    args = build_parser().parse_args(
        ["review", "--dry-run", "--fail-level", "none", "--output", str(artifact), "--checkout", str(r.path),
         "--verifications", str(verify)]
    )  # fmt: skip
    env = _env(tmp_path, "pull_request", ghapi.pr_event("synchronize", st), "pr-event")
    assert app.run(args, settings(env), github_client(gh)) == 0
    for key in WRITES:
        st.fail.pop(key)
    return artifact


def test_phase2_shows_what_the_pull_requests_job_reported(gh, fork, tmp_path, capsys) -> None:
    r, st = fork
    verify = _verify_job(r, tmp_path, capsys)
    assert [v["outcome"] for v in json.loads(verify.read_text())["verifications"]] == ["reproduces"]
    artifact = _phase1(gh, r, st, tmp_path, verify)
    saved = json.loads(artifact.read_text(encoding="utf-8"))
    assert [(v["node_id"], v["reported"]) for v in saved["verifications"]] == [(NODE, True)]
    assert phase2(gh, st, tmp_path, artifact) == 0
    body = mine(st)[0]["body"]
    assert "Reported by the pull request's own job" in body and "**reproduces**" in body
    # The reported "reproduces" is no evidence: AGT001 judges the test by its words, as without a run.
    assert "it fails on the base code" not in body


def test_a_forged_outcome_never_makes_the_pr_ready(gh, fork, tmp_path, capsys) -> None:
    # Trusted, "new API" would make the test no regression test and the PR ready; reported, it changes
    # nothing.
    r, st = fork
    artifact = _phase1(gh, r, st, tmp_path, _verify_job(r, tmp_path, capsys))
    data = json.loads(artifact.read_text(encoding="utf-8"))
    data["verifications"][0].update(outcome="new-api", reported=False)
    artifact.write_text(json.dumps(data), encoding="utf-8")
    assert phase2(gh, st, tmp_path, artifact) == 0
    body = mine(st)[0]["body"]
    assert "Reported by the pull request's own job" in body and "**new API**" in body
    assert st.labels == ["status:needs-work"] and "AGT001" in body


def test_verifications_only_with_dry_run(fork, tmp_path, capsys) -> None:
    r, _ = fork
    verify = _verify_job(r, tmp_path, capsys)
    args = build_parser().parse_args(
        ["review", "--pr", "7", "--repo", "octo/repo", "--verifications", str(verify)]
    )
    env = {"GITHUB_TOKEN": "ghs_x", "GITHUB_REPOSITORY": "octo/repo"}
    with pytest.raises(app.ReviewError, match="fork-safe pair"):
        app.run(args, settings(env))


def _report(*verifications: Verification) -> Report:
    return Report(
        verdict="ready",
        labels=(),
        coverage=Coverage(files_changed=1, files_reviewed=1),
        verifications=verifications,
    )


def _verification(outcome: Outcome, reported: bool = False) -> Verification:
    return Verification(
        path="tests/test_a.py", node_id="tests/test_a.py::test_x", state="new", outcome=outcome,
        reason="fails at head: AssertionError", head=Run(status="failed"), line=4, reported=reported,
    )  # fmt: skip


def test_rdjson_and_annotations_place_each_outcome_on_its_test() -> None:
    report = _report(_verification(Outcome.BROKEN), _verification(Outcome.REPRODUCES))
    first, second = to_rdjson(report)["diagnostics"]
    assert first["severity"] == "ERROR" and first["code"] == {"value": "verified:broken"}
    assert first["location"] == {"path": "tests/test_a.py", "range": {"start": {"line": 4}}}
    assert second["severity"] == "INFO" and second["message"].startswith("Verified test reproduces:")
    broken, reproduces = annotation_lines(report)
    assert broken.startswith("::error file=tests/test_a.py,line=4,title=Verified test broken::")
    assert reproduces.startswith("::notice ")


def test_a_reported_broken_test_is_a_notice_and_blocks_nothing() -> None:
    report = _report(_verification(Outcome.BROKEN, reported=True))
    (line,) = annotation_lines(report)
    assert line.startswith("::notice ") and "reported by the pull request's own job" in line
    assert to_rdjson(report)["diagnostics"][0]["severity"] == "INFO"
    from bot.review.output import exit_code

    assert exit_code(report, "error") == 0
    assert "reported by the pull request's own job" in render_text(report)
    assert "Reported by the pull request's own job" in render_comment(report)
