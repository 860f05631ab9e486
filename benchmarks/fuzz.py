"""Fuzz the readers of untrusted input with hypothesis: any crash, and any input that takes over a second.

Targets: the diff reader, the AGENTS.md reader (and CLAUDE.md deferral), the comment-command parser, the
profile loaders (TOML, YAML, JSON, Python literals, Prime-RL), the artifact loader and the sanitiser. Each
input is built from pieces its reader looks for (markdown marks, diff headers, YAML and TOML syntax, rule
words, invisible and line-breaking characters) mixed with arbitrary text. An exception a reader raises on
purpose for bad input (DiffError, ProfileError, ArtifactError ...) is an answer, not a crash.

    PYTHONPATH=. python3 benchmarks/fuzz.py [--examples 200] [--target NAME ...] [--seed 0]

Prints, per target, the inputs tried, the crashes (exception type and a shortened input) and the slowest
input's time; exits 1 if any target crashed or took over a second on one input.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from bot.git.diff import DiffError, parse_diff
from bot.github.artifact import ArtifactError, load_artifact
from bot.github.commands import parse_commands
from rules.agents_md import reader as agents
from rules.catalog import REGISTRY
from rules.core import sanitize
from rules.training.primerl import PrimeRLError
from rules.training.profiles import ProfileError, parse_prime_rl_file, parse_profiles, parse_python_profiles

SLOW = 1.0
RECOGNISER = agents.Recogniser.of(REGISTRY.values())

# Characters that change how readers split and match: line breaks markdown does not know, invisible ones,
# quotes, escapes and markup.
ODD = "\n\r\t \u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e\u202e\u200b\ufeff\x00`~>#*_-+.|:;,()[]{}<>!@\\'\"/=%&$"
WORDS = (
    "Regression",
    "tests",
    "test",
    "must",
    "name",
    "the",
    "PR",
    "commit",
    "not",
    "no",
    "never",
    "don't",
    "tautological",
    "rewrite",
    "expectations",
    "trunk",
    "main",
    "branch",
    "AGENTS.md",
    "CLAUDE.md",
    "under",
    "except",
    "`tests/unit`",
    "legacy/",
    "e.g.",
    "AGT001",
    "AGT002",
    "@bot",
    "waive",
    "review",
    "help",
    "```",
    "~~~",
    "    ",
    "> ",
    "- ",
    "1. ",
    "# ",
    "<!--",
    "-->",
    "<div>",
    "</div>",
    "|",
    "---",
)
DIFF_LINES = (
    "diff --git a/x.py b/x.py",
    "--- a/x.py",
    "+++ b/x.py",
    "--- /dev/null",
    "+++ /dev/null",
    "@@ -1,2 +1,3 @@",
    "@@ -0,0 +1 @@",
    "@@ -1 +0,0 @@",
    "new file mode 100644",
    "deleted file mode 100644",
    "new file mode 120000",
    "rename from a.py",
    "rename to b.py",
    "similarity index 90%",
    "Binary files a/x and b/x differ",
    "index 1234567..89abcde 100644",
    "\\ No newline at end of file",
    "+added",
    "-removed",
    " context",
    'diff --git "a/t\\303\\251st" "b/t\\303\\251st"',
)
PROFILE_PIECES = (
    "target_examples",
    "batch_size",
    "max_steps",
    "micro_batch_size",
    "name",
    "config",
    "profiles",
    "[profiles.a]",
    "[trainer]",
    "=",
    ":",
    " ",
    "\n",
    "300",
    "8",
    "-1",
    "1e400",
    "99999999999999999999999",
    "true",
    "null",
    '"x"',
    "'y'",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a",
    "*a",
    "!!python/object",
    "- ",
    "  ",
    "nan",
    "inf",
    "0x10",
    '"\\u0000"',
    "#",
    "[[a]]",
)

pieces = st.sampled_from(WORDS) | st.text(alphabet=ODD, min_size=1, max_size=4) | st.text(max_size=12)
prose = st.lists(pieces, max_size=80).map(" ".join) | st.text(max_size=400)


def _joined(alphabet: tuple[str, ...], sep: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet) | st.text(max_size=10), max_size=60).map(sep.join)


@dataclass
class Result:
    name: str
    tried: int = 0
    slowest: float = 0.0
    slowest_input: str = ""
    crashes: dict[str, str] = field(default_factory=dict)


def _diff(text: str) -> Any:
    try:
        return parse_diff(text)
    except DiffError:
        return None


def _agents(text: str) -> Any:
    readings = agents.read_file("AGENTS.md", text, RECOGNISER)
    agents.policy_of((agents.PolicyFile("AGENTS.md", "", readings),)).notes()
    return agents._deferral("docs/CLAUDE.md", text, {"AGENTS.md", "docs/AGENTS.md"})


def _profiles(text: str) -> Any:
    out = []
    for path in ("p.profile.toml", "p.profile.yaml", "p.profile.json"):
        try:
            out.append(parse_profiles(path, text))
        except ProfileError:
            pass
    try:
        out.append(parse_python_profiles("profiles.py", text, ("COMPAT_PROFILES",)))
    except ProfileError:
        pass
    try:
        out.append(parse_prime_rl_file("configs/run.toml", text))
    except (PrimeRLError, ProfileError):
        pass
    return out


def _artifact(text: str) -> Any:
    try:
        data = json.loads(text)
    except ValueError:
        data = text
    # Both the raw text and a Report-shaped document with the input in its fields.
    shaped = {"schema_version": 1, "verdict": "ready", "findings": [{"message": text, text[:20]: 1}]}
    for raw in (
        text.encode("utf-8", "surrogatepass"),
        json.dumps(shaped).encode(),
        json.dumps(data).encode(),
    ):
        try:
            load_artifact(raw)
        except ArtifactError:
            pass


def _sanitiser(text: str) -> Any:
    return (
        sanitize.text(text),
        sanitize.code(text, table=True),
        sanitize.message(text),
        sanitize.one_line(text),
    )


TARGETS: dict[str, tuple[Callable[[str], Any], st.SearchStrategy[str]]] = {
    "diff": (_diff, _joined(DIFF_LINES, "\n") | st.text(max_size=400)),
    "agents": (_agents, st.lists(prose, max_size=12).map("\n".join)),
    "commands": (lambda t: parse_commands(t, "bot"), st.lists(prose, max_size=12).map("\n".join)),
    "profiles": (_profiles, _joined(PROFILE_PIECES, "") | st.text(max_size=300)),
    "artifact": (_artifact, prose),
    "sanitiser": (_sanitiser, prose),
}


def _timed(work: Callable[[str], Any], text: str) -> float:
    start = time.perf_counter()
    try:
        work(text)
    except Exception:  # noqa: BLE001 - recorded on the first run already
        pass
    return time.perf_counter() - start


def fuzz(name: str, examples: int, seed_value: int) -> Result:
    work, strategy = TARGETS[name]
    result = Result(name)
    # Imports and caches that the first calls build (libcst on a syntax error, say) are not an input's cost.
    for warm in ("x = 1\n", "[[a]][[a]]", "def f(:\n"):
        _timed(work, warm)

    @seed(seed_value)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(text: str) -> None:
        result.tried += 1
        start = time.perf_counter()
        try:
            work(text)
        except Exception as exc:  # noqa: BLE001 - every unexpected exception is a finding of the fuzz run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            key = f"{type(exc).__name__} at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}"
            result.crashes.setdefault(key, text[:200])
        took = time.perf_counter() - start
        if took > SLOW:
            # A shared machine pauses now and then: a slow input counts if it is slow again, alone.
            took = min(took, *(_timed(work, text) for _ in range(3)))
        if took > result.slowest:
            result.slowest, result.slowest_input = took, text[:120]

    one()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="inputs per target")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), default=[])
    parser.add_argument("--seed", type=int, default=random.randrange(2**32))
    args = parser.parse_args(argv)
    failed = False
    print(f"seed {args.seed}, {args.examples} inputs per target", flush=True)
    for name in args.target or list(TARGETS):
        start = time.perf_counter()
        r = fuzz(name, args.examples, args.seed)
        print(
            f"{name:10} {r.tried:8} inputs in {time.perf_counter() - start:7.1f}s; "
            f"{len(r.crashes)} crash(es); slowest {r.slowest:.3f}s {r.slowest_input!r:.80}",
            flush=True,
        )
        for key, text in r.crashes.items():
            print(f"    crash: {key}: {text!r}", flush=True)
        failed = failed or bool(r.crashes) or r.slowest > SLOW
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
