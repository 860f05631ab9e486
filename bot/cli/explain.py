"""`bot rules --explain`: which AGENTS.md lines turn on which rule, and which lines were not understood.

As plain text for a terminal (the guides' markdown emphasis and code marks dropped), or as JSON with every
sentence, so that a corpus of guides can be scored through the command line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.git.local import GitReader, open_repo, resolve
from bot.review.engine import enabled, read_config
from rules.agents_md.reader import Policy, PolicyFile, Reading, load_policy
from rules.agents_md.trunk import trunk_named
from rules.catalog import REGISTRY
from rules.core.base import Context, Review, Rule, Statement, in_scope
from rules.core.models import ChangeSet
from rules.core.sanitize import one_line


def policy_at(repo: str | Path, rev: str) -> tuple[ChangeSet, Policy, Review]:
    """The policy of a repository at one revision, as a review of a PR based there would read it."""
    top = open_repo(repo)
    sha = resolve(top, rev)
    changeset = ChangeSet(base_sha=sha, head_sha=sha, files=(), reader=GitReader(top))
    config, _ = read_config(changeset)
    # An AGENTS.md under a path the config excludes is not read by the review, so it is not explained.
    changeset = changeset.without(config.exclude)
    policy = load_policy(changeset, REGISTRY.values(), config.agent_guides)
    return (
        changeset,
        policy,
        Review(
            changeset=changeset,
            config=config,
            statements=policy.statements,
            rule_codes=frozenset(REGISTRY),
        ),
    )


# Markdown that a terminal would show as raw marks: emphasis, code spans, links (their text is kept).
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|`")


def plain(text: str) -> str:
    """A guide's markdown sentence as plain text: "**Don't** use `mock`" -> "Don't use mock"."""
    return _EMPHASIS.sub("", _LINK.sub(r"\1", text))


def _label(code: str) -> str:
    rule = REGISTRY.get(code)
    return f"{code} {rule.name}" if rule else code


# A sentence about what the AGENTS.md rules look at. Without --all only these are listed when not understood:
# a real AGENTS.md has hundreds of sentences about other things.
_ABOUT_RULES = re.compile(
    r"(?<!-)\b(?:tests?|testing|tested|regressions?|tautolog\w*|assert\w*|PRs?|pull\s+requests?|commits?|"
    r"branch(?:es)?|trunk|main|master|develop)\b",
    re.IGNORECASE,
)


def _narrowed(statements: list[Statement], scope: str) -> str:
    """Where a sentence asks for a rule, when that is narrower than its file's folder."""
    parts = [f"in {one_line(st.scope)}/ only" for st in statements if st.scope != scope]
    excluded = sorted({ex for st in statements for ex in st.exclude})
    if excluded:
        parts.append("except in " + ", ".join(f"{one_line(ex)}/" for ex in excluded))
    return f" ({'; '.join(parts)})" if parts else ""


def _head(f: PolicyFile) -> str:
    path, scope = one_line(f.path), one_line(f.scope)
    where = "the whole repository" if f.scope == "" else f"{scope}/"
    if f.defers_to is not None:
        target = one_line(f.defers_to) or "an AGENTS.md that does not exist"
        return f"{path} (defers to {target}; governs {where})"
    if f.path.rpartition("/")[2] != "AGENTS.md":
        return f"{path} (agent guide, no AGENTS.md governs its folder; governs {where})"
    return f"{path} (governs {where})"


# What a sentence of the "known" families is about, for the explanation (none at present; see families.KNOWN).
_KNOWN: dict[str, str] = {}


def _switched_on(review: Review) -> set[str]:
    """Rules that something turns on: a sentence, `.github/bot.yml`, or being on by default."""
    return {code for code, rule in REGISTRY.items() if enabled(rule, review.config, review.statements)}


def _file_lines(f: PolicyFile, policy: Policy, every_sentence: bool, live: set[str]) -> list[str]:
    out = [_head(f)]
    if f.error:
        return [*out, f"  not read: {f.error}"]
    hidden = 0
    for r in f.readings:
        text = one_line(plain(r.text), 160)
        for code in r.on:
            mine = [
                st
                for st in policy.statements.get(code, ())
                if st.path == f.path and st.line == r.line and in_scope(st.scope, f.scope)
            ]
            out.append(f'  line {r.line:<4} turns on  {_label(code)}{_narrowed(mine, f.scope)}: "{text}"')
        for code in r.off:
            winner = next(
                (
                    c.kept
                    for c in policy.conflicts
                    if c.code == code and (c.dropped.path, c.dropped.line) == (f.path, r.line)
                ),
                None,
            )
            if winner is None and code not in live:
                # Nothing turns the rule on: the sentence changes nothing, and saying "turns off" would
                # suggest it did.
                out.append(
                    f'  line {r.line:<4} relaxes   {_label(code)}, which nothing turns on here: "{text}"'
                )
            elif winner is None:
                mine = [
                    st
                    for st in policy.statements.get(code, ())
                    if (st.path, st.line, st.effect) == (f.path, r.line, "off")
                    and in_scope(st.scope, f.scope)
                ]
                out.append(f'  line {r.line:<4} turns off {_label(code)}{_narrowed(mine, f.scope)}: "{text}"')
            else:
                out.append(
                    f'  line {r.line:<4} relaxes   {_label(code)}, overruled by {winner.source}: "{text}"'
                )
        for name in r.known:
            out.append(f'  line {r.line:<4} known:    {_KNOWN.get(name, name)}: "{text}"')
        if not r.understood and not r.heading:
            if every_sentence or _ABOUT_RULES.search(r.text):
                out.append(f'  line {r.line:<4} not understood: "{text}"')
            else:
                hidden += 1
    if hidden:
        noun = "sentence" if hidden == 1 else "sentences"
        out.append(
            f"  ({hidden} more {noun} not understood, about other things than tests, PRs, commits or "
            "branches: --all lists them)"
        )
    return out


def _state(review: Review, rule: Rule, scope: str) -> str:
    ctx = Context(review=review, rule=rule, options=rule.options, severity=None)
    if not ctx.applies(scope):
        return "off"
    statement = ctx.statement_for(scope)
    setting = review.config.setting(rule.code, rule.name)
    if statement is not None and statement.effect == "on":
        why = statement.source
    elif setting.enabled:
        why = ".github/bot.yml"
    else:
        why = "on by default"
    return f"on ({why})"


def _trunk(review: Review) -> str:
    if review.config.trunk:
        return f"trunk `{review.config.trunk}` from .github/bot.yml"
    for st in review.statements.get("AGT004", ()):
        name = trunk_named(st.text) if st.effect == "on" else None
        if name:
            return f"trunk `{name}` from {st.source}"
    return 'no trunk named: set `trunk` in .github/bot.yml, or name it ("PRs go to main")'


def explain(repo: str | Path, rev: str = "HEAD", every_sentence: bool = False) -> str:
    """The explanation as plain text for a terminal; every_sentence lists all sentences not understood."""
    changeset, policy, review = policy_at(repo, rev)
    out = [f"Policy at {rev} ({changeset.base_sha[:7]})", ""]
    if not policy.files:
        out += ["No AGENTS.md (nor another agent guide: CLAUDE.md, GEMINI.md, ...) at this revision.", ""]
    live = _switched_on(review)
    for f in policy.files:
        out += [*_file_lines(f, policy, every_sentence, live), ""]
    # Opt-outs and overruled permissions, as the review's notes word them; not an opt-out of a rule that
    # nothing turns on (the file's lines say that sentence changes nothing).
    idle = [f" turns {code} off" for code in REGISTRY if code not in live]
    said = [n for n in policy.notes() if n.startswith("`") and not any(i in n for i in idle)]
    if said:
        out += ["Notes:", *(f"  {one_line(plain(n), 400)}" for n in said), ""]
    settings = [
        f"{code}: " + ", ".join(f"{k}={v}" for k, v in s.model_dump(exclude_defaults=True).items())
        for code, s in review.config.rules.items()
    ]
    if settings:
        out += [".github/bot.yml: " + "; ".join(settings), ""]
    scopes = sorted({f.scope for f in policy.files} | {""}, key=lambda s: (s.count("/") + bool(s), s))
    for scope in scopes:
        out.append(f"Rules in force in {one_line(scope) + '/' if scope else 'the repository root'}:")
        for rule in REGISTRY.values():
            state = _state(review, rule, scope)
            extra = f"; {_trunk(review)}" if rule.code == "AGT004" and state != "off" else ""
            out.append(f"  {rule.code} {rule.name:<36} {state}{extra}")
        out.append("")
    return "\n".join(out)


def _statements_of(policy: Policy, code: str, f: PolicyFile, r: Reading, effect: str) -> list[Any]:
    """The statements of `code` this sentence made with `effect`, for the folders it governs."""
    return [
        st
        for st in policy.statements.get(code, ())
        if (st.path, st.line, st.effect) == (f.path, r.line, effect) and in_scope(st.scope, f.scope)
    ]


def _sentence(f: PolicyFile, r: Reading, policy: Policy, live: set[str]) -> dict[str, Any]:
    """One sentence of a guide: what it turns on (and where), off, what it is known to ask, or nothing."""
    on = []
    for code in r.on:
        mine = _statements_of(policy, code, f, r, "on")
        on.append(
            {
                "rule": code,
                "scopes": sorted({st.scope for st in mine}) or [f.scope],
                "except": sorted({ex for st in mine for ex in st.exclude}),
            }
        )
    off = []
    for code in r.off:
        overruled = next(
            (
                c.kept.source
                for c in policy.conflicts
                if c.code == code and (c.dropped.path, c.dropped.line) == (f.path, r.line)
            ),
            None,
        )
        mine = _statements_of(policy, code, f, r, "off")
        off.append(
            {
                "rule": code,
                "scopes": sorted({st.scope for st in mine}) or [f.scope],
                "overruled_by": overruled,
                "rule_is_on": code in live,
            }
        )
    if r.heading and not r.understood:
        status = "heading"
    elif r.on or r.off:
        status = "understood"
    elif r.known:
        status = "known"
    else:
        status = "not understood"
    return {
        "file": f.path,
        "line": r.line,
        "text": r.text,
        "heading": r.heading,
        "status": status,
        "on": on,
        "off": off,
        "known": list(r.known),
        "too_long": r.too_long,
    }


def explain_json(repo: str | Path, rev: str = "HEAD") -> dict[str, Any]:
    """The explanation as data: every sentence of every guide, the notes and the rules in force."""
    changeset, policy, review = policy_at(repo, rev)
    live = _switched_on(review)
    files = []
    for f in policy.files:
        files.append(
            {
                "path": f.path,
                "governs": f.scope,
                "defers_to": f.defers_to,
                "error": f.error,
                "sentences": [_sentence(f, r, policy, live) for r in f.readings if not r.cut],
            }
        )
    scopes = sorted({f.scope for f in policy.files} | {""}, key=lambda s: (s.count("/") + bool(s), s))
    in_force = {
        scope: {rule.code: _state(review, rule, scope) for rule in REGISTRY.values()} for scope in scopes
    }
    return {
        "revision": rev,
        "sha": changeset.base_sha,
        "files": files,
        "notes": [plain(n) for n in policy.notes()],
        "rules_in_force": in_force,
        "trunk": _trunk(review),
    }
