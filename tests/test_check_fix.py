"""`bot check --fix` writes the rules' fixes into the work tree; `--diff` prints them as a patch."""

from __future__ import annotations

import subprocess

import pytest

from bot.cli.main import main
from tests.helpers import AGENTS_AGT001

UNNAMED = "def test_crash_regression():\n    assert f()\n"
FIXED = 'def test_crash_regression():\n    """Guards PR #7: crash regression."""\n    assert f()\n'
PROFILE = "name = 'p'\ntarget_micro_steps = 300\nbatch_size = 8\n\n[expect]\nmax_steps = 38\n"
PROFILE_PATH = "training/compat_profiles/p.toml"


@pytest.fixture
def repo(make_repo):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": UNNAMED, PROFILE_PATH: PROFILE})
    r.git("checkout", "-q", "pr")
    return r


def _check(repo, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--repo", str(repo.path), "--base", "main", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_fix_writes_both_fixes_says_what_changed_and_is_idempotent(repo, capsys):
    code, out, _ = _check(repo, capsys, "--fix", "--pr-number", "7")
    assert code == 0
    assert "tests/test_a.py:2: AGT001 fixed" in out
    assert f"{PROFILE_PATH}:6: TRN001 fixed" in out
    assert "2 fixes applied in 2 files; 0 finding(s) need a person." in out
    assert (repo.path / "tests/test_a.py").read_text() == FIXED
    assert (repo.path / PROFILE_PATH).read_text() == PROFILE.replace("38", "37")
    code, out, _ = _check(repo, capsys, "--fix", "--pr-number", "7")
    assert code == 0 and "0 fixes applied in 0 files" in out
    assert (repo.path / "tests/test_a.py").read_text() == FIXED
    assert _check(repo, capsys, "--pr-number", "7", "--format", "json")[0] == 0


def test_diff_prints_a_patch_git_applies_and_writes_nothing(repo, capsys):
    code, patch, err = _check(repo, capsys, "--diff", "--pr-number", "7")
    assert code == 1 and "2 fixes to apply" in err
    assert '+    """Guards PR #7: crash regression."""' in patch and "-max_steps = 38" in patch
    assert (repo.path / "tests/test_a.py").read_text() == UNNAMED
    subprocess.run(["git", "apply", "-"], cwd=repo.path, input=patch.encode(), check=True)
    assert (repo.path / "tests/test_a.py").read_text() == FIXED


def test_without_a_pr_number_only_the_profile_is_fixed_and_the_output_says_why(repo, capsys):
    code, out, _ = _check(repo, capsys, "--fix")
    assert code == 1  # AGT001 remains
    assert "1 fix applied in 1 file; 1 finding(s) need a person:\n  " in out
    assert "give --pr-number N" in out
    assert (repo.path / "tests/test_a.py").read_text() == UNNAMED


def test_fix_with_a_head_not_checked_out_is_refused_with_a_clear_message(repo, capsys):
    repo.git("branch", "other", "pr")
    repo.commit({"README.md": "x\n"}, "pr moves on")  # `other` is no longer the commit checked out
    code, _, err = _check(repo, capsys, "--fix", "--head", "other", "--pr-number", "7")
    assert code == 2 and "cannot be edited" in err and "--diff" in err
    assert (repo.path / "tests/test_a.py").read_text() == UNNAMED
    code, patch, _ = _check(repo, capsys, "--diff", "--head", "other", "--pr-number", "7")
    assert code == 1 and "Guards PR #7" in patch


def test_fix_with_head_naming_the_checked_out_branch_is_allowed(repo, capsys):
    """Before: refused like any --head, though the files of that commit are the ones in the work tree."""
    code, out, _ = _check(repo, capsys, "--fix", "--head", "pr", "--pr-number", "7")
    assert code == 0 and "AGT001 fixed" in out
    assert "Guards PR #7" in (repo.path / "tests/test_a.py").read_text()


def test_fix_lists_the_findings_it_could_not_fix(repo, capsys):
    code, out, _ = _check(repo, capsys, "--fix")  # no --pr-number: AGT001's docstring cannot be written
    assert code == 1
    assert "1 fix applied in 1 file; 1 finding(s) need a person:\n  tests/test_a.py:1: AGT001 " in out


def test_a_file_edited_since_the_review_is_left_alone(repo, capsys, monkeypatch):
    import bot.git.fixing

    real = bot.git.fixing._write

    def edited_first(top, path, reviewed, new):  # type: ignore[no-untyped-def]
        if path == "tests/test_a.py":
            (top / path).write_text(UNNAMED + "# edited\n")
        return real(top, path, reviewed, new)

    monkeypatch.setattr(bot.git.fixing, "_write", edited_first)
    code, out, _ = _check(repo, capsys, "--fix", "--pr-number", "7")
    assert "tests/test_a.py: changed since the review" in out
    assert (repo.path / "tests/test_a.py").read_text() == UNNAMED + "# edited\n"
    assert (repo.path / PROFILE_PATH).read_text() == PROFILE.replace("38", "37")
    assert code == 1


def test_a_fixed_last_line_without_a_newline_still_gives_a_patch_git_applies(make_repo, capsys):
    profile = PROFILE.rstrip("\n")  # `max_steps = 38` is the last line, with no newline after it
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {PROFILE_PATH: profile})
    r.git("checkout", "-q", "pr")
    _, patch, _ = _check(r, capsys, "--diff")
    assert "-max_steps = 38\n\\ No newline at end of file\n+max_steps = 37\n\\ No newline" in patch
    subprocess.run(["git", "apply", "-"], cwd=r.path, input=patch.encode(), check=True)
    assert (r.path / PROFILE_PATH).read_text() == profile.replace("38", "37")


@pytest.mark.parametrize("how", ["core.autocrlf", "eol=crlf"])
def test_fix_in_a_crlf_checkout_writes_crlf_and_a_second_run_changes_nothing(make_repo, capsys, how):
    # Git for Windows checks out with core.autocrlf=true: the blobs have LF, the work tree CRLF.
    attributes = {".gitattributes": "*.py eol=crlf\n*.toml eol=crlf\n"} if how == "eol=crlf" else {}
    r = make_repo(
        {"AGENTS.md": AGENTS_AGT001, **attributes}, {"tests/test_a.py": UNNAMED, PROFILE_PATH: PROFILE}
    )
    if how == "core.autocrlf":
        r.git("config", "core.autocrlf", "true")
    for path in ("tests/test_a.py", PROFILE_PATH):
        (r.path / path).unlink()
    r.git("checkout", "-q", "--", ".")
    test_file, profile = r.path / "tests/test_a.py", r.path / PROFILE_PATH
    assert test_file.read_bytes() == UNNAMED.replace("\n", "\r\n").encode()
    code, out, _ = _check(r, capsys, "--fix", "--pr-number", "7")
    assert (code, "(not fixed)" in out) == (0, False), out
    assert "2 fixes applied in 2 files" in out
    assert test_file.read_bytes() == FIXED.replace("\n", "\r\n").encode()  # CRLF kept, on the new line too
    assert profile.read_bytes() == PROFILE.replace("38", "37").replace("\n", "\r\n").encode()
    code, out, _ = _check(r, capsys, "--fix", "--pr-number", "7")
    assert code == 0 and "0 fixes applied in 0 files" in out
    assert test_file.read_bytes() == FIXED.replace("\n", "\r\n").encode()
    assert r.git("status", "--porcelain", "--", "tests") == " M tests/test_a.py\n"  # git sees the fix alone
    diff = r.git("diff", "--", "tests").splitlines()
    changed = [ln for ln in diff if ln.startswith(("+", "-")) and not ln.startswith(("+++", "---"))]
    assert changed == ["+" + FIXED.splitlines()[1]]


@pytest.mark.parametrize("mode", ["--diff", "--fix"])
def test_fix_and_diff_honour_format_json(repo, capsys, mode):
    """Before: --format json was ignored, and the summary or the patch printed as text."""
    import json

    code, out, err = _check(repo, capsys, mode, "--format", "json")
    data = json.loads(out)
    assert data["wrote"] is (mode == "--fix") and err == ""
    assert [(a["rule"], a["path"]) for a in data["applied"]] == [("TRN001", PROFILE_PATH)]
    assert [f["rule"] for f in data["left"]] == ["AGT001"]  # no --pr-number: not fixable
    assert data["patch"].startswith("--- a/") if mode == "--diff" else True
    assert code == 1
