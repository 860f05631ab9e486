"""`bot check --verify-tests`: the options, the refusal where a write token is in reach, and the run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.cli.usage import UsageError
from bot.git.local import stored_credentials
from bot.github.entry import test_environment, verify_refusal
from bot.review.engine import read_config
from bot.verify.runner import Limits, Plan, command_of, verify
from rules.catalog import REGISTRY
from rules.core.base import Review
from rules.core.config import Config, ConfigError, load_config
from rules.core.models import ChangeSet
from rules.core.verification import Verification
from rules.testcode.verify_select import added_names, test_files, tests_to_verify


def check_allowed(args: argparse.Namespace) -> None:
    """Refuse, before anything runs, where the tests cannot be run safely or as asked."""
    refusal = verify_refusal()
    if refusal is not None:
        raise UsageError(refusal)
    if args.staged or args.pre_push or args.fix or args.diff:
        raise UsageError(
            "--verify-tests runs the tests of the working tree or of --head: leave out --staged, "
            "--pre-push, --fix and --diff"
        )
    for name in ("verify_timeout", "verify_total_timeout"):
        value = getattr(args, name)
        if value is not None and not value > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a number of seconds above 0")


def _config(changeset: ChangeSet, path: str, config_file: bytes | None) -> Config:
    """The config the review used: the base revision's, or the file tried from disk."""
    if config_file is None:
        return read_config(changeset, path)[0]
    try:
        return load_config(config_file, REGISTRY.values())
    except ConfigError:
        return Config()  # the review reports the problem; the tests run with the defaults


def run(
    changeset: ChangeSet,
    top: Path,
    args: argparse.Namespace,
    config_path: str,
    config_file: bytes | None,
) -> tuple[Verification, ...]:
    """Each new or changed test's verification: run before the review, whose rules read them."""
    saved = stored_credentials(top)
    if saved:
        raise UsageError(
            f"--verify-tests runs the pull request's code, and this checkout's git config holds a token "
            f"({saved[0]}): check out with `persist-credentials: false` (see docs/verify.md)"
        )
    config = _config(changeset, config_path, config_file)
    try:
        command = command_of(args.verify_command or config.verify.command)
    except ValueError as exc:
        raise UsageError(f"--verify-command: {exc}") from None
    limits = Limits(
        test=args.verify_timeout or config.verify.test_timeout,
        total=args.verify_total_timeout or config.verify.total_timeout,
    )
    return _verified(
        changeset, top, config, command, limits, None if args.head is None else changeset.head_sha
    )


def _verified(
    changeset: ChangeSet, top: Path, config: Config, command: list[str], limits: Limits, head: str | None
) -> tuple[Verification, ...]:
    review = Review(changeset=changeset.without(config.exclude), config=config)
    plan = Plan(tests=tests_to_verify(review), files=test_files(review), added=added_names(review))
    if not plan.tests:
        print("bot: --verify-tests: the change adds or edits no test to run", file=sys.stderr)
        return ()
    reader = changeset.reader
    return verify(
        top,
        plan,
        base=changeset.base_sha,
        read_head=lambda path: reader.read(changeset.head_sha, path),
        env=test_environment(),
        command=command,
        limits=limits,
        head=head,
    )


def example(changeset: ChangeSet, top: Path) -> tuple[Verification, ...]:
    """The verification of a bundled example that asks for one (its `verify-tests` file), with this
    Python's pytest; none, said on stderr, where tests may not run here (a write token is set)."""
    refusal = verify_refusal()
    if refusal is not None:
        print(f"bot: the example's tests were not run: {refusal}", file=sys.stderr)
        return ()
    config = read_config(changeset)[0]
    limits = Limits(test=config.verify.test_timeout, total=config.verify.total_timeout)
    return _verified(changeset, top, config, [sys.executable, "-m", "pytest"], limits, None)
