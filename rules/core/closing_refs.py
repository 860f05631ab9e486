"""The issues a pull request's description says it closes, as GitHub links them: `Fixes #12`."""

from __future__ import annotations

import re

# GitHub's closing keywords (close, fix, resolve and their -s/-d forms), in any case, a colon allowed after
# them, then one reference: `#12`, `owner/repo#12` or an issue URL. Each reference needs its own keyword:
# GitHub links #13 in "Fixes #12, fixes #13" but not in "Fixes #12, #13".
_CLOSING_REF = re.compile(
    r"""\b(?:close[sd]?|fix(?:es|ed)?|resolve[sd]?)[ \t]{0,3}:?[ \t]{1,3}
        (?:
            \#(?P<num>\d{1,9})
          | (?P<owner>[\w.-]{1,39})/(?P<name>[\w.-]{1,100})\#(?P<num2>\d{1,9})
          | https?://[^\s/]{1,253}/(?P<uowner>[\w.-]{1,39})/(?P<uname>[\w.-]{1,100})/issues/(?P<num3>\d{1,9})
        )\b""",
    re.IGNORECASE | re.VERBOSE,
)


def closing_issues(body: str, repo: str, own: int | None = None, limit: int = 5) -> tuple[int, ...]:
    """The numbers of the issues of repo (OWNER/NAME) that body closes, in order, each once, at most limit.

    A reference to another repository links an issue the bot may not read and that says nothing of this
    one's change: it is left out, and so is own (the pull request's own number).
    """
    out: list[int] = []
    same = repo.lower()
    for m in _CLOSING_REF.finditer(body or ""):
        if m.group("num"):
            number = int(m.group("num"))
        elif m.group("num2"):
            if f"{m.group('owner')}/{m.group('name')}".lower() != same:
                continue
            number = int(m.group("num2"))
        else:
            if f"{m.group('uowner')}/{m.group('uname')}".lower() != same:
                continue
            number = int(m.group("num3"))
        if number > 0 and number != own and number not in out:
            out.append(number)
            if len(out) == limit:
                break
    return tuple(out)
