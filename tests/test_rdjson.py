"""`bot check --format rdjson`: reviewdog's Diagnostic Format, checked field by field against its schema.

The schema (reviewdog's proto/rdf/jsonschema/DiagnosticResult.json, JSON Schema draft-04, MIT) declares no
`required` list: every field is optional, and only the description of a Range's `start` says "Required.".
What it does fix are the fields' types and the severity names; `_check_*` below restate them by hand (the
schema is not copied here), and each diagnostic is also checked to carry what reviewdog needs to place it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.core.lines import git_lines
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent
UNNAMED = "def test_crash_regression():\n    assert f()\n"
PROFILE = "name = 'p'\ntarget_micro_steps = 300\nbatch_size = 8\n\n[expect]\nmax_steps = 38\n"
PROFILE_PATH = "training/compat_profiles/p.toml"
SEVERITIES = {"UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"}  # the schema's enum, as names


def _check_position(position: Any) -> None:
    assert isinstance(position, dict) and set(position) <= {"line", "column"}
    assert all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in position.values())


def _check_range(rng: Any) -> None:
    assert isinstance(rng, dict) and set(rng) <= {"start", "end"} and "start" in rng  # start: "Required."
    for position in rng.values():
        _check_position(position)


def _check_named(value: Any, key: str) -> None:
    """A Source (`name`, `url`) or a Code (`value`, `url`): strings."""
    assert isinstance(value, dict) and set(value) <= {key, "url"} and isinstance(value[key], str)
    assert all(isinstance(v, str) for v in value.values())


def _check_diagnostic(d: Any) -> None:
    allowed = {"message", "location", "severity", "source", "code", "suggestions", "original_output"}
    assert isinstance(d, dict) and set(d) <= allowed | {"images"}
    assert isinstance(d["message"], str) and d["message"]
    assert d["severity"] in SEVERITIES
    _check_named(d["source"], "name")
    _check_named(d["code"], "value")
    if "location" in d:
        loc = d["location"]
        assert isinstance(loc, dict) and set(loc) <= {"path", "range"} and isinstance(loc["path"], str)
        if "range" in loc:
            _check_range(loc["range"])
    for suggestion in d.get("suggestions", []):
        assert set(suggestion) <= {"range", "text"} and isinstance(suggestion["text"], str)
        _check_range(suggestion["range"])


def check_result(data: Any) -> None:
    """A DiagnosticResult as the schema types it."""
    assert isinstance(data, dict) and set(data) <= {"diagnostics", "source", "severity"}
    _check_named(data["source"], "name")
    assert isinstance(data["diagnostics"], list)
    for d in data["diagnostics"]:
        _check_diagnostic(d)


def _bot(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=repo, env=env, capture_output=True, text=True
    )


@pytest.fixture
def repo(make_repo):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": UNNAMED, PROFILE_PATH: PROFILE})
    r.git("checkout", "-q", "pr")
    return r


def test_check_prints_rdjson_reviewdog_can_place(repo):
    proc = _bot(repo.path, "check", "--base", "main", "--pr-number", "7", "--format", "rdjson")
    assert proc.returncode == 1, proc.stderr  # the AGT001 error, as for every format
    data = json.loads(proc.stdout)
    check_result(data)
    by_code = {d["code"]["value"]: d for d in data["diagnostics"]}
    assert set(by_code) == {"AGT001", "TRN001"} and data["source"] == {"name": "bot"}
    agt, trn = by_code["AGT001"], by_code["TRN001"]
    assert agt["severity"] == "ERROR" and agt["location"] == {
        "path": "tests/test_a.py",
        "range": {"start": {"line": 1}},
    }
    assert "`test_crash_regression`" in agt["message"]
    assert trn["location"]["path"] == PROFILE_PATH and trn["severity"] == "ERROR"


def test_rdjson_suggestions_applied_linewise_give_what_fix_writes(repo):
    """reviewdog applies a Range without columns to whole lines, start to end: doing that with each
    suggestion gives the files `bot check --fix` writes."""
    proc = _bot(repo.path, "check", "--base", "main", "--pr-number", "7", "--format", "rdjson")
    data = json.loads(proc.stdout)
    suggested = {}
    for d in data["diagnostics"]:
        (s,) = d["suggestions"]
        path = d["location"]["path"]
        lines = git_lines((repo.path / path).read_text(encoding="utf-8"))
        start, end = s["range"]["start"]["line"], s["range"]["end"]["line"]
        suggested[path] = "\n".join([*lines[: start - 1], *s["text"].split("\n"), *lines[end:]]) + "\n"
    assert _bot(repo.path, "check", "--base", "main", "--pr-number", "7", "--fix").returncode == 0
    assert suggested == {p: (repo.path / p).read_text(encoding="utf-8") for p in suggested}


def test_a_finding_without_a_file_is_placed_at_its_policy_line_and_nothing_is_dropped(make_repo):
    """A PR-wide notice has no file: it is placed at the AGENTS.md line that asks for the rule."""
    head = {f"tests/test_{i}.py": f"def test_area_{i}():\n    assert f({i})\n" for i in range(5)}
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, head)
    r.git("checkout", "-q", "pr")
    text = _bot(r.path, "check", "--base", "main", "--format", "json")
    rd = _bot(r.path, "check", "--base", "main", "--format", "rdjson")
    report, data = json.loads(text.stdout), json.loads(rd.stdout)
    check_result(data)
    assert len(data["diagnostics"]) == len(report["findings"]) > 0
    for finding, d in zip(report["findings"], data["diagnostics"], strict=True):
        if finding["path"] is None and finding.get("source"):
            path, _, line = finding["source"].rpartition(":")
            assert d["location"] == {"path": path, "range": {"start": {"line": int(line)}}}


def test_untrusted_text_reaches_the_message_sanitised(make_repo):
    """reviewdog posts the message as markdown into the pull request: a test name cannot inject HTML."""
    name = "test_x_regression"
    source = f'def {name}():\n    """<img src=x onerror=alert(1)> fails."""\n    assert f()\n'
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": source})
    r.git("checkout", "-q", "pr")
    data = json.loads(_bot(r.path, "check", "--base", "main", "--format", "rdjson").stdout)
    check_result(data)
    assert all("<img" not in d["message"] for d in data["diagnostics"])
