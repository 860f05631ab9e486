"""The Report as SARIF 2.1.0, the subset GitHub code scanning accepts, with each rule's documentation.

GitHub's requirements: https://docs.github.com/code-security/code-scanning/integrating-with-code-scanning/
sarif-support-for-code-scanning (every result needs a message and a location with a repository-relative URI
and a start line; 25,000 results and rules per run; 20 tags per rule; 10 MB per upload).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import quote

from bot import __version__
from bot.review.docs import sections
from rules.catalog import REGISTRY
from rules.core import sanitize
from rules.core.base import Rule
from rules.core.models import Finding, Report, Severity
from rules.core.sanitize import one_line

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTICE: "note"}
MAX_RESULTS = 25_000
_SOURCE = re.compile(r"^(?P<path>.+):(?P<line>[1-9][0-9]*)$")
_SPAN = re.compile(r"`([^`\n]+)`")
_DIGITS = re.compile(r"[0-9]+")
# partialFingerprints key: code scanning matches an alert across runs by it when lines move.
FINGERPRINT = "botFindingHash/v1"


def _plain(markdown: str) -> str:
    """Rule documentation without headings' `##` and emphasis, for viewers that show `help.text` as is."""
    return re.sub(r"^## (.+)$", r"\1:", markdown, flags=re.MULTILINE).replace("**", "")


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    """A reportingDescriptor from the rule's registry entry and its docstring sections."""
    parts = sections(rule.doc)
    markdown = "\n\n".join(f"## {title}\n\n{body}" for title, body in parts.items())
    family = "training" if rule.code.startswith("TRN") else "agents-md"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _plain(parts.get("What it does", rule.summary))},
        "help": {"text": _plain(markdown) or rule.summary, "markdown": markdown or rule.summary},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [family, "maintainability"]},
    }


def _adhoc_descriptor(f: Finding) -> dict[str, Any]:
    """A finding whose code is not in the registry (a config problem): its own name and severity."""
    return {
        "id": f.rule,
        "name": f.name,
        "shortDescription": {"text": one_line(f.name, 200)},
        "defaultConfiguration": {"level": LEVELS[f.severity]},
    }


def _location(path: str, line: int | None) -> dict[str, Any]:
    # A repository-relative URI: GitHub resolves it against the checkout; a file-level finding points at
    # its first line, since code scanning places every alert on a line.
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": quote(path, safe="/")},
            "region": {"startLine": line or 1},
        }
    }


def _text(f: Finding) -> str:
    """The message as plain text: viewers show `message.text` as it is, so no backticks of code spans."""
    return _SPAN.sub(r"\1", one_line(f.message, 4000))


def _message(f: Finding) -> dict[str, str]:
    # The AGENTS.md line a finding enforces is its related location, said once there, not in every message.
    return {"text": _text(f), "markdown": sanitize.message(f.message, 4000)}


def _subject(f: Finding) -> str:
    """What a finding is about, without the numbers that move: the message with digits outside code spans
    (values, counts, line numbers) made 0; code spans (a test's name, a profile's key) kept whole."""
    out, pos = [], 0
    for m in _SPAN.finditer(f.message):
        out += [_DIGITS.sub("0", f.message[pos : m.start()]), m.group(0)]
        pos = m.end()
    out.append(_DIGITS.sub("0", f.message[pos:]))
    return "".join(out)


def fingerprints(findings: tuple[Finding, ...]) -> list[str]:
    """A fingerprint per finding that survives lines moving: its rule, its file (else its policy line) and
    its subject, hashed; findings alike in all three are told apart by their order (`hash:1`, `hash:2`), as
    GitHub's own line hashes are."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        key = "\0".join((f.rule, f.path or f.source or "", _subject(f)))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        out.append(f"{digest}:{seen[digest]}")
    return out


def result(f: Finding, index: int, fingerprint: str | None = None) -> dict[str, Any] | None:
    """A SARIF result for a finding: at its file and line, else at the AGENTS.md line that asks for the
    rule; None when it points nowhere in the repository (code scanning refuses results without a place)."""
    out: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVELS[f.severity],
        "message": _message(f),
    }
    if fingerprint:
        out["partialFingerprints"] = {FINGERPRINT: fingerprint}
    source = _SOURCE.match(f.source or "")
    if f.path:
        out["locations"] = [_location(f.path, f.line)]
        if source:
            said = f": \u201c{one_line(f.source_text, 1000)}\u201d" if f.source_text else ""
            out["relatedLocations"] = [
                {
                    "id": 1,
                    **_location(source["path"], int(source["line"])),
                    "message": {"text": f"the policy this enforces{said}"},
                }
            ]
    elif source:
        out["locations"] = [_location(source["path"], int(source["line"]))]
    else:
        return None
    return out


def to_sarif(report: Report) -> dict[str, Any]:
    """A SARIF log with one run: every registered rule, and a result per finding that has a place; the
    others become tool notifications so that nothing is silently dropped."""
    descriptors = [rule_descriptor(rule) for rule in REGISTRY.values()]
    index = {rule.code: i for i, rule in enumerate(REGISTRY.values())}
    for f in report.findings:
        if f.rule not in index:
            index[f.rule] = len(descriptors)
            descriptors.append(_adhoc_descriptor(f))
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for f, fingerprint in zip(report.findings, fingerprints(report.findings), strict=True):
        item = result(f, index[f.rule], fingerprint) if len(results) < MAX_RESULTS else None
        if item is not None:
            results.append(item)
        else:
            notifications.append(
                {
                    "level": LEVELS[f.severity],
                    "message": {"text": f"{f.rule}: {_text(f)}"},
                    "associatedRule": {"id": f.rule, "index": index[f.rule]},
                }
            )
    # A review that could not see files a rule reads did not do its whole job: say so where SARIF says it.
    notifications += [
        {"level": "error", "message": {"text": f"Review not complete: could not see {missing}."}}
        for missing in report.incomplete
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "bot",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }
        },
        "results": results,
        "invocations": [
            {
                "executionSuccessful": not report.incomplete,
                **({"toolExecutionNotifications": notifications} if notifications else {}),
            }
        ],
        "columnKind": "unicodeCodePoints",
    }
    properties: dict[str, Any] = {}
    if report.head_sha:
        properties.update(baseSha=report.base_sha, headSha=report.head_sha)
    if report.verifications:
        # `bot check --verify-tests`: facts about tests, not findings; a property bag keeps them out of the
        # alerts of code scanning and in the log.
        properties["verifications"] = [
            {
                "nodeId": v.node_id,
                "path": v.path,
                "state": v.state,
                "outcome": v.outcome.value,
                "reason": v.reason,
                **({"line": v.line} if v.line else {}),
                **({"reportedByPullRequestJob": True} if v.reported else {}),
            }
            for v in report.verifications
        ]
    if properties:
        run["properties"] = properties
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def to_sarif_json(report: Report) -> str:
    return json.dumps(to_sarif(report), indent=2, ensure_ascii=False) + "\n"
