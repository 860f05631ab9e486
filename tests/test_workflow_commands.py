"""No workflow command from untrusted text: everything the action prints, scanned as the runner reads it.

Hostile strings go into every field a PR author or a forged artifact controls (file name, test source,
AGENTS.md, commit messages standing in for the title and body, artifact keys and values); every line the
action's steps print on stdout and stderr is parsed as the runner parses it, fences included. The only
commands allowed are the annotations the bot itself writes, one per finding.
"""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.github.actions import LogFormatter, log_line, say
from tests import ghapi
from tests.actionrunner import parse_commands
from tests.ghproxy import Proxy
from tests.test_action_github import _publish, fenced
from tests.test_action_yml import _run

HOSTILE = (
    "::error title=FORGED::pwned",
    "\n::add-mask::bot\n",
    "\r::stop-commands::zzz\r",
    "  ::warning::indented",
    "x\r\n::set-output name=verdict::ready",
    "##[error]old style",
    "text ##[add-mask]bot",
    "%0A::error::pre-escaped",
    "\u2028::error::line separator\u0085::notice::nel",
)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_log_line_carries_no_command(text):
    for line in (log_line(text), log_line("bot: " + text)):
        assert "\n" not in line and "\r" not in line
        assert parse_commands(line) == []


def test_every_message_path_prints_safe_lines():
    out = io.StringIO()
    for text in HOSTILE:
        say(text, out)
    handler = logging.StreamHandler(out)
    handler.setFormatter(LogFormatter("bot: %(message)s"))
    log = logging.getLogger("bot.test-fence")
    log.addHandler(handler)
    log.propagate = False
    try:
        for text in HOSTILE:
            log.warning("quoted: %s", text)
        try:
            raise ValueError("\n::error::from a traceback")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    assert out.getvalue().count("\n") == 2 * len(HOSTILE) + 1
    assert parse_commands(out.getvalue()) == []


def test_hostile_strings_in_every_field_run_no_command(tmp_path, make_repo):
    """Check mode: file names, test source, AGENTS.md and commit messages full of command lines."""
    joined = "\n".join(HOSTILE)
    agents = "# Rules\n\n- Regression tests must name the PR they guard in the docstring.\n" + joined + "\n"
    files = {
        "tests/test_a::error::x.py": 'def test_regression():\n    """' + joined.replace('"', "'") + '"""\n',
        "tests/test_b.py": "def test_regression():\n    # " + " ".join(HOSTILE).replace("\n", " ") + "\n"
        "    assert f() == 1\n",
        "tests/test_c.py": "def test_c(:\n" + joined + "\n",  # a syntax error quoting the lines
        "AGENTS.md": agents,
        ".github/bot.yml": "labels:\n  ready: '" + HOSTILE[0] + "'\n",
    }
    repo = make_repo({"AGENTS.md": agents}, files)
    repo.commit({"tests/test_d.py": "def test_d():\n    assert 1\n"}, joined)
    run = _run(tmp_path, repo.path)
    report = json.loads(
        (tmp_path / "run" / "runner" / "bot-review" / "report.json").read_text(encoding="utf-8")
    )
    commands = run.commands
    assert {c.name for c in commands} <= {"error", "warning", "notice"}
    assert len(commands) == len(report["findings"]) > 0
    for step in run.steps:
        assert "FORGED" not in " ".join(c.properties.get("title", "") for c in parse_commands(step.stderr))


def test_forged_artifact_key_runs_no_command(gh, tmp_path):
    """Publish mode: the validation error quotes an unknown key made of command lines."""
    st = ghapi.PullState(head="a1" * 20, base="b2" * 20)
    st.head_repo = "mallory/repo"
    st.files = [ghapi.pr_file("tests/test_new.py", patch="@@ -0,0 +1,1 @@\n+x\n", status="added", changes=1)]
    st.trees = {st.base: {"a.py": "1\n"}, st.head: {"a.py": "1\n", "tests/test_new.py": "x\n"}}
    ghapi.serve(gh, st)
    with Proxy(gh) as proxy:
        saved = {
            "schema_version": 1,
            "verdict": "ready",
            "::error title=FORGED::x\n::add-mask::bot\n::stop-commands::zzz\n::error::after": 1,
        }
        forged = tmp_path / "forged.json"
        forged.write_text(json.dumps(saved), encoding="utf-8")
        run = _publish(tmp_path, proxy, "forged", st, forged)
    # The rejection is said and the run's pull request reviewed through the API instead (break 5b).
    (step,) = [s for s in run.steps if s.ran and s.returncode and s.name == "Publish a saved Report"]
    assert step.returncode == 2
    assert run.commands == []
    line = fenced(step.stderr)[0]
    assert line.startswith("bot: the Report artifact was rejected: it is not a valid Report")
    assert all("::" not in x.replace(": :", "") for x in fenced(step.stderr))
