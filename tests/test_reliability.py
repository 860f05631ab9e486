"""Lines of the reliability list (docs/reliability.md) that no other test file proves on its own."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import jinja2
import pytest
import requests
import responses
import yaml

from bot.github.handlers import REPLY_MARKER
from bot.github.publish import CHECK_TEXT_LIMIT, Publisher, status_plan
from bot.review.render import COMMENT_LIMIT, MARKER, _env, render_comment
from rules.catalog import REGISTRY
from rules.core.config import Config, ConfigError, parse_config
from rules.core.models import Coverage, Finding, ProfileMath, Report, Severity, StepValues
from tests import ghapi, test_handlers, test_publish
from tests.conftest import github_client
from tests.helpers import AGENTS_AGT001
from tests.test_handlers import PERMISSION, comment, deliver, replies
from tests.test_publish import NEW_TEST, READY, mine, run

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml")) + sorted(
    (ROOT / "docs" / "workflows").glob("*.yml")
)
PRIVILEGED = {"workflow_run", "issue_comment", "pull_request_target"}


def _workflow(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def _steps(data: dict) -> list[dict]:
    steps = list(data.get("runs", {}).get("steps", []))
    for job in data.get("jobs", {}).values():
        steps += job.get("steps", [])
    return steps


@pytest.fixture
def thread(gh, make_repo):
    """The commented pull request of tests/test_handlers.py (checkout, fake GitHub, collaborators)."""
    return test_handlers.thread_builder(gh, make_repo)


@pytest.fixture
def pull(gh, make_repo):
    """The pull request of tests/test_publish.py (checkout and a stateful fake GitHub)."""
    return test_publish.pull_builder(gh, make_repo)


# --- Triggers and workflows -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_privileged_workflows_run_no_script_and_name_no_head_ref(path):
    data = _workflow(path)
    if not PRIVILEGED & set(data["on"]):
        return
    for step in _steps(data):
        # No script at all: nothing can fetch, build or run the pull request's code.
        assert "run" not in step, step.get("name")
        given = " ".join(str(v) for v in step.get("with", {}).values())
        assert not re.search(r"\.head\.(sha|ref)|head_sha|head_branch|refs/pull/", given), step.get("name")


def test_the_action_never_checks_out_or_fetches_code():
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    for step in _steps(action):
        assert not step.get("uses", "").startswith("actions/checkout@"), step.get("name")
        assert not re.search(r"\bgit\s+(fetch|checkout|clone|pull)\b|gh\s+pr\s+checkout", step.get("run", ""))


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_concurrency_group_is_per_pull_request(path):
    data = _workflow(path)
    if "pull_request" not in data["on"] and not PRIVILEGED & set(data["on"]):
        return
    group = data["concurrency"]["group"]
    assert re.search(r"pull_request\.number|issue\.number|workflow_run\.head_", group), group


def test_nothing_writes_github_env_or_github_path():
    sources = [ROOT / "action.yml", *WORKFLOWS, *sorted((ROOT / "bot").rglob("*.py"))]
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert "GITHUB_ENV" not in text and "GITHUB_PATH" not in text, source.name


# --- Comment commands -------------------------------------------------------------------------------------


def test_permission_lookup_timeout_denies_and_is_logged(gh, thread, caplog, monkeypatch):
    # `bot review` may have set up the "bot" logger (its own handler, no propagation) earlier in the session.
    monkeypatch.setattr(logging.getLogger("bot"), "propagate", True)
    url = gh.url("/repos/{owner}/{repo}/collaborators/{username}/permission", username="bob")
    for _ in range(6):  # registered before the fake's own answer, so every attempt times out
        gh.rsps.add(responses.GET, url, body=requests.exceptions.ReadTimeout("timed out"))
    r, st = thread()
    with caplog.at_level("WARNING"):
        ctx = comment(gh, r, st, "@bot review", "bob")
    assert ctx.report is None and mine(st) == [] and st.labels == [] and st.statuses == []
    assert "could not be checked" in replies(st)[0]
    assert any("permission look-up for bob failed" in rec.getMessage() for rec in caplog.records)


@pytest.mark.parametrize(
    "login, association, runs",
    [
        ("rita", "OWNER", False),  # the association is never trusted to grant: the API says read
        ("rita", "MEMBER", False),
        ("bob", "CONTRIBUTOR", True),  # private org members show as CONTRIBUTOR; the API says write
    ],
)
def test_permission_comes_from_the_api_not_author_association(gh, thread, login, association, runs):
    r, st = thread()
    event = ghapi.comment_event("@bot review", login, st)
    event["comment"]["author_association"] = association
    ctx = deliver(gh, r, "issue_comment", event)
    assert (PERMISSION[0], PERMISSION[1].format(login)) in gh.calls()
    assert (ctx.report is not None) is runs and (len(mine(st)) == 1) is runs


@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_edited_and_deleted_comments_are_ignored(gh, thread, action):
    r, st = thread()
    event = ghapi.comment_event("@bot review", "alice", st)
    event["action"] = action
    ctx = deliver(gh, r, "issue_comment", event)
    assert ctx.report is None and gh.calls() == []


@pytest.mark.parametrize(
    "body",
    [f"{MARKER}\n@bot review", f"{REPLY_MARKER}\n@bot review"],
    ids=["status comment", "reply"],
)
def test_the_bots_own_comments_are_ignored_even_from_a_user_token(gh, thread, body):
    r, st = thread()
    ctx = comment(gh, r, st, body, "alice")  # a personal token posts as a User, not a Bot
    assert ctx.report is None and gh.calls() == []


@pytest.mark.parametrize(
    "body",
    [
        "```\n@bot review\n```",
        "    @bot review",
        "> @bot waive AGT001 quoted",
        "@bots review",
        "@b\u043et review",
        "@bot-x review",
        "@bot review now please",
        "@bot waive AGT001",
    ],
    ids=["fence", "indented", "quote", "plural", "cyrillic", "suffix", "too many arguments", "no reason"],
)
def test_ignored_commands_change_nothing(gh, thread, body):
    r, st = thread()
    ctx = comment(gh, r, st, body, "bob")
    assert ctx.report is None and gh.writes() == [] and st.reactions == []


def test_review_event_on_a_moved_head_changes_no_label(gh, thread):
    r, st = thread(base={"a.py": "1\n"}, head={"a.py": "2\n"})
    st.labels = list(READY)
    st.reviews = [ghapi.review(1, "bob", "APPROVED", st.head)]
    event = ghapi.review_event("submitted", st, "bob", "approved")
    st.heads_after = ["f" * 40]
    ctx = deliver(gh, r, "pull_request_review", event)
    assert gh.writes() == [] and st.labels == READY and "moved on" in ctx.messages[0]


# --- GitHub API faults: labels ----------------------------------------------------------------------------


def test_removing_a_label_that_is_gone_is_success_and_human_labels_stay(gh, pull):
    r, st = pull()
    human = ["bug", "status:wip", "review:later", "Status:Ready-ish"]
    st.labels = [*human, "status:needs-work"]
    # Someone removed it between our read and our write: GitHub answers 404.
    gone = (404, ghapi.error("Label does not exist"), {})
    st.fail[("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}")] = [gone]
    ctx = run(gh, r.path)
    assert ctx.messages == [] and len(mine(st)) == 1 and len(st.statuses) == 1
    assert ("DELETE", "/repos/octo/repo/issues/7/labels/status%3Aneeds-work") in gh.writes()
    assert [x for x in st.labels if x in human] == human
    assert set(st.labels) - set(human) >= set(READY)


def test_creating_a_label_that_appeared_meanwhile_is_success(gh, pull):
    r, st = pull()
    st.repo_labels = ["bug"]
    taken = (422, {**ghapi.error("Validation Failed"), "errors": [{"code": "already_exists"}]}, {})
    st.fail[("POST", "/repos/{owner}/{repo}/labels")] = [taken, taken]
    ctx = run(gh, r.path)
    assert ctx.messages == [] and st.labels == READY and len(mine(st)) == 1


def test_adding_a_label_twice_is_success(gh, pull):
    # A concurrent run added the same labels between this run's read and its write.
    r, st = pull()
    publisher = Publisher(github_client(gh))
    for _ in range(2):
        publisher.labels(7, tuple(READY), (), Config())
    assert publisher.error is None and publisher.problems == [] and st.labels == READY
    assert gh.writes().count(("POST", "/repos/octo/repo/issues/7/labels")) == 2


# --- Sizes and limits -------------------------------------------------------------------------------------


def test_files_beyond_the_api_list_are_read_from_the_checkout(gh, pull):
    head = {"tests/test_a.py": NEW_TEST.replace("Checks", "Guards PR #7:"), "tests/test_b.py": NEW_TEST}
    r, st = pull(base={"AGENTS.md": AGENTS_AGT001}, head=head)
    st.files = [ghapi.pr_file("tests/test_a.py", status="added")]  # the list stops before test_b
    st.changed_files = 2
    ctx = run(gh, r.path)
    assert [(f.rule, f.path) for f in ctx.report.findings] == [("AGT001", "tests/test_b.py")]
    assert ctx.report.coverage.files_changed == 2 and ctx.report.coverage.files_reviewed == 2


@pytest.mark.parametrize(
    "path, verdict",
    [("assets/logo.png", "ready"), ("tests/test_big.py", "needs-work")],
    ids=["file no rule reads", "test file"],
)
def test_file_without_patch_is_counted_and_only_a_file_that_matters_blocks_ready(gh, pull, path, verdict):
    r, st = pull()
    st.files = [ghapi.pr_file("a.py"), ghapi.pr_file(path, patch=None, status="added")]
    st.trees = {st.base: {"a.py": "1\n"}, st.head: {"a.py": "2\n", path: "x = 1\n"}}
    ctx = run(gh, None)  # no checkout to fill the gap
    assert ctx.report.verdict == verdict and ctx.report.coverage.not_reviewed == (path,)
    body = mine(st)[0]["body"]
    assert "Reviewed 1 of 2 changed files (1 without a reviewable diff)" in body
    assert ("Review not complete" in body) is (verdict == "needs-work")
    assert any(f"{path} (no reviewable diff)" in n for n in ctx.report.notes) is (verdict == "needs-work")


def test_a_truncated_tree_listing_says_so(gh):
    # What the bot then does is in tests/test_truncated_tree.py.
    t = ghapi.tree("a" * 40, ("AGENTS.md", "src/x.py"))
    t["truncated"] = True  # GitHub stops a recursive listing at 100,000 entries
    gh.add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}", t, tree_sha="a" * 40)
    tree = github_client(gh).tree("a" * 40)
    assert [e.path for e in tree.entries] == ["AGENTS.md", "src/x.py"] and tree.truncated


def _many_profiles(n: int) -> tuple[ProfileMath, ...]:
    base = StepValues(semantics="optimizer", batch_size=8, max_steps=37, decay_steps=37, config_path="c.toml")
    head = base.model_copy(update={"max_steps": 38})
    return tuple(
        ProfileMath(path=f"p/{i}.toml", name=f"profile-{i}", base=base, head=head, changed=("max_steps",))
        for i in range(n)
    )


def test_comment_without_findings_but_too_long_is_cut_with_a_note():
    # The step-math section is bounded (a summary of at most 50 profiles, their detail dropped first), so
    # it is the notes below it that make this comment too long.
    report = Report(
        verdict="ready",
        labels=(),
        profiles=_many_profiles(2000),
        notes=tuple(f"note {i} " + "n" * 900 for i in range(100)),
        coverage=Coverage(files_changed=2000, files_reviewed=2000),
    )
    body = render_comment(report)
    assert len(body) <= COMMENT_LIMIT and body.startswith(MARKER + "\n") and body.count(MARKER) == 1
    assert body.endswith("run `bot check` locally for the full report._\n")
    # Cut at a line end: the last note before the truncation note is whole; the summary is all there.
    assert re.fullmatch(r"> note \d+ n{900}", body.split("\n\n_Comment truncated")[0].splitlines()[-1])
    assert body.count("| 37 → **38** |") == 50


def test_check_run_text_and_annotations_stay_under_githubs_limits():
    findings = tuple(
        Finding(rule="AGT001", name="n", severity=Severity.ERROR, path="t.py", line=i, message="m" * 70_000)
        for i in range(1, 200)
    )
    coverage = Coverage(files_changed=1, files_reviewed=1)
    report = Report(verdict="needs-work", labels=(), findings=findings, coverage=coverage)
    plan = status_plan(report, check_run=True)
    assert len(plan.summary) <= CHECK_TEXT_LIMIT < 65_535 and plan.summary.startswith(MARKER)
    assert all(len(a.message) < 65_535 for a in plan.annotations) and len(plan.annotations) == 199


@pytest.mark.parametrize("label", ["a\nb", "a,b", "x" * 51, "", "line\rbreak"])
def test_label_names_are_checked_when_the_config_loads(label):
    with pytest.raises(ConfigError, match="labels.needs_work"):
        parse_config(yaml.safe_dump({"labels": {"needs_work": label}}), REGISTRY.values())


# --- Untrusted text into markdown -------------------------------------------------------------------------


def test_templates_come_from_the_package_and_are_strict(tmp_path, monkeypatch):
    env = _env()
    assert env.undefined is jinja2.StrictUndefined
    assert isinstance(env.loader, jinja2.FileSystemLoader)
    assert [Path(p) for p in env.loader.searchpath] == [ROOT / "bot" / "review" / "templates"]
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()
    # A pull request's own templates folder, even as the working directory, changes nothing.
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "comment.md.j2").write_text("PWNED {{ marker }}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = Report(verdict="ready", labels=(), coverage=Coverage(files_changed=0, files_reviewed=0))
    assert "PWNED" not in render_comment(report)


# --- Parsing untrusted files ------------------------------------------------------------------------------


def test_config_over_the_size_cap_is_refused_before_parsing():
    # A document that would fail parsing fast anyway; the message proves the size check came first.
    with pytest.raises(ConfigError, match="larger than"):
        parse_config("a: &x [1]\nb: *x\n" + "#" * 300_000, REGISTRY.values())


def test_every_test_named_in_the_reliability_doc_exists():
    import ast

    doc = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_\w+\.py)::(test_\w+)`", doc))
    assert len(named) > 60
    defined: dict[str, set[str]] = {}  # each module parsed once, not once per test the doc names in it
    for module, name in sorted(named):
        if module not in defined:
            tree = ast.parse((ROOT / "tests" / module).read_text(encoding="utf-8"))
            defined[module] = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in defined[module], f"docs/reliability.md names {module}::{name}, which does not exist"


def test_read_only_token_still_reaches_summary_annotations_and_exit_code(gh, pull, tmp_path, capsys):
    from bot.cli.main import main
    from bot.github.app import run as review
    from bot.github.entry import settings
    from tests.test_app import args

    r, st = pull(base={"AGENTS.md": AGENTS_AGT001}, head={"tests/test_a.py": NEW_TEST})
    denied = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("GET", "/repos/{owner}/{repo}/labels")] = [denied]
    saved = tmp_path / "report.json"
    options = args(repo="octo/repo", pr=7, checkout=r.path, output=saved)
    code = review(options, settings({"GITHUB_TOKEN": "ghs_x"}), github_client(gh))
    err = capsys.readouterr().err
    assert code == 1 and err.count("Resource not accessible by integration") == 1 and gh.writes() == []
    # The step after the review turns the saved Report into the job summary, annotations and exit code.
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    code = main(["action", str(saved), "--step-summary", str(summary), "--github-output", str(outputs)])
    out = capsys.readouterr().out
    assert code == 1 and "::error file=tests/test_a.py,line=1," in out
    assert summary.read_text(encoding="utf-8").startswith(MARKER) and "verdict<<" in outputs.read_text()
