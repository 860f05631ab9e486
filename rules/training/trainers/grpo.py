"""TRL GRPO recipes (`GRPOConfig`, TRL >= 0.18): the step math of a run that generates its own completions.

`per_device_train_batch_size` counts completions, not prompts. A generation batch holds
`generation_batch_size` completions (default b * W * `steps_per_generation`, which defaults to GA), that is
P = generation_batch_size / num_generations prompts; the `RepeatSampler` takes whole generation batches only,
so an epoch covers N // P of them, each replayed over `steps_per_generation` micro-batches for each of
`num_iterations` passes (trl `grpo_trainer.py` `_get_train_sampler`, `utils.py` `RepeatSampler`). The HF loop
then makes ceil(L / GA) updates of the L = (N // P) * steps_per_generation * num_iterations micro-batches
(TRAINERS.md §2; checked there against trl #3204 and open-r1 #483).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rules.training.trainers.keys import TrainerConfigError, integer, positive


def prompts_per_generation(
    data: Mapping[str, Any], per_device: int, world: int, grad_accum: int
) -> tuple[int, int, int]:
    """(P prompts per generation batch, steps_per_generation, num_iterations); raises TrainerConfigError
    for values TRL refuses."""
    ng = positive("num_generations", integer(data, "num_generations", 8) or 0)
    iterations = positive("num_iterations", integer(data, "num_iterations", 1) or 0)
    spg = integer(data, "steps_per_generation", None)
    gbs = integer(data, "generation_batch_size", None)
    if spg is not None and gbs is not None:
        raise TrainerConfigError(
            "`steps_per_generation` and `generation_batch_size` exclude each other in TRL"
        )
    if gbs is None:
        spg = positive("steps_per_generation", spg if spg is not None else grad_accum)
        gbs = per_device * world * spg
    else:
        positive("generation_batch_size", gbs)
        if gbs % (per_device * world):
            raise TrainerConfigError(
                f"`generation_batch_size` {gbs} is not a multiple of per_device_train_batch_size × "
                f"world size = {per_device * world}: TRL refuses it"
            )
        spg = gbs // (per_device * world)
    if gbs % ng:
        raise TrainerConfigError(
            f"the generation batch of {gbs} completions is not a multiple of `num_generations` = {ng}: "
            "TRL refuses it"
        )
    return gbs // ng, spg, iterations


def updates_per_epoch(examples: int, prompts: int, spg: int, iterations: int, grad_accum: int) -> int:
    """U = ceil(L / GA) with L = (N // P) * steps_per_generation * num_iterations (at least 1)."""
    micro = (examples // prompts) * spg * iterations
    return max(math.ceil(micro / grad_accum), 1)
