"""Runs the enabled rules over a change set and builds the Report."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import NamedTuple

from bot.git.gcpause import paused
from rules.agents_md.reader import load_policy, warm
from rules.catalog import REGISTRY
from rules.core import globs
from rules.core.base import Context, Review, Rule, Statement
from rules.core.config import CONFIG_PATH, Config, ConfigError, ConfigProblem, load_config
from rules.core.models import (
    ChangeSet,
    Coverage,
    FileStatus,
    Finding,
    Report,
    Severity,
    SourceFailure,
    UnreadableFile,
    Verdict,
)
from rules.core.verification import Verification, blocking, trusted
from rules.testcode.testfiles import is_test_path
from rules.testcode.waivers import apply_waivers
from rules.training.ports import step_rows
from rules.training.profiles import profile_searches


def read_config(changeset: ChangeSet, path: str = CONFIG_PATH) -> tuple[Config, tuple[ConfigProblem, ...]]:
    """The config at base (trusted), or defaults plus what made it unusable (BOT001 reports it)."""
    config, problems = _config_at(changeset, changeset.base_sha, path)
    said = " (config ignored, defaults used)"
    return config, tuple(p.model_copy(update={"message": p.message.rstrip(".") + said}) for p in problems)


def _config_at(changeset: ChangeSet, sha: str, path: str) -> tuple[Config, tuple[ConfigProblem, ...]]:
    return _config_of(lambda: changeset.reader.read(sha, path) if changeset.reader else None, path)


def _config_of(read: Callable[[], bytes | None], path: str) -> tuple[Config, tuple[ConfigProblem, ...]]:
    """The config read() gives, or defaults and what is wrong with it (a file that cannot be read too)."""
    try:
        return load_config(read(), REGISTRY.values()), ()
    except ConfigError as exc:
        return Config(), tuple(p.model_copy(update={"path": path}) for p in exc.problems)
    except UnreadableFile as exc:
        return Config(), (ConfigProblem(path=path, key="", line=None, message=str(exc)),)


class ConfigFile(NamedTuple):
    """A config read from disk to try it (`bot check --config-file`): its name as given and its bytes."""

    name: str
    data: bytes


def _head_config(changeset: ChangeSet, path: str) -> tuple[tuple[ConfigProblem, ...], str | None]:
    """When the PR changes the config: the problems of the version it leaves, and a note saying when the
    change takes effect."""
    changed = next((f for f in changeset.files if f.path == path), None)
    if changed is None:
        return (), None
    note = (
        f"`{path}` changes with this pull request; the change takes effect after merge "
        "(this review used the base version)."
    )
    if changed.status is FileStatus.REMOVED:
        return (), note
    _, problems = _config_at(changeset, changeset.head_sha, path)
    return tuple(p.model_copy(update={"message": f"after merge: {p.message}"}) for p in problems), note


def labels_for(verdict: str, config: Config) -> tuple[str, ...]:
    """The bot-namespace labels a PR with this verdict carries."""
    names = config.labels
    if verdict == "ready":
        return (names.ready, names.pending)
    return (names.needs_work,)


def matters(path: str, config: Config) -> bool:
    """Whether a rule reads this file: tests, profiles, AGENTS.md, the bot's config."""
    p = config.profiles
    return (
        path == CONFIG_PATH
        or PurePosixPath(path).name == "AGENTS.md"
        or is_test_path(path)
        or globs.match(path, (*p.globs, *p.python_globs, *p.prime_rl_globs))
    )


def incomplete_note(missing: tuple[str, ...]) -> str:
    """The note of a review that could not see files a rule reads (missing: each "path (why)")."""
    shown = "; ".join(missing[:5]) + (f"; and {len(missing) - 5} more" if len(missing) > 5 else "")
    return f"Review not complete, so not marked ready: could not see {shown}."


def enabled(rule: Rule, config: Config, statements: Mapping[str, Sequence[Statement]]) -> bool:
    setting = config.setting(rule.code, rule.name)
    if setting.enabled is not None:
        return setting.enabled
    return rule.on_by_default or any(s.effect == "on" for s in statements.get(rule.code, ()))


def _run(rule: Rule, review: Review) -> list[Finding]:
    setting = review.config.setting(rule.code, rule.name)
    ctx = Context(
        review=review,
        rule=rule,
        options={**rule.options, **setting.options},
        severity=setting.severity,
    )
    try:
        # A finding on a path outside the scopes whose AGENTS.md turns the rule on does not count.
        return [f for f in rule.check(ctx) if f.path is None or ctx.applies(f.path)]
    except UnreadableFile as exc:
        return [ctx.finding(f"File could not be reviewed: {exc.reason}", path=exc.path)]
    except SourceFailure:
        raise  # GitHub failing (token, rate limit) is the run's problem, not a finding against the PR
    except Exception as exc:  # noqa: BLE001 - one broken rule must not stop the review
        return [
            Finding(
                rule=rule.code,
                name=rule.name,
                severity=Severity.ERROR,
                message=f"Rule failed with an internal error ({type(exc).__name__}); other rules still ran.",
            )
        ]


def warm_ups(rules: Mapping[str, Rule] = REGISTRY, comment: bool = True) -> tuple[Callable[[], None], ...]:
    """Work every review and its comment do first that needs no change set: compiling the AGENTS.md
    patterns every sentence meets, and the comment's template (unless no comment will be rendered).
    load_changeset does it while it would otherwise wait on git (`idle`); what it leaves undone is done
    when needed, as without it."""
    if not comment:
        return (functools.partial(warm, rules.values()),)
    from bot.review.render import prepare

    return (functools.partial(warm, rules.values()), prepare)


def review(
    changeset: ChangeSet,
    config: Config | None = None,
    rules: Mapping[str, Rule] = REGISTRY,
    config_path: str = CONFIG_PATH,
    config_file: ConfigFile | None = None,
    verifications: tuple[Verification, ...] = (),
) -> Report:
    """Review a change set with the enabled rules; config defaults to the base revision's, unless a
    config_file read from disk is given to try. verifications: the outcomes of the change's tests this run
    measured (`--verify-tests`), an input of the rules."""
    with paused():
        return _review(changeset, config, rules, config_path, config_file, verifications)


def _review(
    changeset: ChangeSet,
    config: Config | None,
    rules: Mapping[str, Rule],
    config_path: str,
    config_file: ConfigFile | None = None,
    verifications: tuple[Verification, ...] = (),
) -> Report:
    findings: list[Finding] = []
    problems: tuple[ConfigProblem, ...] = ()
    if config_file is not None:
        config, problems = _config_of(lambda: config_file.data, config_file.name)
        said = " (config ignored, defaults used)"
        problems = tuple(p.model_copy(update={"message": p.message.rstrip(".") + said}) for p in problems)
        head_problems: tuple[ConfigProblem, ...] = ()
        config_note: str | None = (
            f"Config read from `{config_file.name}` on disk, not from the base revision: a trial run; the "
            f"pull request's review reads the base revision's `{config_path}`."
        )
    else:
        if config is None:
            config, problems = read_config(changeset, config_path)
        head_problems, config_note = _head_config(changeset, config_path)
    changeset = changeset.without(config.exclude)
    policy = load_policy(changeset, rules.values(), config.agent_guides)
    state = Review(
        changeset=changeset,
        config=config,
        statements=policy.statements,
        config_problems=problems + head_problems,
        rule_codes=frozenset(REGISTRY),
        verifications=trusted(verifications),
    )
    # The search for profile modules runs in git (locally) while the rules parse test files.
    if changeset.searches_ahead:
        for rev, paths, words in profile_searches(state):
            changeset.mentioning_ahead(rev, paths, words)
    for rule in rules.values():
        if enabled(rule, config, state.statements):
            findings.extend(_run(rule, state))
    findings, waivers = apply_waivers(state, findings)
    findings.sort(key=lambda f: (f.path or "", f.line or 0, f.rule))
    # A file a rule needed but could not read leaves the review not complete: never ready, in every mode.
    unreviewed = tuple(f.path for f in changeset.files if f.patch_missing)
    # A file with no diff to read (binary to git, over the size cap, no patch from GitHub) that a rule reads.
    unseen = {path: "no reviewable diff" for path in unreviewed if matters(path, config)}
    incomplete = tuple(f"{path} ({why})" for path, why in {**unseen, **state.incomplete}.items())
    errors = any(f.severity is Severity.ERROR for f in findings)
    broken = blocking(verifications)
    verdict: Verdict = "needs-work" if errors or incomplete or broken else "ready"
    notes = (*policy.notes(), *([config_note] if config_note else []), *_broken_note(broken))
    return Report(
        verdict=verdict,
        labels=labels_for(verdict, config),
        findings=tuple(findings),
        profiles=step_rows(state),
        waivers=tuple(waivers),
        notes=(*notes, incomplete_note(incomplete)) if incomplete else notes,
        incomplete=incomplete,
        policy_files=policy.paths,
        policy_changes=policy.changes,
        coverage=Coverage(
            files_changed=len(changeset.files) + len(changeset.excluded) + changeset.files_unlisted,
            files_reviewed=len(changeset.files) - len(unreviewed),
            not_reviewed=unreviewed,
            files_excluded=len(changeset.excluded),
        ),
        base_sha=changeset.base_sha,
        head_sha=changeset.head_sha,
        pr_number=changeset.pr.number,
        verifications=verifications,
    )


def _broken_note(broken: tuple[Verification, ...]) -> tuple[str, ...]:
    """Why a review whose tests fail at head is not ready, whatever rule is on."""
    if not broken:
        return ()
    shown = ", ".join(f"`{v.node_id}`" for v in broken[:3]) + (
        f" and {len(broken) - 3} more" if len(broken) > 3 else ""
    )
    tests = "test fails" if len(broken) == 1 else "tests fail"
    return (f"Not ready: {len(broken)} new or changed {tests} at head ({shown}); see Verified tests.",)
