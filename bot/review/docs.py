"""Rule documentation generated from the rules' docstrings (`bot rules`, docs/rules.md)."""

from __future__ import annotations

import re

from rules.catalog import REGISTRY

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


def sections(doc: str) -> dict[str, str]:
    """The `## Heading` sections of a rule docstring, by heading."""
    parts = re.split(r"^## (.+)$", doc, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def rules_markdown() -> str:
    out = [
        "# Rules",
        "",
        "Generated from the rules' docstrings by `bot rules --format markdown`; do not edit by hand.",
        "",
        "| Code | Name | Default severity | Enabled |",
        "|---|---|---|---|",
    ]
    for rule in REGISTRY.values():
        on = "always" if rule.on_by_default else "when an AGENTS.md asks for it, or in `.github/bot.yml`"
        out.append(
            f"| [{rule.code}](#{rule.code.lower()}-{rule.name}) | `{rule.name}` | {rule.severity} | {on} |"
        )
    for rule in REGISTRY.values():
        out += ["", f"## {rule.code} {rule.name}", "", rule.summary]
        for title, body in sections(rule.doc).items():
            out += ["", f"### {title}", "", body]
        if rule.recognisers:
            out += ["", "### Recognised in AGENTS.md", ""]
            if rule.phrases:
                out += ["Sentences like these turn it on for the AGENTS.md's folder:", ""]
                out += [f"- {phrase}" for phrase in rule.phrases]
            else:
                out += [f"- `{pattern}`" for pattern in rule.recognisers]
            out += [
                "",
                f'A sentence naming `{rule.code}` or `{rule.name}` with "on" or "applies" turns it on; '
                'with "off", "does not apply" or "exempt" (or a matching sentence that says '
                '"need not") turns it off for that folder.',
            ]
        if rule.options:
            out += ["", "### Options", ""]
            out += [f"- `{key}` (default `{value}`)" for key, value in rule.options.items()]
    return "\n".join(out) + "\n"


def rules_text() -> str:
    lines = []
    for rule in REGISTRY.values():
        lines.append(f"{rule.code}  {rule.name}  [{rule.severity}]")
        lines.append(f"    {rule.summary}")
    lines.append("")
    lines.append("`bot rules --format markdown` prints the full documentation.")
    return "\n".join(lines) + "\n"
