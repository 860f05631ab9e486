"""`bot check --verify-tests`: real repositories with a tiny package, real pytest runs at head and at base."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli.main import build_parser, main
from bot.git.checkout import worktree
from bot.verify.process import run
from rules.core.verification import Outcome, Run, classify, missing_name

PYTEST = f"{sys.executable} -m pytest"
GIT_ENV = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN", "BOT_TOKEN")}

BASE = {
    "tiny/__init__.py": "def slug(text):\n    return text.lower()\n",
    "tests/test_tiny.py": "from tiny import slug\n\n\ndef test_lower():\n    assert slug('A') == 'a'\n",
}
DASH_TEST = "from tiny import slug\n\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n"
# The fix: spaces become dashes; `title` is new API.
FIXED = (
    "def slug(text):\n    return text.lower().replace(' ', '-')\n\n\n"
    "def title(text):\n    return text.title()\n"
)


def worktrees(top: Path, env: dict[str, str]) -> tuple[str, ...]:
    """The paths of top's work trees, as `git worktree list` gives them (the main one first)."""
    proc = subprocess.run(
        ["git", "worktree", "list", "--porcelain", "-z"], cwd=top, env=env, capture_output=True, check=True
    )
    fields = proc.stdout.decode("utf-8", "replace").split("\0")
    return tuple(f.removeprefix("worktree ") for f in fields if f.startswith("worktree "))


@pytest.fixture(autouse=True)
def _no_write_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "BOT_TOKEN", "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(name, raising=False)


def _verify(repo, capsys, *extra: str) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    code = main(
        ["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--format", "json",
         "--verify-command", PYTEST, *extra]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code in (0, 1), out
    report = json.loads(out)
    # Nothing of the base copy is left: no work tree but the repository's own, no folder.
    assert worktrees(repo.path, GIT_ENV) == (str(repo.path),)
    return {v["node_id"]: v for v in report["verifications"]}


def test_outcomes_of_a_fix(make_repo, capsys) -> None:
    head_tests = (
        "import pytest\n\nfrom tiny import slug\n\n\n"
        "def test_lower():\n    assert slug('A') == 'a'\n\n\n"
        "def test_spaces_become_dashes():\n    assert slug('A b') == 'a-b'\n\n\n"
        "def test_still_lowercase():\n    assert slug('XY') == 'xy'\n\n\n"
        "def test_wrong_expectation():\n    assert slug('a b') == 'a_b'\n\n\n"
        "def test_title():\n    from tiny import title\n\n    assert title('a b') == 'A B'\n\n\n"
        "@pytest.mark.parametrize('text', ['a b', 'c d'])\n"
        "def test_each_space(text):\n    assert ' ' not in slug(text)\n\n\n"
        "class TestSlug:\n    def test_double_space(self):\n        assert slug('a  b') == 'a--b'\n"
    )
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": head_tests})
    found = _verify(repo, capsys)
    outcomes = {node: v["outcome"] for node, v in found.items()}
    assert outcomes == {
        "tests/test_tiny.py::test_spaces_become_dashes": "reproduces",
        "tests/test_tiny.py::test_still_lowercase": "does-not-reproduce",
        "tests/test_tiny.py::test_wrong_expectation": "broken",
        "tests/test_tiny.py::test_title": "new-api",
        "tests/test_tiny.py::test_each_space": "reproduces",
        "tests/test_tiny.py::TestSlug::test_double_space": "reproduces",
    }
    assert "assert 'a b' == 'a-b'" in found["tests/test_tiny.py::test_spaces_become_dashes"]["base"]["detail"]
    assert found["tests/test_tiny.py::test_wrong_expectation"]["base"] is None  # not run at base
    assert "`title`" in found["tests/test_tiny.py::test_title"]["reason"]
    assert found["tests/test_tiny.py::test_still_lowercase"]["state"] == "new"


def test_text_output_lists_each_outcome(make_repo, capsys) -> None:
    tests = BASE["tests/test_tiny.py"] + "\n\ndef test_dashes():\n    assert slug('a b') == 'a-b'\n"
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    main(["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--format", "text",
          "--verify-command", PYTEST])  # fmt: skip
    out = capsys.readouterr().out
    assert "Verified tests" in out
    assert "reproduces  tests/test_tiny.py::test_dashes: fails on the base code" in out


def test_base_copy_takes_the_head_conftest_and_helpers(make_repo, capsys) -> None:
    # The new test needs a fixture and a helper the change adds under tests/: they go into the base copy.
    head = {
        "tiny/__init__.py": FIXED,
        "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef spaced():\n    return 'a b'\n",
        "tests/helpers.py": "EXPECTED = 'a-b'\n",
        "tests/test_fixture.py": (
            "from helpers import EXPECTED\n\nfrom tiny import slug\n\n\n"
            "def test_spaced(spaced):\n    assert slug(spaced) == EXPECTED\n"
        ),
    }
    found = _verify(make_repo(BASE, head), capsys)
    assert found["tests/test_fixture.py::test_spaced"]["outcome"] == "reproduces"


def test_a_timeout_is_not_run_and_killed(make_repo, capsys) -> None:
    tests = BASE["tests/test_tiny.py"] + "\n\ndef test_hangs():\n    import time\n\n    time.sleep(60)\n"
    repo = make_repo(BASE, {"tests/test_tiny.py": tests})
    started = time.monotonic()
    found = _verify(repo, capsys, "--verify-timeout", "1.5")
    assert time.monotonic() - started < 20
    hung = found["tests/test_tiny.py::test_hangs"]
    assert hung["outcome"] == "not-run"
    assert hung["head"]["status"] == "timeout"
    assert "timed out at head" in hung["reason"]


def test_a_collection_error_is_not_run(make_repo, capsys) -> None:
    head = {
        "tiny/__init__.py": FIXED,
        "tests/test_broken_import.py": "import no_such_module_here\n\n\ndef test_a():\n    assert True\n",
        "tests/test_tiny.py": BASE["tests/test_tiny.py"]
        + "\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n",
    }
    found = _verify(make_repo(BASE, head), capsys)
    bad = found["tests/test_broken_import.py::test_a"]
    assert bad["outcome"] == "not-run"
    assert bad["head"]["status"] == "uncollected"
    assert "no_such_module_here" in bad["reason"]
    # The other file's test still ran, in the same pytest process.
    assert found["tests/test_tiny.py::test_dash"]["outcome"] == "reproduces", found


def test_a_new_module_imported_at_the_top_is_new_api(make_repo, capsys) -> None:
    head = {
        "tiny/words.py": "def count(text):\n    return len(text.split())\n",
        "tests/test_words.py": (
            "from tiny.words import count\n\n\ndef test_count():\n    assert count('a b') == 2\n"
        ),
    }
    found = _verify(make_repo(BASE, head), capsys)
    words = found["tests/test_words.py::test_count"]
    assert words["outcome"] == "new-api", words
    assert words["base"]["status"] == "uncollected"


@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "GH_TOKEN", "BOT_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"])
def test_refused_with_a_write_token(make_repo, capsys, monkeypatch, name) -> None:
    tests = BASE["tests/test_tiny.py"] + "\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n"
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    monkeypatch.setenv(name, "ghp_secret")
    code = main(["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--verify-command", PYTEST])
    captured = capsys.readouterr()
    assert code == 2
    assert name in captured.err and "ghp_secret" not in captured.err + captured.out
    assert captured.out == ""


def test_refused_where_the_checkout_keeps_a_token(make_repo, capsys) -> None:
    """actions/checkout saves the job's token in the checkout's git config unless persist-credentials is
    false; the tests would run where they can read it."""
    tests = BASE["tests/test_tiny.py"] + "\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n"
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests})
    header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0"
    subprocess.run(
        ["git", "config", "http.https://github.com/.extraheader", header], cwd=repo.path, check=True
    )
    code = main(["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--verify-command", PYTEST])
    captured = capsys.readouterr()
    assert code == 2
    assert "persist-credentials: false" in captured.err and header not in captured.err + captured.out
    assert worktrees(repo.path, GIT_ENV) == (str(repo.path),)


def test_refused_in_a_privileged_event(make_repo, capsys, monkeypatch) -> None:
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED})
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request_target")
    assert main(["check", "main..pr", "--repo", str(repo.path), "--verify-tests"]) == 2
    assert "pull_request_target" in capsys.readouterr().err


def test_only_check_runs_tests() -> None:
    # review and publish run with a token that can write: they never take the option.
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert "--verify-tests" in commands["check"]._option_string_actions
    for command in ("review", "publish", "example", "action"):
        assert "--verify-tests" not in commands[command]._option_string_actions


def test_worktree_is_removed_on_interrupt(repo) -> None:
    repo.commit({"a.txt": "a\n"})
    with pytest.raises(KeyboardInterrupt), worktree(repo.path, "HEAD", GIT_ENV) as tree:
        assert (tree / "a.txt").is_file()
        raise KeyboardInterrupt
    assert not tree.exists()
    assert worktrees(repo.path, GIT_ENV) == (str(repo.path),)


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    # The command starts a child that would outlive it; the limit ends both.
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(tmp_path / 'pid')!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    finished = run([sys.executable, "-c", script], cwd=tmp_path, env=GIT_ENV, timeout=1.0)
    assert finished.timed_out
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child not yet reaped by init is a zombie: gone for our purpose.
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout
    return bool(state.strip()) and not state.strip().startswith("Z")


def test_output_is_capped(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "print('x' * 300_000); print('the end')"]
    finished = run(command, cwd=tmp_path, env=GIT_ENV, timeout=30, cap=1000)
    assert finished.code == 0
    assert len(finished.output) < 1100
    assert finished.output.rstrip().endswith("the end")
    assert "bytes of output left out" in finished.output


@pytest.mark.parametrize(
    ("head", "base", "added", "outcome"),
    [
        (Run(status="passed"), Run(status="failed", detail="assert 1 == 2"), frozenset(), Outcome.REPRODUCES),
        (Run(status="passed"), Run(status="passed"), frozenset(), Outcome.DOES_NOT_REPRODUCE),
        (Run(status="failed", detail="boom"), None, frozenset(), Outcome.BROKEN),
        (Run(status="error", detail="fixture"), None, frozenset(), Outcome.BROKEN),
        (Run(status="timeout"), None, frozenset(), Outcome.NOT_RUN),
        (Run(status="skipped"), None, frozenset(), Outcome.NOT_RUN),
        (Run(status="passed"), Run(status="skipped"), frozenset(), Outcome.NOT_RUN),
        (Run(status="passed"), Run(status="timeout"), frozenset(), Outcome.NOT_RUN),
        (
            Run(status="passed"),
            Run(status="failed", detail="AttributeError: module 'tiny' has no attribute 'title'"),
            frozenset({"title"}),
            Outcome.NEW_API,
        ),
        # The same error about a name the change does not add: the base code's own bug, reproduced.
        (
            Run(status="passed"),
            Run(status="failed", detail="AttributeError: 'NoneType' object has no attribute 'title'"),
            frozenset({"slug"}),
            Outcome.REPRODUCES,
        ),
        (
            Run(status="passed"),
            Run(status="uncollected", detail="ModuleNotFoundError: No module named 'tiny.words'"),
            frozenset({"tiny.words"}),
            Outcome.NEW_API,
        ),
        (
            Run(status="passed"),
            Run(status="uncollected", detail="ModuleNotFoundError: No module named 'yaml'"),
            frozenset({"tiny.words"}),
            Outcome.NOT_RUN,
        ),
    ],
)
def test_classify(head: Run, base: Run | None, added: frozenset[str], outcome: Outcome) -> None:
    assert classify(head, base, added)[0] is outcome


def test_missing_name_takes_the_last_exception_line() -> None:
    detail = "ImportError: cannot import name 'a' from 'm'\nNameError: name 'b' is not defined"
    assert missing_name(detail) == "b"
    assert missing_name("assert 1 == 2") is None


def test_the_working_tree_runs_as_it_is_and_is_left_as_it_was(make_repo, capsys) -> None:
    # A src/ layout: each side imports its own copy of the package, not the other's.
    base = {f"src/{path}" if path.startswith("tiny") else path: text for path, text in BASE.items()}
    repo = make_repo(base, {})
    repo.write(
        {
            "src/tiny/__init__.py": FIXED,  # uncommitted: the checkout as it is
            "tests/test_dash.py": DASH_TEST,
        }
    )
    before = repo.git("status", "--porcelain", "--ignored", "--untracked-files=all")
    code = main(["check", "--base", "main", "--repo", str(repo.path), "--verify-tests", "--format", "json",
                 "--verify-command", PYTEST])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert [(v["node_id"], v["outcome"]) for v in report["verifications"]] == [
        ("tests/test_dash.py::test_dash", "reproduces")
    ]
    # No cache, bytecode or report was written into the checkout.
    assert repo.git("status", "--porcelain", "--ignored", "--untracked-files=all") == before
    assert worktrees(repo.path, GIT_ENV) == (str(repo.path),)


def test_a_renamed_test_file_and_a_changed_test(make_repo, capsys) -> None:
    # The old file is gone from the base copy too; only the edited and the new test run.
    head = {
        "tiny/__init__.py": FIXED,
        "tests/test_tiny.py": None,
        "tests/test_slug.py": (
            "from tiny import slug\n\n\ndef test_lower():\n    assert slug('A B') == 'a-b'\n"
        ),
    }
    found = _verify(make_repo(BASE, head), capsys)
    assert {n: (v["state"], v["outcome"]) for n, v in found.items()} == {
        "tests/test_slug.py::test_lower": ("changed", "reproduces")
    }


def test_no_test_to_run_says_so(make_repo, capsys) -> None:
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED})
    code = main(["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--format", "json"])
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert json.loads(captured.out)["verifications"] == []
    assert "adds or edits no test to run" in captured.err


def test_the_total_limit_ends_every_run(make_repo, capsys) -> None:
    tests = DASH_TEST + "\n\ndef test_hangs():\n    import time\n\n    time.sleep(60)\n"
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_dash.py": tests})
    started = time.monotonic()
    found = _verify(repo, capsys, "--verify-timeout", "30", "--verify-total-timeout", "2")
    assert time.monotonic() - started < 15
    assert {v["outcome"] for v in found.values()} == {"not-run"}
    assert all("total limit of 2 s ran out" in v["reason"] for v in found.values()), found


HOSTILE = "@admin <!-- bot-review:status --> `x` | #12\n- [link](http://x)"


def _verified_report():  # type: ignore[no-untyped-def]
    from rules.core.models import Coverage, Report
    from rules.core.verification import Verification

    return Report(
        verdict="ready",
        labels=(),
        coverage=Coverage(files_changed=1, files_reviewed=1),
        head_sha="b" * 40,
        base_sha="a" * 40,
        verifications=(
            Verification(
                path="tests/test_a.py",
                node_id="tests/test_a.py::test_a",
                state="new",
                outcome=Outcome.REPRODUCES,
                reason="fails on the base code and passes at head: " + HOSTILE,
                head=Run(status="passed"),
                base=Run(status="failed", detail=HOSTILE),
            ),
            Verification(
                path="tests/test_a.py",
                node_id="tests/test_a.py::test_b",
                state="changed",
                outcome=Outcome.DOES_NOT_REPRODUCE,
                reason="passes on the base code too",
                head=Run(status="passed"),
                base=Run(status="passed"),
            ),
        ),
    )


def test_the_comment_lists_each_outcome_with_hostile_text_made_inert() -> None:
    from bot.review.render import MARKER, render_comment

    report = _verified_report()
    body = render_comment(report)
    assert "#### Verified tests" in body
    assert "✅ **reproduces** `tests/test_a.py::test_a`: fails on the base code" in body
    assert "⚠️ **does not reproduce** `tests/test_a.py::test_b`" in body
    assert body.count(MARKER) == 1 and "@admin" not in body and "\n- [link]" not in body


def test_sarif_carries_the_outcomes_in_its_property_bag() -> None:
    import jsonschema

    from bot.review.sarif import to_sarif

    log = to_sarif(_verified_report())
    schema = Path(__file__).parent / "fixtures/sarif/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(log)
    run = log["runs"][0]
    assert run["results"] == []  # facts about tests, not alerts
    assert [(v["nodeId"], v["outcome"]) for v in run["properties"]["verifications"]] == [
        ("tests/test_a.py::test_a", "reproduces"),
        ("tests/test_a.py::test_b", "does-not-reproduce"),
    ]
    assert run["properties"]["headSha"] == "b" * 40


def test_cancel_kills_the_runs_of_other_threads_and_starts_no_more(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from bot.verify.process import Cancelled, Runs

    runs = Runs()
    started = tmp_path / "started"
    script = f"import time; open({str(started)!r}, 'w').close(); time.sleep(60)"
    with ThreadPoolExecutor(max_workers=1) as pool:
        later = pool.submit(run, [sys.executable, "-c", script], tmp_path, GIT_ENV, 60, runs=runs)
        deadline = time.monotonic() + 10
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        runs.cancel()
        finished = later.result(timeout=10)
    assert finished.code is not None and finished.code < 0  # killed, not timed out
    with pytest.raises(Cancelled):
        run([sys.executable, "-c", "pass"], tmp_path, GIT_ENV, 10, runs=runs)


def test_ctrl_c_during_the_runs_kills_them_and_leaves_no_checkout_behind(make_repo, tmp_path) -> None:
    import threading

    from bot.verify.runner import Limits, Plan, verify
    from rules.testcode.verify_select import Selected

    marker = tmp_path / "base-started"
    hang = (
        "import os\nimport time\n\n\ndef test_hangs():\n"
        f"    open({str(marker)!r}, 'w').write(str(os.getpid()))\n    time.sleep(60)\n"
    )
    repo = make_repo(BASE, {"tests/test_hang.py": hang})
    calls = []

    def clock() -> float:  # Ctrl-C on the main thread once the base side's test is running
        if threading.current_thread() is threading.main_thread():
            calls.append(1)
            if len(calls) > 1:
                deadline = time.monotonic() + 20
                while not marker.exists() and time.monotonic() < deadline:
                    time.sleep(0.02)
                raise KeyboardInterrupt
        return time.monotonic()

    plan = Plan(
        tests=(Selected("tests/test_hang.py", "test_hangs", "tests/test_hang.py::test_hangs", "new"),),
        files=(("tests/test_hang.py", None),),
        added=frozenset(),
    )
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        verify(
            repo.path,
            plan,
            base="main",
            read_head=lambda path: (repo.path / path).read_bytes(),
            env=GIT_ENV,
            command=PYTEST.split(),
            limits=Limits(test=30, total=60),
            head="pr",
            clock=clock,
        )
    assert time.monotonic() - started < 25
    assert marker.exists()  # the base side's test was running when Ctrl-C came
    assert not _alive(int(marker.read_text()))
    assert worktrees(repo.path, GIT_ENV) == (str(repo.path),)


def test_a_changed_conftest_goes_into_the_base_copy(make_repo, capsys) -> None:
    # The fixture the new test reads changes with the PR: with the base's conftest.py the test would pass on
    # the base code (no space to turn into a dash); with the head's it fails there, as it must.
    base = {**BASE, "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef word():\n    return 'ab'\n"}
    head = {
        "tiny/__init__.py": FIXED,
        "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef word():\n    return 'a b'\n",
        "tests/test_word.py": (
            "from tiny import slug\n\n\n"
            "def test_word(word):\n    assert slug(word) == word.replace(' ', '-')\n"
        ),
    }
    found = _verify(make_repo(base, head), capsys)
    assert {n: v["outcome"] for n, v in found.items()} == {"tests/test_word.py::test_word": "reproduces"}


def test_a_test_file_renamed_with_a_new_test(make_repo, capsys) -> None:
    # git sees a rename (most lines kept): the moved tests are not new, the added one is; the old path is
    # gone from the base copy, so its tests are not collected twice under two names.
    old = BASE["tests/test_tiny.py"] + "".join(
        f"\n\ndef test_keeps_{c}():\n    assert slug('{c.upper()}') == '{c}'\n" for c in "bcdefg"
    )
    head = {
        "tiny/__init__.py": FIXED,
        "tests/test_tiny.py": None,
        "tests/test_slug.py": old + "\n\ndef test_dash():\n    assert slug('a b') == 'a-b'\n",
    }
    repo = make_repo({**BASE, "tests/test_tiny.py": old}, head)
    assert "R" in repo.git("diff", "--name-status", "-M", "main", "pr")
    found = _verify(repo, capsys)
    assert {n: (v["state"], v["outcome"]) for n, v in found.items()} == {
        "tests/test_slug.py::test_dash": ("new", "reproduces")
    }


def test_parametrised_tests_run_with_every_parameter(make_repo, capsys) -> None:
    # One node id covers every parametrisation: the test reproduces when one of them fails on the base code,
    # in a class too; one whose every parameter passes there does not.
    tests = BASE["tests/test_tiny.py"] + (
        "\n\nimport pytest\n\n\n"
        "@pytest.mark.parametrize('text, want', [('AB', 'ab'), ('a b', 'a-b')], ids=['plain', 'spaced'])\n"
        "def test_cases(text, want):\n    assert slug(text) == want\n\n\n"
        "@pytest.mark.parametrize('text', ['A', 'B[1]'])\n"
        "def test_lower_only(text):\n    assert slug(text) == text.lower()\n\n\n"
        "class TestSlug:\n"
        "    @pytest.mark.parametrize('n', [1, 2])\n"
        "    def test_spaces(self, n):\n        assert slug('a' + ' ' * n + 'b') == 'a' + '-' * n + 'b'\n"
    )
    found = _verify(make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": tests}), capsys)
    assert {n: v["outcome"] for n, v in found.items()} == {
        "tests/test_tiny.py::test_cases": "reproduces",
        "tests/test_tiny.py::test_lower_only": "does-not-reproduce",
        "tests/test_tiny.py::TestSlug::test_spaces": "reproduces",
    }


def test_a_unittest_class_based_test(make_repo, capsys) -> None:
    tests = (
        "import unittest\n\nfrom tiny import slug\n\n\n"
        "class SlugTest(unittest.TestCase):\n"
        "    def test_dash(self):\n        self.assertEqual(slug('a b'), 'a-b')\n\n"
        "    def test_lower(self):\n        self.assertEqual(slug('AB'), 'ab')\n"
    )
    found = _verify(make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_unit.py": tests}), capsys)
    assert {n: v["outcome"] for n, v in found.items()} == {
        "tests/test_unit.py::SlugTest::test_dash": "reproduces",
        "tests/test_unit.py::SlugTest::test_lower": "does-not-reproduce",
    }


def test_a_fixture_using_the_pytest_cache_runs_and_writes_nothing_into_the_checkout(
    make_repo, capsys
) -> None:
    # werkzeug's dev_server fixture keeps state in `config.cache`: with the cache plugin off it failed at
    # setup ("'Config' object has no attribute 'cache'"); the cache lives in a temporary folder instead.
    conftest = (
        "import pytest\n\n\n@pytest.fixture\ndef remembered(request):\n"
        "    request.config.cache.set('bot/seen', 1)\n    return request.config.cache.get('bot/seen', 0)\n"
    )
    tests = (
        "from tiny import slug\n\n\n"
        "def test_dash(remembered):\n    assert slug('a b') == 'a-b' and remembered\n"
    )
    repo = make_repo(
        BASE, {"tiny/__init__.py": FIXED, "tests/conftest.py": conftest, "tests/test_c.py": tests}
    )
    found = _verify(repo, capsys)
    assert found["tests/test_c.py::test_dash"]["outcome"] == "reproduces"
    assert not (repo.path / ".pytest_cache").exists()


def test_pytest_xdist_in_the_command_spreads_each_side_over_workers(make_repo, capsys) -> None:
    # Issue 26, item 6: a project with pytest-xdist runs each side's tests on workers by adding `-n` to its
    # command; the outcomes, read from the JUnit report the workers write together, are the same.
    pytest.importorskip("xdist")
    head_tests = (
        "from tiny import slug\n\n\n"
        "def test_lower():\n    assert slug('A') == 'a'\n\n\n"
        "def test_spaces_become_dashes():\n    assert slug('A b') == 'a-b'\n\n\n"
        "def test_still_lowercase():\n    assert slug('XY') == 'xy'\n"
    )
    repo = make_repo(BASE, {"tiny/__init__.py": FIXED, "tests/test_tiny.py": head_tests})
    code = main(
        ["check", "main..pr", "--repo", str(repo.path), "--verify-tests", "--format", "json",
         "--verify-command", f"{PYTEST} -n 2"]
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert {v["node_id"]: v["outcome"] for v in report["verifications"]} == {
        "tests/test_tiny.py::test_spaces_become_dashes": "reproduces",
        "tests/test_tiny.py::test_still_lowercase": "does-not-reproduce",
    }
