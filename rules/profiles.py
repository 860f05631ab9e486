"""Compat profiles: finding them in a change set, parsing them safely, deriving their step math.

The profile file format is documented in docs/profiles.md.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, ValidationError

from bot import formats, globs
from bot.models import ChangeSet, ProfileMath, StepValues, UnreadableFile
from rules.base import Review
from rules.stepmath import StepInputs, StepMathError, derive


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Expect(_Strict):
    """Values the profile's author expects; TRN001 checks them against the derivation."""

    max_steps: StrictInt | None = None
    decay_steps: StrictInt | None = None
    effective_train_examples: StrictInt | None = None
    unapplied_micro_steps: StrictInt | None = None


class Scheduler(_Strict):
    type: str | None = None
    warmup_steps: StrictInt | None = None
    decay_steps: StrictInt | None = None


class Profile(_Strict):
    """One compat profile: what a training run asks for."""

    name: str | None = None
    description: str | None = None
    target_examples: StrictInt | None = None
    target_micro_steps: StrictInt | None = None
    max_steps: StrictInt | None = None
    batch_size: StrictInt | None = None
    sync_scheduler_to_max_steps: StrictBool = True
    sync_ckpt_to_max_steps: StrictBool = False
    scheduler: Scheduler = Scheduler()
    expect: Expect = Expect()

    def inputs(self) -> StepInputs:
        return StepInputs(
            batch_size=self.batch_size,
            target_examples=self.target_examples,
            target_micro_steps=self.target_micro_steps,
            max_steps=self.max_steps,
            decay_steps=self.scheduler.decay_steps,
            sync_scheduler_to_max_steps=self.sync_scheduler_to_max_steps,
            sync_ckpt_to_max_steps=self.sync_ckpt_to_max_steps,
        )


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the problem."""


def _validation_message(exc: ValidationError, prefix: str) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{prefix}{where}: {err['msg']}"


def parse_profiles(path: str, text: str) -> dict[str, Profile]:
    """Profiles in one file: a single profile, or a `profiles` table of named ones."""
    fmt = formats.format_of(path)
    if fmt is None:
        raise ProfileError("unknown profile format (use .toml, .yaml, .yml or .json)")
    try:
        data = formats.load(text, fmt)
    except formats.FormatError as exc:
        raise ProfileError(str(exc)) from None
    if not isinstance(data, dict):
        raise ProfileError("expected a table/mapping at the top level")
    stem = PurePosixPath(path).name.split(".")[0]
    if "profiles" in data:
        if set(data) - {"profiles"} or not isinstance(data["profiles"], dict):
            raise ProfileError("a file with a `profiles` table holds nothing else")
        raw: dict[str, Any] = data["profiles"]
    else:
        raw = {str(data.get("name") or stem): data}
    out = {}
    for name, body in raw.items():
        if not isinstance(body, dict):
            raise ProfileError(f"profile {name!r} is not a table/mapping")
        try:
            out[str(name)] = Profile.model_validate(body)
        except ValidationError as exc:
            prefix = f"profiles.{name}." if "profiles" in data else ""
            raise ProfileError(_validation_message(exc, prefix)) from None
    return out


def values(profile: Profile) -> StepValues:
    """The derived step values of a profile; raises StepMathError."""
    result = derive(profile.inputs())
    return StepValues(
        semantics=result.semantics,
        batch_size=profile.batch_size,
        target_examples=profile.target_examples,
        target_micro_steps=profile.target_micro_steps,
        max_steps=result.max_steps,
        decay_steps=result.decay_steps,
        ckpt_interval=result.ckpt_interval,
        effective_train_examples=result.effective_train_examples,
        unapplied_micro_steps=result.unapplied_micro_steps,
    )


def is_profile(path: str, review: Review) -> bool:
    return formats.format_of(path) is not None and globs.match(path, review.config.profiles.globs)


def _side(changeset: ChangeSet, path: str | None, head: bool) -> tuple[dict[str, Profile], str | None]:
    if path is None:
        return {}, None
    try:
        text = changeset.head_text(path) if head else changeset.base_text(path)
    except UnreadableFile as exc:
        return {}, exc.reason
    if text is None:
        return {}, None
    try:
        return parse_profiles(path, text), None
    except ProfileError as exc:
        return {}, str(exc)


def _derive(profile: Profile | None) -> tuple[StepValues | None, str | None]:
    if profile is None:
        return None, None
    try:
        return values(profile), None
    except StepMathError as exc:
        return None, str(exc)


class ProfileFile(BaseModel):
    """Both sides of one changed profile file, parsed."""

    model_config = ConfigDict(frozen=True)

    path: str
    base: dict[str, Profile]
    head: dict[str, Profile]
    base_error: str | None = None
    head_error: str | None = None


def changed_profile_files(review: Review) -> tuple[ProfileFile, ...]:
    """Every changed profile file with its base and head profiles (memoised per review)."""

    def build() -> tuple[ProfileFile, ...]:
        out = []
        cs = review.changeset
        for f in cs.files:
            if f.binary or not (
                is_profile(f.path, review) or (f.old_path and is_profile(f.old_path, review))
            ):
                continue
            base, base_err = _side(cs, f.base_path, head=False)
            head, head_err = _side(cs, None if f.status == "removed" else f.path, head=True)
            out.append(
                ProfileFile(path=f.path, base=base, head=head, base_error=base_err, head_error=head_err)
            )
        return tuple(out)

    return review.memo("profiles.files", build)


def profile_table(review: Review) -> tuple[ProfileMath, ...]:
    """Step math base -> head for every profile in a changed profile file."""

    def build() -> tuple[ProfileMath, ...]:
        rows = []
        for pf in changed_profile_files(review):
            for name in sorted(set(pf.base) | set(pf.head)):
                base, base_err = _derive(pf.base.get(name))
                head, head_err = _derive(pf.head.get(name))
                if base == head and base_err == head_err and pf.base.get(name) == pf.head.get(name):
                    continue  # untouched profile in a file with other changes
                rows.append(
                    ProfileMath(
                        path=pf.path,
                        name=name,
                        base=base,
                        head=head,
                        base_error=base_err,
                        head_error=head_err,
                    )
                )
        return tuple(rows)

    return review.memo("profiles.table", build)
