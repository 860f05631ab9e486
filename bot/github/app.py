"""`bot review`: review a pull request on GitHub and publish the result (PyGithub imported lazily)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rules.core.models import Report
    from rules.core.verification import Verification

STATUS_KINDS = ("commit-status", "check-run")
# rules.core.config imports pydantic; `bot --help` stays import-light, so the default path is repeated here.
CONFIG_PATH = ".github/bot.yml"


class ReviewError(Exception):
    """Something the user must fix before a review can run; one line on stderr, exit 2."""


def add_parser(sub: argparse._SubParsersAction, output_args) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "review",
        help="review a pull request on GitHub and publish the status comment, labels and status",
        description="In GitHub Actions the event, repository and token come from the environment; elsewhere "
        "pass --repo and --pr and set GITHUB_TOKEN (or GH_TOKEN); with --dry-run a public repository is read "
        "without one.",
    )
    p.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    p.add_argument("--pr", type=int, help="pull request number (outside Actions)")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the comment, label changes and status; attempt no write (phase 1 of the fork-safe pair)",
    )
    p.add_argument(
        "--config",
        default=CONFIG_PATH,
        help="config file, read at the pull request's base revision (default: %(default)s)",
    )
    p.add_argument(
        "--checkout",
        type=Path,
        help="local clone to read files from when it has the PR's commits (default: GITHUB_WORKSPACE in "
        "Actions, the current directory with --pr); otherwise files are read through the API",
    )
    p.add_argument(
        "--status",
        choices=STATUS_KINDS,
        default="commit-status",
        help="publish a commit status (default; needs statuses: write) or a check run with annotations "
        "(needs checks: write and a workflow or GitHub App token: personal tokens cannot create check runs)",
    )
    p.add_argument(
        "--verifications",
        type=Path,
        metavar="REPORT",
        help="with --dry-run: show the test outcomes of a Report JSON saved by `bot check --verify-tests "
        "--output` in another job, as reported by that job (never trusted: they never make a PR ready)",
    )
    output_args(p)


# GitHub's limits for requests without a token: https://docs.github.com/rest/using-the-rest-api/
# rate-limits-for-the-rest-api (60 an hour per IP address, 5,000 for a user's token).
ANONYMOUS = (
    "no token: reading {repo} as anyone may read a public repository, at GitHub's limit of 60 API "
    "requests an hour from this address (5,000 with GITHUB_TOKEN); the bot has no identity there, so the "
    "plan shows what a first run would write, and nothing is written"
)
_ANONYMOUS_HINTS = {
    "rate-limited": " Without a token GitHub allows 60 requests an hour: set GITHUB_TOKEN (or GH_TOKEN).",
    "not-found": " Without a token only a public repository can be read: set GITHUB_TOKEN (or GH_TOKEN).",
}


def redact(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text


def read_event(settings):  # type: ignore[no-untyped-def]
    from bot.github.events import EventError, parse_event

    if not (settings.event_name and settings.event_path):
        raise ReviewError("no event: run inside GitHub Actions, or pass --repo OWNER/NAME --pr N")
    try:
        data = Path(settings.event_path).read_bytes()
    except OSError as exc:
        raise ReviewError(f"cannot read GITHUB_EVENT_PATH: {exc.strerror}") from None
    try:
        return parse_event(settings.event_name, data)
    except EventError as exc:
        raise ReviewError(str(exc)) from None


def setup_logging() -> None:
    import logging  # here, not at the top: `bot --help` does not need it

    from bot.github.actions import LogFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogFormatter("bot: %(message)s"))
    logger = logging.getLogger("bot")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False


def run(args: argparse.Namespace, settings, client=None) -> int:  # type: ignore[no-untyped-def]
    """The review run; client is built from the settings unless given (tests pass one built for them)."""
    from bot.git.local import SourceError
    from bot.github.api import GitHubError
    from bot.github.handlers import Context, dispatch, review_pull

    token = settings.token.get_secret_value() if settings.token else None
    repo = args.repo or settings.repository
    if not repo or repo.count("/") != 1:
        raise ReviewError("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    event = None if args.pr is not None else read_event(settings)
    reported = _reported(args)  # read first: a bad file stops the run before any request
    if client is None:
        client = client_for(settings, repo, dry_run=args.dry_run)
        if not token:
            from bot.github.actions import say

            say(ANONYMOUS.format(repo=repo))
    checkout = args.checkout or (Path(settings.workspace) if settings.workspace else None)
    if checkout is None and args.pr is not None:
        checkout = Path(".")
    ctx = Context(
        client=client,
        checkout=checkout,
        dry_run=args.dry_run,
        check_run=args.status == "check-run",
        config_path=args.config,
        echo=sys.stdout.write,
    )
    try:
        if event is None:
            review_pull(ctx, args.pr)
        else:
            dispatch(ctx, event)
    except (GitHubError, SourceError) as exc:
        if ctx.report is None:
            hint = _ANONYMOUS_HINTS.get(str(getattr(exc, "kind", "")), "") if not token else ""
            raise ReviewError(redact(str(exc), token) + hint) from None
        ctx.messages.append(str(exc))
        ctx.failed = ctx.failed or getattr(exc, "kind", None) == "malformed"
    tell(ctx.messages, token)
    if ctx.report is not None and reported:
        from bot.review.reported import with_reported

        ctx.report = with_reported(ctx.report, reported)
    code = 0 if ctx.report is None else emit(args, ctx.report)
    # 2, not the report's code: what was published is not known to be what the report says.
    return 2 if ctx.failed else code


def _reported(args: argparse.Namespace) -> tuple[Verification, ...]:
    """The outcomes another job reported (`--verifications`), for the Report phase 1 saves; only with
    --dry-run, whose Report goes to phase 2 (a review that publishes shows only what it measured)."""
    path = getattr(args, "verifications", None)  # a Namespace built by hand (tests, other callers) has none
    if path is None:
        return ()
    if not args.dry_run:
        raise ReviewError(
            "--verifications is for phase 1 of the fork-safe pair (with --dry-run): a review that publishes "
            "shows only the outcomes it measured itself"
        )
    from bot.review.output import ReportError
    from bot.review.reported import read_reported

    try:
        return read_reported(path)
    except ReportError as exc:
        raise ReviewError(f"--verifications {path.name}: {exc}") from None


def client_for(settings, repo: str, dry_run: bool = False):  # type: ignore[no-untyped-def]
    """A client for repo with the settings' token and API address; without a token, for a dry run only."""
    from bot.github.client import connect

    token = settings.token.get_secret_value() if settings.token else None
    if not token and not dry_run:
        raise ReviewError(
            "no token: set GITHUB_TOKEN (or GH_TOKEN); `bot review --dry-run` reads a public repository "
            "without one"
        )
    return connect(token, repo, settings.api_url)


def tell(messages: list[str], token: str | None) -> None:
    """Each message of the run once, on stderr, with the token redacted."""
    from bot.github.actions import say

    for message in dict.fromkeys(messages):
        say(redact(message, token))


def emit(args: argparse.Namespace, report: Report) -> int:
    """The report as --output, --format and --dry-run ask; the exit code --fail-level gives it."""
    from bot.review.output import exit_code, to_json
    from bot.review.render import render_comment

    if args.output is not None:
        save_report(args.output, report)
    if args.format == "json":
        sys.stdout.write(to_json(report))
    elif not args.dry_run:
        sys.stdout.write(render_comment(report))
    return exit_code(report, args.fail_level)


def save_report(path: Path, report: Report) -> None:
    """The Report as JSON (with --output): the artifact the fork-safe publish job reads."""
    from bot.review.output import to_json

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_json(report), encoding="utf-8")
    except OSError as exc:
        raise ReviewError(f"cannot write {path}: {exc.strerror}") from None


def guarded(work, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """Run a GitHub command with the environment's settings; its errors become one redacted line, exit 2."""
    from bot.github.entry import settings

    env = settings()
    setup_logging()
    token = env.token.get_secret_value() if env.token else None
    try:
        return int(work(args, env))
    except ReviewError as exc:
        from bot.github.actions import say

        say(redact(str(exc), token))
        return 2


def cmd_review(args: argparse.Namespace) -> int:
    return guarded(run, args)
