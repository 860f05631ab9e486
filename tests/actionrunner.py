"""Runs action.yml's composite steps the way an Actions runner does, for tests and the start-up benchmark.

Shell steps run for real (`bash --noprofile --norc -eo pipefail FILE`, as the runner invokes `shell: bash`),
each with fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; `${{ ... }}` in `env:`, `if:` and the outputs
are evaluated from the inputs, a GitHub context and earlier steps' outputs. Steps that `uses:` another action
are replaced by a stand-in passed in by the caller. Workflow commands on stdout and stderr are parsed as the
runner parses them, including `::stop-commands::`.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_IF_EQ = re.compile(r"^inputs\.([\w-]+) == '([^']*)'$")

UsesStandIn = Callable[[dict[str, Any], dict[str, str]], dict[str, str]]


@dataclass
class Command:
    name: str
    properties: dict[str, str]
    message: str


@dataclass
class StepResult:
    id: str | None
    name: str
    ran: bool
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    commands: list[Command] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class ActionRun:
    steps: list[StepResult]
    outputs: dict[str, str]

    @property
    def failed(self) -> bool:
        return any(s.returncode != 0 for s in self.steps)

    def step(self, step_id: str) -> StepResult:
        return next(s for s in self.steps if s.id == step_id)

    @property
    def commands(self) -> list[Command]:
        return [c for s in self.steps for c in s.commands]

    @property
    def summary(self) -> str:
        return "".join(s.summary for s in self.steps)


def unescape_data(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(value: str) -> str:
    return unescape_data(value.replace("%3A", ":").replace("%2C", ","))


def parse_commands(stdout: str) -> list[Command]:
    """Workflow commands in a step's output, skipping everything between stop-commands and its token."""
    commands: list[Command] = []
    stop_token: str | None = None
    # The runner reads output lines as .NET's ReadLine does: \n, \r\n and a lone \r end a line; it looks
    # for a command after the line's leading spaces, and for an old-style `##[name]` command anywhere in it.
    for raw in re.split(r"\r\n|\r|\n", stdout):
        line = raw.lstrip()
        if stop_token is not None:
            if line == f"::{stop_token}::":
                stop_token = None
            continue
        legacy = re.search(r"##\[([A-Za-z-]+)[^\]]*\](.*)$", line)
        if legacy:
            commands.append(Command(legacy.group(1), {}, legacy.group(2)))
            continue
        match = re.match(r"^::([A-Za-z-]+)(?: ([^:]*))?::(.*)$", line)
        if not match:
            continue
        name, props, message = match.group(1), match.group(2) or "", match.group(3)
        if name == "stop-commands":
            stop_token = message
            continue
        properties = {}
        for part in filter(None, props.split(",")):
            key, _, value = part.partition("=")
            properties[key] = unescape_property(value)
        commands.append(Command(name, properties, unescape_data(message)))
    return commands


def parse_output_file(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            while lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            i += 1
            outputs[name] = "\n".join(body)
        else:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


class Context:
    """The values `${{ }}` expressions may read."""

    def __init__(self, inputs: Mapping[str, str], github: Mapping[str, Any], runner: Mapping[str, str]):
        self.inputs = dict(inputs)
        self.github = github
        self.runner = runner
        self.steps: dict[str, dict[str, str]] = {}

    def lookup(self, expr: str) -> str:
        if " || " in expr:  # the first operand that is not empty, as Actions evaluates `a || b` on strings
            return next((v for v in (self.lookup(e.strip()) for e in expr.split(" || ")) if v), "")
        parts = expr.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return self.inputs.get(parts[1], "")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        if parts[0] in ("github", "runner"):
            value: Any = self.github if parts[0] == "github" else self.runner
            for part in parts[1:]:
                value = value.get(part) if isinstance(value, Mapping) else None
            return "" if value is None else str(value)
        raise ValueError(f"expression not supported by the test runner: {expr}")

    def substitute(self, value: object) -> str:
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return _EXPR.sub(lambda m: self.lookup(m.group(1)), text)

    def condition(self, expr: str) -> bool:
        expr = expr.strip()
        if expr.startswith("${{"):
            expr = _EXPR.sub(lambda m: m.group(1), expr)
        match = _IF_EQ.match(expr)
        if not match:
            raise ValueError(f"condition not supported by the test runner: {expr}")
        return self.inputs.get(match.group(1), "") == match.group(2)


def load_action(path: Path = ROOT / "action.yml") -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_action(
    *,
    inputs: Mapping[str, str],
    workspace: Path,
    temp: Path,
    home: Path,
    uses: Mapping[str, UsesStandIn],
    github: Mapping[str, Any] | None = None,
    base_env: Mapping[str, str] | None = None,
    action_path: Path = ROOT,
) -> ActionRun:
    """Run every step of the composite action at action_path; stop after the first failing step."""
    action = load_action(action_path / "action.yml")
    runner_temp = temp / "runner"
    runner_temp.mkdir(parents=True, exist_ok=True)
    github = {"action_path": str(action_path), "workspace": str(workspace), "token": "", **(github or {})}
    runner = {"temp": str(runner_temp), "os": "Linux", "arch": "X64"}
    ctx = Context({}, github, runner)
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    if unknown:
        raise ValueError(f"inputs not declared in action.yml: {sorted(unknown)}")
    ctx.inputs = {
        name: inputs.get(name, ctx.substitute(str(spec.get("default", ""))))
        for name, spec in declared.items()
    }
    env_base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": str(github.get("event_name", "pull_request")),
        "GITHUB_REPOSITORY": str(github.get("repository", "octo/example")),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        **(base_env or {}),
    }
    results: list[StepResult] = []
    for index, step in enumerate(action["runs"]["steps"]):
        result = StepResult(id=step.get("id"), name=step.get("name", f"step {index}"), ran=False)
        results.append(result)
        if "if" in step and not ctx.condition(str(step["if"])):
            continue
        result.ran = True
        start = time.perf_counter()
        if "uses" in step:
            ref = step["uses"].split("@", 1)[0]
            with_ = {k: ctx.substitute(v) for k, v in (step.get("with") or {}).items()}
            result.outputs = uses[ref](with_, env_base)
        else:
            _run_shell(step, index, ctx, env_base, temp, result)
        result.seconds = time.perf_counter() - start
        if result.id:
            ctx.steps[result.id] = result.outputs
        if result.returncode != 0:
            break
    outputs = {name: ctx.substitute(str(spec["value"])) for name, spec in action.get("outputs", {}).items()}
    return ActionRun(results, outputs)


def _run_shell(
    step: dict[str, Any],
    index: int,
    ctx: Context,
    env_base: Mapping[str, str],
    temp: Path,
    result: StepResult,
) -> None:
    if step.get("shell") != "bash":
        raise ValueError(f"step {result.name!r}: only `shell: bash` is supported")
    script = str(step["run"])
    if "${{" in script:
        raise ValueError(f"step {result.name!r}: expression inside run:")
    step_dir = temp / f"step-{index}"
    step_dir.mkdir(parents=True, exist_ok=True)
    script_file = step_dir / "script.sh"
    script_file.write_text(script, encoding="utf-8")
    output_file = step_dir / "output"
    summary_file = step_dir / "summary"
    output_file.touch()
    summary_file.touch()
    env = {
        **env_base,
        **{k: ctx.substitute(v) for k, v in (step.get("env") or {}).items()},
        "GITHUB_OUTPUT": str(output_file),
        "GITHUB_STEP_SUMMARY": str(summary_file),
    }
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
        cwd=env_base["GITHUB_WORKSPACE"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result.returncode = proc.returncode
    result.stdout, result.stderr = proc.stdout, proc.stderr
    result.outputs = parse_output_file(output_file.read_bytes().decode("utf-8"))
    result.summary = summary_file.read_text(encoding="utf-8")
    # The runner reads commands from both streams alike; a fence on one does not cover the other.
    result.commands = parse_commands(proc.stdout) + parse_commands(proc.stderr)
