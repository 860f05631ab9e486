"""Run the selected tests at head and on the base code with the head's tests, and classify each.

The base side is a temporary `git worktree` of the base commit into which the pull request's test files
and test support (conftest.py, files under the test folders) are written from head; it shares the
repository's object store and is removed afterwards, whatever happens. The two sides run at once; each runs
the selected node ids in one pytest process; when that process runs out of time, the tests run one at a
time, each under the per-test limit, so that the one that hangs is found and the others still get an outcome.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from bot.git.checkout import worktree
from bot.verify import junit
from bot.verify.process import Runs, run
from rules.core.verification import Run, Verification, classify
from rules.testcode.verify_select import Selected


class Limits(NamedTuple):
    """Seconds a test may take (its pytest process's start included), and all the runs together."""

    test: float
    total: float


class Plan(NamedTuple):
    """What to verify: the tests, the test files to take from head, the names the change adds."""

    tests: tuple[Selected, ...]
    files: tuple[tuple[str, str | None], ...]  # (path, None): copy from head; (path, "removed"): delete
    added: frozenset[str]


def command_of(text: str) -> list[str]:
    """The test command as words (shell quoting, never a shell): `python -m pytest` -> three words."""
    words = shlex.split(text)
    if not words:
        raise ValueError("the test command is empty")
    return words


def _environment(tree: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The tests' environment: the tree's own code first on the import path (a `src/` layout too, ahead
    of an editable install that points at the checkout), and no bytecode written into it."""
    paths = [str(tree), *([str(tree / "src")] if (tree / "src").is_dir() else [])]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    return {**env, "PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1"}


def _pytest(
    command: Sequence[str],
    tree: Path,
    node_ids: Sequence[str],
    env: Mapping[str, str],
    seconds: float,
    runs: Runs | None = None,
) -> tuple[bool, dict[tuple[str, str], list[Run]] | None, str]:
    """One pytest process over node_ids: (timed out, its report or None, the end of its output)."""
    with tempfile.TemporaryDirectory(prefix="bot-verify-xml-") as tmp:
        xml = Path(tmp, "report.xml")
        args = [
            *command,
            # The cache in the temporary folder, not the checkout: nothing is written there, and fixtures that
            # use `config.cache` (werkzeug's dev server) still work, as they do not with the plugin off.
            "-o",
            f"cache_dir={Path(tmp, 'cache')}",
            f"--rootdir={tree}",  # node ids and the report's names from the repository's top
            f"--junitxml={xml}",
            "--continue-on-collection-errors",
            "-q",
            *node_ids,
        ]
        finished = run(args, cwd=tree, env=_environment(tree, env), timeout=seconds, runs=runs)
        return finished.timed_out, None if finished.timed_out else junit.read(xml), finished.output


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def run_side(
    command: Sequence[str],
    tree: Path,
    node_ids: Sequence[str],
    env: Mapping[str, str],
    limits: Limits,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
    runs: Runs | None = None,
) -> dict[str, Run]:
    """Each node id's run in tree: all in one process, else (that one ran out of time or wrote no report)
    one at a time under the per-test limit."""
    if not node_ids:
        return {}
    if deadline - clock() <= 0:
        ran_out = f"the total limit of {limits.total:g} s ran out before it ran"
        return {n: Run(status="timeout", detail=ran_out) for n in node_ids}
    budget = min(limits.test * len(node_ids), deadline - clock())
    timed_out, cases, output = _pytest(command, tree, node_ids, env, budget, runs)
    if cases is not None:
        found = {n: junit.outcome(cases, n) for n in node_ids}
        # A file that fails to import stops pytest before it runs the other files' tests ("found no
        # collectors"): those run again without it.
        missing = [n for n, r in found.items() if r.status == "missing"]
        if missing and any(r.status == "uncollected" for r in found.values()):
            found.update(run_side(command, tree, missing, env, limits, deadline, clock, runs))
        return found
    if len(node_ids) == 1 and timed_out and budget >= limits.test:
        return {node_ids[0]: Run(status="timeout", detail=f"over the {limits.test:g} s limit")}
    out: dict[str, Run] = {}
    for n in node_ids:
        left = deadline - clock()
        if left <= 0:
            out[n] = Run(
                status="timeout", detail=f"the total limit of {limits.total:g} s ran out before it ran"
            )
            continue
        seconds = min(limits.test, left)
        timed_out, cases, output = _pytest(command, tree, [n], env, seconds, runs)
        if timed_out:
            out[n] = Run(status="timeout", detail=f"over the {seconds:g} s limit")
        elif cases is None:
            out[n] = Run(status="missing", detail=f"pytest wrote no report: {_last_line(output)}")
        else:
            out[n] = junit.outcome(cases, n)
    return out


def _inside(tree: Path, path: str) -> Path:
    """path below tree; a path that would leave it (never from git, but checked) is refused."""
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise ValueError(f"refusing to write outside the base copy: {path}")
    return tree.joinpath(*parts)


def put_tests(
    tree: Path, files: Sequence[tuple[str, str | None]], read: Callable[[str], bytes | None]
) -> None:
    """Write the head's test files into the base copy (read(path): their bytes at head), delete the ones
    the change removes."""
    for path, change in files:
        target = _inside(tree, path)
        data = None if change == "removed" else read(path)
        if data is None:
            if target.is_file() or target.is_symlink():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)


@contextmanager
def _head_tree(top: Path, head: str | None, env: Mapping[str, str]) -> Iterator[Path]:
    """Where head's tests run: the checkout itself (head None), else a temporary checkout of that commit."""
    if head is None:
        yield top
        return
    with worktree(top, head, env) as tree:
        yield tree


def verify(
    top: Path,
    plan: Plan,
    base: str,
    read_head: Callable[[str], bytes | None],
    env: Mapping[str, str],
    command: Sequence[str],
    limits: Limits,
    head: str | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Verification, ...]:
    """Run plan's tests at head (the checkout, or a temporary checkout of the commit head) and, at the same
    time, on the base commit with the head's tests; one Verification each."""
    if not plan.tests:
        return ()
    deadline = clock() + limits.total
    ids = list(dict.fromkeys(t.node_id for t in plan.tests))
    runs = Runs()
    # Both sides at once, the base in a second thread; a test that does not pass at head has its base run
    # ignored. On Ctrl-C or an error every live run is killed before the checkouts are removed.
    with _head_tree(top, head, env) as head_tree, worktree(top, base, env) as base_tree:
        put_tests(base_tree, plan.files, read_head)
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-verify-base")
        try:
            later = pool.submit(run_side, command, base_tree, ids, env, limits, deadline, clock, runs)
            at_head = run_side(command, head_tree, ids, env, limits, deadline, clock, runs)
            at_base = later.result()
        except BaseException:
            runs.cancel()
            raise
        finally:
            pool.shutdown(wait=True)
    out = []
    for t in plan.tests:
        head_run = at_head[t.node_id]
        base_run = at_base.get(t.node_id) if head_run.status == "passed" else None
        outcome, reason = classify(head_run, base_run, plan.added)
        out.append(
            Verification(
                path=t.path,
                node_id=t.node_id,
                state="new" if t.state == "new" else "changed",
                outcome=outcome,
                reason=reason,
                head=head_run,
                base=base_run,
                line=t.line,
            )
        )
    return tuple(out)
