"""TRN005 on realistic pull request descriptions: claims about the new run are checked, claims about the
old run, the legacy trainer or unchanged profiles are not; prose, lists, tables, code blocks."""

from __future__ import annotations

import pytest

from rules.core.models import PullRequest
from rules.training.claims import claims
from tests.helpers import review_change

P = "training/compat_profiles/mobile.toml"
NEW, OTHER = "env0-mobile300-pr828", "env0-mobile300-examples"
# The Mobile300 port: the first profile moves from an examples target (38 steps, 304 examples) to a
# micro-step target (37 steps, decay 37, 296 examples, 4 unapplied); the second profile is unchanged.
BASE = {
    P: f"[profiles.{NEW}]\ntarget_examples = 300\nbatch_size = 8\n\n"
    f"[profiles.{OTHER}]\ntarget_examples = 300\nbatch_size = 8\n"
}
HEAD = {
    P: f"[profiles.{NEW}]\ntarget_micro_steps = 300\nbatch_size = 8\n\n"
    f"[profiles.{OTHER}]\ntarget_examples = 300\nbatch_size = 8\n"
}

STORY = f"""Match the legacy trainer's micro-step semantics

Summary

Fixes the Prime-RL compat profile for the Mobile300 reproduction by matching the old custom PEFT
trainer's step counting.

The historical custom trainer counted max_steps=300 as batch-size-1 micro-batches and applied an
optimizer update every 8 of them, so the saved adapter had 37 updates and the last 4 micro-batches were
never stepped. Prime-RL counts max_steps in optimizer steps, so the previous --target-examples 300
mapping generated max_steps=38 and over-exposed the run.

Changes:

• Adds --target-micro-steps to derive Prime-RL max_steps from legacy micro-batch semantics.
• Updates {NEW} to use target_micro_steps=300, producing max_steps=37 and scheduler.decay_steps=37.
• Records effective_train_examples and unapplied_micro_steps in the run manifest.
• Keeps {OTHER} as it was: max_steps=38, effective_train_examples=304.

Validation

• pytest tests/test_train_cli.py -q -> 27 passed
• manifest: target_micro_steps=300 -> max_steps=37, scheduler.decay_steps=37, effective_train_examples=296,
  and unapplied_micro_steps=4.
"""

TABLES = """| | before | after |
|---|---|---|
| `max_steps` | 38 | {new} |
| effective_train_examples | 304 | 296 |
"""

PROFILE_TABLE = f"""| profile | max_steps | effective_train_examples |
|---|---|---|
| {NEW} | {{new}} | 296 |
| {OTHER} | 38 | 304 |
| before | 38 | 304 |
"""

CASES = [
    # (id, body, quoted claims expected in findings)
    ("story", STORY, []),
    ("story-wrong-new", STORY.replace("producing max_steps=37", "producing max_steps=36"), ["max_steps=36"]),
    (
        "story-wrong-manifest",
        STORY.replace("unapplied_micro_steps=4", "unapplied_micro_steps=5"),
        ["unapplied_micro_steps=5"],
    ),
    # The description still states the old number for the changed profile: that is the stale claim to catch.
    ("stale-new", f"Updates {NEW}, producing max_steps=38.", ["max_steps=38"]),
    ("headings", "Before:\n- max_steps=38, decay_steps=38\n\nAfter:\n- max_steps=37, decay_steps=37\n", []),
    ("headings-wrong-after", "Before:\n- max_steps=38\n\nAfter:\n- max_steps=36\n", ["max_steps=36"]),
    ("markdown-headings", "### Before\nmax_steps = 38\n\n### After\nmax_steps = 37\n", []),
    ("before-after-table", TABLES.format(new=37), []),
    ("before-after-table-wrong", TABLES.format(new=36), ["`max_steps` 36"]),
    ("arrow-in-table", "| key | value |\n|---|---|\n| max_steps | 38 -> 37 |\n", []),
    ("profile-table", PROFILE_TABLE.format(new=37), []),
    ("profile-table-wrong", PROFILE_TABLE.format(new=39), ["max_steps 39"]),
    ("diff-block", "```diff\n-  max_steps = 38\n+  max_steps = 37\n```\n", []),
    ("diff-block-wrong", "```diff\n-  max_steps = 38\n+  max_steps = 35\n```\n", ["max_steps = 35"]),
    (
        "cli-output",
        "```\n$ bot steps --target-micro-steps 300 --batch-size 8\nmax_steps:   37\ndecay_steps:   37\n```\n",
        [],
    ),
    ("suffix-before", "The run has max_steps: 38 (before) and max_steps: 37 now.", []),
    ("was-then-now", "max_steps was 38; it now has max_steps 37.", []),
    ("last-marker-wins", "This replaces the old mapping and produces max_steps=36.", ["max_steps=36"]),
    ("several-profiles", f"{NEW} gets max_steps=37 while {OTHER} keeps max_steps=38.", []),
    ("several-profiles-wrong", f"{OTHER} keeps max_steps=38 and {NEW} gets max_steps=38.", ["max_steps=38"]),
    ("unchanged-profile-only", f"{OTHER}: max_steps=40.", []),
    ("legacy-value", "The custom trainer's max_steps=300 now maps to max_steps=37.", []),
    ("unapplied-zero-for-examples", f"{OTHER} leaves unapplied_micro_steps=0.", []),
    ("no-claims", "Fixes the Mobile300 profile. 4704 passed, 14 skipped.", []),
]


def _trn005(make_repo, body):
    report = review_change(make_repo, {"README.md": "x\n", **BASE}, HEAD, pr=PullRequest(body=body))
    return [f.message for f in report.findings if f.rule == "TRN005"]


@pytest.mark.parametrize("case, body, expected", CASES, ids=[c[0] for c in CASES])
def test_trn005_on_realistic_descriptions(make_repo, case, body, expected):
    messages = _trn005(make_repo, body)
    assert len(messages) == len(expected), messages
    for message, quoted in zip(messages, expected, strict=True):
        assert f"“{quoted}”" in message


def test_a_claim_naming_the_changed_profile_is_checked_against_it_alone(make_repo):
    (message,) = _trn005(make_repo, f"{NEW} now runs max_steps=38.")
    assert f"gives 37 for `{NEW}`" in message and OTHER not in message


@pytest.mark.parametrize(
    "body, expected",
    [
        # (key, value, past) in order
        (
            "Previously max_steps=38, decay_steps=38 and effective_train_examples=304.",
            [("max_steps", 38, True), ("decay_steps", 38, True), ("effective_train_examples", 304, True)],
        ),
        ("Legacy max_steps=300 maps to max_steps=37.", [("max_steps", 300, True), ("max_steps", 37, False)]),
        ("max_steps: 38 (before)", [("max_steps", 38, True)]),
        ("max_steps=37, and more", [("max_steps", 37, False)]),
        ("| max_steps |\n|---|\n| 37 |", []),  # a key in a header row needs a row subject
        ("| max_steps | 37 |", [("max_steps", 37, False)]),  # a table without a header row
        ("```yaml\n- max_steps: 37\n```", [("max_steps", 37, False)]),  # a YAML list is not a diff
    ],
)
def test_claim_times(body, expected):
    assert [(c.key, c.value, c.past) for c in claims(body)] == expected


def test_profile_names_are_whole_tokens():
    names = ["mobile300", "mobile300-examples"]
    found = claims("mobile300-examples: max_steps=38; mobile300: max_steps=37.", names)
    assert [(c.value, c.profile) for c in found] == [(38, "mobile300-examples"), (37, "mobile300")]
