"""The `bot` command line: check, review, publish, rules, example, steps and action subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.app import add_parser as _review_parser
from bot.app import cmd_review

FAIL_LEVELS = ("none", "notice", "warning", "error")


class UsageError(Exception):
    """A problem with the user's input: one line on stderr, exit 2."""


def _check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="review local changes and print the status comment")
    p.add_argument("--repo", default=".", help="git repository (default: current directory)")
    p.add_argument("--base", help="base ref (default: the remote's default branch, else main)")
    p.add_argument("--head", default="HEAD", help="head ref (default: HEAD)")
    _output_args(p)
    p.add_argument(
        "--pr-title",
        default="",
        help="pull request title, for rules that read it (without it or --pr-body-file, the commit messages)",
    )
    p.add_argument("--pr-body-file", type=Path, help="file holding the pull request description")
    p.add_argument("--pr-number", type=int, help="pull request number, for messages that name it")
    p.add_argument(
        "--config",
        default=".github/bot.yml",
        help="config file, read at the base revision (default: %(default)s)",
    )
    p.add_argument("--base-branch", help="branch the pull request targets, for AGT004 non-trunk-base")


def _output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="print the status comment (default) or the Report as JSON",
    )
    p.add_argument(
        "--fail-level",
        choices=FAIL_LEVELS,
        default="error",
        help="exit 1 when a finding at or above this severity exists (default: error)",
    )
    p.add_argument("--output", type=Path, help="also save the Report as JSON to this file")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bot",
        description="Review pull requests against AGENTS.md conventions and training step math.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _check_parser(sub)
    _review_parser(sub, _output_args)
    from bot.publish_cli import add_parser as _publish_parser

    _publish_parser(sub, _output_args)
    r = sub.add_parser("rules", help="list the rules with their documentation")
    r.add_argument("--format", choices=("text", "markdown"), default="text")
    r.add_argument("--explain", action="store_true", help="show which AGENTS.md lines turn on which rule")
    r.add_argument("--repo", default=".", help="with --explain: git repository (default: current directory)")
    r.add_argument(
        "--base", default="HEAD", help="with --explain: revision whose policy to read (default: HEAD)"
    )
    r.add_argument(
        "--all",
        action="store_true",
        dest="all_sentences",
        help="with --explain: list every sentence not understood, not only those about tests, PRs, "
        "commits or branches",
    )
    e = sub.add_parser("example", help="build a bundled example as a git repository and review it")
    e.add_argument("path", type=Path, help="example folder, e.g. examples/mobile300")
    _output_args(e)
    from bot.steps_cli import add_steps_parser

    add_steps_parser(sub)
    _action_parser(sub)
    return parser


def _action_parser(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "action",
        help="in GitHub Actions: turn a saved Report into step outputs, job summary and annotations",
    )
    a.add_argument("report", type=Path, help="Report JSON saved with --output")
    a.add_argument("--fail-level", choices=FAIL_LEVELS, default="error")
    a.add_argument(
        "--log", type=Path, help="output of the review step, printed so that it cannot run workflow commands"
    )
    a.add_argument("--github-output", type=Path, help="outputs file (default: $GITHUB_OUTPUT)")
    a.add_argument("--step-summary", type=Path, help="job summary file (default: $GITHUB_STEP_SUMMARY)")
    a.add_argument("--no-annotations", action="store_true", help="do not annotate findings on files")


def _save(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _read_body(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read --pr-body-file {path}: {exc.strerror}") from None


def _emit(report, fmt: str, fail_level: str, output: Path | None = None) -> int:  # type: ignore[no-untyped-def]
    from bot.output import exit_code, to_json
    from bot.render import render_comment

    if output is not None:
        _save(output, to_json(report))
    sys.stdout.write(to_json(report) if fmt == "json" else render_comment(report))
    return exit_code(report, fail_level)


def cmd_check(args: argparse.Namespace) -> int:
    from bot.engine import review
    from bot.local import load_changeset
    from bot.models import PullRequest

    pr = PullRequest(
        number=args.pr_number,
        title=args.pr_title,
        body=_read_body(args.pr_body_file),
        base_ref=args.base_branch,
    )
    changeset = load_changeset(args.repo, base=args.base, head=args.head, pr=pr)
    return _emit(review(changeset, config_path=args.config), args.format, args.fail_level, args.output)


def cmd_example(args: argparse.Namespace) -> int:
    import tempfile

    from bot.engine import review
    from bot.examples import materialize

    with tempfile.TemporaryDirectory(prefix="bot-example-") as tmp:
        changeset = materialize(args.path, Path(tmp))
        return _emit(review(changeset), args.format, args.fail_level, args.output)


def cmd_rules(args: argparse.Namespace) -> int:
    from bot.docs import rules_markdown, rules_text

    if args.explain:
        from bot.explain import explain

        sys.stdout.write(explain(args.repo, args.base, every_sentence=args.all_sentences))
        return 0
    sys.stdout.write(rules_markdown() if args.format == "markdown" else rules_text())
    return 0


def cmd_action(args: argparse.Namespace) -> int:
    from bot.actions import publish
    from bot.entry import actions_paths
    from bot.output import exit_code, read_report

    report = read_report(args.report)
    log = None
    if args.log is not None:
        try:
            log = args.log.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"cannot read --log {args.log}: {exc.strerror}") from None
    paths = actions_paths()
    try:
        publish(
            report,
            args.report,
            sys.stdout,
            github_output=args.github_output or paths.output,
            step_summary=args.step_summary or paths.summary,
            log=log,
            annotate=not args.no_annotations,
        )
    except OSError as exc:
        raise UsageError(f"cannot write to the runner's files: {exc}") from None
    code = exit_code(report, args.fail_level)
    found = len(report.findings)
    print(f"bot: {report.verdict}, {found} finding(s); fail level {args.fail_level}: exit {code}")
    return code


def cmd_publish(args: argparse.Namespace) -> int:
    from bot.publish_cli import cmd_publish as publish

    return publish(args)


def cmd_steps(args: argparse.Namespace) -> int:
    from bot.calculator import run_steps

    return run_steps(args)


COMMANDS = {
    "check": cmd_check,
    "review": cmd_review,
    "rules": cmd_rules,
    "example": cmd_example,
    "steps": cmd_steps,
    "action": cmd_action,
    "publish": cmd_publish,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from bot.examples import ExampleError
    from bot.local import SourceError
    from bot.output import ReportError

    try:
        return COMMANDS[args.command](args)
    except (UsageError, SourceError, ExampleError, ReportError) as exc:
        from bot.actions import say

        say(str(exc))
        return 2
    except BrokenPipeError:  # `bot check | head`
        return 0


def run() -> None:
    raise SystemExit(main())
