"""Test outcomes read from the JUnit XML pytest writes (`--junitxml`), by pytest node id."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from rules.core.verification import Run

# The report comes from a run of the pull request's code: a larger one is not read.
MAX_XML_BYTES = 16 * 1024 * 1024
_DETAIL_CHARS = 2000
# An exception's name at the start of a line: anchored, so each line is read once.
_EXCEPTION = re.compile(r"\w+(?:Error|Exception|Exit)\b")


def address(node_id: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit report gives a node id: `tests/test_a.py::TestX::test_y` is
    (`tests.test_a.TestX`, `test_y`); a file alone (its collection error) is (``, `tests.test_a`)."""
    names = node_id.split("::")
    names[0] = names[0].replace("/", ".").removesuffix(".py")
    return ".".join(names[:-1]), names[-1]


def _exception_line(text: str) -> str:
    """The last `E   SomeError: ...` line of pytest's long report, which names what the test died of."""
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    named = [line for line in lines if _EXCEPTION.match(line)]
    return (named or lines or [""])[-1]


def _unparametrised(name: str) -> str:
    """`test_x[1-a]` -> `test_x`: every parametrisation counts for the test."""
    return name.partition("[")[0] if name.endswith("]") else name


def _run(case: ET.Element) -> Run:
    for tag, status in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        child = case.find(tag)
        if child is None:
            continue
        message = child.get("message", "")
        text = child.text or ""
        if status == "error" and message == "collection failure":
            status = "uncollected"
        detail = message
        line = _exception_line(text) if status != "skipped" else ""
        if line and line not in message:
            detail = f"{message} ({line})" if message and status != "uncollected" else line
        return Run(status=status, detail=detail[:_DETAIL_CHARS])  # type: ignore[arg-type]
    return Run(status="passed")


def read(path: Path) -> dict[tuple[str, str], list[Run]] | None:
    """Each test case's runs by (classname, name without its parameters); None when there is no readable
    report (pytest did not get to write one)."""
    try:
        if path.stat().st_size > MAX_XML_BYTES:
            return None
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    out: dict[tuple[str, str], list[Run]] = {}
    for case in root.iter("testcase"):
        key = (case.get("classname", ""), _unparametrised(case.get("name", "")))
        out.setdefault(key, []).append(_run(case))
    return out


def outcome(cases: dict[tuple[str, str], list[Run]], node_id: str) -> Run:
    """A test's run from the report: every parametrisation passed, the first that failed, a collection
    error of its file, or skipped; missing when the report does not hold it."""
    runs = cases.get(address(node_id))
    if not runs:
        runs = cases.get(address(node_id.split("::")[0]))  # its file could not be collected
        if runs and runs[0].status in ("uncollected", "error"):
            return Run(status="uncollected", detail=runs[0].detail)
        return Run(status="missing")
    for status in ("failed", "error", "uncollected", "passed"):
        found = next((r for r in runs if r.status == status), None)
        if found is not None:
            return found
    return runs[0]
