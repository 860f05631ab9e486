"""docs/rules.md is generated from the rule docstrings; every rule is documented and tested."""

from pathlib import Path

import pytest

from bot.review.docs import SECTIONS, rules_markdown, sections
from rules.catalog import REGISTRY

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


def _doc(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _model_keys(model, prefix: str) -> list[str]:
    """Every key of a model's JSON, nested models spelled `prefix.key` (lists as `prefix[].key`)."""
    from pydantic import BaseModel

    keys = []
    for name, field in model.model_fields.items():
        if field.exclude:
            continue
        keys.append(f"{prefix}{name}")
        inner = [a for a in getattr(field.annotation, "__args__", (field.annotation,)) if a is not type(None)]
        for sub in inner:
            sub = next((a for a in getattr(sub, "__args__", ()) if isinstance(a, type)), sub)
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                sep = "[]." if "tuple" in str(field.annotation) else "."
                keys.extend(_model_keys(sub, f"{prefix}{name}{sep}"))
    return keys


def _listed(doc: str, key: str) -> bool:
    parent, _, leaf = key.rpartition(".")
    return (
        f"`{key}`" in doc or any(f"`{parent}{sep}{leaf}`" in doc for sep in (".", "")) or f"`.{leaf}`" in doc
    )


def test_report_json_doc_lists_every_report_key():
    from rules.core.models import Report

    doc = _doc("docs/report-json.md")
    top = ["schema_version", *Report.model_fields]
    missing = [k for k in top if f"`{k}`" not in doc and f"`{k}[]`" not in doc and f"`{k}." not in doc]
    assert not missing, f"docs/report-json.md does not list the Report keys {missing}"
    # Nested keys may be listed in full (`coverage.files_excluded`) or after their parent (`.name`, `name`).
    # `head` has the same keys as `base`, documented once as `profiles[].base.*`.
    nested = {k.replace("[].head.", "[].base.") for k in _model_keys(Report, "") if "." in k}
    missing = sorted(k for k in nested if not _listed(doc, k))
    assert not missing, f"docs/report-json.md does not list the Report keys {missing}"


def test_configuration_doc_lists_every_config_key_with_its_default():
    from rules.core.config import Config

    doc = _doc("docs/configuration.md")
    table = [line.split("|") for line in doc.splitlines() if line.startswith("| `")]
    rows = {cells[1].strip(): cells[2] for cells in table}
    config = Config()
    for name in Config.model_fields:
        value = getattr(config, name)
        subfields = getattr(type(value), "model_fields", None)
        if subfields:
            for sub in subfields:
                key = f"`{name}.{sub}`"
                assert key in rows, f"docs/configuration.md lacks the key {key}"
                default = getattr(value, sub)
                if default is None:  # a key whose absence means something else decides
                    assert "unset" in rows[key], f"{key}: say what decides while it is unset"
                    continue
                for item in default if isinstance(default, tuple) else (default,):
                    assert f"`{item}`" in rows[key], f"{key}: default {item!r} not documented"
        else:
            assert f"`{name}`" in rows, f"docs/configuration.md lacks the key `{name}`"
            if isinstance(value, str):
                assert f"`{value}`" in rows[f"`{name}`"], f"`{name}`: default {value!r} not documented"
    for sub in ("enabled", "severity", "options"):
        assert f"`rules.<rule>.{sub}`" in rows, f"docs/configuration.md lacks `rules.<rule>.{sub}`"


def test_readme_links_every_doc():
    readme = _doc("README.md")
    docs = [p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".yml")]
    missing = [d for d in docs if f"]({d})" not in readme and f"]({d.rsplit('/', 1)[0]}/)" not in readme]
    assert not missing, f"README.md links none of {missing}"
