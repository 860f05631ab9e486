"""The --verify-* options of `bot check`, kept apart from the code that runs them: `bot --help` loads this."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The --verify-* options of `bot check`."""
    p.add_argument(
        "--verify-tests",
        action="store_true",
        help="run the new and changed tests at head and on the base code with the head's tests, and say "
        "whether each reproduces what it guards (runs the change's code: refused while GITHUB_TOKEN, "
        "GH_TOKEN or BOT_TOKEN is set; see docs/verify.md)",
    )
    p.add_argument(
        "--verify-command",
        metavar="COMMAND",
        help="the test command, split as a shell would (default: verify.command in the config, "
        "else `python -m pytest`)",
    )
    p.add_argument(
        "--verify-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds a test may take, its pytest start included (default: verify.test_timeout, else 60)",
    )
    p.add_argument(
        "--verify-total-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds all the test runs may take together (default: verify.total_timeout, else 600)",
    )
