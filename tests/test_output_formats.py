"""`bot check --format text|markdown|json|sarif|github` on real repositories, the terminal default (in a real
pseudo-terminal), NO_COLOR, and ranges that hold nothing to review."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from bot.cli.main import main
from bot.github.actions import annotation_lines
from bot.review.render import render_comment
from bot.review.sarif import to_sarif
from bot.review.terminal import render_text
from rules.catalog import REGISTRY
from rules.core.models import Coverage, Finding, Report, Severity
from tests.helpers import AGENTS_AGT001

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests/fixtures/sarif/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
MOBILE300 = str(ROOT / "examples/mobile300")
NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What GitHub's markdown needs and a terminal must not show.
MARKDOWN_ONLY = ("&gt;", "&lt;", "&amp;", "\\_", "<br>", "<sub>", "**", "\u2060")


def _check(capsys, repo: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def agt001_repo(make_repo):
    return make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})


def test_text_is_one_line_per_finding_and_a_summary(agt001_repo, capsys):
    code, out, _ = _check(capsys, agt001_repo.path, "--format", "text")
    assert code == 1
    lines = out.splitlines()
    assert re.match(r"^tests/test_a\.py:1: AGT001 New test `test_new` has a docstring", lines[0])
    assert lines[0].endswith("(error, per AGENTS.md:3)")
    assert lines[-1] == (
        "needs work: 1 error, 0 warnings, 0 notices; 1 of 1 changed file reviewed (main...pr); "
        "labels: status:needs-work"
    )
    assert not ANSI.search(out)  # not a terminal: no colour even when asked for text


def test_text_has_nothing_only_markdown_needs(agt001_repo, capsys):
    """The proposed docstring is copied from the terminal into code: `<number>` with no word joiner."""
    _, text, _ = _check(capsys, agt001_repo.path, "--format", "text")
    _, markdown, _ = _check(capsys, agt001_repo.path, "--format", "markdown")
    assert '"""Checks a thing no longer overflows. Guards PR #<number>."""' in text
    assert "<\u2060number>" in markdown  # the comment keeps its guard against HTML
    for needle in MARKDOWN_ONLY:
        assert needle not in text, needle
    assert not [ch for ch in text if ch != "\n" and not ch.isprintable()]


def test_text_makes_hostile_characters_visible():
    """A message or path from a pull request cannot drive the terminal or hide text."""
    hostile = Finding(
        rule="AGT001",
        name="regression-test-without-reference",
        severity=Severity.ERROR,
        path="tests/test_\x1b[2J.py",
        line=3,
        message="bad \u202etext\nsecond line & <b>",
    )
    report = Report(
        verdict="needs-work",
        labels=(),
        findings=(hostile,),
        coverage=Coverage(files_changed=1, files_reviewed=1),
    )
    out = render_text(report)
    assert "\x1b" not in out and "\u202e" not in out
    assert "tests/test_<U+001B>[2J.py:3: AGT001 bad <U+202E>text second line & <b> (error)" in out
    assert "\x1b[31mAGT001\x1b[0m" in render_text(report, colour=True)


def test_text_step_table_is_aligned(capsys):
    capsys.readouterr()
    assert main(["example", MOBILE300, "--format", "text"]) == 1
    out = capsys.readouterr().out
    rows = out.split("\n\n")[0].splitlines()
    assert rows[1].startswith("training/compat_profiles/env0-mobile300-pr828.toml  env0-mobile300-pr828")
    table = rows[2:]
    head_column = table[0].index("head")
    assert all(row[head_column - 2 : head_column] == "  " for row in table)
    max_steps = next(row for row in table if row.split()[0] == "max_steps")
    assert max_steps.split() == ["max_steps", "38", "37", "*"]
    assert "  batch size             8         8" in table
    assert "tests/test_train_cli.py:9: AGT001 " in out
    assert "training/compat_profiles/env0-mobile300-pr828.toml: TRN004 " in out
    assert out.splitlines()[-1].startswith("needs work: 1 error, 0 warnings, 1 notice; 3 of 3 changed files")


def test_markdown_is_the_comment_as_posted(agt001_repo, capsys):
    from bot.git.local import load_changeset
    from bot.review.engine import review

    _, out, _ = _check(capsys, agt001_repo.path, "--format", "markdown")
    _, default, _ = _check(capsys, agt001_repo.path)  # stdout is not a terminal here: markdown
    expected = render_comment(review(load_changeset(agt001_repo.path, base="main", head="pr")))
    assert out == default == expected


def test_json_is_the_report(agt001_repo, capsys):
    _, out, _ = _check(capsys, agt001_repo.path, "--format", "json")
    data = json.loads(out)
    assert data["schema_version"] == 1 and [f["rule"] for f in data["findings"]] == ["AGT001"]


def test_github_is_the_actions_annotations(agt001_repo, capsys):
    from bot.git.local import load_changeset
    from bot.review.engine import review

    _, out, _ = _check(capsys, agt001_repo.path, "--format", "github")
    report = review(load_changeset(agt001_repo.path, base="main", head="pr"))
    assert out.splitlines() == annotation_lines(report)
    assert out.startswith(
        "::error file=tests/test_a.py,line=1,title=AGT001 regression-test-without-reference::"
    )


def upload_problems(log: dict) -> list[str]:
    """What GitHub code scanning checks on upload besides the schema (its documented requirements and
    hard limits): a message and a place with a repository-relative URI and a start line on every result,
    rule ids that resolve, and the per-run limits."""
    problems = []
    if log.get("version") != "2.1.0":
        problems.append("version is not 2.1.0")
    if len(json.dumps(log).encode()) > 10 * 1024 * 1024:
        problems.append("file over 10 MB")
    if not 1 <= len(log["runs"]) <= 20:
        problems.append("runs per file")
    for run in log["runs"]:
        rules = run["tool"]["driver"].get("rules", [])
        if len(run["results"]) > 25_000 or len(rules) > 25_000:
            problems.append("results or rules per run")
        ids = [r["id"] for r in rules]
        if len(ids) != len(set(ids)):
            problems.append("duplicate rule ids")
        for rule in rules:
            if len(rule.get("properties", {}).get("tags", [])) > 20:
                problems.append(f"{rule['id']}: over 20 tags")
            if not rule.get("shortDescription", {}).get("text"):
                problems.append(f"{rule['id']}: no short description")
        for res in run["results"]:
            if not res.get("message", {}).get("text"):
                problems.append("result without message text")
            if "ruleIndex" in res and rules[res["ruleIndex"]]["id"] != res["ruleId"]:
                problems.append(f"{res['ruleId']}: ruleIndex points at another rule")
            locations = res.get("locations", [])
            if not 1 <= len(locations) <= 1000:
                problems.append(f"{res['ruleId']}: needs 1 to 1,000 locations")
            for loc in locations + res.get("relatedLocations", []):
                physical = loc["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                if uri.startswith("/") or "://" in uri or ".." in uri.split("/"):
                    problems.append(f"{uri}: not repository-relative")
                if physical.get("region", {}).get("startLine", 0) < 1:
                    problems.append(f"{uri}: no start line")
    return problems


def test_sarif_validates_and_passes_the_upload_checks(capsys):
    capsys.readouterr()
    assert main(["example", MOBILE300, "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert upload_problems(log) == []
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(REGISTRY)
    agt001 = run["tool"]["driver"]["rules"][0]
    assert agt001["shortDescription"]["text"] == REGISTRY["AGT001"].summary
    assert agt001["help"]["markdown"].startswith("## What it does")
    assert agt001["defaultConfiguration"]["level"] == "error"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"AGT001", "TRN004"}
    where = by_rule["AGT001"]["locations"][0]["physicalLocation"]
    assert where == {"artifactLocation": {"uri": "tests/test_train_cli.py"}, "region": {"startLine": 9}}
    assert by_rule["TRN004"]["level"] == "note"
    related = by_rule["AGT001"]["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "AGENTS.md" and related["region"]["startLine"] == 6


def test_sarif_places_every_finding_or_says_why_not():
    """A finding with no file points at the AGENTS.md line that asks for it; one with neither becomes a
    tool notification (code scanning refuses results without a place); an unregistered code gets a rule."""
    findings = (
        Finding(
            rule="AGT004", name="non-trunk-base", severity=Severity.ERROR, message="m", source="AGENTS.md:4"
        ),
        Finding(rule="BOT001", name="invalid-config", severity=Severity.WARNING, message="bad config"),
        Finding(
            rule="AGT001",
            name="x",
            severity=Severity.NOTICE,
            path="dir with space/ä#.py",
            message="file-level",
        ),
    )
    report = Report(
        verdict="needs-work",
        labels=(),
        findings=findings,
        coverage=Coverage(files_changed=1, files_reviewed=1),
    )
    log = to_sarif(report)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert upload_problems(log) == []
    run = log["runs"][0]
    placed = {r["ruleId"]: r["locations"][0]["physicalLocation"] for r in run["results"]}
    assert placed["AGT004"] == {"artifactLocation": {"uri": "AGENTS.md"}, "region": {"startLine": 4}}
    assert unquote(placed["AGT001"]["artifactLocation"]["uri"]) == "dir with space/ä#.py"
    assert " " not in placed["AGT001"]["artifactLocation"]["uri"]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"] == "BOT001: bad config" and note["associatedRule"]["id"] == "BOT001"
    assert run["tool"]["driver"]["rules"][note["associatedRule"]["index"]]["id"] == "BOT001"


def _results(capsys, repo: Path) -> list[dict]:
    code, out, _ = _check(capsys, repo, "--format", "sarif")
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log["runs"][0]["results"]


def test_sarif_fingerprints_survive_lines_moving_and_tell_findings_apart(make_repo, capsys):
    """Code scanning matches alerts across runs by partialFingerprints; without them an alert whose line
    moved was closed and opened anew."""
    tests = (
        'def test_a_regression():\n    """Checks a."""\n\n\ndef test_b_regression():\n    """Checks b."""\n'
    )
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": tests})
    before = _results(capsys, r.path)
    r.commit({"tests/test_a.py": "import os\n\n\n" + tests}, "lines move down")
    after = _results(capsys, r.path)
    lines = [
        [x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in rs] for rs in (before, after)
    ]
    assert lines == [[1, 5], [4, 8]]
    prints = [[x["partialFingerprints"]["botFindingHash/v1"] for x in rs] for rs in (before, after)]
    assert prints[0] == prints[1] and len(set(prints[0])) == 2


def test_sarif_message_text_is_plain_and_markdown_goes_in_markdown(capsys):
    """Before: backticks in message.text, and "(per AGENTS.md:6: ...)" repeated in every message."""
    capsys.readouterr()
    main(["example", MOBILE300, "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    for r in results:
        assert "`" not in r["message"]["text"] and "(per " not in r["message"]["text"]
        assert "`" in r["message"]["markdown"]
    agt001 = next(r for r in results if r["ruleId"] == "AGT001")
    assert agt001["message"]["text"].startswith("New test test_target_micro_steps_match_custom_trainer has ")
    assert "Regression tests must name the PR" in agt001["relatedLocations"][0]["message"]["text"]


def test_sarif_schema_rejects_a_broken_log():
    """The schema test can fail: a result without its message is invalid SARIF."""
    broken = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "bot"}}, "results": [{"ruleId": "X"}]}],
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(broken)


# --- a real pseudo-terminal -------------------------------------------------------------------------------


def _in_pty(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run `python -m bot ARGS` with stdout on a pseudo-terminal, as a person at a terminal would."""
    import pty  # POSIX only, like the rest of the suite's git use

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    os.close(slave)
    chunks = []
    while select.select([master], [], [], 120)[0]:  # a hung child fails the test instead of hanging it
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    proc.wait(timeout=120)
    assert proc.stderr is not None
    proc.stderr.close()
    return proc.returncode, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def _without(env_names: tuple[str, ...]) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in env_names}


@pytest.mark.parametrize("no_color", [None, "1"], ids=["colour", "NO_COLOR"])
def test_a_terminal_gets_text_and_colour_unless_no_color(monkeypatch, no_color):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    env = {"NO_COLOR": no_color} if no_color else {}
    code, out = _in_pty(["example", "examples/mobile300"], env)
    assert code == 1
    plain = ANSI.sub("", out)
    assert "tests/test_train_cli.py:9: AGT001 " in plain
    assert "<!-- bot-review:status -->" not in plain
    assert plain.splitlines()[-1].startswith("needs work: 1 error")
    if no_color:
        assert "\x1b" not in out
    else:
        assert "\x1b[31mAGT001\x1b[0m" in out and "\x1b[36mTRN004\x1b[0m" in out


def test_a_terminal_still_gets_what_format_asks(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    code, out = _in_pty(["example", "examples/mobile300", "--format", "markdown"], {})
    assert code == 1 and out.startswith("<!-- bot-review:status -->") and "\x1b[" not in out


# --- ranges with nothing to review ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif", "github"])
def test_same_commit_is_a_usage_error(agt001_repo, capsys, fmt):
    capsys.readouterr()
    assert (
        main(["check", "--repo", str(agt001_repo.path), "--base", "pr", "--head", "pr", "--format", fmt]) == 2
    )
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("bot: pr and pr are the same commit (") and err.count("\n") == 1
    assert "--head BRANCH" in err


def test_checking_main_on_main_is_a_usage_error(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    r.git("checkout", "-q", "main")
    assert main(["check", "--repo", str(r.path)]) == 2
    assert "main and HEAD are the same commit" in capsys.readouterr().err


def test_reversed_range_says_how_to_swap_it(agt001_repo, capsys):
    capsys.readouterr()
    assert main(["check", "--repo", str(agt001_repo.path), "--base", "pr", "--head", "main"]) == 2
    err = capsys.readouterr().err
    assert "main (" in err and "is behind pr" in err
    assert err.rstrip().endswith("Reversed range? Try --base main --head pr.")


def test_a_merged_branch_is_behind_its_base(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "merge pr", "pr")
    assert main(["check", "--repo", str(r.path), "--head", "pr"]) == 2
    assert "everything in it is already in main" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "sarif", "github"])
def test_no_changes_between_two_commits_is_said(make_repo, capsys, fmt):
    r = make_repo({"a.py": "1\n"}, {})  # the head commit on `pr` changes nothing
    capsys.readouterr()
    code = main(["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0
    said = out if fmt == "text" else err
    assert re.search(r"no changes between main and pr \([0-9a-f]{7}\.\.[0-9a-f]{7}\)", said)
    assert "ready for review" not in said
    if fmt == "json":
        assert json.loads(out)["coverage"]["files_changed"] == 0
    if fmt == "sarif":
        assert json.loads(out)["runs"][0]["results"] == []


def test_a_change_and_its_revert_leave_no_changes(make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    r.commit({"a.py": "1\n"}, "revert")
    code, out, _ = _check(capsys, r.path, "--format", "text")
    assert code == 0 and out.splitlines()[-1].startswith("no changes between main and pr")


# --- the docs show what the commands print ----------------------------------------------------------------


def _shown(doc: str, command: str) -> list[str]:
    """The lines of the ```text block of doc that starts with `$ command`."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    block = text.split(f"```text\n$ {command}\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def test_docs_show_the_real_terminal_output(capsys):
    capsys.readouterr()
    main(["example", MOBILE300, "--format", "text"])
    real = capsys.readouterr().out.splitlines()
    assert _shown("docs/output.md", "bot example mobile300") == real
    readme = _shown("README.md", "bot example mobile300")
    for line in readme:  # the README abridges: `...` stands for rows, `[...]` for the rest of a message
        if line.strip() == "...":
            continue
        head, _, tail = line.partition(" [...] ")
        assert any(r.startswith(head) and r.endswith(tail) for r in real), line


def test_a_hostile_file_name_cannot_drive_the_terminal(make_repo, capsys):
    """A file name from the pull request holding an escape sequence and a bidi override, through git."""
    name = "tests/test_\x1b[2J\u202ex.py"
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {name: NEW_TEST})
    for fmt in ("text", "sarif"):
        code, out, _ = _check(capsys, r.path, "--format", fmt)
        assert code == 1
        assert "\x1b" not in out and "\u202e" not in out, fmt
    code, out, _ = _check(capsys, r.path, "--format", "text")
    assert out.startswith("tests/test_<U+001B>[2J<U+202E>x.py:1: AGT001 ")


def test_text_paths_are_relative_to_a_subfolder_as_git_prints_them(make_repo, capsys, monkeypatch):
    """Before: repository paths from anywhere, so `tests/test_a.py` did not open from inside `src/`."""
    r = make_repo({"AGENTS.md": AGENTS_AGT001, "src/x.py": "1\n"}, {"tests/test_a.py": NEW_TEST})
    monkeypatch.chdir(r.path / "src")
    code = main(["check", "--base", "main", "--head", "pr", "--format", "text"])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("../tests/test_a.py:1: AGT001 ") and "per ../AGENTS.md:" in out
    main(["check", "--base", "main", "--head", "pr", "--format", "json"])  # machine formats: repository paths
    assert json.loads(capsys.readouterr().out)["findings"][0]["path"] == "tests/test_a.py"
