"""Writes the small extracts under tests/fixtures/real/ that let judged cases run without a clone.

    python3 benchmarks/extract_cases.py [--clones /work/clones]

For each case of `benchmarks/judged_cases.csv` with an `extract` name it reads the commit from the clone
(git plumbing only) and writes `tests/fixtures/real/<extract>/`:

- `base/` and `head/`: the files as they were before and after the commit. A Python test file is cut down to
  its module docstring, imports, the judged tests with their enclosing class (its docstring and the helpers
  the tests name) and the module-level helpers they name; at base the judged tests (and classes the commit
  added) are left out, so the extract adds exactly the judged tests. A Prime-RL commit keeps every TOML file
  of the judged configs' folders and what git pairs them with.
- `message.txt`: the messages of the commits the change brings (a merge brings its branch's commits), newest
  first, one per commit (`judged.COMMIT_SEPARATOR` between them).
- `README.md`: repository, commit, paths and licence.

Rules off in a repository's own AGENTS.md are turned on as the benchmark does (`base/.github/bot.yml`).
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.judged import COMMIT_SEPARATOR, Case, load_cases  # noqa: E402
from benchmarks.sample_cases import qualified_tests  # noqa: E402
from rules.testcode.runner_config import CONFIG_FILES, python_files  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
LICENCES = {
    "pytest-dev/pytest": "MIT",
    "basnijholt/unidep": "BSD-3-Clause",
    "PrimeIntellect-ai/prime-rl": "Apache-2.0",
}
OVERRIDDEN = {"pytest-dev/pytest", "basnijholt/unidep"}
BOT_YML = "rules:\n  AGT001:\n    enabled: true\n  AGT002:\n    enabled: true\n"


def _git(clone: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=clone, capture_output=True, check=True).stdout.decode()


def _show(clone: Path, rev: str, path: str) -> str | None:
    proc = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True, check=False)
    return proc.stdout.decode() if proc.returncode == 0 else None


def _span(node: ast.stmt) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return first, node.end_lineno or node.lineno


def _names(text: str) -> set[str]:
    nodes = list(ast.walk(ast.parse(text)))
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    return names | {n.attr for n in nodes if isinstance(n, ast.Attribute)}


def trim(
    text: str, tests: set[str], drop: frozenset[str] | set[str] = frozenset(), classes: set[str] | None = None
) -> str:
    """The parts of a test module the judged tests need; `drop` tests and classes not in `classes` go."""
    lines = text.splitlines()
    tree = ast.parse(text)
    pick = lambda node: "\n".join(lines[_span(node)[0] - 1 : _span(node)[1]])  # noqa: E731
    wanted: list[str] = []
    kept_source: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in tests:
            if node.name not in drop:
                wanted.append(pick(node))
            kept_source.append(pick(node))
        elif isinstance(node, ast.ClassDef) and any(t.startswith(node.name + ".") for t in tests):
            if classes is not None and node.name not in classes:
                continue
            members = {t.split(".", 1)[1] for t in tests if t.startswith(node.name + ".")}
            sources = [pick(m) for m in node.body if getattr(m, "name", None) in members]
            kept_source += sources
            used = _used(sources)
            body_start = node.body[0]
            header_end = (
                body_start.end_lineno
                if isinstance(body_start, ast.Expr) and isinstance(body_start.value, ast.Constant)
                else _span(body_start)[0] - 1
            )
            parts = ["\n".join(lines[_span(node)[0] - 1 : header_end])]
            for m in node.body:
                name = getattr(m, "name", None)
                if name in members and f"{node.name}.{name}" not in drop:
                    parts.append(pick(m))
                elif name and not name.startswith("test") and name in used:
                    parts.append(pick(m))
            if len(parts) == 1:
                parts.append("    pass")
            wanted.append("\n\n".join(parts))
    used = _used(kept_source)
    head: list[str] = []
    doc = ast.get_docstring(tree, clean=False)
    if doc is not None:
        head.append(pick(tree.body[0]))
    head += [pick(n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    helpers = [
        pick(n)
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not n.name.startswith(("test", "Test"))
        and n.name in used
    ]
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(helpers + wanted) + "\n"


def _used(sources: list[str]) -> set[str]:
    """Every name and attribute the sources mention (a method's source is dedented to parse alone)."""
    return set().union(*(_names_of_source(s) for s in sources))


def _names_of_source(source: str) -> set[str]:
    try:
        return _names(textwrap.dedent(source))
    except SyntaxError:  # a string starting at column 0 stops dedent: parse the method inside a class
        return _names("class _:\n" + source)


def _classes(text: str | None) -> set[str]:
    if text is None:
        return set()
    return {n.name for n in ast.parse(text).body if isinstance(n, ast.ClassDef)}


def _new_tests(head: str | None, base: str | None) -> list[str]:
    """The tests of head that base lacks, as `test` or `Class.test` (deeper nesting is not extracted)."""
    if head is None:
        return []
    try:
        had = set(qualified_tests(base)) if base else set()
        return [t for t in qualified_tests(head) if t not in had and t.count(".") <= 1]
    except SyntaxError:  # newer syntax than this Python's: only the judged tests are cut out
        return []


def _removed_tests(head: str | None, base: str | None) -> set[str]:
    """The tests of base that head lacks: with the new ones they show a rename as the review sees it."""
    return set(_new_tests(base, head))


def _stand_in(path: str, side: str) -> str:
    """A file carrying only its path: all the review needs of a changed file that is not a test file."""
    if path.endswith(".json"):
        return f'{{"stand_in": "{side}"}}\n'
    return f"# stand-in for {path} ({side} the commit); its content is not part of this extract\n"


def write_python(clone: Path, cases: list[Case], out: Path) -> list[str]:
    """The commit's test files cut down to the tests it adds, and a stand-in for every other changed file.

    Every new test of every changed test file is kept (not only the judged ones), and at base every test
    the commit removes, so that the review sees as many new tests, the same neighbours and the same renames
    as in the real commit; the other changed files keep their paths (the review weighs which modules a fix
    changes) but not their content.
    """
    commit = cases[0].commit
    judged = {path: {c.test for c in cases if c.path == path} for path in {c.path for c in cases}}
    status = _git(clone, "diff", "--name-status", "-M", f"{commit}^1", commit).splitlines()
    numstat = _git(clone, "diff", "--numstat", "--no-renames", f"{commit}^1", commit).splitlines()
    binary = {row.split("\t")[2] for row in numstat if row.startswith("-\t-\t")}
    written: list[str] = []
    for row in status:
        kind, *paths = row.split("\t")
        old, path = paths[0], paths[-1]  # a rename's old and new path; else the same path twice
        if path.startswith(".github/") or path in binary or old in binary:
            continue
        head = None if kind == "D" else _show(clone, commit, path)
        base = None if kind == "A" else _show(clone, f"{commit}^1", old)
        tests = set(_new_tests(head, base)) if path.endswith(".py") else set()
        tests |= judged.get(path, set())
        if tests and head is not None:
            (out / "head" / path).parent.mkdir(parents=True, exist_ok=True)
            (out / "head" / path).write_text(trim(head, tests), encoding="utf-8")
            if base is not None:
                # The real base file, cut down to the tests the commit removes and the shells of the
                # classes its new tests go into: the diff then holds the new, removed and renamed tests.
                removed = _removed_tests(head, base)
                (out / "base" / old).parent.mkdir(parents=True, exist_ok=True)
                kept = trim(base, tests | removed, drop=tests, classes=_classes(base))
                (out / "base" / old).write_text(kept, encoding="utf-8")
        else:
            for side, where, text in (("base", old, base), ("head", path, head)):
                if text is not None:
                    (out / side / where).parent.mkdir(parents=True, exist_ok=True)
                    when = "before" if side == "base" else "after"
                    (out / side / where).write_text(_stand_in(where, when), encoding="utf-8")
        written.append(path)
    missing = set(judged) - set(written)
    assert not missing, (commit, missing)
    return written


def write_configs(clone: Path, cases: list[Case], out: Path) -> list[str]:
    commit = cases[0].commit
    folders = {str(PurePosixPath(c.path).parent) for c in cases}
    status = _git(clone, "diff", "--name-status", "-M", f"{commit}^1", commit, "--", "*.toml").splitlines()
    base_paths: set[str] = set()
    head_paths: set[str] = set()
    for row in status:
        parts = row.split("\t")
        old, new = parts[1], parts[-1]
        if {str(PurePosixPath(old).parent), str(PurePosixPath(new).parent)} & folders:
            base_paths.add(old)
            head_paths.add(new)
    for rev, paths in ((f"{commit}^1", base_paths), (commit, head_paths)):
        for folder in folders:
            tree = ["git", "ls-tree", "--name-only", f"{rev}:{folder}"]
            proc = subprocess.run(tree, cwd=clone, capture_output=True, check=False)
            paths |= {f"{folder}/{n}" for n in proc.stdout.decode().split() if n.endswith(".toml")}
    written = []
    for side, rev, paths in (("base", f"{commit}^1", base_paths), ("head", commit, head_paths)):
        for path in sorted(paths):
            text = _show(clone, rev, path)
            if text is None:
                continue
            (out / side / path).parent.mkdir(parents=True, exist_ok=True)
            (out / side / path).write_text(text, encoding="utf-8")
            written.append(path)
    return sorted(set(written))


def write_runner_config(clone: Path, commit: str, out: Path) -> str | None:
    """The repository's pytest `python_files` at base, cut down to that one setting, so the extract collects
    the same test files as the clone (pytest's own `testing/python/*.py`). Written at both sides when the
    commit leaves the file alone; only at base (the side the review reads) when the commit changes it."""
    for path in CONFIG_FILES:
        text = _show(clone, f"{commit}^1", path)
        patterns = python_files(path, text) if text is not None else None
        if patterns is None:
            continue
        if not patterns:
            return None
        listed = ", ".join(f'"{p}"' for p in patterns)
        if path == "pyproject.toml":
            body = f"[tool.pytest.ini_options]\npython_files = [{listed}]\n"
        else:
            section = "tool:pytest" if path == "setup.cfg" else "pytest"
            body = f"[{section}]\npython_files = {' '.join(patterns)}\n"
        cut = f"# {path} cut down to the pytest `python_files` the review reads\n{body}"
        sides = (
            ("base",)
            if (out / "head" / path).exists() or (out / "base" / path).exists()
            else ("base", "head")
        )
        for side in sides:
            (out / side / path).write_text(cut, encoding="utf-8")
        return path
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=Path, default=Path("/work/clones"))
    args = parser.parse_args(argv)
    groups: dict[str, list[Case]] = defaultdict(list)
    for case in load_cases():
        if case.extract:
            groups[case.extract].append(case)
    for name, cases in sorted(groups.items()):
        case = cases[0]
        clone = args.clones / case.repo.replace("/", "+")
        out = ROOT / name
        if not clone.is_dir():  # keep the committed extract rather than delete it
            print(f"{name}: no clone at {clone}, extract left as it is")
            continue
        shutil.rmtree(out, ignore_errors=True)
        (out / "base").mkdir(parents=True)
        (out / "head").mkdir(parents=True)
        if case.path.endswith(".py"):
            paths = write_python(clone, cases, out)
            config = write_runner_config(clone, case.commit, out)
            if config is not None and config not in paths:
                paths.append(config)
        else:
            paths = write_configs(clone, cases, out)
        if case.repo in OVERRIDDEN:
            (out / "base" / ".github").mkdir()
            (out / "base" / ".github" / "bot.yml").write_text(BOT_YML, encoding="utf-8")
        log = _git(clone, "log", "--format=%B%x00", f"{case.commit}^1..{case.commit}")
        messages = [m.strip() for m in log.split("\0") if m.strip()]
        (out / "message.txt").write_text(COMMIT_SEPARATOR.join(messages) + "\n", encoding="utf-8")
        cut = (
            " (its test files cut down to the tests it adds and what they use; every other changed file is a"
            " stand-in carrying only its path)"
            if case.path.endswith(".py")
            else ""
        )
        (out / "README.md").write_text(
            f"# {name}\n\nExtract of https://github.com/{case.repo} at commit {case.commit} "
            f"(and its first parent){cut}; licence {LICENCES[case.repo]}.\n\nPaths:\n"
            + "".join(f"- `{p}`\n" for p in paths)
            + "\n`message.txt` holds the messages of the commits it brings. Judged in "
            "`benchmarks/judged_cases.csv`.\n",
            encoding="utf-8",
        )
        print(f"{name}: {len(cases)} cases, {', '.join(paths)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
