"""Prime-RL configs: which kind a TOML file is, and the parts of an SFT config the step math reads.

Prime-RL keeps five kinds of TOML config side by side (docs/stepmath.md lists the facts relied on): SFT
trainer configs, combined RL configs (`[trainer]`, `[orchestrator]`, `[inference]`), and the RL trainer,
orchestrator and inference configs they were split into. They share the flat layout (top-level max_steps,
[model], [ckpt], ...), so a file is classified by the keys only one kind has. Only an SFT config carries its
own batch (`[data] batch_size`); every other kind is left alone, since its batch is the orchestrator's.

Only the keys the step math needs are modelled, with strict types; other tables and keys are left alone,
since the bot does not know every Prime-RL release's schema. The scheduler keeps the set of keys it was
written with, because keys a scheduler type does not take make Prime-RL refuse the config.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr, ValidationError

from rules.training.stepmath import DEFAULT_BATCH_SIZE, DEFAULT_DECAY_STEPS, Scheduler

# Keys that only compat profiles use: a file with any of them is a profile, not a Prime-RL config.
PROFILE_ONLY_KEYS = frozenset(
    {"target_examples", "target_micro_steps", "expect", "profiles", "config", "sync_scheduler_to_max_steps"}
)
PRIME_TABLES = ("model", "data", "optim", "scheduler", "ckpt")
# Configs that inherit from other TOML files (Prime-RL before March 2026): values may live elsewhere.
INCLUDE_KEY = "toml_files"

# What a Prime-RL TOML file is.
SFT = "SFT"
RL = "RL"
RL_TRAINER = "RL trainer"
ORCHESTRATOR = "orchestrator"
INFERENCE = "inference"
# A trainer config without a [data] table: no SFT config in Prime-RL's history lacks one (its dataset is
# there), while RL trainer configs never have one (their batch is the orchestrator's). Not read on its own;
# a compat profile may still point at it and bring the batch size.
TRAINER = "trainer"
# Top-level keys only one kind has, checked in this order (a combined RL config holds the others' tables).
# Shared keys ([model], [ckpt], [eval], [val], [inference], [weight_broadcast], max_steps) are no evidence.
KIND_KEYS: tuple[tuple[str, frozenset[str]], ...] = (
    (RL, frozenset({"trainer", "orchestrator", "trainer_gpu_ids", "inference_gpu_ids"})),
    (
        ORCHESTRATOR,
        frozenset(
            {
                "batch_size",
                "token_batch_size",
                "seq_len",
                "group_size",
                "rollouts_per_example",
                "rollouts_per_prompt",
                "mask_truncated_completions",
                "max_off_policy_steps",
                "tasks_per_minute",
                "sampling",
                "environment",
                "env",
                "buffer",
                "advantage",
            }
        ),
    ),
    (
        INFERENCE,
        frozenset(
            {
                "server",
                "parallel",
                "vllm",
                "vllm_extra",
                "gpu_memory_utilization",
                "max_model_len",
                "enable_expert_parallel",
                "use_deep_gemm",
                "kv_cache_offload",
                "use_pd_kv_transfer",
            }
        ),
    ),
    (
        RL_TRAINER,
        frozenset(
            {
                "loss",
                "async_level",
                "max_async_level",
                "max_concurrent_runs",
                "rollout_transport",
                "recompute_logprobs",
                "enable_router_replay",
                "enable_token_export",
            }
        ),
    ),
)
# Kinds a compat profile must not point at: their batch and step count are not the trainer's own.
NOT_SFT = frozenset({RL, RL_TRAINER, ORCHESTRATOR, INFERENCE})


def classify(data: Any) -> tuple[str | None, str | None]:
    """(kind, the key that shows it) of parsed TOML; (None, None) when it is no Prime-RL config.

    A compat profile or a file that inherits (`toml_files`) is none. An SFT config is told by a `[data]`
    table holding its dataset or batch; the RL trainer's `[data]` holds only a `fake` table.
    """
    if not isinstance(data, dict) or PROFILE_ONLY_KEYS & set(data) or INCLUDE_KEY in data:
        return None, None
    for kind, keys in KIND_KEYS:
        found = sorted(keys & set(data))
        if found:
            return kind, found[0]
    table = data.get("data")
    if isinstance(table, dict) and table:
        if set(table) == {"fake"} and isinstance(table["fake"], dict):
            return RL_TRAINER, "data.fake"
        return SFT, "data"
    if "max_steps" in data and any(isinstance(data.get(t), dict) for t in PRIME_TABLES):
        return TRAINER, None
    return None, None


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
    """Whether parsed TOML is a Prime-RL SFT config the step math reads.

    Only an SFT config (a `[data]` table, see classify) is; outside the configured globs it also needs a
    top-level max_steps, so that another tool's TOML with a [data] table is not taken for one.
    """
    kind, _ = classify(data)
    return kind == SFT and (by_glob or "max_steps" in data)


def parse_prime_rl(data: Any) -> PrimeRLConfig:
    """The step-relevant part of a Prime-RL config; raises PrimeRLError naming the bad key or the kind."""
    if not isinstance(data, dict):
        raise PrimeRLError("expected a table at the top level")
    kind, key = classify(data)
    if kind in NOT_SFT:
        raise PrimeRLError(
            f"this is a Prime-RL {kind} config (it has `{key}`); the step math reads SFT configs, whose "
            "batch is `[data] batch_size`"
        )
    try:
        return PrimeRLConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PrimeRLError(f"{where}: {err['msg']}") from None
