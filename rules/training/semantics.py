"""The named step semantics, apart from the arithmetic: `bot --help` lists them without importing it."""

LEGACY_MICRO = "legacy-micro"
OPTIMIZER = "optimizer"
HF_EPOCH = "hf-epoch"
TORCHTUNE = "torchtune"
# A target counted in training examples (rounded up to whole optimizer steps).
EXAMPLES = "examples"

SEMANTICS: dict[str, str] = {
    LEGACY_MICRO: "max_steps counts micro-batches; an update every GA; the tail is never stepped",
    OPTIMIZER: "max_steps counts optimizer steps of B rows (Prime-RL)",
    HF_EPOCH: "max_steps counts optimizer steps; each epoch's short tail is stepped (HF Trainer, TRL)",
    TORCHTUNE: "micro_batches // GA steps per epoch, optionally capped; the tail is never stepped",
}
