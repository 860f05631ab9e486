"""The named step semantics, apart from the arithmetic: `bot --help` lists them without importing it."""

LEGACY_MICRO = "legacy-micro"
OPTIMIZER = "optimizer"
HF_EPOCH = "hf-epoch"
TORCHTUNE = "torchtune"
AXOLOTL = "axolotl"
LIGHTNING = "lightning"
DEEPSPEED = "deepspeed"
MEGATRON = "megatron"
ROLLOUTS = "rollouts"
# A target counted in training examples (rounded up to whole optimizer steps).
EXAMPLES = "examples"

SEMANTICS: dict[str, str] = {
    LEGACY_MICRO: "max_steps counts micro-batches; an update every GA; the tail is never stepped",
    OPTIMIZER: "max_steps counts optimizer steps of B rows (Prime-RL)",
    HF_EPOCH: "max_steps counts optimizer steps; the epoch's tail as the transformers release handles it "
    "(HF Trainer, TRL, LLaMA-Factory)",
    TORCHTUNE: "micro_batches // GA steps per epoch, optionally capped; the tail skipped (full recipes) or "
    "carried into the next epoch's first step (LoRA recipes, 0.6 and older)",
    AXOLOTL: "the HF loop with max_steps = ceil(epochs * micro-batches / GA) over the whole run",
    LIGHTNING: "max_steps counts optimizer steps; each epoch's tail is a short step",
    DEEPSPEED: "the engine steps every GA micro-batches of a count that spans epochs (a plain loop)",
    MEGATRON: "--train-iters counts optimizer steps of the global batch (or --train-samples samples)",
    ROLLOUTS: "max_steps counts RL iterations (verl, OpenRLHF), each making K optimizer steps",
}
