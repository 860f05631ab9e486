"""Training profiles in a change set: found, parsed without executing anything, and their step math.

Three sources (docs/profiles.md):

- compat-profile files (TOML, YAML, JSON) matched by `profiles.globs`;
- literal dicts assigned to configured names (`COMPAT_PROFILES = {...}`) in Python modules matched by
  `profiles.python_globs`, read with `ast` and `ast.literal_eval`, never imported;
- Prime-RL SFT TOML configs, matched by `profiles.prime_rl_globs` or recognised by their shape.

A profile may name the Prime-RL config it applies to (`config = "configs/sft/run.toml"`); values it does
not set (batch size, scheduler, checkpointing) then come from that config at the same revision.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError

from rules.core import formats, globs
from rules.core.base import Review
from rules.core.models import ChangeSet, FileStatus, ProfileMath, StepValues, UnreadableFile
from rules.core.plain_errors import describe
from rules.core.pysyntax import PythonSyntaxError, parse_python
from rules.training.pairing import Pair, file_pairs

if TYPE_CHECKING:
    from rules.training.primerl import PrimeRLConfig
    from rules.training.stepmath import Scheduler, StepInputs

# The Prime-RL schema (its pydantic models) and the step math are imported where a profile or a config is
# parsed or evaluated: a change that touches none (most commits, every one-file hook run) never loads them.

# Profiles are small; anything larger is refused before parsing (a review must stay bounded).
MAX_PROFILE_BYTES = 512 * 1024
# Unchanged profile files scanned for a pointer at a changed Prime-RL config.
MAX_DEPENDENT_SCAN = 500

PROFILE, PYTHON, PRIME_RL = "profile", "python", "prime-rl"
# Evaluation.error_kind of a Prime-RL config without max_steps: no step values, and nothing wrong.
UNBOUNDED = "unbounded"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Expect(_Strict):
    """Values the profile's author expects; TRN001 checks them against the derivation."""

    max_steps: StrictInt | None = None
    decay_steps: StrictInt | None = None
    effective_train_examples: StrictInt | None = None
    unapplied_micro_steps: StrictInt | None = None
    grad_accum: StrictInt | None = None
    tokens_per_step: StrictInt | None = None
    ckpt_interval: StrictInt | None = None


class SchedulerOverride(_Strict):
    """Overrides of the Prime-RL `[scheduler]` table."""

    type: StrictStr | None = None
    warmup_steps: StrictInt | None = None
    decay_steps: StrictInt | None = None
    min_lr: StrictFloat | StrictInt | None = None


class Profile(_Strict):
    """One compat profile: what a training run asks for."""

    name: StrictStr | None = None
    description: StrictStr | None = None
    config: StrictStr | None = None
    target_examples: StrictInt | None = None
    target_micro_steps: StrictInt | None = None
    max_steps: StrictInt | None = None
    batch_size: StrictInt | None = None
    micro_batch_size: StrictInt | None = None
    world_size: StrictInt | None = None
    cp: StrictInt | None = None
    seq_len: StrictInt | None = None
    sync_scheduler_to_max_steps: StrictBool = True
    sync_ckpt_to_max_steps: StrictBool = False
    scheduler: SchedulerOverride = SchedulerOverride()
    expect: Expect = Expect()

    def inputs(self, config: PrimeRLConfig | None = None) -> StepInputs:
        """Step inputs: the profile's own values, else the Prime-RL config's."""
        from rules.training.stepmath import StepInputs

        data = config.data if config else None
        return StepInputs(
            batch_size=_first(self.batch_size, data.batch_size if data else None),
            target_examples=self.target_examples,
            target_micro_steps=self.target_micro_steps,
            max_steps=self.max_steps,
            decay_steps=self.scheduler.decay_steps,
            sync_scheduler_to_max_steps=self.sync_scheduler_to_max_steps,
            sync_ckpt_to_max_steps=self.sync_ckpt_to_max_steps,
            micro_batch_size=_first(self.micro_batch_size, data.micro_batch_size if data else None),
            world_size=_first(self.world_size, config.world_size if config else None),
            cp=_first(self.cp, config.model.cp if config else None),
            seq_len=_first(self.seq_len, data.seq_len if data else None),
            config_max_steps=config.max_steps if config else None,
            config_decay_steps=config.decay_steps if config else None,
            config_ckpt_interval=config.ckpt.interval if config and config.ckpt else None,
            config_ckpt_keep_interval=config.ckpt.keep_interval if config and config.ckpt else None,
        )

    def schedule(self, config: PrimeRLConfig | None) -> Scheduler | None:
        """The scheduler the run gets, or None when neither the profile nor a config says which type."""
        from rules.training.stepmath import Scheduler

        own = self.scheduler
        own_keys = own.model_fields_set
        if config is None and own.type is None:
            return None
        base = config.schedule() if config else Scheduler()
        return Scheduler(
            type=_first(own.type, base.type),
            warmup_steps=_first(own.warmup_steps, base.warmup_steps),
            decay_steps=_first(own.decay_steps, base.decay_steps),
            keys=frozenset(base.keys | own_keys),
        )


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


class Problem(NamedTuple):
    """One thing wrong in a profile source: what, the key path it is about, and its line when known."""

    message: str
    key: tuple[str, ...] = ()
    line: int | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class ProfileError(ValueError):
    """A profile source that cannot be used: every problem found, each with its key path in the file and
    its line where known (the message joins them, for places that show one line)."""

    def __init__(
        self,
        message: str = "",
        key: tuple[str, ...] = (),
        line: int | None = None,
        problems: tuple[Problem, ...] = (),
    ) -> None:
        self.problems = problems or (Problem(message, key, line),)
        super().__init__("; ".join(map(str, self.problems)))

    @property
    def key(self) -> tuple[str, ...]:
        return self.problems[0].key


def _validation_problems(
    exc: ValidationError, prefix: str, keys: tuple[str, ...] = ()
) -> tuple[Problem, ...]:
    """Every problem of one profile, each with its key: `batchsize`: unknown key; did you mean ..."""
    return tuple(
        Problem(
            f"`{prefix}{'.'.join(str(p) for p in err['loc'])}`: {describe(err, Profile)}",
            (*keys, *(str(p) for p in err["loc"])),
        )
        for err in exc.errors()
    )


@dataclass(frozen=True)
class Entry:
    """One named profile (or Prime-RL config) found in a file."""

    name: str
    profile: Profile | None = None
    prime: PrimeRLConfig | None = None
    line: int | None = None


def _check_size(text: str) -> None:
    size = len(text.encode("utf-8"))
    if size > MAX_PROFILE_BYTES:
        raise ProfileError(f"file is {size:,} bytes, over the {MAX_PROFILE_BYTES:,}-byte limit for profiles")


def _load(path: str, text: str) -> Any:
    _check_size(text)
    fmt = formats.format_of(path)
    if fmt is None:
        raise ProfileError("unknown profile format (use .toml, .yaml, .yml or .json)")
    try:
        return formats.load(text, fmt)
    except formats.FormatError as exc:
        raise ProfileError(str(exc), line=exc.line) from None


def _profiles_from(raw: Any, default_name: str, prefix_all: str = "") -> dict[str, Entry]:
    """Validate a single profile mapping, or a `profiles` mapping of named ones."""
    if not isinstance(raw, dict):
        raise ProfileError("expected a table/mapping at the top level")
    if "profiles" in raw:
        if set(raw) - {"profiles"} or not isinstance(raw["profiles"], dict):
            raise ProfileError("a file with a `profiles` table holds nothing else")
        named: dict[Any, Any] = raw["profiles"]
        prefix = "profiles."
    else:
        named = {str(raw.get("name") or default_name): raw}
        prefix = ""
    out = {}
    for name, body in named.items():
        if not isinstance(body, dict):
            raise ProfileError(f"profile {str(name)[:80]!r} is not a table/mapping")
        try:
            out[str(name)] = Entry(name=str(name), profile=Profile.model_validate(body))
        except ValidationError as exc:
            where = f"{prefix_all}{prefix}{name}." if prefix else prefix_all
            keys = ("profiles", str(name)) if prefix else ()
            raise ProfileError(problems=_validation_problems(exc, where, keys)) from None
    return out


def parse_profiles(path: str, text: str, name_as: str | None = None) -> dict[str, Entry]:
    """Profiles in one compat-profile file: a single profile, or a `profiles` table of named ones.

    An unnamed single profile takes the name of the file, or of name_as (a renamed file's head path).
    """
    data = _load(path, text)
    try:
        return _profiles_from(data, PurePosixPath(name_as or path).name.split(".")[0])
    except ProfileError as exc:
        lines = formats.key_lines(text, formats.format_of(path) or "")
        # Each problem at its key's line, else at the nearest key above it that the file has.
        placed = tuple(
            p._replace(
                line=next((lines[p.key[:i]] for i in range(len(p.key), 0, -1) if p.key[:i] in lines), None)
            )
            if p.line is None and p.key
            else p
            for p in exc.problems
        )
        raise ProfileError(problems=placed) from None


def _prime_entries(path: str, data: Any, name_as: str | None = None) -> dict[str, Entry]:
    """Parsed Prime-RL TOML as one entry named after the file (or name_as, its head path)."""
    from rules.training.primerl import PrimeRLError, parse_prime_rl

    try:
        config = parse_prime_rl(data)
    except PrimeRLError as exc:
        raise ProfileError(str(exc)) from None
    name = PurePosixPath(name_as or path).name
    return {name: Entry(name=name, prime=config)}


def parse_prime_rl_file(path: str, text: str) -> dict[str, Entry]:
    """A Prime-RL config file as one entry named after the file."""
    return _prime_entries(path, _load(path, text))


def mentions(text: str, variables: tuple[str, ...]) -> bool:
    """Cheap test before parsing a Python module: does it name a profile variable at all?"""
    return any(v in text for v in variables)


def _assigned(tree: ast.Module, variables: tuple[str, ...]) -> list[tuple[str, ast.expr]]:
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in variables:
                found.append((target.id, value))
    return found


def parse_python_profiles(path: str, text: str, variables: tuple[str, ...]) -> dict[str, Entry]:
    """Profiles assigned as literal dicts to module-level names; the module is parsed, never run."""
    _check_size(text)
    try:
        tree = parse_python(text, path)
    except PythonSyntaxError as exc:
        raise ProfileError(f"not valid Python: {exc.reason}", line=exc.line) from None
    out: dict[str, Entry] = {}
    for variable, value in _assigned(tree, variables):
        try:
            data = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise ProfileError(
                f"`{variable}` is not a literal dict: the bot reads profiles without running code, so "
                "write them as plain literals",
                line=value.lineno,
            ) from None
        if not isinstance(data, dict):
            raise ProfileError(f"`{variable}` is not a dict of profiles", line=value.lineno)
        lines = {}
        if isinstance(value, ast.Dict):
            lines = {
                k.value: k.lineno
                for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
        try:
            formats.check(data)
        except formats.FormatError as exc:
            raise ProfileError(f"`{variable}`: {exc}") from None
        for name, body in data.items():
            if not isinstance(name, str):
                raise ProfileError(f"`{variable}` has a non-string profile name {str(name)[:40]!r}")
            if not isinstance(body, dict):
                raise ProfileError(f"`{variable}[{name[:80]!r}]` is not a dict")
            try:
                profile = Profile.model_validate(body)
            except ValidationError as exc:
                problems = _validation_problems(exc, f"{variable}[{name[:80]!r}].")
                line = lines.get(name)
                raise ProfileError(problems=tuple(p._replace(line=line) for p in problems)) from None
            out[name] = Entry(name=name, profile=profile, line=lines.get(name))
    return out


# --- Finding profile files in a change set --------------------------------------------------------


def kind_of(path: str, review: Review, text: str | None = None) -> str | None:
    """PROFILE, PYTHON or PRIME_RL for a path (text lets a TOML file be recognised by shape)."""
    cfg = review.config.profiles
    fmt = formats.format_of(path)
    if fmt is not None and globs.match(path, cfg.globs):
        return PROFILE
    if path.endswith(".toml") and globs.match(path, cfg.prime_rl_globs):
        return PRIME_RL
    if path.endswith(".py") and globs.match(path, cfg.python_globs):
        return PYTHON
    if path.endswith(".toml") and text is not None and len(text) <= MAX_PROFILE_BYTES:
        try:
            data = formats.load(text, "toml")
        except formats.FormatError:
            return None
        from rules.training.primerl import looks_like_prime_rl

        if looks_like_prime_rl(data):
            return PRIME_RL
    return None


def parse_source(
    kind: str, path: str, text: str, review: Review, name_as: str | None = None
) -> dict[str, Entry]:
    """Entries of one file of a known kind, file-named entries named after name_as; raises ProfileError."""
    if kind == PROFILE:
        return parse_profiles(path, text, name_as)
    if kind == PYTHON:
        return parse_python_profiles(path, text, review.config.profiles.python_variables)
    from rules.training.primerl import looks_like_prime_rl

    data = _load(path, text)
    by_glob = globs.match(path, review.config.profiles.prime_rl_globs)
    if not looks_like_prime_rl(data, by_glob=by_glob):
        return {}
    return _prime_entries(path, data, name_as)


class ProfileFile(BaseModel):
    """Both sides of one changed (or dependent) profile file, parsed."""

    # Built before the first one is made (_complete_profile_file), with the Prime-RL models its entries hold.
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, defer_build=True)

    path: str
    kind: str
    base: dict[str, Entry]
    head: dict[str, Entry]
    base_path: str | None = None
    base_error: str | None = None
    head_error: str | None = None
    # head_error's problems one by one, each with its line where known (TRN001 reports each at its line).
    head_problems: tuple[Problem, ...] = ()


def _complete_profile_file() -> None:
    """Before the first ProfileFile: complete the model with the Prime-RL config type its entries hold."""
    if not ProfileFile.__pydantic_complete__:
        from rules.training.primerl import PrimeRLConfig

        ProfileFile.model_rebuild(_types_namespace={"PrimeRLConfig": PrimeRLConfig})


def _read(changeset: ChangeSet, path: str | None, head: bool) -> tuple[str | None, str | None]:
    """(text, error) of path at one side."""
    if path is None:
        return None, None
    try:
        return (changeset.head_text(path) if head else changeset.base_text(path)), None
    except UnreadableFile as exc:
        return None, exc.reason


def _side(
    review: Review,
    kind: str,
    path: str | None,
    head: bool,
    name_as: str | None = None,
    holders: frozenset[str] | None = None,
) -> tuple[dict[str, Entry], ProfileError | None]:
    if kind == PYTHON and holders is not None and path not in holders:
        return {}, None  # never names a profile variable: what reading it would have concluded
    text, error = _read(review.changeset, path, head)
    if kind == PYTHON and error:
        return {}, None  # cannot tell whether an unreadable module holds profiles at all
    if error or text is None or path is None:
        return {}, ProfileError(error) if error else None
    if kind == PYTHON and not mentions(text, review.config.profiles.python_variables):
        return {}, None
    try:
        return parse_source(kind, path, text, review, name_as), None
    except ProfileError as exc:
        return {}, exc


def _classify(review: Review, pair: Pair) -> str | None:
    # A file changed in place has one path: its kind by name is asked once (3,000 files in a large PR).
    for p in (pair.head, pair.base) if pair.base != pair.head else (pair.head,):
        kind = kind_of(p, review) if p is not None else None
        if kind is not None:
            return kind
    for p, head in ((pair.head, True), (pair.base, False)):
        if p is not None and p.endswith(".toml"):
            text, _ = _read(review.changeset, p, head)
            if kind_of(p, review, text) == PRIME_RL:
                return PRIME_RL
    return None


def _may_hold_profiles(path: str | None) -> bool:
    return path is not None and (formats.format_of(path) is not None or path.endswith(".py"))


def _kinds(review: Review) -> tuple[tuple[Pair, str | None], ...]:
    """Each changed file that may hold profiles, paired base -> head, with its kind (memoised)."""

    def build() -> tuple[tuple[Pair, str | None], ...]:
        cs = review.changeset
        candidates = tuple(
            f for f in cs.files if _may_hold_profiles(f.path) or _may_hold_profiles(f.old_path)
        )
        return tuple((pair, _classify(review, pair)) for pair in file_pairs(cs, candidates))

    return review.memo("profiles.kinds", build)


def profile_searches(review: Review) -> tuple[tuple[str, list[str], tuple[str, ...]], ...]:
    """(revision, paths, words): the changed Python modules to search for a profile variable, at base and
    at head. The reader is asked for all at once (`git grep` locally, which may start before the rules
    run): most changed modules hold no profiles and need not be read at all."""
    cs = review.changeset
    words = review.config.profiles.python_variables
    python = [pair for pair, kind in _kinds(review) if kind == PYTHON]
    within = _base_within_head(review)
    return (
        (
            cs.base_sha,
            [p.base for p in python if p.base and not (p.base == p.head and p.base in within)],
            words,
        ),
        (cs.head_sha, [p.head for p in python if p.head], words),
    )


def _base_within_head(review: Review) -> frozenset[str]:
    """Changed files every line of whose base is a line of their head: modified in place, diffed in full,
    no line removed. A search line by line (`git grep -F`) finds a word at base in them only if it finds it
    at head, so their base is searched only where their head holds a word (memoised)."""

    def build() -> frozenset[str]:
        return frozenset(
            f.path
            for f in review.changeset.files
            if f.status is FileStatus.MODIFIED
            and not (f.old_path or f.binary or f.patch_missing or f.symlink)
            and not any(h.removed for h in f.hunks)
        )

    return review.memo("profiles.base_within_head", build)


def changed_profile_files(review: Review) -> tuple[ProfileFile, ...]:
    """Every changed profile source with its base and head entries (memoised per review).

    Base and head are paired by path (rules/training/pairing.py); a renamed file's entries are named after its
    head path on both sides, so a renamed config is compared with what it was.
    """

    def build() -> tuple[ProfileFile, ...]:
        out = []
        cs = review.changeset
        kinds = _kinds(review)
        (base_sha, base_paths, words), (head_sha, head_paths, _) = profile_searches(review)
        head_holders = cs.mentioning(head_sha, head_paths, words)
        base_holders = cs.mentioning(base_sha, base_paths, words)
        # The files whose base lies within their head: searched at base only where their head holds a word.
        within = _base_within_head(review)
        base_holders |= cs.mentioning(base_sha, [p for p in head_holders if p in within], words)
        for side, holders in ((cs.base_sha, base_holders), (cs.head_sha, head_holders)):
            cs.prefetch(side, holders)
        for pair, kind in kinds:
            if kind is None:
                continue
            base, base_err = _side(review, kind, pair.base, False, pair.head, base_holders)
            head, head_err = _side(review, kind, pair.head, True, holders=head_holders)
            if kind == PYTHON and not (base or head or base_err or head_err):
                continue  # a Python module that holds no profiles
            if kind == PRIME_RL and not (base or head or base_err or head_err):
                continue  # a TOML file under the globs that is not a training config
            _complete_profile_file()
            out.append(
                ProfileFile(
                    path=pair.path,
                    kind=kind,
                    base=base,
                    head=head,
                    base_path=pair.base,
                    base_error=str(base_err) if base_err else None,
                    head_error=str(head_err) if head_err else None,
                    head_problems=head_err.problems if head_err else (),
                )
            )
        out.extend(_dependents(review, out))
        return tuple(out)

    return review.memo("profiles.files", build)


def _dependents(review: Review, changed: list[ProfileFile]) -> list[ProfileFile]:
    """Unchanged profile files that point at a changed Prime-RL config: their values change too."""
    changed_paths = {f.path for f in review.changeset.files}
    configs = {pf.path for pf in changed if pf.kind == PRIME_RL}
    if not configs:
        return []
    out = []
    candidates = [
        p for p in review.changeset.base_paths() if p not in changed_paths and kind_of(p, review) == PROFILE
    ]
    # A profile that points at a changed config, unseen, leaves the step math and its findings partial.
    unseen = "profiles that may point at a changed Prime-RL config"
    partial = review.changeset.base_paths_partial()
    if partial:
        review.incomplete.setdefault(unseen, partial)
    if len(candidates) > MAX_DEPENDENT_SCAN:
        review.incomplete.setdefault(unseen, f"over {MAX_DEPENDENT_SCAN} profile files; the first were read")
    for path in candidates[:MAX_DEPENDENT_SCAN]:
        entries, error = _side(review, PROFILE, path, head=True)
        if error:
            continue
        pointing = {
            name: e
            for name, e in entries.items()
            if e.profile and e.profile.config and _config_path(path, e.profile.config) in configs
        }
        if pointing:
            _complete_profile_file()
            out.append(ProfileFile(path=path, kind=PROFILE, base=pointing, head=pointing, base_path=path))
    return out


# --- Deriving values ------------------------------------------------------------------------------


def _config_path(profile_path: str, ref: str) -> str | None:
    """Repository path of a profile's `config`: relative to the profile when it starts with ./ or ../."""
    if ref.startswith("/") or "\\" in ref or not ref.strip():
        return None
    if ref.startswith(("./", "../")):
        ref = posixpath.join(posixpath.dirname(profile_path), ref)
    norm = posixpath.normpath(ref)
    if norm.startswith("../") or norm == "..":
        return None
    return norm


@dataclass(frozen=True)
class Evaluation:
    """One profile at one revision: its derived values, or why there are none."""

    values: StepValues | None = None
    error: str | None = None
    error_kind: str | None = None
    inputs: StepInputs | None = None
    scheduler: Scheduler | None = None
    synced: bool = False


def _load_config(review: Review, profile_path: str, ref: str, head: bool) -> PrimeRLConfig:
    path = _config_path(profile_path, ref)
    if path is None:
        raise ProfileError(f"config `{ref[:120]}` must be a path inside the repository")
    side = "head" if head else "base"
    # Many profiles may point at one config: read and parse it once per side, failures included.
    config, error = review.memo(f"profiles.config:{side}:{path}", lambda: _read_config(review, path, head))
    if error is not None:
        raise ProfileError(error)
    return config


def _read_config(review: Review, path: str, head: bool) -> tuple[PrimeRLConfig | None, str | None]:
    """(config, None), or (None, why the profile's `config` cannot be used)."""
    text, error = _read(review.changeset, path, head)
    if error:
        return None, f"config `{path}` cannot be read: {error}"
    if text is None:
        return None, f"config `{path}` does not exist at {'head' if head else 'base'}"
    try:
        entries = parse_prime_rl_file(path, text) if path.endswith(".toml") else None
    except ProfileError as exc:
        return None, str(exc)
    if not entries:
        return None, f"config `{path}` is not a Prime-RL TOML config"
    return next(iter(entries.values())).prime, None


def _values(result: Any, inputs: StepInputs, sched: Scheduler | None, config_path: str | None) -> StepValues:
    from rules.training.stepmath import DEFAULT_WARMUP_STEPS

    warmup = None
    if sched is not None and (sched.type or "constant") in ("linear", "cosine"):
        warmup = DEFAULT_WARMUP_STEPS if sched.warmup_steps is None else sched.warmup_steps
    return StepValues(
        semantics=result.semantics,
        batch_size=inputs.batch_size,
        target_examples=inputs.target_examples,
        target_micro_steps=inputs.target_micro_steps,
        max_steps=result.max_steps,
        decay_steps=result.decay_steps,
        ckpt_interval=result.ckpt_interval,
        effective_train_examples=result.effective_train_examples,
        unapplied_micro_steps=result.unapplied_micro_steps,
        micro_batch_size=inputs.micro_batch_size,
        world_size=inputs.world_size,
        grad_accum=result.grad_accum,
        seq_len=inputs.seq_len,
        tokens_per_step=result.tokens_per_step,
        scheduler=(sched.type or "constant") if sched is not None else None,
        warmup_steps=warmup,
        ckpt_keep_interval=result.ckpt_keep_interval,
        config_path=config_path,
        # Every profile is a Prime-RL run, whatever unit its target counts in (the `semantics` field says
        # which): a profile moving from `target_examples` to `target_micro_steps` maps the same legacy run
        # differently; it does not change trainers, and the table must not say it does.
        trainer=PRIME_RL,
        optimizer_steps=result.max_steps,
    )


def evaluate(review: Review, entry: Entry | None, path: str, head: bool) -> Evaluation | None:
    """Derive one entry at one side; None when the entry does not exist there."""
    if entry is None:
        return None
    from rules.training.stepmath import StepInputs, StepMathError, derive

    config: PrimeRLConfig | None
    if entry.prime is not None:
        config = entry.prime
        inputs = StepInputs(
            batch_size=entry.prime.batch_size,
            micro_batch_size=entry.prime.data.micro_batch_size,
            world_size=config.world_size,
            cp=config.model.cp,
            seq_len=config.data.seq_len,
            config_max_steps=config.max_steps,
            config_decay_steps=config.decay_steps,
            config_ckpt_interval=config.ckpt.interval if config.ckpt else None,
            config_ckpt_keep_interval=config.ckpt.keep_interval if config.ckpt else None,
        )
        sched: Scheduler | None = config.schedule()
        config_path: str | None = None
        if config.max_steps is None:  # valid: Prime-RL then trains until it is stopped
            return Evaluation(
                error="`max_steps` is not set: Prime-RL trains until the run is stopped",
                error_kind=UNBOUNDED,
                inputs=inputs,
                scheduler=sched,
            )
    else:
        profile = entry.profile
        assert profile is not None
        config_path = _config_path(path, profile.config) if profile.config else None
        try:
            config = _load_config(review, path, profile.config, head) if profile.config else None
        except ProfileError as exc:
            return Evaluation(error=str(exc), error_kind="config")
        inputs = profile.inputs(config)
        sched = profile.schedule(config)
    try:
        result = derive(inputs)
    except StepMathError as exc:
        return Evaluation(error=str(exc), error_kind=exc.kind, inputs=inputs, scheduler=sched)
    return Evaluation(
        values=_values(result, inputs, sched, config_path),
        inputs=inputs,
        scheduler=sched,
        synced=result.decay_synced,
    )


@dataclass(frozen=True)
class Row:
    """One profile of a changed file, base -> head."""

    path: str
    name: str
    kind: str
    line: int | None
    base_entry: Entry | None
    head_entry: Entry | None
    base: Evaluation | None
    head: Evaluation | None


def profile_rows(review: Review) -> tuple[Row, ...]:
    """Every profile whose inputs or derived values differ base -> head (memoised per review)."""

    def build() -> tuple[Row, ...]:
        rows = []
        for pf in changed_profile_files(review):
            for name in sorted(set(pf.base) | set(pf.head)):
                b, h = pf.base.get(name), pf.head.get(name)
                base = evaluate(review, b, pf.base_path or pf.path, head=False)
                head = evaluate(review, h, pf.path, head=True)
                if b == h and base == head:
                    continue  # untouched profile in a file with other changes
                line = h.line if h else (b.line if b else None)
                rows.append(Row(pf.path, name, pf.kind, line, b, h, base, head))
        return tuple(rows)

    return review.memo("profiles.rows", build)


def profile_table(review: Review) -> tuple[ProfileMath, ...]:
    """Step math base -> head for every changed profile, as the Report carries it."""

    def build() -> tuple[ProfileMath, ...]:
        out = []
        for row in profile_rows(review):
            base = row.base.values if row.base else None
            head = row.head.values if row.head else None
            changed: tuple[str, ...] = ()
            if base is not None and head is not None:
                old, new = base.model_dump(), head.model_dump()
                changed = tuple(k for k in old if old[k] != new[k])
            out.append(
                ProfileMath(
                    path=row.path,
                    name=row.name,
                    base=base,
                    head=head,
                    base_error=row.base.error if row.base else None,
                    head_error=row.head.error if row.head else None,
                    kind=row.kind,
                    line=row.line,
                    changed=changed,
                    trainer=next((v.trainer for v in (head, base) if v is not None), None),
                )
            )
        return tuple(out)

    return review.memo("profiles.table", build)
