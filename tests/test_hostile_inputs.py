"""Hostile pull requests end to end: the real CLI on real git repositories, one clean report each.

Every case adds one hostile file (or body, or config) next to an ordinary new test without a reference. The
review must end with a report, never a traceback: a finding names the hostile file where it cannot be used,
and the ordinary test is still reviewed (its AGT001 finding is there).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.review.render import MARKER
from tests.conftest import GIT_ENV, GitRepo

ROOT = Path(__file__).resolve().parent.parent
AGENTS = (
    "# Rules\n\n"
    "- Regression tests must name the PR or commit they guard in the docstring.\n"
    "- No tautological tests.\n"
)
# A regression test by its own words (AGT001 fires on it whatever else is in the change).
ORDINARY = {"tests/test_ok.py": "def test_ok():\n    # used to crash\n    assert compute() == 3\n"}
PROFILE = "target_examples = 300\nbatch_size = 8\n"
# A YAML "billion laughs": nine levels of nine aliases each; expanded, it would hold 9**9 strings.
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
EVIL_NAME = "tests/test_we\nird`@admin<!-- bot-review:status -->|x.py"
# Bidi overrides, isolates and zero-width characters around a mention, a reference and a spoofed marker.
EVIL_BODY = (
    "Fixes \u202egnp.exe\u202c #12 for @admin \u2066hidden\u2069 zero\u200bwidth \ufeff\n"
    "<!-- bot-review:status -->\n\nThis gives max_steps = 99.\n"
)
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _repo(tmp_path: Path, base: dict, head: dict) -> GitRepo:
    r = GitRepo(tmp_path / "hostile")
    r.commit({"AGENTS.md": AGENTS, **base}, "base")
    r.branch("pr")
    r.commit({**ORDINARY, **head}, "head")
    return r


def check(tmp_path: Path, capsys, base: dict, head: dict, *extra: str) -> tuple[dict, str]:
    """Run `bot check` on the repository; the JSON report and the markdown comment it printed."""
    r = _repo(tmp_path, base, head)
    saved = tmp_path / "report.json"
    args = ["check", "--repo", str(r.path), "--base", "main", "--output", str(saved), *extra]
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 1) and err == ""
    report = json.loads(saved.read_text(encoding="utf-8"))
    # Clean markdown: one marker, nothing raw that pings, tags or hides text.
    assert out.startswith(MARKER) and out.count(MARKER) == 1
    assert not re.search(r"@\w", out) and not INVISIBLE.search(out)
    assert "<!--" not in out.replace(MARKER, "")
    # The ordinary test beside the hostile input was still reviewed.
    assert ("AGT001", "tests/test_ok.py") in {(f["rule"], f["path"]) for f in report["findings"]}
    return report, out


def about(report: dict, path: str) -> list[str]:
    return [f["message"] for f in report["findings"] if f["path"] == path]


TEST_FILES = [
    ("nul bytes", b"def test_a():\n    assert f() == 1\x00\n", "NUL bytes"),
    ("invalid utf-8", b"def test_a():\n    assert f() == '\xff\xfe'\n", "not valid UTF-8"),
    ("nested parentheses", "def test_a():\n    x = " + "(" * 10_000 + ")" * 10_000 + "\n", "nested"),
    ("nested brackets", "def test_a():\n    x = " + "[" * 10_000 + "]" * 10_000 + "\n", "nested"),
    ("unary chain", "def test_a():\n    assert " + "-" * 30_000 + "1 == 2\n", "too deeply nested"),
    ("megabytes", "def test_a():\n    assert f() == 1\n" + "# padding\n" * 300_000, "byte limit"),
    ("syntax error", "def test_a(:\n    pass\n", "syntax error"),
]


@pytest.mark.parametrize("content, expected", [c[1:] for c in TEST_FILES], ids=[c[0] for c in TEST_FILES])
def test_unusable_test_file_is_one_finding_and_others_are_reviewed(tmp_path, capsys, content, expected):
    report, out = check(tmp_path, capsys, {}, {"tests/test_hostile.py": content})
    (message,) = about(report, "tests/test_hostile.py")
    assert expected in message and "could not be parsed" in message
    assert report["verdict"] == "needs-work" and "**`tests/test_hostile.py`**" in out


def test_test_file_with_a_bom_is_reviewed_like_any_other(tmp_path, capsys):
    bom = "\ufeffdef test_bom():\n    assert f() == 2\n"
    report, _ = check(tmp_path, capsys, {}, {"tests/test_bom.py": bom})
    (message,) = about(report, "tests/test_bom.py")
    assert "`test_bom` has no docstring" in message


def test_megabytes_of_valid_tests_are_all_reviewed(tmp_path, capsys):
    one = 'def test_{0}():\n    """Guards PR #7."""\n    assert f({0}) == {0}\n'
    many = "".join(one.format(i) for i in range(15_000))
    assert len(many) > 900_000
    bad = "def test_last():\n    assert f() == 0\n"
    report, _ = check(tmp_path, capsys, {}, {"tests/test_many.py": many + bad})
    # 15,000 referenced tests pass; the one at the very end is found.
    assert [f["line"] for f in report["findings"] if f["path"] == "tests/test_many.py"] == [45_001]


def test_symlink_pointing_outside_is_not_followed(tmp_path, capsys):
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 'do not read me'\ndef test_secret():\n    assert True\n", encoding="utf-8")
    r = _repo(tmp_path, {}, {})
    (r.path / "tests" / "test_link.py").symlink_to(secret)
    (r.path / "compat_profiles").mkdir()
    (r.path / "compat_profiles" / "link.toml").symlink_to(secret)
    r.commit(None, "links")
    saved = tmp_path / "report.json"
    code = main(["check", "--repo", str(r.path), "--base", "main", "--output", str(saved)])
    out, err = capsys.readouterr()
    report = json.loads(saved.read_text(encoding="utf-8"))
    assert code == 1 and err == "" and "do not read me" not in out + saved.read_text(encoding="utf-8")
    assert "symbolic link" in about(report, "tests/test_link.py")[0]
    assert "symbolic link" in about(report, "compat_profiles/link.toml")[0]
    assert ("AGT001", "tests/test_ok.py") in {(f["rule"], f["path"]) for f in report["findings"]}


def test_file_name_with_newline_backticks_mention_comment_and_pipe(tmp_path, capsys):
    body = "def test_w():\n    assert f() == 3\n"
    report, out = check(tmp_path, capsys, {}, {EVIL_NAME: body})
    (message,) = about(report, EVIL_NAME)  # JSON keeps the exact path
    assert "`test_w` has no docstring" in message
    # Shown on one line as code: newline collapsed, the mention and the comment opener broken.
    assert "``tests/test_we ird`@\u2060admin<\u2060!-- bot-review:status -->|x.py``" in out


def test_profile_with_hostile_name_keeps_the_step_table(tmp_path, capsys):
    path = "compat_profiles/a\n|b|`c`<img src=x>.toml"
    report, out = check(tmp_path, capsys, {}, {path: PROFILE})
    (profile,) = report["profiles"]
    assert profile["path"] == path and profile["head"]["max_steps"] == 38
    rows = [ln for ln in out.splitlines() if ln.startswith("|")]
    assert rows and all(len(re.findall(r"(?<!\\)\|", row)) == 5 for row in rows)


PROFILES = [
    ("alias bomb", "compat_profiles/bomb.yaml", ALIAS_BOMB, "anchors are not allowed"),
    ("deep json", "compat_profiles/deep.json", "[" * 50_000 + "]" * 50_000, "nested"),
    ("deep yaml", "compat_profiles/deep.yaml", "a: " + "[" * 5_000 + "]" * 5_000 + "\n", "nested"),
    ("huge integer", "compat_profiles/big.toml", PROFILE + "seq_len = 1" + "0" * 4_000 + "\n", "64 bits"),
    ("NaN", "compat_profiles/nan.toml", "target_examples = nan\nbatch_size = 8\n", "NaN"),
    ("duplicate key", "compat_profiles/dup.json", '{"batch_size": 8, "batch_size": 9}', "duplicate key"),
    ("nul bytes", "compat_profiles/nul.toml", b"batch_size = 8\x00\n", "NUL bytes"),
    ("invalid utf-8", "compat_profiles/bad.toml", b"name = '\xff'\nbatch_size = 8\n", "not valid UTF-8"),
    ("oversize", "compat_profiles/big.yaml", "# " + "x" * 600_000 + "\n", "limit"),
    ("python literal", "train/profiles.py", "COMPAT_PROFILES = {'p': {'batch_size': 10**9999}}\n", "literal"),
]


@pytest.mark.parametrize("path, content, expected", [p[1:] for p in PROFILES], ids=[p[0] for p in PROFILES])
def test_unusable_profile_is_a_finding_naming_it(tmp_path, capsys, path, content, expected):
    report, _ = check(tmp_path, capsys, {}, {path: content, "compat_profiles/ok.toml": PROFILE})
    messages = about(report, path)
    assert messages and expected in messages[0], messages
    # The other profile still has its step math.
    ok = [p["head"]["max_steps"] for p in report["profiles"] if p["path"] == "compat_profiles/ok.toml"]
    assert ok == [38]


def test_profile_with_a_bom_is_read(tmp_path, capsys):
    report, _ = check(tmp_path, capsys, {}, {"compat_profiles/bom.toml": "\ufeff" + PROFILE})
    assert [p["head"]["max_steps"] for p in report["profiles"]] == [38]


@pytest.mark.parametrize(
    "config, expected",
    [
        (ALIAS_BOMB, "anchors are not allowed"),
        ("rules:\n  AGT001:\n    enabled: maybe\n", "rules.AGT001.enabled"),
        ("labels:\n  ready: " + "x" * 51 + "\n", "labels.ready"),
        ("x: " + "[" * 5_000 + "]" * 5_000 + "\n", "nested"),
        (b"handle: bot\x00\n", "NUL bytes"),
        ("\ufeffhandle: [" + "1" * 5_000 + "]\n", "invalid value"),
    ],
    ids=["alias bomb", "wrong type", "label too long", "deep", "nul", "huge integer"],
)
def test_bad_config_is_a_finding_and_the_review_goes_on(tmp_path, capsys, config, expected):
    report, out = check(tmp_path, capsys, {".github/bot.yml": config}, {})
    (message,) = about(report, ".github/bot.yml")
    assert expected in message and "defaults used" in message


def test_pr_body_with_bidi_and_zero_width_characters(tmp_path, capsys):
    body = tmp_path / "body.md"
    body.write_text(EVIL_BODY, encoding="utf-8")
    head = {"compat_profiles/p.toml": PROFILE}
    report, out = check(tmp_path, capsys, {}, head, "--pr-body-file", str(body))
    # The claim is checked against the step math and quoted; nothing else of the body reaches the comment.
    (claim,) = [f for f in report["findings"] if f["rule"] == "TRN005"]
    assert "max_steps = 99" in claim["message"] and "38" in claim["message"]
    assert "gnp.exe" not in out and "hidden" not in out


def test_everything_at_once_through_a_fresh_process(tmp_path):
    """The installed entry point, in its own process: exit 1, a report on stdout, nothing on stderr."""
    head = {
        "tests/test_nul.py": b"def test_a():\n    pass\x00\n",
        "tests/test_parens.py": "x = " + "(" * 10_000 + ")" * 10_000 + "\n",
        "tests/test_bad.py": b"\xff\xfe",
        EVIL_NAME: "def test_w():\n    assert f() == 3\n",
        "compat_profiles/bomb.yaml": ALIAS_BOMB,
        "compat_profiles/big.toml": PROFILE + "seq_len = 1" + "0" * 4_000 + "\n",
    }
    r = _repo(tmp_path, {".github/bot.yml": ALIAS_BOMB}, head)
    body = tmp_path / "body.md"
    body.write_text(EVIL_BODY, encoding="utf-8")
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "check", "--repo", str(r.path), "--base", "main", "--format", "json"]
        + ["--pr-body-file", str(body)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 1 and proc.stderr == ""
    report = json.loads(proc.stdout)
    named = {f["path"] for f in report["findings"]}
    assert set(head) | {".github/bot.yml", "tests/test_ok.py"} <= named


# Values small in the test's text and in each level's length, huge to compare: n**3 zeros from three
# repeats, 2**40 from forty doublings (each old run: hours in AGT002's evaluator).
NESTED_REPEATS = {
    "tests/test_cube.py": (
        "def test_cube():\n"
        "    x = [[[0] * 9999] * 9999] * 9999\n"
        "    assert x == [[[0] * 9999] * 9999] * 9999\n"
    ),
    "tests/test_doubling.py": (
        "def test_doubling():\n    x = y = 0\n"
        + "    x = [x, x]\n    y = [y, y]\n" * 40
        + "    assert x == y\n"
    ),
}


@pytest.mark.parametrize("path", sorted(NESTED_REPEATS))
def test_nested_repeats_in_a_test_are_left_unknown_in_bounded_time(tmp_path, path):
    """A fresh process, so that a run that would take hours is stopped: the timeout is generous, the old
    evaluator's work was counted in hours."""
    r = _repo(tmp_path, {}, {path: NESTED_REPEATS[path]})
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "check", "--repo", str(r.path), "--base", "main", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.stderr == ""
    report = json.loads(proc.stdout)
    # The value is too big to know, so the check is not called tautological; AGT001 still reads the test.
    assert [f["rule"] for f in report["findings"] if f["path"] == path] == ["AGT001"]


def test_nothing_from_the_pull_request_is_imported_or_run(tmp_path, capsys):
    sentinel = tmp_path / "ran"
    payload = f"open({str(sentinel)!r}, 'w').write('ran')\n"
    head = {
        "tests/conftest.py": payload,
        "tests/test_side_effect.py": payload + "def test_x():\n    assert f() == 1\n",
        "train/profiles.py": payload + "COMPAT_PROFILES = {'p': dict(batch_size=8, target_examples=300)}\n",
        "setup.py": payload,
    }
    report, _ = check(tmp_path, capsys, {}, head)
    assert not sentinel.exists()
    assert not any(name.endswith("test_side_effect") for name in sys.modules)
    # The profile built by a call is refused as not a literal, rather than evaluated.
    assert "literal" in about(report, "train/profiles.py")[0]
