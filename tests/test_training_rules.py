"""TRN001-TRN005 over real repositories: where each fires, where it stays silent, and edge cases."""

from __future__ import annotations

import pytest

from rules.core.models import PullRequest, Severity
from rules.training.claims import claims
from tests.helpers import review_change

P = "training/compat_profiles/run.toml"
C = "configs/sft/run.toml"


def _config(
    max_steps=100, batch=8, scheduler='type = "linear"\nwarmup_steps = 5\ndecay_steps = 30\n', extra=""
):
    return f"max_steps = {max_steps}\n{extra}\n[data]\nbatch_size = {batch}\n\n[scheduler]\n{scheduler}"


def _findings(make_repo, base, head, rule, body=None):
    pr = PullRequest(body=body) if body is not None else None
    report = review_change(make_repo, base, head, pr=pr)
    return [f for f in report.findings if f.rule == rule], report


# --- TRN001 ---------------------------------------------------------------------------------------

TRN001 = [
    # (id, base, head, expected message parts or None)
    (
        "expect-mismatch",
        {},
        {P: "target_examples = 300\nbatch_size = 8\n[expect]\nmax_steps = 37\n"},
        ["expects max_steps=37", "gives 38"],
    ),
    (
        "expect-mismatch-effective",
        {},
        {P: "target_micro_steps = 300\nbatch_size = 8\n[expect]\neffective_train_examples = 300\n"},
        ["expects effective_train_examples=300", "gives 296"],
    ),
    (
        "both-targets",
        {},
        {P: "target_examples = 3\ntarget_micro_steps = 300\nbatch_size = 8\n"},
        ["exclusive"],
    ),
    ("target-and-max", {}, {P: "target_examples = 3\nmax_steps = 3\nbatch_size = 8\n"}, ["max_steps=3"]),
    (
        "sync-and-decay",
        {},
        {P: "target_examples = 300\nbatch_size = 8\n[scheduler]\ndecay_steps = 30\n"},
        ["sync_scheduler_to_max_steps conflicts", "decay_steps=30"],
    ),
    ("no-batch", {}, {P: "target_examples = 300\n"}, ["batch_size is unknown"]),
    ("matches", {}, {P: "target_micro_steps = 300\nbatch_size = 8\n[expect]\nmax_steps = 37\n"}, None),
    # Edge: the step math refuses it, but batch arithmetic is TRN003's to report.
    ("batch-is-trn003", {}, {P: "target_micro_steps = 7\nbatch_size = 8\n"}, None),
    ("zero-batch", {}, {P: "target_micro_steps = 300\nbatch_size = 0\n"}, ["batch_size must be > 0, got 0"]),
    ("zero-batch-max-steps", {}, {P: "max_steps = 30\nbatch_size = 0\n"}, ["batch_size must be > 0, got 0"]),
    # Edge: a removed profile has nothing to check.
    ("removed", {P: "target_examples = 300\nbatch_size = 8\n[expect]\nmax_steps = 1\n"}, {P: None}, None),
]


@pytest.mark.parametrize("case, base, head, expected", TRN001, ids=[c[0] for c in TRN001])
def test_trn001(make_repo, case, base, head, expected):
    found, _ = _findings(make_repo, {"README.md": "x\n", **base}, head, "TRN001")
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].path == P and found[0].severity is Severity.ERROR
        for part in expected:
            assert part in found[0].message


# --- TRN002 ---------------------------------------------------------------------------------------

SYNCED = f'config = "{C}"\ntarget_micro_steps = 300\n'
TRN002 = [
    ("synced-decay-vs-warmup", {C: _config()}, {P: SYNCED}, P, ["leaves no room for `warmup_steps=5`"]),
    (
        "explicit-sum-too-big",
        {C: _config()},
        {P: SYNCED + "sync_scheduler_to_max_steps = false\n[scheduler]\ndecay_steps = 33\n"},
        P,
        ["5` + `decay_steps=33` = 38 exceeds `max_steps=37`"],
    ),
    (
        "linear-zero-zero",
        {},
        {C: _config(scheduler='type = "linear"\nwarmup_steps = 0\ndecay_steps = 0\n')},
        C,
        ["`warmup_steps=0` and `decay_steps=0`"],
    ),
    (
        "cosine-warmup",
        {},
        {C: _config(max_steps=10, scheduler='type = "cosine"\nwarmup_steps = 10\n')},
        C,
        ["not less than `max_steps=10`"],
    ),
    ("constant-with-keys", {}, {C: _config(scheduler="warmup_steps = 5\n")}, C, ["constant scheduler"]),
    (
        "synced-onto-constant",
        {C: _config(scheduler="")},
        {P: SYNCED},
        P,
        ["written by `sync_scheduler_to_max_steps`"],
    ),
    # Silent: a synced decay without warmup fits exactly; no config and no type: scheduler unknown.
    ("synced-no-warmup", {C: _config(scheduler='type = "linear"\nwarmup_steps = 0\n')}, {P: SYNCED}, P, None),
    ("unknown-scheduler", {}, {P: "target_micro_steps = 300\nbatch_size = 8\n"}, P, None),
    (
        "fits",
        {C: _config()},
        {P: SYNCED + "sync_scheduler_to_max_steps = false\n[scheduler]\ndecay_steps = 32\n"},
        P,
        None,
    ),
    # Edge: the profile's own type with Prime-RL's default warmup of 10 and no config at all.
    (
        "own-type-default-warmup",
        {},
        {P: 'target_micro_steps = 300\nbatch_size = 8\n[scheduler]\ntype = "linear"\n'},
        P,
        ["`warmup_steps=10`"],
    ),
    # Edge: an unchanged profile breaks because the config it points at gained warmup.
    (
        "config-change-breaks-profile",
        {C: _config(scheduler='type = "linear"\nwarmup_steps = 0\n'), P: SYNCED},
        {C: _config(scheduler='type = "linear"\nwarmup_steps = 3\n')},
        P,
        ["leaves no room for `warmup_steps=3`"],
    ),
]


@pytest.mark.parametrize("case, base, head, path, expected", TRN002, ids=[c[0] for c in TRN002])
def test_trn002(make_repo, case, base, head, path, expected):
    found, _ = _findings(make_repo, {"README.md": "x\n", **base}, head, "TRN002")
    found = [f for f in found if f.path == path]
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].severity is Severity.ERROR
        assert "Prime-RL" in found[0].message and "Fix:" in found[0].message
        for part in expected:
            assert part in found[0].message


# --- TRN003 ---------------------------------------------------------------------------------------

TRN003 = [
    (
        "micro-batch",
        {P: "target_micro_steps = 300\nbatch_size = 12\nmicro_batch_size = 8\n"},
        ["micro_batch_size=8"],
    ),
    ("world-size", {P: "target_micro_steps = 300\nbatch_size = 8\nworld_size = 3\n"}, ["world_size"]),
    ("no-step", {P: "target_micro_steps = 7\nbatch_size = 8\n"}, ["no optimizer step"]),
    (
        "config-itself",
        {C: "max_steps = 10\n[data]\nbatch_size = 8\nmicro_batch_size = 3\n"},
        ["batch_size=8"],
    ),
    ("fine", {P: "target_micro_steps = 300\nbatch_size = 8\nmicro_batch_size = 2\nworld_size = 2\n"}, None),
    # Edge: context parallelism makes an otherwise indivisible layout whole (8 * 2 rows over 16 ranks).
    (
        "cp",
        {P: "target_micro_steps = 300\nbatch_size = 8\nmicro_batch_size = 1\nworld_size = 16\ncp = 2\n"},
        None,
    ),
    # Prime-RL wants micro-batches of one row when context parallelism is on.
    (
        "cp-micro-batch",
        {P: "target_micro_steps = 300\nbatch_size = 8\nmicro_batch_size = 2\nworld_size = 8\ncp = 2\n"},
        ["micro_batch_size=2 with cp=2"],
    ),
]


@pytest.mark.parametrize(
    "head",
    [
        {P: "target_examples = 300\nbatch_size = 0\n"},
        {P: "max_steps = 30\nbatch_size = -8\n"},
        {C: "max_steps = 10\n[data]\nbatch_size = 0\n"},
    ],
)
def test_non_positive_batch_is_one_finding(make_repo, head):
    """A batch size of 0 or less is TRN001's input error, not also TRN003's batch arithmetic."""
    report = review_change(make_repo, {"README.md": "x\n"}, head)
    assert [(f.rule, "batch_size must be > 0" in f.message) for f in report.findings] == [("TRN001", True)]


@pytest.mark.parametrize("case, head, expected", TRN003, ids=[c[0] for c in TRN003])
def test_trn003(make_repo, case, head, expected):
    found, report = _findings(make_repo, {"README.md": "x\n"}, head, "TRN003")
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].severity is Severity.ERROR
        for part in expected:
            assert part in found[0].message
        assert "TRN001" not in [f.rule for f in report.findings]


# --- TRN004 ---------------------------------------------------------------------------------------

TRN004 = [
    (
        "mobile300",
        "target_examples = 300\nbatch_size = 8\n",
        "target_micro_steps = 300\nbatch_size = 8\n",
        "now sees 296 examples instead of 304 (`max_steps` 38 → 37; its length now counts micro-batches, "
        "not examples)",
    ),
    (
        "same-examples-other-steps",
        "target_examples = 304\nbatch_size = 8\n",
        "target_examples = 304\nbatch_size = 16\n",
        "sees 304 examples in a different number of updates (`max_steps` 38 → 19)",
    ),
    (
        "no-batch",
        "max_steps = 10\n",
        "max_steps = 12\n",
        "changes its optimizer steps (`max_steps` 10 → 12)",
    ),
    (
        "description-only",
        'description = "a"\ntarget_examples = 300\nbatch_size = 8\n',
        'description = "b"\ntarget_examples = 300\nbatch_size = 8\n',
        None,
    ),
    # Edge: a batch size given where there was none makes the exposure known, not changed.
    ("batch-now-known", "max_steps = 30\n", "max_steps = 30\nbatch_size = 8\n", None),
    (
        "batch-now-known-steps",
        "max_steps = 30\n",
        "max_steps = 20\nbatch_size = 8\n",
        "(`max_steps` 30 → 20)",
    ),
    # Edge: a new profile has no old exposure to compare with.
    ("new-profile", None, "target_examples = 300\nbatch_size = 8\n", None),
]


@pytest.mark.parametrize("case, base, head, expected", TRN004, ids=[c[0] for c in TRN004])
def test_trn004(make_repo, case, base, head, expected):
    base_files = {"README.md": "x\n", **({P: base} if base else {})}
    found, _ = _findings(make_repo, base_files, {P: head}, "TRN004")
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].severity is Severity.NOTICE
        assert expected in found[0].message


# --- TRN005 ---------------------------------------------------------------------------------------

MOBILE = ({P: "target_examples = 300\nbatch_size = 8\n"}, {P: "target_micro_steps = 300\nbatch_size = 8\n"})

TRN005 = [
    ("wrong-max", "Producing max_steps=36.", ["“max_steps=36”", "gives 37 for `run`"]),
    ("wrong-prose", "The run now has max_steps 36 in total.", ["“max_steps 36”"]),
    ("wrong-decay", "Sets scheduler.decay_steps: 40.", ["“scheduler.decay_steps: 40”"]),
    ("wrong-effective", "It sees effective_train_examples = 300.", ["effective_train_examples = 300", "296"]),
    ("wrong-arrow", "max_steps 38 -> 36", ["“max_steps 38 -> 36”"]),
    ("wrong-code", "Sets `max_steps` to `36`.", ["36"]),
    ("legacy-out-of-context", "Uses max_steps=300 now.", ["max_steps=300"]),
    (
        "all-right",
        "producing max_steps=37 and scheduler.decay_steps=37, effective_train_examples=296 and "
        "unapplied_micro_steps=4; max_steps from 38 to 37.",
        None,
    ),
    ("legacy-context", "The custom trainer counted max_steps=300 as batch-size-1 micro-batches.", None),
    ("no-claims", "Fixes the Mobile300 profile.", None),
    ("empty", "", None),
    # Edge: other keys that merely contain a claimable name are not claims.
    ("not-a-key", "target_max_steps=5 and my.max_steps=9", None),
]


@pytest.mark.parametrize("case, body, expected", TRN005, ids=[c[0] for c in TRN005])
def test_trn005(make_repo, case, body, expected):
    found, _ = _findings(make_repo, {"README.md": "x\n", **MOBILE[0]}, MOBILE[1], "TRN005", body=body)
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].severity is Severity.WARNING and found[0].path is None
        for part in expected:
            assert part in found[0].message


def test_trn005_silent_without_changed_profiles(make_repo):
    found, _ = _findings(make_repo, {"a.py": "1\n"}, {"a.py": "2\n"}, "TRN005", body="max_steps=1")
    assert found == []


@pytest.mark.parametrize(
    "body, expected",
    [
        ("max_steps=37", [("max_steps", 37)]),
        ("max_steps: 1,024", [("max_steps", 1024)]),
        ("MAX_STEPS is 5", [("max_steps", 5)]),
        ("decay_steps of 7 and unapplied_micro_steps=0", [("decay_steps", 7), ("unapplied_micro_steps", 0)]),
        ("max_steps=3.5", []),
        ("max_steps", []),
    ],
)
def test_claim_parsing(body, expected):
    assert [(c.key, c.value) for c in claims(body)] == expected


def test_trn005_reads_the_body_file_in_local_mode(make_repo, tmp_path, capsys):
    from bot.cli.main import main

    r = make_repo({"README.md": "x\n", **MOBILE[0]}, MOBILE[1])
    body = tmp_path / "body.md"
    body.write_text("Producing max_steps=36 and effective_train_examples=296.\n", encoding="utf-8")
    args = ["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "json"]
    assert main([*args, "--pr-body-file", str(body), "--fail-level", "warning"]) == 1
    import json

    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["rule"], f["severity"]) for f in findings] == [("TRN005", "warning"), ("TRN004", "notice")]
    assert "“max_steps=36”" in findings[0]["message"]
