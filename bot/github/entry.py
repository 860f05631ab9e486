"""The one module that reads the process environment: everything else gets values passed in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from pydantic import SecretStr

from rules.core.models import Frozen

# The REST API's address when GITHUB_API_URL is not set (github.com). Here rather than in bot.github.api, so
# that the local commands, which read only NO_COLOR and pre-commit's refs from here, build none of its models.
DEFAULT_API_URL = "https://api.github.com"


class ActionsPaths(NamedTuple):
    """Files the Actions runner gives a step (None outside Actions)."""

    output: Path | None
    summary: Path | None
    temp: Path | None


def _path(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name, "")
    return Path(value) if value else None


def actions_paths(environ: Mapping[str, str] | None = None) -> ActionsPaths:
    """GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP, where set."""
    env = os.environ if environ is None else environ
    return ActionsPaths(
        output=_path(env, "GITHUB_OUTPUT"),
        summary=_path(env, "GITHUB_STEP_SUMMARY"),
        temp=_path(env, "RUNNER_TEMP"),
    )


class Settings(Frozen):
    """What `bot review` takes from the environment; the token's repr never shows it."""

    event_name: str | None = None
    event_path: str | None = None
    repository: str | None = None
    token: SecretStr | None = None
    api_url: str = DEFAULT_API_URL
    workspace: str | None = None
    in_actions: bool = False


def settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from the environment (GITHUB_API_URL is set by GitHub Enterprise Server runners)."""
    env = os.environ if environ is None else environ
    token = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN")
    return Settings(
        event_name=env.get("GITHUB_EVENT_NAME") or None,
        event_path=env.get("GITHUB_EVENT_PATH") or None,
        repository=env.get("GITHUB_REPOSITORY") or None,
        token=SecretStr(token) if token else None,
        api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        workspace=env.get("GITHUB_WORKSPACE") or None,
        in_actions=env.get("GITHUB_ACTIONS") == "true",
    )


def colour_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """False when NO_COLOR is set and not empty (https://no-color.org) or the terminal is `dumb`."""
    env = os.environ if environ is None else environ
    return not env.get("NO_COLOR") and env.get("TERM") != "dumb"


def push_range(environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The commits a pre-push hook is about to push, as pre-commit names them (PRE_COMMIT_FROM_REF and
    PRE_COMMIT_TO_REF); None when pre-commit did not set both (`pre-commit run --hook-stage pre-push`)."""
    env = os.environ if environ is None else environ
    start, end = env.get("PRE_COMMIT_FROM_REF", ""), env.get("PRE_COMMIT_TO_REF", "")
    if not start.strip("0") or not end.strip("0"):  # unset, empty, or git's all-zero "no commit"
        return None
    return start, end


# Tokens that can write to a repository, or mint one (the OIDC request token of a job with `id-token: write`).
# `bot check --verify-tests` runs the pull request's code, which could read them from its environment: it
# refuses to run while one is set.
WRITE_TOKENS = ("GITHUB_TOKEN", "GH_TOKEN", "BOT_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")
# Events whose jobs run with the base repository's privileges: PR code never runs in them. The events about
# checks that keep `status:ready` in step (bot/github/ready.py) run the default branch's workflow too.
PRIVILEGED_EVENTS = (
    "pull_request_target",
    "workflow_run",
    "issue_comment",
    "check_run",
    "check_suite",
    "status",
)


def verify_refusal(environ: Mapping[str, str] | None = None) -> str | None:
    """Why running a pull request's tests is refused here (a write token set, a privileged event), or None."""
    env = os.environ if environ is None else environ
    tokens = [name for name in WRITE_TOKENS if env.get(name)]
    if tokens:
        return (
            f"--verify-tests runs the pull request's code, and {', '.join(tokens)} is set: a token that can "
            "write must not be within its reach. Run it in a job without the token (see docs/verify.md)"
        )
    event = env.get("GITHUB_EVENT_NAME", "")
    if event in PRIVILEGED_EVENTS:
        return (
            f"--verify-tests never runs in a {event} job, which has the base repository's privileges; run it "
            "in an unprivileged pull_request job (see docs/verify.md)"
        )
    return None


def test_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the pull request's tests run in: this process's, without any write token."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if k not in WRITE_TOKENS}
