"""The optional `.github/bot.yml`, read from the base revision and validated strictly."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot import formats
from bot.models import Severity, UnreadableFile, decode_text

CONFIG_PATH = ".github/bot.yml"
MAX_CONFIG_BYTES = 256 * 1024


class ConfigError(Exception):
    """The config file is invalid; the message names the field path, never the whole input."""


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RuleSetting(Strict):
    """Per-rule switch, severity and options."""

    enabled: bool | None = None
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

    _check = field_validator("ready", "needs_work", "pending", "approved")(_label)


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


class Config(Strict):
    """Everything `.github/bot.yml` may set; every key is optional."""

    rules: dict[str, RuleSetting] = Field(default_factory=dict)
    labels: Labels = Labels()
    profiles: Profiles = Profiles()
    handle: str = "bot"
    trunk: str | None = None
    # Globs of paths left out of the review entirely, e.g. ["examples/**", "third_party/**"].
    exclude: tuple[str, ...] = ()

    def setting(self, code: str, name: str) -> RuleSetting:
        """The settings for a rule, found by code or by name."""
        return self.rules.get(code) or self.rules.get(name) or RuleSetting()


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def parse_config(text: str) -> Config:
    """Validate config text; raises ConfigError naming the first bad field path."""
    if len(text.encode("utf-8")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_PATH} is larger than {MAX_CONFIG_BYTES:,} bytes")
    try:
        data = formats.load(text, "yaml")
    except formats.FormatError as exc:
        raise ConfigError(f"{CONFIG_PATH}: {exc}") from None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(f"{CONFIG_PATH}: expected a mapping at the top level")
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{CONFIG_PATH}: {_field_path(err['loc'])}: {err['msg']}") from None


def load_config(data: bytes | None) -> Config:
    """Config from the base revision's bytes (None when the file does not exist)."""
    if data is None:
        return Config()
    try:
        text = decode_text(CONFIG_PATH, data, MAX_CONFIG_BYTES)
    except UnreadableFile as exc:
        raise ConfigError(str(exc)) from None
    return parse_config(text)
