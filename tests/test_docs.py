"""docs/rules.md is generated from the rule docstrings; every rule is documented and tested."""

from pathlib import Path

import pytest

from bot.docs import SECTIONS, rules_markdown, sections
from rules import REGISTRY

ROOT = Path(__file__).resolve().parent.parent


def test_rules_md_is_up_to_date():
    current = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    assert current == rules_markdown(), (
        "docs/rules.md is out of date: run `python3 -m bot rules --format markdown > docs/rules.md`"
    )


@pytest.mark.parametrize("code", list(REGISTRY))
def test_rule_docstring_has_every_section(code):
    rule = REGISTRY[code]
    found = sections(rule.doc)
    missing = [s for s in SECTIONS if not found.get(s)]
    assert not missing, f"{code} docstring lacks sections {missing}"
    assert rule.doc.splitlines()[0].startswith(f"{code} {rule.name}:"), "first line: `CODE name: summary`"


@pytest.mark.parametrize("code", list(REGISTRY))
def test_rule_has_tests(code):
    # A rule's tests name its code (fires / silent / edge tables); this file's own listing does not count.
    files = [p for p in (ROOT / "tests").rglob("test_*.py") if p.name != "test_docs.py"]
    assert any(f'"{code}"' in p.read_text(encoding="utf-8") for p in files), f"no test names {code}"


def test_rules_with_recognisers_document_phrases():
    for rule in REGISTRY.values():
        if rule.recognisers:
            assert rule.phrases, f"{rule.code} has recognisers but no example phrases"
