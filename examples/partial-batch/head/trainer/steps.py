"""Optimizer steps of a run."""


def optimizer_steps(examples: int, batch_size: int) -> int:
    """How many optimizer steps a run of `examples` examples takes at `batch_size` per step: the last,
    partial batch is a step too."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    return -(-examples // batch_size)
