"""What a rule is, and the context it runs in: pure data, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core.config import CONFIG_PATH, Config, ConfigProblem
from rules.core.models import ChangeSet, Finding, Severity
from rules.core.verification import Verification


def in_scope(path: str, scope: str) -> bool:
    """Whether path is the folder scope or lies below it; scope "" is the whole repository."""
    return scope == "" or path == scope or path.startswith(scope + "/")


@dataclass(frozen=True)
class Statement:
    """A sentence of an AGENTS.md that turns a rule on for a folder."""

    path: str  # the AGENTS.md (or CLAUDE.md) file
    line: int
    text: str
    scope: str  # folder it governs: its file's, or one the sentence names ("under tests/unit"); "" = all
    # "on" turns the rule on for the scope; "off" (e.g. "AGT001 does not apply here") turns it off.
    effect: str = "on"
    # Folders inside the scope the sentence leaves out ("... except in `legacy/`"): it says nothing there.
    exclude: tuple[str, ...] = ()

    def governs(self, path: str) -> bool:
        """Whether the sentence speaks about path: inside its scope and outside its exclusions."""
        return in_scope(path, self.scope) and not any(in_scope(path, ex) for ex in self.exclude)

    @property
    def source(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class Review:
    """State shared by all rules of one run: the change set, the trusted policy, parse caches."""

    changeset: ChangeSet
    config: Config = field(default_factory=Config)
    # rule code -> AGENTS.md statements that enable it, read from the base revision
    statements: Mapping[str, tuple[Statement, ...]] = field(default_factory=dict)
    # What is wrong in the config at base (it was ignored) and, when the PR changes it, at head.
    config_problems: tuple[ConfigProblem, ...] = ()
    # Every code the registry knows (BOT002 names a waiver's unknown code): handed in, since the registry
    # imports the rules and so cannot be imported by them.
    rule_codes: frozenset[str] = frozenset()
    # `bot check --verify-tests`: what each new or changed test did at head and on the base code, measured by
    # this run before the rules ran (never outcomes another job reported): evidence for AGT001 and AGT005.
    verifications: tuple[Verification, ...] = ()
    cache: dict[str, Any] = field(default_factory=dict)
    # Files a rule needed but could not read, path -> why (a test file over the size cap, in no encoding
    # Python takes): the review is then not complete, and never ready.
    incomplete: dict[str, str] = field(default_factory=dict)

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """Compute once per review what several rules need (parsed tests, profiles)."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


@dataclass(frozen=True)
class Context:
    """What one rule sees: the review, its own options and the severity findings get."""

    review: Review
    rule: Rule
    options: Mapping[str, Any]
    severity: Severity | None  # config override, or None for the rule's own choice

    @property
    def changeset(self) -> ChangeSet:
        return self.review.changeset

    def statement_for(self, path: str) -> Statement | None:
        """The AGENTS.md statement governing path for this rule: nearest scope wins, then the later line."""
        best: Statement | None = None
        for st in self.review.statements.get(self.rule.code, ()):
            if st.governs(path) and (best is None or len(st.scope) >= len(best.scope)):
                best = st
        return best

    def applies(self, path: str) -> bool:
        """Whether this rule is in force for path: the nearest AGENTS.md statement decides, then config."""
        statement = self.statement_for(path)
        configured = self.review.config.setting(self.rule.code, self.rule.name).enabled
        if configured is False:
            return False
        # `enabled: true` in the config acts as a root statement: a nested AGENTS.md may still opt out.
        if statement is None or (statement.scope == "" and configured):
            return bool(configured) or self.rule.on_by_default
        return statement.effect == "on"

    def choice(self, name: str, choices: tuple[str, ...]) -> tuple[str, Finding | None]:
        """An option that takes one of choices: its value, or the first choice and a finding that says why
        (a value the config checks missed, as from a config built in code)."""
        value = self.options.get(name, choices[0])
        if value in choices:
            return value, None
        return choices[0], self.finding(
            f"Option `{name}` in {CONFIG_PATH} must be one of {', '.join(choices)}; "
            f"got `{str(value)[:40]}`, so `{choices[0]}` is used."
        )

    def finding(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        severity: Severity | None = None,
        statement: Statement | None = None,
    ) -> Finding:
        if statement is None and path is not None:
            statement = self.statement_for(path)
        if statement is not None and statement.effect != "on":
            statement = None
        return Finding(
            rule=self.rule.code,
            name=self.rule.name,
            severity=self.severity or severity or self.rule.severity,
            path=path,
            line=line,
            message=message,
            source=statement.source if statement else None,
            source_text=statement.text if statement else None,
        )


@dataclass(frozen=True)
class Rule:
    """A registered check: a code, a kebab name, a default severity and a pure check function."""

    code: str
    name: str
    severity: Severity
    check: Callable[[Context], Iterable[Finding]]
    doc: str
    summary: str
    # Regexes that recognise this rule in AGENTS.md prose; a rule with none is on by default.
    recognisers: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    # The values an option may take, where they are a fixed set; `.github/bot.yml` is checked against them
    # (an option without choices must have its default's type).
    choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # AGENTS.md sentences the recognisers must understand: shown in docs/rules.md and checked by tests.
    phrases: tuple[str, ...] = ()

    @property
    def on_by_default(self) -> bool:
        return not self.recognisers
