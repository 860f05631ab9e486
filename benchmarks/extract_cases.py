"""Writes the small extracts under tests/fixtures/real/ that let judged cases run without a clone.

    python3 benchmarks/extract_cases.py [--clones /work/clones]

For each case of `benchmarks/judged_cases.csv` with an `extract` name it reads the commit from the clone
(git plumbing only) and writes `tests/fixtures/real/<extract>/`:

- `base/` and `head/`: the files as they were before and after the commit. A Python test file is cut down to
  its module docstring, imports, the judged tests with their enclosing class (its docstring and the helpers
  the tests name) and the module-level helpers they name; at base the judged tests (and classes the commit
  added) are left out, so the extract adds exactly the judged tests. A Prime-RL commit keeps every TOML file
  of the judged configs' folders and what git pairs them with.
- `message.txt`: the messages of the commits the change brings (a merge brings its branch's commits).
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

from benchmarks.judged import Case, load_cases  # noqa: E402

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
    return set().union(*(_names(textwrap.dedent(s)) for s in sources))


def _classes(text: str | None) -> set[str]:
    if text is None:
        return set()
    return {n.name for n in ast.parse(text).body if isinstance(n, ast.ClassDef)}


def write_python(clone: Path, cases: list[Case], out: Path) -> list[str]:
    case = cases[0]
    tests = {c.test for c in cases}
    head = _show(clone, case.commit, case.path)
    base = _show(clone, f"{case.commit}^1", case.path)
    assert head is not None, case
    (out / "head" / case.path).parent.mkdir(parents=True, exist_ok=True)
    (out / "head" / case.path).write_text(trim(head, tests), encoding="utf-8")
    if base is not None:
        (out / "base" / case.path).parent.mkdir(parents=True, exist_ok=True)
        kept = trim(head, tests, drop=tests, classes=_classes(base))
        (out / "base" / case.path).write_text(kept, encoding="utf-8")
    return [case.path]


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
        shutil.rmtree(out, ignore_errors=True)
        (out / "base").mkdir(parents=True)
        (out / "head").mkdir(parents=True)
        if case.path.endswith(".py"):
            paths = write_python(clone, cases, out)
        else:
            paths = write_configs(clone, cases, out)
        if case.repo in OVERRIDDEN:
            (out / "base" / ".github").mkdir()
            (out / "base" / ".github" / "bot.yml").write_text(BOT_YML, encoding="utf-8")
        message = _git(clone, "log", "--format=%B", f"{case.commit}^1..{case.commit}").strip()
        (out / "message.txt").write_text(message + "\n", encoding="utf-8")
        cut = " (cut down to the judged tests and what they use)" if case.path.endswith(".py") else ""
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
