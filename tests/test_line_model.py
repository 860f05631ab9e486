"""One line numbering everywhere (rules.core.lines): git's lines, split at `\\n` with `\\r\\n` folded.

Python's tokenizer also breaks lines at a lone `\\r`; `str.splitlines` also at `\\x0b`, `\\x0c`,
`\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029; YAML at a lone `\\r`, `\\x85`, U+2028 and U+2029. git and
GitHub break only at `\\n`. Every finding, suggestion and fix names git's lines, end to end.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from bot.git.diff import parse_diff
from bot.git.local import load_changeset
from bot.github.handlers import Context, review_pull
from bot.github.suggest import render, select
from bot.review.engine import review
from rules.core import formats
from rules.core.fixes import apply
from rules.core.lines import PythonLines, char_col, git_lines, git_lines_keepends, to_git
from rules.core.models import ChangeSet, FileStatus, Fix, PullRequest, Report
from rules.core.pysyntax import PythonSyntaxError, parse_python
from tests import ghapi
from tests.conftest import GitRepo, github_client
from tests.helpers import AGENTS_AGT001, memory_changeset, review_change

ALL_NEW = "rules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
BASE = {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}
TESTS = "tests/test_p.py"
# Every character some reader of a file takes for a line break, and git does not (a lone `\r` included).
BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")

# ---------------------------------------------------------------------------------------------- the model


def test_git_lines_split_at_newline_only_and_fold_crlf():
    text = "a\rb\x0bc\u2028d\r\ne\x85\nlast\r"
    assert git_lines(text) == ["a\rb\x0bc\u2028d", "e\x85", "last\r"]
    assert "".join(git_lines_keepends(text)) == text
    assert git_lines_keepends(text) == ["a\rb\x0bc\u2028d\r\n", "e\x85\n", "last\r"]
    assert git_lines("") == [] and git_lines("x\n") == ["x"] and git_lines("\n\n") == ["", ""]
    assert len(git_lines(text)) == text.count("\n") + 1  # as many lines as git's diff counts


def test_parser_positions_are_translated_to_git_lines_and_columns():
    text = "# é\r# more\r\nx = 1\ry = 2\n"
    tree = ast.parse(text)
    assert [n.lineno for n in tree.body] == [3, 4]  # the tokenizer's lines
    to_git(tree, text)
    assert [n.lineno for n in tree.body] == [2, 2]  # both statements on git's line 2
    line = git_lines(text)[1]
    y = tree.body[1]
    assert line[char_col(line, y.col_offset) :].startswith("y = 2")
    assert PythonLines(text).line(99) == 99 - 4 + 2  # past the end: counted on from the last line


def test_a_syntax_error_names_the_git_line():
    try:
        parse_python("# a\r# b\r# c\nx = (\n")
    except PythonSyntaxError as exc:
        assert exc.line == 2
    else:
        raise AssertionError("no syntax error")


def test_yaml_and_toml_key_lines_are_git_lines():
    yaml_text = "a: 1  # x\u2028b: 2\x85c: 3\rd: 4\ne: 5\n"
    assert formats.key_lines(yaml_text, "yaml") == {("a",): 1, ("b",): 1, ("c",): 1, ("d",): 1, ("e",): 2}
    toml_text = "a = 1  # x\u2028y\x85z\n[t]\nb = 2\n"
    assert formats.key_lines(toml_text, "toml") == {("a",): 1, ("t",): 2, ("t", "b"): 3}
    try:
        formats.load("a: 1  # \u2028b: 1\nb: 2\n", "yaml")
    except formats.FormatError as exc:
        assert "line 2" in str(exc)
    else:
        raise AssertionError("duplicate key accepted")


# ------------------------------------------------------------------------------------ end to end, with git

# The header comment holds lone carriage returns: for Python's tokenizer these are 17 more lines.
LONE_CR = b"# header\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\n\ndef test_crash_regression():\n    assert f()\n"
LONE_CR_FIXED = LONE_CR.replace(b"    assert", b'    """Guards PR #7: crash regression."""\n    assert')


def _check(repo, capsys, *args: str) -> tuple[int, str]:
    code = main(["check", "--repo", str(repo.path), "--base", "main", *args])
    return code, capsys.readouterr().out


def test_a_new_test_file_with_lone_carriage_returns_is_reviewed_and_fixed_on_its_own_lines(make_repo, capsys):
    repo = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": LONE_CR})
    repo.git("checkout", "-q", "pr")
    code, out = _check(repo, capsys, "--pr-number", "7", "--format", "json")
    findings = [f for f in json.loads(out)["findings"] if f["rule"] == "AGT001"]
    assert code == 1 and len(findings) == 1, out  # the new test is new, and AGT001 says so
    assert findings[0]["line"] == 3 and "test_crash_regression" in findings[0]["message"]
    assert findings[0]["fix"]["start_line"] == 4 and findings[0]["fix"]["original"] == ["    assert f()"]

    code, patch = _check(repo, capsys, "--diff", "--pr-number", "7")
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo.path, input=patch.encode(), check=True)
    code, out = _check(repo, capsys, "--fix", "--pr-number", "7")
    assert code == 0 and "tests/test_a.py:4: AGT001 fixed" in out
    assert (repo.path / "tests/test_a.py").read_bytes() == LONE_CR_FIXED
    code, out = _check(repo, capsys, "--fix", "--pr-number", "7")
    assert code == 0 and "0 fixes applied" in out
    assert (repo.path / "tests/test_a.py").read_bytes() == LONE_CR_FIXED


# A line separator inside a string of the test above: str.splitlines took it for a line break, so the
# docstring went into the test above (and the suggestion replaced the wrong line).
SEPARATOR = (
    "def test_first():\n"
    '    """Guards PR #7: first."""\n'
    '    text = "a\u2028b"\n'
    "    assert text\n"
    "\n"
    "def test_crash_regression():\n"
    "    assert g()\n"
)


def test_a_line_separator_in_a_string_does_not_move_the_fix(make_repo, capsys):
    repo = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_b.py": SEPARATOR})
    repo.git("checkout", "-q", "pr")
    code, patch = _check(repo, capsys, "--diff", "--pr-number", "7")
    assert code == 1
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo.path, input=patch.encode(), check=True)
    _check(repo, capsys, "--fix", "--pr-number", "7")
    fixed = (repo.path / "tests/test_b.py").read_bytes().decode()
    assert fixed == SEPARATOR.replace(
        "    assert g()", '    """Guards PR #7: crash regression."""\n    assert g()'
    )


def test_a_fix_whose_line_holds_a_carriage_return_is_not_a_suggestion():
    # Markdown ends a line at a lone `\r`: GitHub would show this one line as two.
    text = 'def test_x():\n    """Checks x."""  # a\r# b\n    assert x\n'
    report = _review({TESTS: text}, 7)
    fixes = [f for f in report.findings if f.fix is not None]
    assert fixes and "\r" in fixes[0].fix.lines[0]
    chosen = select(report, report_changeset(text), "all")
    assert chosen.suggestions == () and "carriage return" in chosen.left[0]


# ------------------------------------------------------------------------------------------ the property


def _changeset(added: dict[str, str], pr: int) -> ChangeSet:
    return memory_changeset(BASE, added, pr)


def report_changeset(text: str) -> ChangeSet:
    return _changeset({TESTS: text}, 7)


def _review(added: dict[str, str], pr: int) -> Report:
    return review(_changeset(added, pr))


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
LINE = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789 .,:;()-!?é", min_size=1, max_size=40).filter(
    lambda s: s.strip(" ") != "" and not s.startswith(" ")
)
BREAK = st.sampled_from(BREAKS)


@st.composite
def break_modules(draw: st.DrawFn) -> str:
    """A pytest module whose comments, strings and docstrings hold the characters of BREAKS."""
    unit = draw(st.sampled_from(["    ", "\t"]))
    quote = draw(st.sampled_from(['"""', "'''"]))
    other = "'''" if quote == '"""' else '"""'
    in_class = draw(st.booleans())
    names = draw(st.lists(WORDS, min_size=1, max_size=4, unique=True))

    def comment() -> str:
        # A comment goes on after the break, as another comment: after a lone `\r` Python reads a new line.
        return f"# {draw(WORDS)}{draw(BREAK)}# {draw(WORDS)}"

    out = [comment()] if draw(st.booleans()) else []
    if draw(st.booleans()):
        out += [f"{quote}Module{draw(BREAK)}doc.{quote}", ""]
    if in_class:
        out.append("class TestThings:")
    pad = unit if in_class else ""
    for name in names:
        if draw(st.booleans()):
            out.append(pad + comment())
        tail = f"  {comment()}" if draw(st.booleans()) else ""
        out.append(f"{pad}def test_{name}({'self' if in_class else ''}):{tail}")
        body = pad + unit
        shape = draw(st.sampled_from(["none", "one", "multi", "opening-alone", "comment", "broken-first"]))
        first = draw(LINE)
        if shape == "one":
            out.append(f"{body}{quote}{first}{quote}")
        elif shape == "broken-first":  # the break inside the docstring's first line
            out.append(f"{body}{quote}{first}{draw(BREAK)}{draw(LINE)}{quote}")
        elif shape == "multi":
            out += [
                f"{body}{quote}{first}",
                "",
                f"{body}{draw(LINE)}{draw(BREAK)}{draw(LINE)}",
                f"{body}{quote}",
            ]
        elif shape == "opening-alone":
            out += [f"{body}{quote}", f"{body}{first}", f"{body}{quote}"]
        elif shape == "comment":
            out.append(f"{body}{comment()}")
        brk = draw(BREAK)
        # A lone `\r` ends a line for Python even inside a one-quote string: only a long string holds it.
        literal = f"{other}{draw(WORDS)}{brk}{draw(WORDS)}{other}" if brk == "\r" else f'"a{brk}b"'
        out += [f"{body}value = {literal}", f"{body}assert value", ""]
    # Some lines joined by a lone `\r`: Python's lines, one git line. Never a `def` with the line after it
    # (a docstring cannot be put above a body that starts on the `def` line).
    joined = [out[0]]
    for line in out[1:]:
        if "def test_" not in joined[-1] and "class " not in joined[-1] and draw(st.integers(0, 5)) == 0:
            joined[-1] += "\r" + line
        else:
            joined.append(line)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(joined) + newline


@st.composite
def break_profiles(draw: st.DrawFn) -> tuple[str, str]:
    """A compat profile whose expectation TRN001 fixes, with line breaks of other readers in a comment."""
    batch = draw(st.integers(1, 64))
    micro = draw(st.integers(batch, 20_000))
    wrong = micro // batch + draw(st.sampled_from([-3, -1, 1, 3]))
    if draw(st.booleans()):  # TOML refuses control characters in comments
        brk = draw(st.sampled_from(["\x85", "\u2028", "\u2029"]))
        text = f"name = 'p'  # a{brk}b\ntarget_micro_steps = {micro}\nbatch_size = {batch}\n"
        return "training/compat_profiles/p.toml", text + f"\n[expect]  # c{brk}d\nmax_steps = {wrong}\n"
    brk = draw(st.sampled_from(["\r", "\x85", "\u2028", "\u2029"]))  # YAML refuses the others
    text = f"name: p  # a{brk}# b\ntarget_micro_steps: {micro}\nbatch_size: {batch}\n"
    return "training/compat_profiles/p.yaml", text + f"expect:  # c{brk}# d\n  max_steps: {wrong}\n"


def _suggested_lines(body: str) -> list[str]:
    """The lines GitHub shows in the suggestion block of a comment body (Markdown's line endings)."""
    rows = re.split(r"\r\n|\r|\n", body)
    start = next(i for i, row in enumerate(rows) if row.endswith("suggestion"))
    fence = rows[start].removesuffix("suggestion")
    end = rows.index(fence, start + 1)
    return rows[start + 1 : end]


def _commit_suggestion(text: str, fix: Fix) -> str:
    """What GitHub's "Commit suggestion" makes of a file: git lines start..end replaced by the shown ones."""
    rows = text.split("\n")
    rows[fix.start_line - 1 : fix.end_line] = fix.lines
    return "\n".join(rows)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(break_modules(), break_profiles(), st.integers(1, 99_999))
def test_every_fix_replaces_exactly_the_git_lines_it_names(source, profile, pr):
    path, profile_text = profile
    added = {TESTS: source, path: profile_text}
    changeset = _changeset(added, pr)
    first = review(changeset)
    new_tests = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    agt001 = [f for f in first.findings if f.rule == "AGT001"]
    # Every new test is seen as new, wherever the breaks put Python's lines.
    assert len(agt001) == len(new_tests), [f.message for f in first.findings]
    assert any(f.rule == "TRN001" for f in first.findings)
    fixes = [f.fix for f in first.findings if f.fix is not None]
    assert any(f.path == path for f in fixes), "TRN001's fix is found in git's lines"
    rows = git_lines(source)
    for finding in agt001:
        # A docstring is withheld only where the body's first statement shares its git line with something
        # before it (after a lone `\r`): a line above it could land inside that.
        assert finding.fix is not None or "\r" in rows[finding.line], (finding.line, rows)
    for fix in fixes:
        text = added[fix.path]
        # The lines a fix (and its suggestion) replaces are the file's git lines at the numbers it names.
        assert fix.original == tuple(git_lines(text)[fix.start_line - 1 : fix.end_line])
        alone = apply(text, [fix])
        assert alone.applied == (fix,)
        if "\r\n" not in text:  # GitHub's commit of a suggestion gives what --fix writes
            assert _commit_suggestion(text, fix) == alone.text
    selection = select(first, changeset, "all", cap=100)
    by_key = {f.fix.key: f for f in first.findings if f.fix is not None}
    for suggestion in selection.suggestions:
        finding = by_key[suggestion.key]  # the keys here need no quoting
        fix = finding.fix
        assert fix is not None and (suggestion.start_line, suggestion.line) == (fix.start_line, fix.end_line)
        # The suggestion shows exactly the lines it commits.
        assert _suggested_lines(render(finding).body) == list(fix.lines)
    assert len(selection.suggestions) + len(selection.left) == len(fixes)
    assert all("carriage return" in left for left in selection.left)

    fixed = {p: apply(t, [x for x in fixes if x.path == p]).text for p, t in added.items()}
    tree = ast.parse(fixed[TESTS])  # the fixed file is still Python, with the same tests
    assert {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)} == new_tests
    again = _review(fixed, pr)
    assert [f.fix for f in again.findings if f.fix is not None] == []  # a second --fix changes nothing
    # Fixes never leave a docstring only partly fixed: every test fixed names the PR.
    fixed_tests = {f.key.rsplit(":", 1)[-1].rsplit(".", 1)[-1] for f in fixes if f.path == TESTS}
    remaining = {f.message for f in again.findings if f.rule == "AGT001"}
    assert not any(f"`{name}`" in m or f".{name}`" in m for name in fixed_tests for m in remaining)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(break_modules(), break_profiles())
def test_fix_twice_and_diff_in_a_real_repository(tmp_path_factory, source, profile):
    """`bot check --diff` prints a patch `git apply --check` takes; `--fix` a second time changes nothing."""
    path, profile_text = profile
    repo = GitRepo(tmp_path_factory.mktemp("repo"))
    repo.import_pr(
        {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": ALL_NEW}, {TESTS: source, path: profile_text}
    )
    args = ["check", "--repo", str(repo.path), "--base", "main", "--pr-number", "7"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*args, "--diff"])
    patch = out.getvalue()
    assert patch.startswith("--- a/")
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo.path, input=patch.encode(), check=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*args, "--fix"])
    assert not re.search(r"(?m)^0 fixes", out.getvalue())  # TRN001's at least
    once = {p: (repo.path / p).read_bytes() for p in (TESTS, path)}
    # What --fix wrote is what the patch makes of the files.
    repo.git("stash", "-q")
    subprocess.run(["git", "apply", "-"], cwd=repo.path, input=patch.encode(), check=True)
    assert {p: (repo.path / p).read_bytes() for p in (TESTS, path)} == once
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*args, "--fix"])
    assert "0 fixes applied in 0 files" in out.getvalue()
    assert {p: (repo.path / p).read_bytes() for p in (TESTS, path)} == once


def test_a_policy_sentence_is_cited_at_its_git_line(make_repo):
    # A lone `\r` ends a Markdown line (and a Python one) but not git's; U+2028 ends only str.splitlines'.
    agents = "# Rules\r\r\u2028\n\n" + AGENTS_AGT001.split("\n\n", 1)[1]
    report = review_change(
        make_repo,
        {"AGENTS.md": agents},
        {"tests/test_a.py": "def test_crash_regression():\n    assert f()\n"},
        PullRequest(number=7, title="Fix"),
    )
    [finding] = [f for f in report.findings if f.rule == "AGT001"]
    assert finding.source == "AGENTS.md:3", finding.source
    assert "Regression tests must name" in (finding.source_text or "")


def test_a_line_separator_in_a_renamed_path_is_no_header_line(make_repo):
    # With core.quotepath off, git prints a path's U+2028 as it is: the header is still one line to git.
    body = "".join(f"def test_{i}():\n    assert f({i})\n\n" for i in range(8))
    name = "tests/test_x\u2028new file mode 120000.py"
    head = {"tests/test_a.py": None, name: body + "def test_crash_regression():\n    assert f()\n"}
    repo = make_repo({"AGENTS.md": AGENTS_AGT001, "tests/test_a.py": body}, head)
    (f,) = parse_diff(repo.git("-c", "core.quotepath=off", "diff", "-M", "main", "pr"))
    assert (f.status, f.path, f.symlink) == (FileStatus.RENAMED, name, False)
    report = review(load_changeset(repo.path, base="main", head="pr", pr=PullRequest(number=7, title="Fix")))
    assert [f.rule for f in report.findings] == ["AGT001"], report.findings  # read, not a link


def test_a_waiver_marker_after_a_lone_carriage_return_is_a_string_as_python_reads_it(make_repo):
    # Python ends the comment at the lone `\r`: the marker is the test's docstring, not a comment. The
    # tokenizer of 3.11 took the rest of the git line for the comment, and the marker waived AGT001.
    test = 'def test_crash_regression():\n    # x\r    "# bot: ignore[AGT001] a string"\n    assert f()\n'
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": test}, PullRequest(number=7, title="Fix")
    )
    assert [f.rule for f in report.findings] == ["AGT001"] and not report.waivers


def test_a_waiver_marker_after_a_lone_carriage_return_waives_the_test_on_its_git_line(make_repo):
    test = (
        "def test_one():\n    assert f()\n\n"
        "def test_crash_regression():  # x\r    # bot: ignore[AGT001] covered by the suite\r    assert f()\n"
    )
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": test}, PullRequest(number=7, title="Fix")
    )
    # test_one is new in a fix PR without a docstring: only its own finding stays.
    assert [(f.rule, f.line) for f in report.findings] == [("AGT001", 1)]
    assert [w.line for w in report.waivers] == [4]


# --------------------------------------------------------------------------------- on GitHub, end to end

GITHUB_TESTS = (
    "# header\r# more\n"
    "def test_one():\n"
    '    text = "a\u2028b\x85c"\n'
    "    assert text\n"
    "\n"
    "def test_two():\n"
    "    assert g()\n"
)


def test_suggestions_on_github_sit_on_the_git_lines_they_show(gh, make_repo):
    config = "suggestions: all\nrules:\n  AGT001:\n    options:\n      regression: all-new-tests\n"
    r, st = ghapi.fake_pull(
        gh, make_repo, {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": config}, {TESTS: GITHUB_TESTS}
    )
    rows = git_lines(GITHUB_TESTS)  # GitHub's patch: git's lines
    patch = f"@@ -0,0 +1,{len(rows)} @@\n" + "\n".join("+" + row for row in rows)
    st.files = [ghapi.pr_file(TESTS, patch=patch, status="added", changes=len(rows))]
    review_pull(Context(client=github_client(gh), checkout=r.path, echo=lambda _: None), 7)
    (sent,) = st.created_reviews
    placed = {(c["line"], tuple(_suggested_lines(c["body"]))) for c in sent["comments"]}
    assert placed == {
        (3, ('    """Guards PR #7: one."""', '    text = "a\u2028b\x85c"')),
        (7, ('    """Guards PR #7: two."""', "    assert g()")),
    }
    for line, shown in placed:
        assert rows[line - 1] == shown[-1]  # the line commented on is the one the suggestion keeps
