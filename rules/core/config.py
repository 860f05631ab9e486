"""The optional `.github/bot.yml`, read from the base revision and validated strictly."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)

from rules.core import formats
from rules.core.models import Severity, UnreadableFile, decode_text
from rules.core.plain_errors import describe, did_you_mean
from rules.core.policy_files import AGENT_GUIDES

CONFIG_PATH = ".github/bot.yml"
MAX_CONFIG_BYTES = 256 * 1024


class ConfigProblem(BaseModel):
    """One thing wrong in a config file: where (a dotted key path and its line) and what instead."""

    model_config = ConfigDict(frozen=True)

    path: str  # the file
    key: str  # dotted key path, or "" for the file as a whole
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{f'`{self.key}`: ' if self.key else ''}{self.message}"


class ConfigError(Exception):
    """The config file is invalid; each problem names its key path and line, never the whole input."""

    def __init__(self, problems: list[ConfigProblem] | str) -> None:
        if isinstance(problems, str):
            problems = [ConfigProblem(path=CONFIG_PATH, key="", line=None, message=problems)]
        self.problems = tuple(problems)
        super().__init__(f"{self.problems[0].path}: " + "; ".join(map(str, self.problems)))


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RuleSetting(Strict):
    """Per-rule switch, severity and options."""

    # Strict: YAML's own true/false only; the strings "yes", "on" or "0" are refused, not guessed at.
    enabled: StrictBool | None = None
    severity: Severity | None = None
    options: dict[str, Any] = Field(default_factory=dict)


def _label(value: str) -> str:
    # GitHub caps label names at 50 characters; commas split label lists in the UI and API.
    if not value or len(value) > 50 or any(c in value for c in ",\n\r"):
        raise ValueError("label names must be 1-50 characters without commas or newlines")
    return value


class Labels(Strict):
    """Names of the labels the bot manages (its namespace)."""

    ready: str = "status:ready"
    needs_work: str = "status:needs-work"
    pending: str = "review:pending"
    approved: str = "review:approved"
    # A clean review whose gating checks (`ready.checks`) are still running or not yet reported.
    checks_pending: str = "status:checks-pending"

    _check = field_validator("ready", "needs_work", "pending", "approved", "checks_pending")(_label)


def _one_or_many(value: Any) -> Any:
    # `exclude: "tests/**"` means one glob: a list of one, not an error about tuples.
    return (value,) if isinstance(value, str) else value


def _guides_of(value: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_guide(v) for v in value)


def _guide(value: Any) -> Any:
    # A path relative to the folder the guide governs: `CLAUDE.md`, `.github/copilot-instructions.md`.
    if isinstance(value, str):
        parts = value.split("/")
        if not value or value.startswith("/") or any(p in ("", ".", "..") for p in parts) or "*" in value:
            raise ValueError(
                "should be a file's path relative to the folder it governs, like `CLAUDE.md` or "
                f"`.github/copilot-instructions.md`; got `{value[:80]}`"
            )
    return value


class Profiles(Strict):
    """Which files hold training profiles."""

    globs: tuple[str, ...] = (
        "**/compat_profiles/**",
        "**/compat-profiles/**",
        "**/*.profile.toml",
        "**/*.profile.yaml",
        "**/*.profile.yml",
        "**/*.profile.json",
    )
    python_globs: tuple[str, ...] = ("**/*.py",)
    python_variables: tuple[str, ...] = ("COMPAT_PROFILES",)
    prime_rl_globs: tuple[str, ...] = ("**/configs/**/*.toml",)

    _many = field_validator("globs", "python_globs", "python_variables", "prime_rl_globs", mode="before")(
        _one_or_many
    )


def _check_names(value: Any) -> Any:
    # `checks: test` names one check; the three words are the modes, not check names.
    if isinstance(value, str) and value not in ("required", "all", "none"):
        return (value,)
    if isinstance(value, list | tuple):
        for name in value:
            if not isinstance(name, str) or not name.strip() or len(name) > 200:
                raise ValueError("check names should be text of 1-200 characters, like `test` or `ci/*`")
    return value


class Ready(Strict):
    """What `status:ready` waits for besides the review: the head commit's checks."""

    # required: the base branch's required status checks (rulesets and branch protection); all: every
    # check run and commit status on the head; none: the review alone; or check names/contexts (globs).
    checks: Literal["required", "all", "none"] | tuple[str, ...] = "required"

    _names = field_validator("checks", mode="before")(_check_names)


class Verify(Strict):
    """How `bot check --verify-tests` runs the new and changed tests."""

    # Words, split as a shell would (never run by a shell); the node ids and report options follow them.
    command: str = Field(default="python -m pytest", min_length=1, max_length=500)
    # Seconds a test may take (its pytest process's start included), and all the runs together.
    test_timeout: float = Field(default=60, gt=0, le=3600)
    total_timeout: float = Field(default=600, gt=0, le=6 * 3600)


class Training(Strict):
    """What trainer configs cannot say about a run: its world size and its datasets' sizes; and where the
    bot looks for trainer configs (HF TrainingArguments/TRL, axolotl, torchtune, LLaMA-Factory YAML; verl and
    OpenRLHF launch scripts) and accelerate configs."""

    # Data-parallel processes; unset: an agreeing accelerate config's `num_processes`, else 1 assumed.
    world_size: PositiveInt | None = None
    # A dataset as a config names it (hub id or path) -> its number of training examples.
    datasets: dict[str, StrictInt] = Field(default_factory=dict)
    # Shell scripts: launch commands (verl's `key=value` overrides, OpenRLHF's flags), parsed, never run.
    globs: tuple[str, ...] = ("**/*.yaml", "**/*.yml", "**/*.json", "**/*.sh")
    # A removed config's path -> the added config that continues its run (a port), where their names differ.
    ports: dict[str, str] = Field(default_factory=dict)
    accelerate_globs: tuple[str, ...] = (
        "**/accelerate_configs/*.yaml",
        "**/accelerate_configs/*.yml",
        "**/accelerate_config*.yaml",
        "**/accelerate_config*.yml",
    )

    _many = field_validator("globs", "accelerate_globs", mode="before")(_one_or_many)

    @field_validator("datasets")
    @classmethod
    def _counts(cls, value: dict[str, int]) -> dict[str, int]:
        for name, count in value.items():
            if count <= 0:
                raise ValueError(f"`{name[:80]}` should be a number of examples above 0; got {count}")
        return value


class Config(Strict):
    """Everything `.github/bot.yml` may set; every key is optional."""

    rules: dict[str, RuleSetting] = Field(default_factory=dict)
    labels: Labels = Labels()
    profiles: Profiles = Profiles()
    training: Training = Training()
    handle: str = "bot"
    trunk: str | None = None
    # Globs of paths left out of the review entirely, e.g. ["examples/**", "third_party/**"].
    exclude: tuple[str, ...] = ()
    # Which findings' fixes are posted as suggested changes on the pull request's lines.
    suggestions: Literal["off", "errors", "all"] = "off"
    # Agent guides read as a folder's policy where no AGENTS.md governs it (rules.core.policy_files).
    agent_guides: tuple[str, ...] = AGENT_GUIDES
    verify: Verify = Verify()
    ready: Ready = Ready()

    _many = field_validator("exclude", "agent_guides", mode="before")(_one_or_many)
    _guides = field_validator("agent_guides")(_guides_of)

    def setting(self, code: str, name: str) -> RuleSetting:
        """The settings for a rule, found by code or by name."""
        return self.rules.get(code) or self.rules.get(name) or RuleSetting()


def _problem(err: Any, lines: dict[tuple[str, ...], int]) -> ConfigProblem:
    parts = tuple(str(p) for p in err["loc"])
    # The line of the key, else of the nearest key above it that the file has.
    line = next((lines[parts[:i]] for i in range(len(parts), 0, -1) if parts[:i] in lines), None)
    return ConfigProblem(path=CONFIG_PATH, key=".".join(parts), line=line, message=describe(err, Config))


class KnownRule(Protocol):
    """What config validation needs of a rule: its code, its name and its options (a registry Rule)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def choices(self) -> Mapping[str, tuple[Any, ...]]: ...


def _known_rules(rules: Iterable[KnownRule]) -> dict[str, KnownRule]:
    """Rule key (code or name) -> the rule."""
    out: dict[str, KnownRule] = {}
    for rule in rules:
        out[rule.code] = out[rule.name] = rule
    return out


def _yaml(value: Any) -> str:
    """A value as it is written in YAML: true/false, not Python's True/False."""
    return str(value).lower() if isinstance(value, bool) else str(value)[:40]


_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "should be true or false"),
    (int, "should be a whole number"),
    (float, "should be a number"),
    (str, "should be text"),
)


def _option_problem(rule: KnownRule, option: str, value: Any) -> str | None:
    """What is wrong with an option's value: not one of its choices (with a did-you-mean), or not of its
    default's kind (a boolean option takes only true or false, never "yes" or "0")."""
    choices = rule.choices.get(option)
    if choices:
        if any(type(value) is type(choice) and value == choice for choice in choices):
            return None
        shown = ", ".join(f"`{_yaml(c)}`" for c in choices)
        hint = did_you_mean(_yaml(value), [_yaml(c) for c in choices])
        return f"should be one of {shown}; got `{_yaml(value)}`{hint}"
    default = rule.options.get(option)
    for kind, words in _KINDS:
        if type(default) is kind:  # bool before int: True is an int to isinstance
            ok = type(value) is kind or (kind is float and type(value) is int)
            return None if ok else f"{words}; got `{_yaml(value)}`"
    return None


def _rule_problems(
    data: dict[str, Any], lines: dict[tuple[str, ...], int], registry: Iterable[KnownRule]
) -> list[ConfigProblem]:
    """Rule keys that name no rule, and options a rule does not have: typos that would silently do nothing."""
    rules = data.get("rules")
    if not isinstance(rules, dict):
        return []
    known = _known_rules(registry)
    codes = sorted({rule.code for rule in known.values()})
    out = []
    for name, setting in rules.items():
        where = ("rules", str(name))
        if str(name) not in known:
            hint = did_you_mean(str(name), [*codes, *(k for k in known if k not in codes)])
            out.append(
                ConfigProblem(
                    path=CONFIG_PATH,
                    key=".".join(where),
                    line=lines.get(where),
                    message=f"no rule is called `{str(name)[:40]}`{hint or '; `bot rules` lists them'}",
                )
            )
            continue
        options = setting.get("options") if isinstance(setting, dict) else None
        rule = known[str(name)]
        allowed = frozenset(rule.options)
        for option, value in options.items() if isinstance(options, dict) else ():
            key = (*where, "options", str(option))
            if option in allowed:
                wrong = _option_problem(rule, str(option), value)
                if wrong:
                    out.append(
                        ConfigProblem(path=CONFIG_PATH, key=".".join(key), line=lines.get(key), message=wrong)
                    )
                continue
            names = ", ".join(f"`{o}`" for o in sorted(allowed)) or "none"
            hint = did_you_mean(str(option), allowed) or f"; its options: {names}"
            out.append(
                ConfigProblem(
                    path=CONFIG_PATH,
                    key=".".join(key),
                    line=lines.get(key),
                    message=f"{rule.code} has no option `{str(option)[:40]}`{hint}",
                )
            )
    return out


def parse_config(text: str, rules: Iterable[KnownRule]) -> Config:
    """Validate config text; raises ConfigError listing every problem found, each with its key and line.

    rules are the rules a `rules:` key may name (the caller hands in the registry: the vocabulary sits
    below the rules, so it cannot import them)."""
    if len(text.encode("utf-8")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_PATH} is larger than {MAX_CONFIG_BYTES:,} bytes")
    try:
        data = formats.load(text, "yaml")
    except formats.FormatError as exc:
        raise ConfigError(
            [ConfigProblem(path=CONFIG_PATH, key="", line=exc.line, message=str(exc))]
        ) from None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping of keys (`rules:`, `labels:` ...) at the top level")
    lines = formats.key_lines(text, "yaml")
    problems = _rule_problems(data, lines, rules)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        problems.extend(_problem(err, lines) for err in exc.errors())
    if problems:
        raise ConfigError(sorted(problems, key=lambda p: (p.line or 0, p.key)))
    return config


def load_config(data: bytes | None, rules: Iterable[KnownRule]) -> Config:
    """Config from the base revision's bytes (None when the file does not exist)."""
    if data is None:
        return Config()
    try:
        text = decode_text(CONFIG_PATH, data, MAX_CONFIG_BYTES)
    except UnreadableFile as exc:
        raise ConfigError(str(exc)) from None
    return parse_config(text, rules)
