"""AGT005 and AGT001's evidence from `bot check --verify-tests`: real repositories, real pytest runs at head
and on the base code, the outcomes handed to the rules before they run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bot.cli.main import main

ROOT = Path(__file__).resolve().parent.parent

PYTEST = f"{sys.executable} -m pytest"

GUIDE = (
    "# Rules\n\n- Regression tests must name the PR they guard.\n"
    "- Confirm the new test fails before the fix.\n"
)
BASE = {
    "AGENTS.md": GUIDE,
    "tiny/__init__.py": "def slug(text):\n    return text.lower()\n",
    "tests/test_tiny.py": "from tiny import slug\n\n\ndef test_lower():\n    assert slug('A') == 'a'\n",
}
FIXED = (
    "def slug(text):\n    return text.lower().replace(' ', '-')\n\n\n"
    "def title(text):\n    return text.title()\n"
)
HEAD_TESTS = (
    "from tiny import slug\n\n\n"
    "def test_lower():\n    assert slug('A') == 'a'\n\n\n"
    "def test_spaces_become_dashes():\n    assert slug('A b') == 'a-b'\n\n\n"
    'def test_still_lowercase():\n    """Guards PR #7."""\n    assert slug(\'XY\') == \'xy\'\n\n\n'
    'def test_wrong_expectation():\n    """Guards PR #7."""\n    assert slug(\'a b\') == \'a_b\'\n\n\n'
    "def test_title_regression():\n    from tiny import title\n\n    assert title('a b') == 'A B'\n\n\n"
    "def test_keeps_digits():\n    assert slug('A1') == 'a1'\n"
)


@pytest.fixture(autouse=True)
def _no_write_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "BOT_TOKEN",
        "GITHUB_EVENT_NAME",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


def _check(repo, capsys, *extra: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    code = main(["check", "main..pr", "--repo", str(repo.path), "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _verified(repo, capsys, *extra: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    return _check(repo, capsys, "--verify-tests", "--verify-command", PYTEST, *extra)


def _found(report: dict, rule: str) -> dict[str, dict]:
    """rule's findings by the test their message names (`name`)."""
    out = {}
    for f in report["findings"]:
        if f["rule"] == rule and f["line"] is not None:
            out[f["message"].split("`")[1]] = f
    return out


def test_agt005_and_agt001_read_the_outcomes(make_repo, capsys) -> None:
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": HEAD_TESTS})
    code, report = _verified(repo, capsys, "--pr-title", "Fix slug: turn spaces into dashes")
    outcomes = {v["node_id"].split("::")[1]: v["outcome"] for v in report["verifications"]}
    assert outcomes == {
        "test_spaces_become_dashes": "reproduces",
        "test_still_lowercase": "does-not-reproduce",
        "test_wrong_expectation": "broken",
        "test_title_regression": "new-api",
        "test_keeps_digits": "does-not-reproduce",
    }
    agt005 = _found(report, "AGT005")
    # The regression test (its docstring names the PR it guards) that passes on the base code too; the broken
    # test whatever it is; not the plain new test that does not reproduce (nothing says it guards a fix).
    assert set(agt005) == {"test_still_lowercase", "test_wrong_expectation"}
    assert (
        "passes without the fix: it does not reproduce the bug" in agt005["test_still_lowercase"]["message"]
    )
    assert agt005["test_still_lowercase"]["severity"] == "warning"
    assert agt005["test_still_lowercase"]["source"] == "AGENTS.md:4"
    assert agt005["test_wrong_expectation"]["severity"] == "error"
    assert "fails at head" in agt005["test_wrong_expectation"]["message"]
    # AGT001: the test that reproduces is a regression test, and the message says how that was decided; the
    # new-API test is not one, though its name says "regression".
    agt001 = _found(report, "AGT001")
    assert set(agt001) == {"test_spaces_become_dashes"}
    assert agt001["test_spaces_become_dashes"]["severity"] == "error"
    assert "it fails on the base code" in agt001["test_spaces_become_dashes"]["message"]
    assert report["verdict"] == "needs-work" and code == 1


def test_without_verification_agt005_is_silent_and_agt001_reads_words(make_repo, capsys) -> None:
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": HEAD_TESTS})
    _, report = _check(repo, capsys, "--pr-title", "Turn spaces into dashes in slug")
    assert report["verifications"] == [] and _found(report, "AGT005") == {}
    # Without the run the words decide: the name that says "regression" makes a regression test.
    assert set(_found(report, "AGT001")) == {"test_title_regression"}


def test_a_pr_description_naming_the_test_makes_it_a_regression_test(make_repo, capsys, tmp_path) -> None:
    tests = BASE["tests/test_tiny.py"] + "\n\ndef test_keeps_digits():\n    assert slug('A1') == 'a1'\n"
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    body = tmp_path / "body.md"
    body.write_text("Adds `test_keeps_digits`, which guards the fix.\n", encoding="utf-8")
    _, report = _verified(repo, capsys, "--pr-title", "Keep digits in slugs", "--pr-body-file", str(body))
    (finding,) = _found(report, "AGT005").values()
    assert "the PR description names it" in finding["message"]


def test_agt005_is_off_without_the_guide_sentence_or_config(make_repo, capsys) -> None:
    base = {**BASE, "AGENTS.md": "# Rules\n\n- Regression tests must name the PR they guard.\n"}
    repo = make_repo(base, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": HEAD_TESTS})
    code, report = _verified(repo, capsys)
    assert _found(report, "AGT005") == {}
    # A broken test still blocks ready, and the exit code says so, whatever rule is on.
    assert report["verdict"] == "needs-work" and code == 1
    assert any("test_wrong_expectation" in n and "fails" in n for n in report["notes"])


def test_agt005_on_by_config(make_repo, capsys) -> None:
    base = {
        "tiny/__init__.py": BASE["tiny/__init__.py"],
        "tests/test_tiny.py": BASE["tests/test_tiny.py"],
        ".github/bot.yml": "rules:\n  AGT005:\n    enabled: true\n",
    }
    tests = BASE["tests/test_tiny.py"] + (
        '\n\ndef test_guard():\n    """Guards PR #7."""\n    assert slug(\'A1\') == \'a1\'\n'
    )
    repo = make_repo(base, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    code, report = _verified(repo, capsys)
    (finding,) = _found(report, "AGT005").values()
    assert finding["source"] is None and "does not reproduce" in finding["message"]
    assert report["verdict"] == "ready" and code == 0  # a warning: the PR can still be ready


def test_a_regression_test_that_reproduces_and_names_its_pr_passes(make_repo, capsys) -> None:
    tests = BASE["tests/test_tiny.py"] + (
        '\n\ndef test_spaces():\n    """Guards PR #7."""\n    assert slug(\'a b\') == \'a-b\'\n'
    )
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    code, report = _verified(repo, capsys)
    assert [v["outcome"] for v in report["verifications"]] == ["reproduces"]
    assert report["findings"] == [] and report["verdict"] == "ready" and code == 0


def _shown(doc: str, command: str) -> list[str]:
    """The lines of the ```text block of doc that starts with `$ command`."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    return text.split(f"```text\n$ {command}\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_bundled_example_shows_both_outcomes_as_documented(capsys) -> None:
    # The example's tests really run (with this Python's pytest): the docs show the output byte for byte.
    code = main(["example", "partial-batch", "--format", "text"])
    real = capsys.readouterr().out.splitlines()
    assert code == 0
    assert _shown("docs/verify.md", "bot example partial-batch") == real
    assert any(line.lstrip().startswith("reproduces ") for line in real)
    assert any(line.lstrip().startswith("does not reproduce ") for line in real)
    for line in _shown("README.md", "bot example partial-batch"):  # abridged: `[...]` for a message's middle
        head, _, tail = line.partition(" [...] ")
        assert any(r.startswith(head) and r.endswith(tail) for r in real), line


def test_the_example_runs_no_test_where_a_write_token_is_set(capsys, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_example")
    main(["example", "partial-batch", "--format", "json"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["verifications"] == []
    assert "tests were not run" in captured.err and "GITHUB_TOKEN" in captured.err


def test_a_test_that_fails_on_the_base_code_is_no_regression_test_in_a_feature_pr(make_repo, capsys) -> None:
    # A feature's tests fail on the base code too (here a keyword argument the change adds: a TypeError, not
    # a missing name); only a change that says it fixes something makes such a test a regression test.
    base = {**BASE, "tiny/__init__.py": "def slug(text):\n    return text.lower()\n"}
    feature = "def slug(text, sep=' '):\n    return text.lower().replace(' ', sep)\n"
    tests = (
        BASE["tests/test_tiny.py"]
        + "\n\ndef test_custom_separator():\n    assert slug('a b', sep='-') == 'a-b'\n"
    )
    repo = make_repo(base, {"tiny/__init__.py": feature, "tests/test_tiny.py": tests})
    _, report = _verified(repo, capsys, "--pr-title", "Add a separator option to slug")
    assert [v["outcome"] for v in report["verifications"]] == ["reproduces"]
    assert _found(report, "AGT001")["test_custom_separator"]["severity"] == "notice"  # not an error
    # The same change said to be a fix: the test that reproduces is its regression test.
    _, fixed = _verified(repo, capsys, "--pr-title", "Fix slug ignoring the separator")
    assert "it fails on the base code" in _found(fixed, "AGT001")["test_custom_separator"]["message"]
