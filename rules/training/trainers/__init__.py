"""Trainer config formats: one pure module per trainer, each with `detect(data)` and `derive(data, facts)`.

A changed YAML, JSON or shell file under `training.globs` is read when it holds one of the formats' words
(a shell script is parsed into its commands' overrides and flags, rules/training/trainers/launch.py), and is
a trainer config only when one format recognises its shape (rules/training/trainers/table.py builds the
review's rows). Order matters: the first format that recognises a file derives it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules.core.models import StepValues
from rules.training.trainers import (
    axolotl,
    deepspeed,
    hf,
    lightning,
    llamafactory,
    megatron,
    openrlhf,
    torchtune,
    verl,
    verl_sft,
)
from rules.training.trainers.facts import Facts


@dataclass(frozen=True)
class Format:
    """One trainer's config format."""

    name: str
    words: tuple[str, ...]  # a file with none of them is never this format (tested before parsing)
    detect: Callable[[Any], bool]
    derive: Callable[[Any, Facts], StepValues]


FORMATS: tuple[Format, ...] = (
    Format(axolotl.NAME, (axolotl.WORD,), axolotl.detect, axolotl.derive),
    Format(torchtune.NAME, (torchtune.WORD,), torchtune.detect, torchtune.derive),
    Format(llamafactory.NAME, (llamafactory.WORD,), llamafactory.detect, llamafactory.derive),
    Format(hf.NAME, (hf.WORD,), hf.detect, hf.derive),
    Format(verl_sft.NAME, verl_sft.WORDS, verl_sft.detect, verl_sft.derive),
    Format(verl.NAME, verl.WORDS, verl.detect, verl.derive),
    Format(lightning.NEMO, lightning.WORDS, lightning.detect_nemo, lightning.derive_nemo),
    Format(lightning.NAME, lightning.WORDS, lightning.detect, lightning.derive),
    Format(openrlhf.NAME, openrlhf.WORDS, openrlhf.detect, openrlhf.derive),
    Format(megatron.NAME, megatron.WORDS, megatron.detect, megatron.derive),
    # Last: a DeepSpeed JSON an HF config names is read with that config (its row), not on its own.
    Format(deepspeed.NAME, deepspeed.WORDS, deepspeed.detect, deepspeed.derive),
)


def format_of(data: Any) -> Format | None:
    """The format whose shape the parsed file has, or None for any other YAML/JSON."""
    return next((f for f in FORMATS if f.detect(data)), None)


def may_hold(text: str) -> bool:
    """Whether a file's text holds a word of some format: the others need no parsing."""
    return any(word in text for word in WORDS)


# Every format's words, for `git grep` and may_hold.
WORDS: tuple[str, ...] = tuple(dict.fromkeys(w for f in FORMATS for w in f.words))
