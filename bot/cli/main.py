"""The `bot` command line: check, review, publish, rules, example, steps and action subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TextIO

from bot.cli.usage import UsageError
from bot.github.app import add_parser as _review_parser
from bot.github.app import cmd_review

FAIL_LEVELS = ("none", "notice", "warning", "error")
# rules.core.config imports pydantic; `bot --help` stays import-light, so the default path is repeated here.
CONFIG_PATH = ".github/bot.yml"
# `bot review` and `bot publish` print the comment or the Report; the local commands print any of these.
REVIEW_FORMATS = ("markdown", "json")
LOCAL_FORMATS = ("text", "markdown", "json", "sarif", "rdjson", "github")


_CHECK_EXAMPLES = """examples:
  bot check                      review the working tree against the merge-base with the default branch
  bot check main..my-branch      a branch, as its pull request into main is reviewed (or main...my-branch)
  bot check --staged             what `git commit` would commit (the pre-commit hook)
  bot check --format sarif       SARIF for code scanning; also text, markdown, json, rdjson, github
  bot check --format rdjson      for reviewdog: ... | reviewdog -f=rdjson -reporter=local
  bot check --fix --pr-number 12 write the mechanical fixes into the files
  bot check --verify-tests       also run the new tests at head and on the base code (docs/verify.md)

exit codes: 0 no finding at --fail-level, 1 findings at it, 2 unusable input (one line on stderr),
3 internal error, 74 output could not be written"""


def _check_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="review local changes and print the status comment",
        description="Review a local change as its pull request would be reviewed: the AGENTS.md conventions "
        "and the training step math. Needs no token and no network.",
        epilog=_CHECK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "range",
        nargs="?",
        metavar="BASE..HEAD",
        help="the base and head to review, as git writes a range (`main..fix` or `main...fix`: both review "
        "what fix adds since it left main, as a pull request shows it); the same as --base and --head",
    )
    p.add_argument("--repo", default=".", help="git repository (default: current directory)")
    p.add_argument("--base", help="base ref (default: the remote's default branch, else main)")
    p.add_argument(
        "--head",
        help="review this commit (default: the working tree: HEAD plus uncommitted and untracked changes)",
    )
    p.add_argument(
        "--staged",
        action="store_true",
        help="review the index against HEAD: what `git commit` would commit (with --base: against that "
        "base); nothing staged passes with one line on stderr (the pre-commit hook)",
    )
    p.add_argument(
        "--pre-push",
        action="store_true",
        help="review the commits being pushed (the pre-push hook): PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF "
        "when pre-commit sets them, else --base...HEAD; nothing to review passes with one line on stderr",
    )
    _output_args(p, LOCAL_FORMATS)
    p.add_argument(
        "--pr-title",
        default="",
        help="pull request title, for rules that read it (without it or --pr-body-file, the commit messages)",
    )
    p.add_argument("--pr-body-file", type=Path, help="file holding the pull request description")
    p.add_argument("--pr-number", type=int, help="pull request number, for messages that name it")
    config = p.add_mutually_exclusive_group()
    config.add_argument(
        "--config",
        metavar="PATH",
        help=f"config file in the repository, read at the base revision (default: {CONFIG_PATH}, which "
        "may be absent; any other path must exist there)",
    )
    config.add_argument(
        "--config-file",
        type=Path,
        metavar="FILE",
        help="try a config before it is merged: read FILE from disk as it is (the working tree or anywhere); "
        "the review says so",
    )
    p.add_argument("--base-branch", help="branch the pull request targets, for AGT004 non-trunk-base")
    fixing = p.add_mutually_exclusive_group()
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="write the mechanical fixes into the work tree (AGT001's docstring needs --pr-number) and "
        "print what changed; a second run finds nothing to do",
    )
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a patch; nothing is written")
    from bot.cli.verify_args import add_arguments as _verify_args

    _verify_args(p)


def _output_args(p: argparse.ArgumentParser, formats: tuple[str, ...] = REVIEW_FORMATS) -> None:
    if formats == REVIEW_FORMATS:
        p.add_argument(
            "--format",
            choices=formats,
            default="markdown",
            help="print the status comment (default) or the Report as JSON",
        )
    else:
        p.add_argument(
            "--format",
            choices=formats,
            default=None,
            help="text: one `path:line: CODE message` line per finding, the step table and a summary "
            "(default on a terminal); markdown: the status comment exactly as posted (default otherwise); "
            "json: the Report; sarif: SARIF 2.1.0 for code scanning; rdjson: reviewdog's Diagnostic Format "
            "(reviewdog -f=rdjson); github: workflow-command annotations",
        )
    p.add_argument(
        "--fail-level",
        choices=FAIL_LEVELS,
        default="error",
        help="exit 1 when a finding at or above this severity exists (default: error)",
    )
    p.add_argument("--output", type=Path, help="also save the Report as JSON to this file")


def build_parser() -> argparse.ArgumentParser:
    from bot import __version__

    parser = argparse.ArgumentParser(
        prog="bot",
        description="Review pull requests against AGENTS.md conventions and training step math.",
    )
    parser.add_argument("--version", action="version", version=f"bot {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _check_parser(sub)
    _review_parser(sub, _output_args)
    from bot.github.publish_cli import add_parser as _publish_parser

    _publish_parser(sub, _output_args)
    r = sub.add_parser("rules", help="list the rules with their documentation")
    r.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="text (default); markdown: the page docs/rules.md is generated as; json: the rules, or with "
        "--explain every sentence of the agent guides with what it turns on, off or scopes",
    )
    r.add_argument(
        "--explain",
        action="store_true",
        help="show which lines of AGENTS.md (or another agent guide) turn on which rule",
    )
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
    e.add_argument(
        "path",
        type=Path,
        nargs="?",
        help="a bundled example's name (mobile300) or an example folder; without it, the bundled examples "
        "are listed",
    )
    _output_args(e, LOCAL_FORMATS)
    from bot.cli.steps import add_steps_parser

    add_steps_parser(sub)
    _action_parser(sub)
    return parser


def _action_parser(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "action",
        help="in GitHub Actions: turn a saved Report into step outputs, job summary and annotations",
    )
    a.add_argument("report", type=Path, help="Report JSON saved with --output")
    a.add_argument(
        "--fail-level",
        choices=FAIL_LEVELS,
        default="error",
        help="exit 1 when a finding at or above this severity exists (default: error)",
    )
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


def _format(fmt: str | None) -> str:
    """The chosen format; by default text for a person at a terminal, the comment for a pipe or a file
    (what scripts, `> comment.md` and the action's log have always read)."""
    if fmt is not None:
        return fmt
    return "text" if _isatty(sys.stdout) else "markdown"


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


def render(report, fmt: str, scope: str | None = None, note: str | None = None) -> str:  # type: ignore[no-untyped-def]
    """The report in one of LOCAL_FORMATS; colour only for text on a terminal that allows it."""
    from bot.review.output import to_json

    if fmt == "json":
        return to_json(report)
    if fmt == "sarif":
        from bot.review.sarif import to_sarif_json

        return to_sarif_json(report)
    if fmt == "rdjson":
        from bot.review.rdjson import to_rdjson_json

        return to_rdjson_json(report)
    if fmt == "github":
        from bot.github.actions import annotation_lines, lines

        return lines(annotation_lines(report))
    if fmt == "text":
        from bot.github.entry import colour_allowed
        from bot.review.terminal import render_text

        colour = _isatty(sys.stdout) and colour_allowed()
        return render_text(report, colour=colour, scope=scope, summary=note)
    from bot.review.render import render_comment

    return render_comment(report)


def _emit(  # type: ignore[no-untyped-def]
    report,
    fmt: str | None,
    fail_level: str,
    output: Path | None = None,
    scope: str | None = None,
    note: str | None = None,
    top: Path | None = None,
) -> int:
    from bot.review.output import exit_code, to_json

    if output is not None:
        _save(output, to_json(report))
    fmt = _format(fmt)
    if note is not None and fmt != "text":  # machine formats stay parseable: the note goes to stderr
        print(f"bot: {note}", file=sys.stderr)
    shown = _from_here(report, top) if fmt == "text" and top is not None else report
    sys.stdout.write(render(shown, fmt, scope, note))
    return exit_code(report, fail_level)


def _rel_source(source: str | None, rel: Callable[[str | None], str | None]) -> str | None:
    """`AGENTS.md:6` seen from below the top: `../AGENTS.md:6`."""
    path, colon, line = (source or "").rpartition(":")
    return f"{rel(path)}:{line}" if source and colon and line.isdigit() else source


def _from_here(report, top: Path):  # type: ignore[no-untyped-def]
    """The report with its paths relative to the current directory when that is below the repository's top,
    as git prints them (`bot check` run in `src/`: `../tests/test_a.py:3:`), so that a terminal or editor
    opens them from here. Only the text output: JSON, SARIF and the comment keep repository paths."""
    try:
        here = Path.cwd().resolve()
        here.relative_to(top.resolve())
    except (OSError, ValueError):  # gone, or outside the repository (`--repo elsewhere`)
        return report
    if here == top.resolve():
        return report

    def rel(path: str | None) -> str | None:
        return None if path is None else os.path.relpath(top.resolve() / path, here).replace(os.sep, "/")

    return report.model_copy(
        update={
            "findings": tuple(
                f.model_copy(update={"path": rel(f.path), "source": _rel_source(f.source, rel)})
                for f in report.findings
            ),
            "waivers": tuple(w.model_copy(update={"path": rel(w.path)}) for w in report.waivers),
            "profiles": tuple(p.model_copy(update={"path": rel(p.path)}) for p in report.profiles),
        }
    )


def _quiet_pass(message: str) -> int:
    """A hook with nothing to review passes, as a linter with no files does: one line on stderr, exit 0."""
    print(f"bot: {message}", file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from bot.git.local import NoCommits, current_branch, default_base, load_changeset, open_repo, resolve
    from bot.git.ranges import EmptyRange, check_range
    from bot.review.engine import review, warm_ups
    from rules.core.models import PullRequest

    pr = PullRequest(
        number=args.pr_number,
        title=args.pr_title,
        body=_read_body(args.pr_body_file),
        base_ref=args.base_branch,
    )
    if args.range is not None:
        _split_range(args)
    if args.pre_push:
        _push_refs(args)
    if args.verify_tests:  # refused before anything runs
        from bot.cli.verifying import check_allowed

        check_allowed(args)
    try:
        top = open_repo(args.repo)
    except NoCommits:
        if args.staged or args.pre_push:  # the first commit of a new repository: no base to judge it by
            return _quiet_pass("nothing to review: the repository has no commits yet")
        raise
    if args.fix and args.head is not None and resolve(top, args.head, "head") != resolve(top, "HEAD"):
        raise UsageError(
            f"--fix writes into the files of the work tree; --head {args.head} is not the commit checked out "
            "here, so its files cannot be edited: check it out first, or use --diff to see the patch"
        )
    with _local_head(top, args) as (head, label, left_out):
        if head is None:
            return _quiet_pass("nothing is staged: nothing to review")
        if head != args.head:  # a snapshot: the branch is HEAD's
            pr = pr.model_copy(update={"head_ref": current_branch(top, "HEAD")})
        # --staged reviews what `git commit` would add to HEAD, unless --base asks for more.
        base_ref = args.base or ("HEAD" if args.staged else None)
        comment = _format(args.format) == "markdown" and not (args.fix or args.diff)
        idle = warm_ups(comment=comment)
        changeset = load_changeset(top, base=base_ref, head=head, pr=pr, idle=idle, left_out=left_out)
        base = base_ref or default_base(top)
        try:
            note = check_range(changeset, base, label, resolve(top, base))
        except EmptyRange:
            if args.pre_push:
                return _quiet_pass(f"nothing to review between {base} and {label}")
            raise
        config_path, config_file = _config_path(changeset, base, args), _config_file(args)
        verified: tuple = ()
        if args.verify_tests:  # before the review: its rules read the outcomes
            from bot.cli import verifying

            verified = verifying.run(changeset, top, args, config_path, config_file and config_file.data)
        report = review(changeset, config_path=config_path, config_file=config_file, verifications=verified)
        if args.fix or args.diff:
            return _fix(report, changeset, top, args)
        scope = f"{base}...{label}"
        return _emit(report, args.format, args.fail_level, args.output, scope=scope, note=note, top=top)


def _config_path(changeset, base: str, args: argparse.Namespace) -> str:  # type: ignore[no-untyped-def]
    """--config's path, which must exist at the base revision unless it is the default (optional) one."""
    path = args.config or CONFIG_PATH
    if path != CONFIG_PATH and changeset.reader.read(changeset.base_sha, path) is None:
        raise UsageError(
            f"--config {path}: no such file at the base revision ({base}), where the config is read; "
            f"to try a file on disk before it is merged, use --config-file {path}"
        )
    return path


def _config_file(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """--config-file read from disk, or None."""
    if args.config_file is None:
        return None
    from bot.review.engine import ConfigFile

    try:
        data = args.config_file.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read --config-file {args.config_file}: {exc.strerror}") from None
    return ConfigFile(name=str(args.config_file), data=data)


def _split_range(args: argparse.Namespace) -> None:
    """`bot check A..B` or `A...B`: --base A --head B (a pull request's diff either way)."""
    start, dots, end = args.range.partition("...")
    if not dots:
        start, dots, end = args.range.partition("..")
    if not dots or not start or not end:
        raise UsageError(
            f"{args.range}: give a range as BASE..HEAD (e.g. main..my-branch), or use --base and --head"
        )
    if args.base is not None or args.head is not None or args.staged:
        raise UsageError(f"{args.range} names the base and the head: leave out --base, --head and --staged")
    args.base, args.head = start, end


def _push_refs(args: argparse.Namespace) -> None:
    """--pre-push: the commits being pushed when pre-commit names them, else the branch's commits."""
    from bot.github.entry import push_range

    if args.staged or args.fix:
        raise UsageError("--pre-push reviews commits being pushed: leave out --staged and --fix")
    pushed = push_range()
    if pushed is not None:
        args.base, args.head = pushed
    elif args.head is None:
        args.head = "HEAD"  # what a push sends: commits, not the working tree


def _fix(report, changeset, top: Path, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """--diff: the patch on stdout, exit 1 when there is one. --fix: write, say what changed, exit by the
    findings no fix resolved (at --fail-level)."""
    from bot.git.fixing import fix, summary
    from bot.review.output import exit_code, to_json

    if args.output is not None:
        _save(args.output, to_json(report))
    outcome = fix(report, changeset, top, write=args.fix)
    if args.format == "json":  # one JSON document on stdout, whichever of the two
        from bot.git.fixing import as_json

        sys.stdout.write(as_json(outcome, report, wrote=args.fix))
    if args.diff:
        if args.format != "json":
            sys.stdout.write(outcome.patch)
            sys.stderr.write(summary(outcome, report, wrote=False))
        return 1 if outcome.applied else 0
    if args.format != "json":
        sys.stdout.write(summary(outcome, report, wrote=True))
    done = {f.key for f in outcome.applied}
    rest = report.model_copy(
        update={"findings": tuple(f for f in report.findings if f.fix is None or f.fix.key not in done)}
    )
    return exit_code(rest, args.fail_level)


@contextmanager
def _local_head(top: Path, args: argparse.Namespace) -> Iterator[tuple[str | None, str, tuple[str, ...]]]:
    """The commit to review (None: --staged, and nothing is staged), how the output names it, and the
    untracked files left out of it for their size: --head REF, the index, or the working tree (a snapshot
    git can read inside the block only)."""
    from bot.git.worktree import snapshot

    if args.head is not None:
        if args.staged:
            raise UsageError("--staged reviews the index; --head names a commit: give one of them")
        yield args.head, args.head, ()
        return
    with snapshot(top, staged=args.staged) as snap:
        if snap is None and args.staged:
            yield None, "", ()
        elif snap is None:  # nothing uncommitted: the review is of HEAD
            yield "HEAD", "HEAD", ()
        else:
            yield snap.commit, "the staged changes" if args.staged else "the working tree", snap.left_out


def cmd_example(args: argparse.Namespace) -> int:
    import tempfile

    from bot.cli.examples import materialize, runs_tests
    from bot.review.engine import review

    if args.path is None:
        from bot.cli.examples import bundled, describe

        sys.stdout.write("".join(f"{name}  {describe(path)}\n" for name, path in bundled().items()))
        sys.stdout.write("bot example NAME builds one as a git repository and reviews it\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="bot-example-") as tmp:
        changeset = materialize(args.path, Path(tmp))
        verified: tuple = ()
        if runs_tests(args.path):  # the example asks for its tests to be run (`--verify-tests`)
            from bot.cli import verifying

            verified = verifying.example(changeset, Path(tmp) / "repo")
        return _emit(review(changeset, verifications=verified), args.format, args.fail_level, args.output)


def cmd_rules(args: argparse.Namespace) -> int:
    import json

    from bot.review.docs import rules_markdown, rules_text
    from rules.catalog import REGISTRY

    if args.explain and args.format == "json":
        from bot.cli.explain import explain_json

        sys.stdout.write(json.dumps(explain_json(args.repo, args.base), indent=2) + "\n")
        return 0
    if args.explain:
        from bot.cli.explain import explain

        sys.stdout.write(explain(args.repo, args.base, every_sentence=args.all_sentences))
        return 0
    if args.format == "json":
        rules = [
            {"code": r.code, "name": r.name, "severity": r.severity.value, "summary": r.summary}
            for r in REGISTRY.values()
        ]
        sys.stdout.write(json.dumps(rules, indent=2) + "\n")
        return 0
    sys.stdout.write(rules_markdown() if args.format == "markdown" else rules_text())
    return 0


def cmd_action(args: argparse.Namespace) -> int:
    from bot.github.actions import publish
    from bot.github.entry import actions_paths
    from bot.review.output import exit_code, read_report

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
    from bot.github.publish_cli import cmd_publish as publish

    return publish(args)


def cmd_steps(args: argparse.Namespace) -> int:
    from bot.cli.calculator import run_steps

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


# EX_IOERR of sysexits.h: the review ran, but what it printed could not be written (a full disk, /dev/full).
EXIT_WRITE_FAILED = 74
# A fault in the bot itself: never 1, which says "findings at the fail level", nor 2, "change your input".
EXIT_INTERNAL_ERROR = 3


class OutputError(Exception):
    """Standard output could not be written; not an OSError, so that no handler of file errors takes it."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))


class _Stdout:
    """sys.stdout for the console command: a failed write is OutputError, and a reader that left (a closed
    pipe: `bot check | head -0`) is not an error. What is written after that is dropped, the command runs
    to its end and its exit code still says what the review found, as it would had the reader stayed."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_by_reader = False

    def _guard(self, call: Callable[[], int | None]) -> int | None:
        if self.closed_by_reader:
            return None
        try:
            return call()
        except BrokenPipeError:
            self.closed_by_reader = True
            return None
        except OSError as exc:
            raise OutputError(exc) from None

    def write(self, text: str) -> int:
        self._guard(lambda: self._stream.write(text))
        return len(text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


# The errors that mean "change your input" (exit 2 with one line), by module: a command raises one only from
# a module it imported, so main() needs none of them loaded (`bot rules` never loads the git reader).
_INPUT_ERRORS = (
    ("bot.cli.examples", "ExampleError"),
    ("bot.git.local", "SourceError"),
    ("bot.git.ranges", "EmptyRange"),
    ("bot.review.output", "ReportError"),
)


def _input_error(exc: Exception) -> bool:
    loaded = (getattr(sys.modules[module], name) for module, name in _INPUT_ERRORS if module in sys.modules)
    return isinstance(exc, (UsageError, *loaded))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:  # `bot check | head`
        return 0
    except Exception as exc:
        if not _input_error(exc):
            raise
        from bot.github.actions import say

        say(str(exc))
        return 2


def _replace_unencodable(stream: TextIO) -> None:
    """A console that cannot show every character (PYTHONIOENCODING=ascii, a cp1252 Windows console) gets
    `?` in their place instead of a UnicodeEncodeError: the review's arrows and a PR's own text are not
    worth failing the command for. Files and pipes in UTF-8 are unchanged."""
    try:
        stream.reconfigure(errors="replace")  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # not a TextIOWrapper (replaced by a caller), or closed
        pass


def run() -> NoReturn:
    """The console entry point: main(), then leave without the interpreter's teardown.

    At exit the interpreter frees every object one by one; after the review of a large pull request
    that is hundreds of thousands of parsed nodes, about a tenth of a second for a process that is
    ending anyway (the system takes its memory back at once). What must outlive the process is written
    out first: both output streams and the log handlers.
    """
    if sys.stdout is not None:
        _replace_unencodable(sys.stdout)
        sys.stdout = _Stdout(sys.stdout)  # type: ignore[assignment]
    try:
        try:
            code = main()
        except SystemExit as exc:  # argparse's --help and usage errors: flushed below like any output
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except OutputError:
            raise
        except Exception:  # noqa: BLE001 - a bug of ours: the traceback for a report, and its own exit code
            import traceback

            traceback.print_exc()
            print(
                f"bot: internal error (exit {EXIT_INTERNAL_ERROR}); "
                "the traceback above belongs in a bug report",
                file=sys.stderr,
            )
            code = EXIT_INTERNAL_ERROR
        if sys.stdout is not None:
            sys.stdout.flush()  # most output is still in the buffer here: a full disk is found now
    except OutputError as exc:
        from bot.github.actions import say

        say(f"cannot write the output: {exc}")
        code = EXIT_WRITE_FAILED
    try:
        sys.stderr.flush()
    except (AttributeError, OSError):  # nowhere left to say anything
        pass
    logging = sys.modules.get("logging")  # imported only by the commands that log
    if logging is not None:
        logging.shutdown()
    os._exit(code)
