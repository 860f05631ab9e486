"""Comment commands (`@bot review`, `@bot help`, `@bot waive RULE reason`): parsing and permission, pure."""

from __future__ import annotations

import re
from typing import Literal

from bot.github.blocks import Shown, shown_lines, split_lines
from rules.core.models import Frozen

MAX_COMMANDS = 5
MAX_REASON = 300
WRITE = frozenset({"admin", "write", "maintain"})

# Up to three spaces may precede a paragraph in markdown; four make an indented code block.
_LINE = re.compile(r"^ {0,3}@(?P<handle>[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:\[bot\])?)(?P<rest>.*)$")
_RULE = re.compile(r"^[A-Za-z]{2,10}[0-9]{1,4}$")

Name = Literal["review", "help", "waive"]
# Commands that take no arguments.
_PLAIN: dict[str, Name] = {"review": "review", "help": "help"}

HELP = (
    "Commands, each at the start of its own line in a comment on this pull request:\n"
    "- `@{handle} review`: review it again (its author, or anyone with write access).\n"
    "- `@{handle} waive RULE reason`: waive a rule's findings until the code they point at changes, "
    "e.g. `@{handle} waive AGT001 fixture data, not a regression test` (write access; not the author).\n"
    "- `@{handle} help`: this list."
)


class Command(Frozen):
    """One command found in a comment."""

    name: Name
    rule: str | None = None
    reason: str | None = None
    line: int


class Decision(Frozen):
    """Whether a command may run, and a short reason when it may not."""

    allowed: bool
    reason: str = ""


def _shown(body: str) -> tuple[Shown, ...]:
    # Rendering is the costly part: a comment with no line that looks like a command is not rendered.
    if not any(_LINE.match(line) for line in split_lines(body)):
        return ()
    return shown_lines(body)


def _command(words: list[str], rest: str, line: int) -> Command | None:
    if not words:
        return None
    name = words[0].lower()
    plain = _PLAIN.get(name)
    if plain is not None:
        return Command(name=plain, line=line) if len(words) == 1 else None
    if name == "waive" and len(words) >= 3 and _RULE.match(words[1]):
        reason = rest.strip().split(None, 2)[2].strip()
        return Command(name="waive", rule=words[1].upper(), reason=reason[:MAX_REASON], line=line)
    return None


def parse_commands(body: str, handle: str) -> tuple[Command, ...]:
    """Commands addressed to @handle, each on its own line of top-level paragraph text as GitHub shows it.

    Not in a quote, list, code, table, heading, HTML block, link, image or comment (bot/github/blocks.py).
    A look-alike handle (`@bots`, `@bot-x`, `@bot's`), an unknown command, a review or help with arguments,
    and a waive without a rule code or a reason are all ignored.
    """
    found: list[Command] = []
    for number, line, shown in _shown(body or ""):
        m = _LINE.match(line)
        if not m or m.group("handle").lower() != handle.lower():
            continue
        rest = m.group("rest")
        if rest and not rest[0].isspace():
            continue
        cmd = _command(rest.split(), rest, number)
        if cmd is None:
            continue
        # What GitHub shows must be the command as written: the whole line for review and help; for a
        # waiver the handle, the rule and the reason's first word (the rest may hold code spans or links).
        words = line.split()
        needed = words[:4] if cmd.name == "waive" else words
        if shown.split()[: len(needed)] != needed:
            continue
        found.append(cmd)
        if len(found) == MAX_COMMANDS:
            break
    return tuple(found)


def addressed(body: str) -> bool:
    """Whether any line could be a command to some handle: comments without one cost no API request."""
    return any(_LINE.match(s.line) and _LINE.match(s.shown) for s in _shown(body or ""))


def needs_permission(cmd: Command, actor: str, pr_author: str) -> bool:
    """Whether deciding needs the collaborator-permission API (the author's own review does not)."""
    # The author's waive is denied outright; the author's review and help need no look-up.
    return actor.lower() != pr_author.lower()


def authorize(cmd: Command, actor: str, pr_author: str, permission: str | None) -> Decision:
    """May actor run cmd? permission is the API's answer, or None when the look-up failed (denied)."""
    is_author = actor.lower() == pr_author.lower()
    if cmd.name == "waive" and is_author:
        return Decision(
            allowed=False,
            reason="the pull request's author cannot waive its findings; someone else with write access can",
        )
    if cmd.name != "waive" and is_author:
        return Decision(allowed=True)
    if permission is None:
        return Decision(
            allowed=False, reason="your permission on this repository could not be checked; try again later"
        )
    if permission.lower() in WRITE:
        return Decision(allowed=True)
    if cmd.name == "waive":
        return Decision(allowed=False, reason="waiving needs write access to this repository")
    return Decision(
        allowed=False, reason="only the pull request's author or someone with write access can run it"
    )
