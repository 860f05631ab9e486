"""The step-math calculator behind `bot steps`: targets, Prime-RL configs, profiles, semantics conversions."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from bot.cli.steps import stepmath_doc
from bot.cli.usage import UsageError
from rules.core import formats
from rules.core.models import UnreadableFile, decode_text
from rules.training.primerl import PrimeRLConfig, PrimeRLError, parse_prime_rl
from rules.training.profiles import MAX_PROFILE_BYTES, Profile, ProfileError, parse_profiles
from rules.training.stepmath import (
    LEGACY_MICRO,
    MEGATRON,
    ROLLOUTS,
    SEMANTICS,
    TAILS,
    TORCHTUNE,
    Run,
    StepMathError,
    batch_problems,
    convert,
    derive,
    exposure,
    grad_accum,
    scheduler_problems,
    tail_policy,
)

UNSYNC = "`sync_scheduler_to_max_steps = false`"
# The keys every JSON answer starts with, in this order.
JSON_KEYS = ("max_steps", "decay_steps", "effective_train_examples", "unapplied_micro_steps")


class StepsError(Exception):
    """Input the calculator cannot use: one line on stderr, exit 2."""


def _read(path: Path, what: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StepsError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return decode_text(str(path), data, MAX_PROFILE_BYTES)
    except UnreadableFile as exc:
        raise StepsError(f"{what} {path}: {exc.reason}") from None


def _load_config(path: Path, what: str = "--config") -> PrimeRLConfig:
    """The Prime-RL config at path; what names where the path came from in the errors."""
    text = _read(path, what)
    try:
        return parse_prime_rl(formats.load(text, "toml"))
    except formats.FormatError as exc:
        raise StepsError(f"{what} {path}: {f'line {exc.line}: ' if exc.line else ''}{exc}") from None
    except PrimeRLError as exc:
        raise StepsError(f"{what} {path}: {exc}") from None


def _load_profile(path: Path, name: str | None) -> Profile:
    try:
        entries = parse_profiles(str(path), _read(path, "--profile"))
    except ProfileError as exc:
        raise StepsError(f"--profile {path}: {exc}") from None
    if name is None and len(entries) == 1:
        entry = next(iter(entries.values()))
    elif name in entries:
        entry = entries[name]
    else:
        raise StepsError(f"--profile {path} holds {', '.join(sorted(entries))}: choose one with --name")
    assert entry.profile is not None
    return entry.profile


def _profile_config(profile: Path, ref: str) -> Path:
    """A profile's `config`: beside the profile for ./ and ../, else from the repository root above it."""
    if ref.startswith(("./", "../")):
        return profile.parent / ref
    for folder in (Path.cwd(), *profile.resolve().parents):
        if (folder / ref).is_file():
            return folder / ref
    return Path(ref)


def _flags_profile(args: argparse.Namespace, base: Profile | None) -> Profile:
    """The profile the flags describe, on top of a profile file when one is given."""
    data: dict[str, Any] = base.model_dump(exclude_unset=True) if base else {}
    pairs = {
        "target_examples": args.target_examples,
        "target_micro_steps": args.target_micro_steps,
        "max_steps": args.max_steps,
        "batch_size": args.batch_size,
        "micro_batch_size": args.micro_batch_size,
        "world_size": args.world_size,
        "cp": args.cp,
        "seq_len": args.seq_len,
    }
    if args.target_examples is not None or args.target_micro_steps is not None:
        data.pop("target_examples", None)
        data.pop("target_micro_steps", None)
    data.update({k: v for k, v in pairs.items() if v is not None})
    sched = dict(data.get("scheduler", {}))
    for key, value in (
        ("type", args.scheduler),
        ("warmup_steps", args.warmup_steps),
        ("decay_steps", args.decay_steps),
    ):
        if value is not None:
            sched[key] = value
    data["scheduler"] = sched
    if args.no_sync_scheduler:
        data["sync_scheduler_to_max_steps"] = False
    if args.sync_ckpt:
        data["sync_ckpt_to_max_steps"] = True
    data.pop("expect", None)
    return Profile.model_validate(data)


def calculate(args: argparse.Namespace) -> dict[str, Any]:
    """The answer to a derivation question, as a dict (JSON_KEYS first)."""
    base = _load_profile(args.profile, args.name) if args.profile else None
    config_path, what = args.config, "--config"
    if config_path is None and base is not None and base.config:
        config_path = _profile_config(args.profile, base.config)
        # The user gave no --config: the errors name the profile's `config` key, where the path comes from.
        what = f"--profile {args.profile}'s `config`"
    config = _load_config(config_path, what) if config_path else None
    profile = _flags_profile(args, base)
    sets_length = any(v is not None for v in (args.target_examples, args.target_micro_steps, args.max_steps))
    if config is not None and base is None and not sets_length:
        # The config as it stands: Prime-RL's own defaults fill what the file leaves out.
        if config.max_steps is None:
            raise StepsError(
                f"{what} {config_path}: `max_steps` is not set, so Prime-RL trains until the run is "
                "stopped; give --max-steps, --target-examples or --target-micro-steps"
            )
        if profile.batch_size is None:
            profile = profile.model_copy(update={"batch_size": config.batch_size})
    inputs = profile.inputs(config)
    result = derive(inputs)
    sched = profile.schedule(config)
    problems = batch_problems(inputs)
    if sched is not None:
        checked = replace(sched, decay_steps=result.decay_steps) if result.decay_synced else sched
        problems += scheduler_problems(checked, result.max_steps, synced=result.decay_synced)
    answer = {key: getattr(result, key) for key in JSON_KEYS}
    answer.update(
        semantics=result.semantics,
        batch_size=inputs.batch_size,
        micro_batch_size=inputs.micro_batch_size,
        world_size=inputs.world_size,
        grad_accum=result.grad_accum,
        tokens_per_step=result.tokens_per_step,
        ckpt_interval=result.ckpt_interval,
        ckpt_keep_interval=result.ckpt_keep_interval,
        scheduler=(sched.type or "constant") if sched else None,
        problems=problems,
    )
    return answer


def conversion(args: argparse.Namespace) -> dict[str, Any]:
    """The same optimizer updates in another semantics."""
    if args.to is None:
        raise StepsError("--from needs --to (one of: " + ", ".join(SEMANTICS) + ")")
    ga = args.grad_accum
    if ga is None and args.batch_size is not None:
        ga = grad_accum(args.batch_size, args.micro_batch_size or 1, args.world_size or 1)
    if ga is None and (LEGACY_MICRO in (args.from_, args.to) or args.micro_batches_per_epoch is not None):
        raise StepsError(
            "this conversion counts micro-batches: give --grad-accum (micro-batches per optimizer step) "
            "or --batch-size"
        )
    if args.updates_per_rollout is None and ROLLOUTS in (args.from_, args.to):
        raise StepsError(
            "rollouts count RL iterations: give --updates-per-rollout (optimizer steps of one iteration: "
            "ppo_epochs * train_batch_size / ppo_mini_batch_size)"
        )
    version = _release(args.transformers, "--transformers")
    torchtune = _release(args.torchtune, "--torchtune")
    # LoRA-style recipes carry the tail into the next epoch, and so did every recipe up to 0.6.1.
    carry = args.torchtune_recipe == "lora" or (torchtune is not None and torchtune <= (0, 6))
    run = Run(
        semantics=args.from_,
        max_steps=args.max_steps,
        grad_accum=ga if ga is not None else 1,
        micro_batch_size=args.micro_batch_size or 1,
        world_size=args.world_size or 1,
        micro_batches_per_epoch=args.micro_batches_per_epoch,
        epochs=args.epochs,
        max_steps_per_epoch=args.max_steps_per_epoch,
        transformers=version,
        torchtune_carry=carry,
        train_samples=args.train_samples,
        updates_per_rollout=args.updates_per_rollout,
    )
    source = exposure(run)
    target = convert(run, args.to)
    if args.to_transformers is not None:
        target = replace(target, transformers=_release(args.to_transformers, "--to-transformers"))
    after = exposure(target)
    # The top-level values are all the converted run's (the `to` side, named by `semantics`); the run as
    # given is under `from`, so no field mixes the two.
    return {
        "max_steps": target.max_steps,
        "decay_steps": None if args.no_sync_scheduler else after.optimizer_steps,
        "effective_train_examples": after.examples,
        "unapplied_micro_steps": after.unapplied_micro_steps,
        "semantics": target.semantics,
        "optimizer_steps": after.optimizer_steps,
        "from": _side(run, source),
        "to": _side(target, after),
        "problems": [],
    }


def _release(text: str | None, flag: str) -> tuple[int, int] | None:
    """X.Y (or X.Y.Z) as (X, Y); None when not given."""
    if text is None:
        return None
    parts = text.strip().lstrip("v").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        raise StepsError(f"{flag} {text!r}: give a release as X.Y, e.g. 4.57")
    return int(parts[0]), int(parts[1])


def _side(run: Run, exp: Any) -> dict[str, Any]:
    """One side of a conversion: the run as given or converted, what it does, and its tail policy."""
    out: dict[str, Any] = {**asdict(run), **asdict(exp)}
    out["transformers"] = None if run.transformers is None else "{}.{}".format(*run.transformers)
    if run.semantics == MEGATRON and run.max_steps is not None:
        out["train_samples"] = run.max_steps * run.batch_size  # the same run as --train-samples
    if run.semantics != TORCHTUNE:
        out.pop("torchtune_carry")
    out["tail"] = tail_policy(run)
    return out


# The rows of a conversion's table: (label, key in the `from`/`to` values).
_CONVERSION_ROWS = (
    ("max_steps", "max_steps"),
    ("decay_steps", "decay_steps"),
    ("optimizer_steps", "optimizer_steps"),
    ("effective_train_examples", "examples"),
    ("unapplied_micro_steps", "unapplied_micro_steps"),
    ("grad_accum", "grad_accum"),
    ("micro_batch_size", "micro_batch_size"),
    ("world_size", "world_size"),
    ("micro_batches_per_epoch", "micro_batches_per_epoch"),
    ("epochs", "epochs"),
    ("max_steps_per_epoch", "max_steps_per_epoch"),
    ("train_samples", "train_samples"),
    ("updates_per_rollout", "updates_per_rollout"),
    ("transformers", "transformers"),
    ("tail", "tail"),
)


def _conversion_text(answer: dict[str, Any]) -> str:
    """A conversion as one table, a column for each side, so that every value says whose it is."""
    sides = (answer["from"], {**answer["to"], "decay_steps": answer["decay_steps"]})
    head = (f"from {sides[0]['semantics']}", f"to {sides[1]['semantics']}")
    rows = [
        (label, *("-" if side.get(key) is None else str(side[key]) for side in sides))
        for label, key in _CONVERSION_ROWS
        if any(side.get(key) is not None for side in sides)
    ]
    width = max(len(head[0]), *(len(r[1]) for r in rows)) + 2
    lines = [f"{'':<26}{head[0]:<{width}}{head[1]}"]
    lines += [f"{label:<26}{left:<{width}}{right}" for label, left, right in rows]
    tails = {side["tail"] for side in sides if side.get("tail")}
    lines += [f"tail {name}: {TAILS[name]}" for name in sorted(tails)]
    lines += [f"problem: {p}" for p in answer["problems"]]
    return "\n".join(lines) + "\n"


def _text(answer: dict[str, Any]) -> str:
    lines = []
    for key, value in answer.items():
        if key in ("from", "to"):
            shown = ", ".join(f"{k}={v}" for k, v in value.items() if v is not None)
            lines.append(f"{key + ':':<26}{shown}")
        elif key == "problems":
            lines += [f"problem: {p}" for p in value]
        elif value is not None:
            lines.append(f"{key + ':':<26}{value}")
    return "\n".join(lines) + "\n"


def _cli_words(exc: StepMathError) -> str:
    """The library's message, with the flags that supply a missing input."""
    message = str(exc)
    if exc.kind == "missing" and message.startswith("batch_size is unknown"):
        return "batch_size is unknown: give --batch-size, or --config with a [data] batch_size"
    if exc.kind == "missing" and message.startswith("no target_examples"):
        return (
            "nothing to compute: give --target-examples, --target-micro-steps or --max-steps (with "
            "--batch-size), --config or --profile; or --from and --to to convert (see --help)"
        )
    return message


def run_steps(args: argparse.Namespace) -> int:
    """Print the answer; exit 1 when Prime-RL would refuse the result, 2 on unusable input."""
    if args.doc:
        doc = stepmath_doc()
        if doc is None:
            raise UsageError("docs/stepmath.md is not installed with this copy of the bot")
        sys.stdout.write(doc.read_text(encoding="utf-8"))
        return 0
    try:
        answer = conversion(args) if args.from_ else calculate(args)
    except StepMathError as exc:
        raise UsageError(_cli_words(exc)) from None
    except StepsError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:  # pydantic validation of the flags' profile
        raise UsageError(f"invalid input: {str(exc).splitlines()[0][:200]}") from None
    # The flag that turns the sync off, where the message names the profile key.
    answer["problems"] = [p.replace(UNSYNC, f"{UNSYNC} (`--no-sync-scheduler`)") for p in answer["problems"]]
    if args.format == "json":
        sys.stdout.write(json.dumps(answer, indent=2) + "\n")
    else:
        sys.stdout.write(_conversion_text(answer) if args.from_ else _text(answer))
    return 1 if answer["problems"] else 0
