"""action.yml in review and publish modes, run the way a runner runs it, against the fake GitHub.

The bot runs in the action's own subprocesses; tests/ghproxy.py serves the stateful, schema-checked fake of
tests/ghapi.py to them on 127.0.0.1 (GITHUB_API_URL), so the request log and counts are the real ones.
The pull request comes from a fork and nothing is checked out: every file is read through the API.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import ghapi
from tests.actionrunner import ActionRun, run_action
from tests.ghproxy import Proxy
from tests.helpers import AGENTS_AGT001
from tests.test_action_yml import USES, _restore_cache, _site_packages
from tests.test_fork import READ_ONLY, WRITES
from tests.test_publish import mine

TOKEN = "ghs_actiontoken0123456789"
UNPACED = Path(__file__).with_name("unpaced.py")


def _restore_unpaced(with_: dict, env: dict) -> dict:
    """The seeded environment, with PyGithub's pacing off as in the in-process tests (tests/unpaced.py):
    paced, each run of the bot sleeps seconds between its requests to the loopback fake."""
    out = _restore_cache(with_, env)
    site = _site_packages(Path(with_["path"]))
    shutil.copy(UNPACED, site / "bot_test_unpaced.py")
    (site / "bot-test-unpaced.pth").write_text("import bot_test_unpaced\n", encoding="utf-8")
    return out


UNPACED_USES = {**USES, "actions/cache": _restore_unpaced}


def fenced(stderr: str) -> list[str]:
    """The lines of a step's stderr, which action.yml prints between `::stop-commands::T` and `::T::`."""
    lines = stderr.splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and lines[-1] == f"::{token}::"
    return [line for line in lines[1:-1] if line]


TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
PATCH = "@@ -0,0 +1,3 @@\n" + "".join(f"+{line}\n" for line in TEST.splitlines())


@pytest.fixture
def fork(gh):
    st = ghapi.PullState(head="a1" * 20, base="b2" * 20)
    st.head_repo = "mallory/repo"
    st.files = [ghapi.pr_file("tests/test_new.py", patch=PATCH, status="added", changes=3)]
    base = {"AGENTS.md": AGENTS_AGT001, "a.py": "1\n"}
    st.trees = {st.base: base, st.head: {**base, "tests/test_new.py": TEST}}
    st.repo_labels = ["bug", "status:needs-work"]
    ghapi.serve(gh, st)
    with Proxy(gh) as proxy:
        yield st, proxy


def _action(tmp_path: Path, proxy: Proxy, name: str, event: str, payload: dict, **inputs: str) -> ActionRun:
    event_path = tmp_path / f"{name}-event.json"
    event_path.write_text(json.dumps(payload), encoding="utf-8")
    workspace = tmp_path / f"{name}-workspace"  # no checkout
    workspace.mkdir()
    return run_action(
        inputs=inputs,
        workspace=workspace,
        temp=tmp_path / f"{name}-run",
        home=tmp_path / f"{name}-home",
        uses=UNPACED_USES,
        github={"event_name": event, "event": payload, "token": TOKEN, "repository": "octo/repo"},
        base_env={"GITHUB_API_URL": proxy.url, "GITHUB_EVENT_PATH": str(event_path)},
    )


def _phase1(gh, st, proxy, tmp_path) -> Path:
    """The fork review workflow's step: review mode, dry-run, with a token GitHub refuses every write."""
    for key in WRITES:
        st.fail[key] = [READ_ONLY] * 10
    run = _action(
        tmp_path, proxy, "review", "pull_request", ghapi.pr_event("synchronize", st),
        mode="review", **{"dry-run": "true", "fail-level": "none"},
    )  # fmt: skip
    for key in WRITES:
        st.fail.pop(key)
    assert not run.failed, [(s.name, s.stderr) for s in run.steps if s.returncode]
    assert gh.writes() == []
    assert run.outputs["verdict"] == "needs-work" and run.outputs["findings"] == "1"
    assert "Status comment: create" in run.step("report").stdout  # the plan, fenced in the log
    # upload-artifact, then download-artifact in the publish workflow
    artifact = tmp_path / "bot-artifact" / "report.json"
    artifact.parent.mkdir()
    shutil.copy(run.outputs["report"], artifact)
    return artifact


def _publish(tmp_path: Path, proxy: Proxy, name: str, st, artifact: Path) -> ActionRun:
    event = ghapi.run_event(st)
    return _action(tmp_path, proxy, name, "workflow_run", event, mode="publish", report=str(artifact))


def test_review_then_publish_through_the_action(gh, fork, tmp_path):
    st, proxy = fork
    artifact = _phase1(gh, st, proxy, tmp_path)
    saved = json.loads(artifact.read_text(encoding="utf-8"))
    assert (saved["repository"], saved["pr_number"], saved["head_sha"]) == ("octo/repo", 7, st.head)

    before = len(gh.calls())
    run = _publish(tmp_path, proxy, "publish", st, artifact)
    calls = gh.calls()[before:]
    writes = [c for c in calls if c[0] != "GET" and not c[1].endswith("/graphql")]
    # pull, viewer, comments; the recomputed review (files, config, base tree, one GraphQL query for
    # AGENTS.md; the added test's text is its patch); pull again; then repo labels, add labels, status,
    # comment, comments again
    assert len(calls) == 13 and len(writes) == 3, calls
    assert len(mine(st)) == 1 and st.labels == ["status:needs-work"]
    assert [s["state"] for s in st.statuses] == ["failure"]
    out = run.outputs
    assert out["verdict"] == "needs-work" and json.loads(out["labels"]) == ["status:needs-work"]
    assert run.summary.startswith("<!-- bot-review:status -->") and "AGT001" in run.summary
    (ann,) = run.commands
    assert ann.name == "error" and ann.properties["file"] == "tests/test_new.py"
    assert run.step("report").returncode == 1  # findings at the default fail level fail the job
    assert all(s.returncode == 0 for s in run.steps if s.ran and s.id != "report")

    # A tampered artifact fails the publish step with a line saying so; the pull request of the run is
    # reviewed through the API all the same (here: the same result, so nothing more is written).
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**saved, "repository": "mallory/repo"}), encoding="utf-8")
    writes_before = len(gh.writes())
    run = _publish(tmp_path, proxy, "tampered", st, tampered)
    (failed,) = [s for s in run.steps if s.ran and s.returncode and s.id != "report"]
    assert failed.name == "Publish a saved Report" and failed.returncode == 2
    assert fenced(failed.stderr)[0] == (
        "bot: the Report artifact was rejected: it was computed for 'mallory/repo', not octo/repo; the pull "
        "request of the triggering run is reviewed through the API instead."
    )
    assert len(gh.writes()) == writes_before and len(mine(st)) == 1


def test_review_mode_publishes_with_a_writable_token(gh, fork, tmp_path):
    st, proxy = fork
    st.head_repo = "octo/repo"  # a branch pull request: the simple workflow
    run = _action(tmp_path, proxy, "review", "pull_request", ghapi.pr_event("synchronize", st), mode="review")
    assert run.step("report").returncode == 1 and run.outputs["verdict"] == "needs-work"
    assert len(mine(st)) == 1 and st.labels == ["status:needs-work"] and len(st.statuses) == 1


def test_event_without_a_review_reports_nothing(gh, fork, tmp_path):
    st, proxy = fork
    payload = ghapi.pr_event("edited", st, changes={})  # an edit of nothing the rules read
    run = _action(tmp_path, proxy, "review", "pull_request", payload, mode="review")
    assert not run.failed and run.outputs["verdict"] == ""
    assert "no Report for this event" in run.step("report").stdout
    assert gh.calls() == []
