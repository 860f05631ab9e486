"""Base and head sides of changed profile files are paired by path, not by git's similarity guess."""

from __future__ import annotations

import pytest

from bot.git.local import load_changeset
from bot.review.engine import review
from rules.core.models import FileChange, FileStatus
from rules.training.pairing import Pair, file_pairs
from tests.helpers import codes, review_change

# Short SFT configs of a CI pair (a run and its resumption), and a LoRA variant beside them. Short files
# matter: git then finds each `start` closer to the new `resume` than to the new `start`.
START = (
    'max_steps = {n}\n\n[ckpt]\n\n[model]\nname = "org/m"\n{lora}\n'
    '[data]\nname = "org/rt"\nbatch_size = 4\nseq_len = 1024\n'
)
RESUME = (
    'max_steps = {n}\n\n[ckpt]\nresume_step = {r}\n\n[model]\nname = "org/m"\n{lora}\n'
    '[data]\nname = "org/rt"\nbatch_size = 4\nseq_len = 1024\n'
)
LORA = '\n[model.lora]\nrank = 8\ntarget_modules = ["q_proj", "k_proj", "v_proj", "o_proj"]\n'


def test_a_directory_move_is_paired_by_file_name(make_repo):
    """Both runs of the moved pair halve their steps; each is compared with its own old file."""
    base = {
        "configs/ci/sft/start.toml": START.format(n=10, lora=""),
        "configs/ci/sft/resume.toml": RESUME.format(n=20, r=10, lora=""),
        "configs/ci/sft_lora/start.toml": START.format(n=10, lora=LORA),
    }
    head = {path: None for path in base} | {
        "configs/ci/rt_sft/start.toml": START.format(n=5, lora=""),
        "configs/ci/rt_sft/resume.toml": RESUME.format(n=10, r=5, lora=""),
        "configs/ci/rt_sft_lora/start.toml": START.format(n=5, lora=LORA),
    }
    changeset = load_changeset(make_repo(base, head).path, base="main", head="pr")
    # The case this guards: git pairs the old start with the new resume.
    assert {f.old_path: f.path for f in changeset.files}["configs/ci/sft/start.toml"] == (
        "configs/ci/rt_sft/resume.toml"
    )
    report = review(changeset)
    steps = {p.path: (p.base.max_steps, p.head.max_steps) for p in report.profiles}
    assert steps == {
        "configs/ci/rt_sft/start.toml": (10, 5),
        "configs/ci/rt_sft/resume.toml": (20, 10),
        "configs/ci/rt_sft_lora/start.toml": (10, 5),
    }
    assert codes(report) == ["TRN004"] * 3


def test_a_renamed_config_is_compared_with_what_it_was(make_repo):
    """A pure rename keeps git's pairing, and the config's row is named after its new file."""
    old, new = "configs/sft/draft.toml", "configs/sft/final.toml"
    report = review_change(
        make_repo, {old: START.format(n=10, lora="")}, {old: None, new: START.format(n=5, lora="")}
    )
    (row,) = report.profiles
    assert (row.path, row.name, row.base.max_steps, row.head.max_steps) == (new, "final.toml", 10, 5)
    (f,) = report.findings
    assert f.rule == "TRN004" and "20 examples instead of 40" in f.message


PAIRS = [
    # (id, base files, head files, git's report of the change, pairs expected)
    ("modified", ["a.toml"], ["a.toml"], [("a.toml", "modified", None)], [("a.toml", "a.toml")]),
    ("added", [], ["a.toml"], [("a.toml", "added", None)], [(None, "a.toml")]),
    ("removed", ["a.toml"], [], [("a.toml", "removed", None)], [("a.toml", None)]),
    ("pure-rename", ["a.toml"], ["b.toml"], [("b.toml", "renamed", "a.toml")], [("a.toml", "b.toml")]),
    # A rename reported into a path that existed at base (a source that guesses with rewrites broken up):
    # the new path is compared with itself, and the old file, gone at head, is a removal.
    (
        "into-existing-path",
        ["a.toml", "b.toml"],
        ["b.toml"],
        [("b.toml", "renamed", "a.toml")],
        [("b.toml", "b.toml"), ("a.toml", None)],
    ),
    # Edge: two files swapped; each path exists at both sides and is compared with itself.
    (
        "swap",
        ["a.toml", "b.toml"],
        ["a.toml", "b.toml"],
        [("b.toml", "renamed", "a.toml"), ("a.toml", "renamed", "b.toml")],
        [("b.toml", "b.toml"), ("a.toml", "a.toml")],
    ),
    # A copy: the old file is still there at head, so the new one has no base.
    ("copy", ["a.toml"], ["a.toml", "b.toml"], [("b.toml", "renamed", "a.toml")], [(None, "b.toml")]),
    # A move that does not only permute names keeps git's pairing.
    (
        "move-new-names",
        ["d/a.toml", "d/b.toml"],
        ["e/b.toml", "e/c.toml"],
        [("e/c.toml", "renamed", "d/a.toml"), ("e/b.toml", "renamed", "d/b.toml")],
        [("d/a.toml", "e/c.toml"), ("d/b.toml", "e/b.toml")],
    ),
]


@pytest.mark.parametrize("case, base, head, reported, expected", PAIRS, ids=[p[0] for p in PAIRS])
def test_file_pairs(make_repo, case, base, head, reported, expected):
    r = make_repo(
        {p: f"max_steps = {i}\n" for i, p in enumerate(base)},
        {p: None for p in base if p not in head} | {p: f"max_steps = {i + 10}\n" for i, p in enumerate(head)},
    )
    files = tuple(FileChange(path=p, status=FileStatus(s), old_path=o) for p, s, o in reported)
    # The files as a source reported them; contents are read from the real repository.
    cs = load_changeset(r.path, base="main", head="pr").model_copy(update={"files": files})
    assert file_pairs(cs, files) == tuple(Pair(b, h) for b, h in expected)
