"""`bot check --fix` and `--diff`: the fixes the rules computed, as a patch or written into the work tree."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rules.core.fixes import apply
from rules.core.lines import git_lines_keepends
from rules.core.models import ChangeSet, Finding, Fix, Report, UnreadableFile, decode_text
from rules.core.sanitize import one_line

_BOM = "\ufeff"


@dataclass
class Outcome:
    """What --fix or --diff did: the patch, the fixes applied, and files left alone with why."""

    patch: str = ""
    applied: list[Fix] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        return len({f.path for f in self.applied})


def _by_path(findings: tuple[Finding, ...]) -> dict[str, list[Fix]]:
    out: dict[str, list[Fix]] = {}
    for finding in findings:
        if finding.fix is not None:
            out.setdefault(finding.fix.path, []).append(finding.fix)
    return out


def _inside(top: Path, path: str) -> Path | None:
    """The file path names in the work tree, or None when it leaves the tree or is a symbolic link."""
    target = top / path
    try:
        if target.is_symlink() or not target.resolve().is_relative_to(top.resolve()):
            return None
    except OSError:
        return None
    return target


def fix(report: Report, changeset: ChangeSet, top: Path, write: bool) -> Outcome:
    """Apply every fix of the report to the text the review read; with write, save the files that still
    hold that text (a file edited since the review is left alone and named)."""
    out = Outcome()
    patches = []
    for path, fixes in sorted(_by_path(report.findings).items()):
        try:
            text = changeset.head_text(path)
        except UnreadableFile as exc:
            out.skipped.append(f"{path}: {exc.reason}")
            continue
        if text is None:
            continue
        done = apply(text, fixes)
        if not done.applied:
            continue
        if write:
            problem = _write(top, path, text, done.text)
            if problem:
                out.skipped.append(f"{path}: {problem}")
                continue
        out.applied.extend(done.applied)
        # In git's lines, as the fixes are numbered and as `git apply` reads the patch.
        diff = difflib.unified_diff(
            git_lines_keepends(text), git_lines_keepends(done.text), f"a/{path}", f"b/{path}"
        )
        # A last line without a newline gets git's marker after it, on either side, as `git apply` needs.
        patches.append(
            "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in diff)
        )
    out.patch = "".join(patches)
    return out


# A line feed git's checkout turns into CRLF (core.autocrlf=true, `eol=crlf`): one not already after a CR.
_LONE_LF = re.compile(r"(?<!\r)\n")


def _crlf(text: str) -> str:
    return _LONE_LF.sub("\r\n", text)


def _checkout_form(reviewed: str, current: str) -> Callable[[str], str] | None:
    """How the work tree's file holds the reviewed text, as a function that puts a fixed text in the same
    form; None when it holds other text.

    The review reads blobs, which git keeps with LF endings; a checkout with core.autocrlf=true (Git for
    Windows' default) or `eol=crlf` writes them with CRLF. Comparing those bytes with the blob's text
    would call every such file changed, forever; writing the blob's form would turn every line of it
    into a change. The file keeps its own endings, so a second --fix finds the text it wrote.
    """
    if current == reviewed:
        return str
    if "\n" in reviewed and _crlf(reviewed) == current:
        return _crlf
    return None


def _write(top: Path, path: str, reviewed: str, new: str) -> str | None:
    """Write new over the file if it still holds the reviewed text; otherwise say why not."""
    target = _inside(top, path)
    if target is None:
        return "not a regular file inside the repository"
    try:
        data = target.read_bytes()
        current = decode_text(path, data)
    except (OSError, UnreadableFile):
        return "cannot be read"
    checked_out = _checkout_form(reviewed, current)
    if checked_out is None:
        return "changed since the review; run `bot check --fix` again"
    bom = _BOM if data.startswith(_BOM.encode()) else ""
    try:
        target.write_bytes((bom + checked_out(new)).encode("utf-8"))
    except OSError as exc:
        return f"cannot be written: {exc.strerror}"
    return None


def summary(outcome: Outcome, report: Report, wrote: bool) -> str:
    """One line per fix applied, what was left alone, and the findings no fix resolves."""
    lines = []
    verb = "fixed" if wrote else "would fix"
    for f in outcome.applied:
        rule = f.key.split(":", 1)[0]
        lines.append(f"{f.path}:{f.start_line}: {rule} {verb}")
    lines.extend(f"{s} (not fixed)" for s in outcome.skipped)
    done = {f.key for f in outcome.applied}
    rest = [f for f in report.findings if f.fix is None or f.fix.key not in done]
    lacking_number = report.pr_number is None and any(f.rule == "AGT001" and f.fix is None for f in rest)
    count, files = len(outcome.applied), outcome.files
    head = f"{count} fix{'es' if count != 1 else ''} {'applied' if wrote else 'to apply'}"
    people = f"{len(rest)} finding(s) need a person" + (":" if rest else ".")
    lines.append(f"{head} in {files} file{'s' if files != 1 else ''}; {people}")
    for left in rest:  # what is left, each where an editor can jump to it
        where = f"{one_line(left.path, 500)}:{left.line}: " if left.path and left.line else ""
        where = where or (f"{one_line(left.path, 500)}: " if left.path else "")
        lines.append(f"  {where}{left.rule} {left.name}")
    if lacking_number:
        lines.append("AGT001 writes the docstring only when it knows the pull request: give --pr-number N.")
    return "\n".join(lines) + "\n"


def as_json(outcome: Outcome, report: Report, wrote: bool) -> str:
    """--fix or --diff with --format json: what was (or would be) fixed, what was left alone and why, the
    findings no fix resolves (as the Report writes findings) and the patch."""
    done = {f.key for f in outcome.applied}
    rest = [f for f in report.findings if f.fix is None or f.fix.key not in done]
    data = {
        "wrote": wrote,
        "applied": [
            {"rule": f.key.split(":", 1)[0], "path": f.path, "line": f.start_line, "key": f.key}
            for f in outcome.applied
        ],
        "skipped": list(outcome.skipped),
        "left": [f.model_dump(mode="json", exclude={"fix"}) for f in rest],
        "patch": outcome.patch,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
