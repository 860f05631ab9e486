"""Prime-RL SFT configs (flat TOML: top-level max_steps, then [model] [data] [optim] [scheduler] [ckpt]).

Only the keys the step math needs are modelled, with strict types; other tables and keys are left alone,
since the bot does not know every Prime-RL release's schema. The scheduler keeps the set of keys it was
written with, because keys a scheduler type does not take make Prime-RL refuse the config.

Prime-RL's RL configs share the flat layout (top-level max_steps, [model], [ckpt], [deployment]) but
their batch is the orchestrator's, not `data.batch_size`: they are told apart by the keys only RL
configs have, and are never read as SFT configs. See docs/stepmath.md for the Prime-RL facts relied on.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr, ValidationError

from rules.stepmath import DEFAULT_BATCH_SIZE, DEFAULT_DECAY_STEPS, Scheduler

# Keys that only compat profiles use: a file with any of them is a profile, not a Prime-RL config.
PROFILE_ONLY_KEYS = frozenset(
    {"target_examples", "target_micro_steps", "expect", "profiles", "config", "sync_scheduler_to_max_steps"}
)
PRIME_TABLES = ("model", "data", "optim", "scheduler", "ckpt")
# Keys that only Prime-RL's RL configs have (combined rl.toml, orchestrator and RL trainer configs): an SFT
# config has no orchestrator or trainer section, no loss table and no top-level batch_size or seq_len.
RL_ONLY_KEYS = frozenset(
    {
        "orchestrator",
        "trainer",
        "loss",
        "max_async_level",
        "rollout_transport",
        "max_concurrent_runs",
        "batch_size",
        "seq_len",
        "sampling",
        "env",
        "environment",
        "buffer",
    }
)
# Configs that inherit from other TOML files: the values the step math needs may live elsewhere.
INCLUDE_KEY = "toml_files"


class _Open(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class DataConfig(_Open):
    batch_size: StrictInt | None = None
    micro_batch_size: StrictInt | None = None
    seq_len: StrictInt | None = None


class ModelConfig(_Open):
    cp: StrictInt | None = None


class SchedulerConfig(_Open):
    type: StrictStr | None = None
    warmup_steps: StrictInt | None = None
    decay_steps: StrictInt | None = None
    min_lr: StrictFloat | StrictInt | None = None


class CkptConfig(_Open):
    interval: StrictInt | None = None
    keep_interval: StrictInt | None = None


class DeploymentConfig(_Open):
    """Where the trainer runs; the number of training GPUs is the world size of gradient accumulation."""

    type: StrictStr | None = None
    num_train_gpus: StrictInt | None = None
    num_gpus: StrictInt | None = None  # older releases' name for num_train_gpus
    gpus_per_node: StrictInt | None = None
    num_train_nodes: StrictInt | None = None
    num_nodes: StrictInt | None = None  # older releases' name for num_train_nodes

    @property
    def world_size(self) -> int | None:
        """Training ranks as Prime-RL's launcher starts them (its defaults where a key is absent)."""
        if self.type == "multi_node":
            nodes = _first(self.num_train_nodes, self.num_nodes, 2)
            return nodes * _first(self.gpus_per_node, 8)
        return _first(self.num_train_gpus, self.num_gpus, 1)


def _first(*values: int | None) -> int:
    return next(v for v in values if v is not None)


class PrimeRLConfig(_Open):
    """The parts of a Prime-RL SFT config that decide step counts, batch arithmetic and the scheduler."""

    max_steps: StrictInt | None = None
    data: DataConfig = DataConfig()
    model: ModelConfig = ModelConfig()
    scheduler: SchedulerConfig | None = None
    ckpt: CkptConfig | None = None
    deployment: DeploymentConfig | None = None

    @property
    def world_size(self) -> int | None:
        """Training ranks from `[deployment]`; None without one (torchrun decides)."""
        return self.deployment.world_size if self.deployment is not None else None

    @property
    def batch_size(self) -> int:
        """data.batch_size, or Prime-RL's default."""
        return DEFAULT_BATCH_SIZE if self.data.batch_size is None else self.data.batch_size

    def scheduler_keys(self) -> frozenset[str]:
        if self.scheduler is None:
            return frozenset()
        return frozenset(self.scheduler.model_fields_set | set(self.scheduler.model_extra or {}))

    def schedule(self) -> Scheduler:
        """The scheduler as written; no [scheduler] table is Prime-RL's constant default."""
        s = self.scheduler or SchedulerConfig()
        return Scheduler(
            type=s.type, warmup_steps=s.warmup_steps, decay_steps=s.decay_steps, keys=self.scheduler_keys()
        )

    @property
    def decay_steps(self) -> int | None:
        """The decay steps the config's scheduler will use (linear only)."""
        s = self.scheduler
        if s is None or s.type != "linear":
            return None
        return DEFAULT_DECAY_STEPS if s.decay_steps is None else s.decay_steps


class PrimeRLError(ValueError):
    """A Prime-RL config whose step-relevant keys have the wrong shape."""


def looks_like_prime_rl(data: Any, by_glob: bool = False) -> bool:
    """Whether parsed TOML has the shape of a Prime-RL SFT config.

    By shape: a top-level max_steps beside at least one of its tables. A file matched by the configured
    globs needs only one of max_steps, [data] or [scheduler]. Either way, RL configs (RL_ONLY_KEYS),
    compat profiles (PROFILE_ONLY_KEYS) and configs that inherit from other files are not SFT configs.
    """
    if not isinstance(data, dict) or (PROFILE_ONLY_KEYS | RL_ONLY_KEYS | {INCLUDE_KEY}) & set(data):
        return False
    tables = [t for t in PRIME_TABLES if isinstance(data.get(t), dict)]
    if by_glob:
        return "max_steps" in data or "data" in tables or "scheduler" in tables
    return "max_steps" in data and bool(tables)


def parse_prime_rl(data: Any) -> PrimeRLConfig:
    """The step-relevant part of a Prime-RL config; raises PrimeRLError naming the bad key."""
    if not isinstance(data, dict):
        raise PrimeRLError("expected a table at the top level")
    rl = sorted(RL_ONLY_KEYS & set(data))
    if rl:
        raise PrimeRLError(
            f"this is a Prime-RL RL config (it has `{rl[0]}`); the step math reads SFT configs, whose "
            "batch is `[data] batch_size`"
        )
    try:
        return PrimeRLConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PrimeRLError(f"{where}: {err['msg']}") from None
