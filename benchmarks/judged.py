"""The judged cases of the signal benchmark, and how a Report is scored against one."""

from __future__ import annotations

import ast
import csv
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rules.core.config import Config, RuleSetting
from rules.core.models import Report, Severity

CASES = Path(__file__).resolve().parent / "judged_cases.csv"

# pytest's AGENTS.md asks nothing of regression tests (no busy permissively licensed Python repository
# whose AGENTS.md does was found); its tests often cite the issue they guard, so the rules are turned on
# for it by a config override, as `.github/bot.yml` would.
OVERRIDE = Config(rules={"AGT001": RuleSetting(enabled=True), "AGT002": RuleSetting(enabled=True)})


@dataclass(frozen=True)
class Case:
    """One judged case: does the rule rightly fire on this test, line or profile?"""

    repo: str
    commit: str
    path: str
    test: str
    line: int | None
    rule: str
    expected: bool
    reason: str
    extract: str


def case_of(row: dict[str, str]) -> Case:
    """One judged case from its CSV row (the columns of judged_cases.csv and holdout/agt001-*.csv)."""
    return Case(
        repo=row["repository"],
        commit=row["commit"],
        path=row["path"],
        test=row["test"],
        line=int(row["line"]) if row["line"] else None,
        rule=row["rule"],
        expected={"yes": True, "no": False}[row["expected"]],
        reason=row["reason"],
        extract=row.get("extract") or "",
    )


def load_cases(path: Path = CASES) -> list[Case]:
    """The cases of the CSV file (lines starting with # are comments)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return [case_of(row) for row in csv.DictReader(line for line in fh if not line.startswith("#"))]


# The Prime-RL check that is not a rule code: whether a changed config is shown as an SFT profile.
PROFILE_CHECK = "SFT-PROFILE"


def lines_of_test(text: str | None, qualname: str) -> frozenset[int]:
    """The lines a finding on a test may point at (its decorators through its `def`); empty if not found."""
    if not text or not qualname:
        return frozenset()
    try:
        body = ast.parse(text).body
    except SyntaxError:  # newer syntax than this Python's: find the `def` by name
        name = re.escape(qualname.rsplit(".", 1)[-1])
        found = re.compile(rf"^\s*(?:async\s+)?def\s+{name}\s*\(")
        return frozenset(n for n, line in enumerate(text.splitlines(), 1) if found.match(line))
    node: ast.stmt | None = None
    for part in qualname.split("."):
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        node = next((n for n in body if isinstance(n, kinds) and n.name == part), None)
        if node is None:
            return frozenset()
        body = node.body
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return frozenset(range(first, node.lineno + 1))


def flagged(report: Report, case: Case, head_text: str | None = None) -> bool:
    """Whether the report says what the case is about (see benchmarks/README.md for each rule's test).

    A finding is on the case's test when it names the test or points at its lines in head_text.
    """
    if case.rule == PROFILE_CHECK:
        return any(case.path in (p.path, p.head and p.head.config_path) for p in report.profiles)
    lines = lines_of_test(head_text, case.test) | ({case.line} if case.line is not None else set())
    for f in report.findings:
        if f.rule != case.rule or f.path != case.path:
            continue
        # AGT001's one notice for a whole PR is not a verdict on a test: only per-test findings count.
        if case.rule == "AGT001" and f.severity is Severity.NOTICE:
            continue
        if not case.test and case.line is None:
            return True
        if (case.test and f"`{case.test}`" in f.message) or f.line in lines:
            return True
    return False


REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
# Between two commit messages in an extract's message.txt (newest first, as `git log` lists them).
COMMIT_SEPARATOR = "\n-- next commit (older) --\n"
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "extract",
    "GIT_AUTHOR_EMAIL": "extract@invalid",
    "GIT_COMMITTER_NAME": "extract",
    "GIT_COMMITTER_EMAIL": "extract@invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def build_extract(extract: Path, dest: Path) -> tuple[str, str]:
    """A git repository at dest from an extract: its base on main, then its head with the real message.

    The head tree replaces the base tree (files only at base are deleted, and git pairs renames itself);
    `.github/bot.yml`, the trusted config, is read at base and stays. Returns the base and head SHAs (more
    than one commit may lie between them). The commits are written by one `git fast-import` and nothing is
    checked out: a review reads the commits, and the suite builds 124 of these.
    """
    env = {**os.environ, **_GIT_ENV, "HOME": str(dest)}
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dest, env=env, capture_output=True, check=True)
    base, head = _files(extract / "base"), _files(extract / "head")
    head = {**{p: data for p, data in base.items() if p.startswith(".github/")}, **head}
    # The commits the change brings, newest first: the older ones become empty commits before the head's,
    # so that the review reads each message as its own commit, as it does in the clone.
    messages = (extract / "message.txt").read_text(encoding="utf-8").split(COMMIT_SEPARATOR)
    stream = bytearray()
    commits = [("base", base), *((older, None) for older in reversed(messages[1:])), (messages[0], head)]
    for mark, (message, tree) in enumerate(commits, start=1):
        text = _clean_message(message).encode("utf-8")
        stream += b"commit refs/heads/main\nmark :%d\n" % mark
        stream += b"committer extract <extract@invalid> now\ndata %d\n%s\n" % (len(text), text)
        if mark > 1:
            stream += b"from :%d\n" % (mark - 1)
        if tree is not None:
            stream += b"deleteall\n"
            for path, data in sorted(tree.items()):
                stream += b"M 100644 inline %s\ndata %d\n%s\n" % (_quote(path), len(data), data)
    marks = dest / ".git" / "extract-marks"
    subprocess.run(
        ["git", "fast-import", "--quiet", "--date-format=now", f"--export-marks={marks}"],
        cwd=dest, env=env, input=bytes(stream), capture_output=True, check=True,
    )  # fmt: skip
    sha = dict(line.split() for line in marks.read_text(encoding="ascii").splitlines())
    return sha[":1"], sha[f":{len(commits)}"]


def _clean_message(message: str) -> str:
    """A message as `git commit -m` stores it: lines without trailing spaces, no leading or trailing blank
    lines, runs of blank lines made one, and a final newline."""
    lines: list[str] = []
    for line in message.split("\n"):
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def _quote(path: str) -> bytes:
    """A path as fast-import reads it: C-style quoted when it holds a quote, a backslash or a control."""
    raw = path.encode("utf-8")
    if not re.search(rb'[\x00-\x1f"\\]', raw) and not raw.startswith(b'"'):
        return raw
    body = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    return b'"' + body + b'"'
