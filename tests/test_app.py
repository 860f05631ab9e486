"""`bot review` from the command line and from the Actions environment; the client's retries and errors."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
import responses

from bot.cli.main import main
from bot.github.api import GitHubError
from bot.github.app import ReviewError, run
from bot.github.client import MAX_WAIT, BoundedRetry, translate
from bot.github.entry import settings
from tests import ghapi
from tests.conftest import github_client
from tests.test_publish import READY, mine

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghs_supersecret0123456789"


def args(**kw) -> argparse.Namespace:
    base = dict(repo=None, pr=None, dry_run=False, checkout=None, status="commit-status", format="markdown")
    base.update(config=".github/bot.yml", output=None)
    return argparse.Namespace(**{**base, "fail_level": "error", **kw})


def env(tmp_path, event: str | None = None, data: dict | None = None, **extra) -> dict:
    e = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "octo/repo", **extra}
    if event:
        path = tmp_path / "event.json"
        path.write_text(json.dumps(data))
        e.update(GITHUB_EVENT_NAME=event, GITHUB_EVENT_PATH=str(path))
    return e


def test_settings_from_environment():
    s = settings(
        {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": "https://ghe.example.com/api/v3/", "GITHUB_ACTIONS": "true"}
    )
    assert s.api_url == "https://ghe.example.com/api/v3" and s.in_actions
    assert TOKEN not in repr(s) and TOKEN not in str(s.model_dump())
    assert settings({}).api_url == "https://api.github.com"


def test_review_outside_actions_prints_the_report(gh, make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files, st.repo_labels = [ghapi.pr_file("a.py")], list(READY)
    ghapi.serve(gh, st)
    code = run(
        args(repo="octo/repo", pr=7, checkout=r.path), settings({"GITHUB_TOKEN": TOKEN}), github_client(gh)
    )
    out = capsys.readouterr().out
    assert code == 0 and "ready for review" in out and len(mine(st)) == 1


def test_review_from_the_actions_event(gh, make_repo, tmp_path, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files, st.repo_labels = [ghapi.pr_file("a.py")], list(READY)
    ghapi.serve(gh, st)
    e = env(tmp_path, "pull_request", ghapi.pr_event("synchronize", st), GITHUB_WORKSPACE=str(r.path))
    code = run(args(format="json"), settings(e), github_client(gh))
    assert code == 0 and json.loads(capsys.readouterr().out)["verdict"] == "ready"


def test_unknown_event_exits_zero_without_requests(gh, tmp_path, capsys):
    data = ghapi.payload("pull_request", "closed.payload.json")
    code = run(args(), settings(env(tmp_path, "pull_request", data)), github_client(gh))
    assert code == 0 and gh.calls() == [] and capsys.readouterr().out == ""


def test_dry_run_from_the_command_line_writes_nothing(gh, make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files = [ghapi.pr_file("a.py")]
    ghapi.serve(gh, st)
    run(args(repo="octo/repo", pr=7, checkout=r.path, dry_run=True), settings({}), github_client(gh))
    out = capsys.readouterr().out
    assert gh.writes() == [] and "Status comment: create" in out and "Labels to add" in out


def test_read_only_token_still_prints_report_and_exit_code(gh, make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files = [ghapi.pr_file("a.py")]
    ghapi.serve(gh, st)
    denied = (403, ghapi.error("Resource not accessible by integration"), {})
    st.fail[("GET", "/repos/{owner}/{repo}/labels")] = [denied]
    code = run(
        args(repo="octo/repo", pr=7, checkout=r.path), settings({"GITHUB_TOKEN": TOKEN}), github_client(gh)
    )
    captured = capsys.readouterr()
    assert code == 0 and "ready for review" in captured.out
    assert captured.err.count("Resource not accessible by integration") == 1


def test_dry_run_without_a_token_reads_a_public_repository_and_says_at_what_limit(gh, make_repo, capsys):
    """Before: "no token: set GITHUB_TOKEN" even for a dry run of a public repository anyone may read."""
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    st = ghapi.PullState(head=r.git("rev-parse", "pr").strip(), base=r.git("rev-parse", "main").strip())
    st.files, st.repo_labels = [ghapi.pr_file("a.py")], list(READY)
    ghapi.serve(gh, st)
    # No client given: the one `bot review` builds from an environment without a token.
    code = run(args(repo="octo/repo", pr=7, checkout=r.path, dry_run=True), settings({}))
    captured = capsys.readouterr()
    assert code == 0 and "Status comment: create" in captured.out
    assert "no token: reading octo/repo" in captured.err
    assert "60 API requests an hour from this address (5,000 with GITHUB_TOKEN)" in captured.err
    assert gh.calls() and gh.writes() == [] and gh.graphql() == []  # GraphQL refuses anonymous requests
    assert all("Authorization" not in call.request.headers for call in gh.rsps.calls)


def test_without_a_token_a_rate_limit_or_a_private_repository_says_to_set_one(gh, capsys):
    st = ghapi.PullState(head="a" * 40, base="b" * 40)
    ghapi.serve(gh, st)
    st.fail[("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")] = [(404, ghapi.error("Not Found"), {})]
    with pytest.raises(ReviewError, match="only a public repository can be read: set GITHUB_TOKEN"):
        run(args(repo="octo/repo", pr=7, dry_run=True), settings({}))


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"GITHUB_REPOSITORY": "octo/repo"}, "no token: .*`bot review --dry-run` reads a public repository"),
        ({"GITHUB_TOKEN": TOKEN}, "no repository"),
    ],
)
def test_missing_settings_are_one_line(environ, message):
    with pytest.raises(ReviewError, match=message):
        run(args(pr=7), settings(environ))


def test_no_event_outside_actions():
    with pytest.raises(ReviewError, match="--pr N"):
        run(args(), settings({"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "o/r"}))


def test_401_is_reported_once_and_never_shows_the_token(monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with responses.RequestsMock() as rsps:
        fake = ghapi.FakeGitHub(rsps)
        fake.add(
            "GET",
            "/repos/{owner}/{repo}/pulls/{pull_number}",
            ghapi.error("Bad credentials"),
            401,
            pull_number=7,
        )
        code = main(["review", "--repo", "octo/repo", "--pr", "7", "--checkout", "/nonexistent"])
        sent = rsps.calls[0].request.headers["Authorization"]
        assert len(rsps.calls) == 1  # 401 is not retried
    captured = capsys.readouterr()
    assert code == 2 and sent == f"token {TOKEN}"  # the token is used, and only there
    assert captured.err.count("401 Bad credentials") == 1 and TOKEN not in captured.err + captured.out


def test_help_does_not_import_pygithub():
    code = (
        "import sys, bot.cli.main; bot.cli.main.build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('github', 'requests')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == "[]"
    assert (
        "review"
        in subprocess.run(
            [sys.executable, "-m", "bot", "--help"], capture_output=True, text=True, cwd=ROOT
        ).stdout
    )


# --- the client's retries and errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, headers, wait",
    [
        (403, {"Retry-After": "7"}, 7.0),
        (429, {"Retry-After": "0"}, 0.0),
        (429, {}, 60.0),  # 429 without headers: the secondary-limit back-off
        (403, {}, 0.0),
    ],
)
def test_waits_honour_retry_after(status, headers, wait):
    assert BoundedRetry().wait_for(status, headers) == wait


@pytest.mark.parametrize(
    "headers",
    [
        {"Retry-After": str(int(MAX_WAIT) + 1)},
        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "4102444800"},
    ],
)
def test_no_wait_beyond_the_cap(headers):
    from github import RateLimitExceededExceedsMaxWait

    with pytest.raises(RateLimitExceededExceedsMaxWait):
        BoundedRetry().wait_for(403, headers)


def test_retry_after_over_the_cap_is_not_slept(gh):
    gh.add(
        "GET",
        "/repos/{owner}/{repo}/pulls/{pull_number}",
        ghapi.error("slow down"),
        429,
        {"Retry-After": "3600"},
        pull_number=7,
    )
    with pytest.raises(GitHubError) as info:
        github_client(gh).pull(7)
    assert info.value.kind == "rate-limited" and len(gh.calls()) == 1


def test_repeated_5xx_gives_up_after_bounded_retries(gh):
    for _ in range(5):
        gh.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", ghapi.error("boom"), 503, pull_number=7)
    with pytest.raises(GitHubError) as info:
        github_client(gh, BoundedRetry(total=2, backoff_factor=0)).pull(7)
    assert info.value.kind == "unavailable" and len(gh.calls()) == 3


def test_translate_names_the_missing_permission():
    from github import GithubException

    err = translate(GithubException(403, {"message": "Resource not accessible by integration"}, {}), "POST x")
    assert err.kind == "read-only" and "issues: write" in str(err) and err.fatal_for_writes
