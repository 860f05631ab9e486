"""Actions sinks: escaping of commands and outputs against hostile text, summary cap, saved Reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cli.main import main
from bot.github import actions
from bot.review.output import ReportError, read_report, to_json
from rules.core.models import Coverage, Finding, Report, Severity
from rules.core.sanitize import visible
from tests.actionrunner import parse_commands, parse_output_file

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = [
    "plain",
    "50% done",
    "line one\n::error::injected",
    "cr\r::add-mask::secret",
    "%0A already escaped",
    "a,b:c::d",
    "::stop-commands::x\n::error::after",
    "ghadelimiter_0123\nEOF\n",
    "",
]


def _finding(message: str = "msg", path: str | None = "a.py", line: int | None = 3, **kw) -> Finding:
    return Finding(
        rule="AGT001", name="x-y", severity=Severity.ERROR, path=path, line=line, message=message, **kw
    )


def _report(*findings: Finding) -> Report:
    return Report(
        verdict="needs-work" if findings else "ready",
        labels=("status:needs-work",) if findings else ("status:ready", "review:pending"),
        findings=findings,
        coverage=Coverage(files_changed=1, files_reviewed=1),
    )


@pytest.mark.parametrize(
    "raw, data, prop",
    [
        ("a%b", "a%25b", "a%25b"),
        ("a\nb\rc", "a%0Ab%0Dc", "a%0Ab%0Dc"),
        ("k:v,w", "k:v,w", "k%3Av%2Cw"),
        ("%0A", "%250A", "%250A"),
    ],
)
def test_escaping_table(raw, data, prop):
    assert actions.escape_data(raw) == data
    assert actions.escape_property(raw) == prop


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_finding_is_one_annotation(text):
    line = actions.annotation(_finding(message=text, path=text or "p", source=text or None))
    assert "\n" not in line and "\r" not in line
    (cmd,) = parse_commands(line)
    assert cmd.name == "error"
    assert cmd.properties["file"] == (text or "p")
    assert cmd.message.startswith(text)


@given(st.text(), st.text(min_size=1))
def test_annotation_round_trip(message, path):
    (cmd,) = parse_commands(actions.annotation(_finding(message=message, path=path)))
    assert (cmd.message, cmd.properties["file"], cmd.properties["line"]) == (visible(message), path, "3")


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200b", "\ufeff", "\u00ad", "\x1b"])
def test_annotation_shows_invisible_characters(char):
    """As the comment does: bidi and zero-width characters reach the annotation as <U+...>, not raw."""
    finding = Finding(
        rule="AGT001", name=f"x{char}y", severity=Severity.ERROR, message=f"a{char}b", path="p.py"
    )
    (cmd,) = parse_commands(actions.annotation(finding))
    shown = f"<U+{ord(char):04X}>"
    assert char not in cmd.message + cmd.properties["title"]
    assert cmd.message == f"a{shown}b" and cmd.properties["title"] == f"AGT001 x{shown}y"


def test_annotation_without_path_has_no_line():
    line = actions.annotation(_finding(path=None, line=7))
    assert line == "::error title=AGT001 x-y::msg"


@pytest.mark.parametrize("severity", list(Severity))
def test_annotation_level_follows_severity(severity):
    f = Finding(rule="R1", name="n", severity=severity, message="m")
    assert actions.annotation(f).startswith(f"::{severity.value} ")


@pytest.mark.parametrize("text", HOSTILE)
def test_stop_commands_fences_untrusted_log(text):
    fenced = actions.stop_commands(text)
    assert parse_commands(fenced) == []
    assert parse_commands(fenced + "::notice::after\n")[0].message == "after"


def test_stop_commands_refuses_a_token_in_the_text():
    with pytest.raises(ValueError):
        actions.stop_commands("x ::tok:: y", token="tok")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_stop_commands_nothing_escapes(text):
    assert parse_commands(actions.stop_commands(text)) == []


@pytest.mark.parametrize("value", HOSTILE)
def test_output_round_trip(tmp_path, value):
    path = tmp_path / "out"
    actions.write_outputs(path, {"verdict": "ready", "evil": value, "after": "x"})
    assert parse_output_file(path.read_bytes().decode("utf-8")) == {
        "verdict": "ready",
        "evil": value,
        "after": "x",
    }


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r")))
def test_output_delimiter_never_in_value(value):
    entry = actions.output_entry("x", value)
    delimiter = entry.split("\n", 1)[0].split("<<", 1)[1]
    assert delimiter not in value
    assert parse_output_file(entry) == {"x": value}


@pytest.mark.parametrize("name", ["a<<b", "a=b", "a\nb", "", "-x"])
def test_output_name_is_checked(name):
    with pytest.raises(ValueError):
        actions.output_entry(name, "v")


def test_summary_capped_under_one_mib(tmp_path):
    big = "".join(f"- line {i} é€😀\n" for i in range(200_000))
    capped = actions.cap_summary(big)
    assert len(capped.encode("utf-8")) <= actions.SUMMARY_LIMIT < 1024 * 1024
    assert capped.endswith(actions.TRUNCATED_NOTE) and "\n- line 0 " in "\n" + capped
    assert actions.cap_summary("small\n") == "small\n"
    path = tmp_path / "summary"
    path.write_text("x" * 1000, encoding="utf-8")
    actions.write_summary(path, big)
    assert path.stat().st_size <= actions.SUMMARY_LIMIT


def test_report_outputs():
    report = _report(_finding(), _finding(line=4))
    out = actions.report_outputs(report, "/tmp/r.json")
    assert out == {
        "verdict": "needs-work",
        "labels": '["status:needs-work"]',
        "findings": "2",
        "max-steps": "{}",
        "report": "/tmp/r.json",
    }


def test_saved_report_round_trip(tmp_path):
    report = _report(_finding(message="line\n::error::x"))
    path = tmp_path / "r.json"
    path.write_text(to_json(report), encoding="utf-8")
    assert read_report(path) == report


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not valid JSON"),
        ("[]", "not a version-1 Report"),
        ('{"schema_version": 2}', "not a version-1 Report"),
        ('{"schema_version": 1, "verdict": "ready"}', "not a valid Report"),
        (
            '{"schema_version": 1, "verdict": "ok", "labels": [], "coverage": {"files_changed": 0, '
            '"files_reviewed": 0}}',
            "verdict",
        ),
        ("[" * 100_000, "not valid JSON"),
    ],
)
def test_bad_saved_report(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReportError, match=message):
        read_report(path)


def test_oversize_saved_report(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(to_json(_report()) + " " * 200, encoding="utf-8")
    with pytest.raises(ReportError, match="limit"):
        read_report(path, limit=100)


def test_bot_action_command(tmp_path, capsys):
    saved = tmp_path / "report.json"
    log = tmp_path / "review.log"
    assert main(["example", str(ROOT / "examples/mobile300"), "--output", str(saved)]) == 1
    log.write_text(capsys.readouterr().out + "::error::from the log\n", encoding="utf-8")
    out_file, summary = tmp_path / "output", tmp_path / "summary"
    args = [
        "action",
        str(saved),
        "--log",
        str(log),
        "--github-output",
        str(out_file),
        "--step-summary",
        str(summary),
    ]
    assert main(args) == 1
    stdout = capsys.readouterr().out
    assert [c.name for c in parse_commands(stdout)] == ["error", "notice"]
    outputs = parse_output_file(out_file.read_text(encoding="utf-8"))
    assert outputs["verdict"] == "needs-work" and outputs["report"] == str(saved)
    assert json.loads(outputs["max-steps"]) == {
        "training/compat_profiles/env0-mobile300-pr828.toml": {"base": 38, "head": 37}
    }
    assert "| max_steps | 38 | **37** |" in summary.read_text(encoding="utf-8")
    assert main([*args, "--fail-level", "none", "--no-annotations"]) == 0
    assert parse_commands(capsys.readouterr().out) == []


def test_bot_action_bad_report_is_one_line(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text("nope", encoding="utf-8")
    assert main(["action", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and err.count("\n") == 1


def test_check_output_saves_the_report(tmp_path, make_repo, capsys):
    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    saved = tmp_path / "deep" / "report.json"
    assert main(["check", "--repo", str(r.path), "--head", "pr", "--output", str(saved)]) == 0
    assert capsys.readouterr().out.startswith("<!-- bot-review:status -->")
    assert read_report(saved).verdict == "ready"


def test_check_config_path(make_repo, capsys):
    r = make_repo({"ci/bot.yml": "rules: [\n"}, {"a.py": "2\n"})
    main(["check", "--repo", str(r.path), "--head", "pr", "--config", "ci/bot.yml", "--format", "json"])
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["rule"] == "BOT001" and finding["path"] == "ci/bot.yml"
