"""The step-math table in the status comment and the Report JSON; the bundled training examples."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli.main import main
from bot.review.docs import SECTIONS, rules_markdown, sections
from bot.review.render import render_comment
from rules.catalog import REGISTRY
from tests.helpers import review_change

ROOT = Path(__file__).resolve().parent.parent
P = "training/compat_profiles/run.toml"


def test_table_marks_changes_and_json_lists_them(make_repo):
    report = review_change(
        make_repo,
        {P: "target_examples = 300\nbatch_size = 8\nseq_len = 1024\n"},
        {P: "target_micro_steps = 300\nbatch_size = 8\nseq_len = 1024\n"},
    )
    out = render_comment(report)
    assert "| semantics | examples | **legacy-micro** |" in out
    assert "| max_steps | 38 | **37** |" in out
    assert "| batch size | 8 | 8 |" in out  # unchanged: not bold
    assert "| tokens per step | 8192 | 8192 |" in out
    assert "| unapplied micro steps | — | **4** |" in out
    (row,) = report.profiles
    assert {"semantics", "max_steps", "decay_steps", "effective_train_examples"} <= set(row.changed)
    assert "batch_size" not in row.changed
    data = json.loads(report.model_dump_json())
    assert data["profiles"][0]["changed"] == list(row.changed)
    assert data["profiles"][0]["head"]["grad_accum"] == 8


def test_new_profile_has_nothing_bold(make_repo):
    report = review_change(make_repo, {"README.md": "x\n"}, {P: "target_examples = 300\nbatch_size = 8\n"})
    out = render_comment(report)
    assert "| max_steps | — | 38 |" in out and "**" not in out.split("#### Findings")[0].split("| Profile")[1]


def test_untrusted_names_and_kinds_in_the_table(make_repo):
    body = 'COMPAT_PROFILES = {"x|@bob <b>": {"max_steps": 3, "batch_size": 8}}\n'
    report = review_change(make_repo, {"train.py": "x = 1\n"}, {"train.py": body})
    out = render_comment(report)
    # Code spans keep the name readable; a word joiner after `@` and `<` keeps them from pinging or tagging.
    assert "`x\\|@\u2060bob <\u2060b>`<br>`train.py`:1<br><sub>Python literal</sub>" in out
    assert "@bob" not in out and "<b>" not in out


def test_errors_shown_per_side(make_repo):
    report = review_change(
        make_repo,
        {P: "target_examples = 300\nbatch_size = 8\n"},
        {P: "target_examples = 300\nmax_steps = 3\nbatch_size = 8\n"},
    )
    out = render_comment(report)
    assert "| head | | ⚠️ target\\_examples conflicts with an explicit max\\_steps=3 |" in out


def test_mobile300_example_in_the_comment(capsys):
    main(["example", str(ROOT / "examples/mobile300")])
    out = capsys.readouterr().out
    for line in (
        "| max_steps | 38 | **37** |",
        "| scheduler.decay_steps | 38 | **37** |",
        "| effective examples | 304 | **296** |",
        "| unapplied micro steps | — | **4** |",
    ):
        assert line in out
    assert "now sees 296 examples instead of 304" in out


def test_linear_scheduler_example_is_caught_by_trn002(capsys):
    code = main(["example", str(ROOT / "examples/linear-scheduler"), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [f["rule"] for f in data["findings"]] == ["TRN002"]
    assert "leaves no room for `warmup_steps=5`" in data["findings"][0]["message"]
    (profile,) = data["profiles"]
    assert profile["changed"] == ["decay_steps"]
    assert (profile["base"]["decay_steps"], profile["head"]["decay_steps"]) == (32, 37)
    assert profile["head"]["config_path"] == "configs/sft/mobile300.toml"


def test_every_rule_is_documented():
    for rule in REGISTRY.values():
        assert set(SECTIONS) <= set(sections(rule.doc)), rule.code
        assert rule.name == rule.name.lower() and " " not in rule.name


def test_docs_rules_md_is_current():
    assert (ROOT / "docs/rules.md").read_text(encoding="utf-8") == rules_markdown()


def _many(count: int, moving: int) -> tuple[str, str]:
    """`count` profiles in one file: the first `moving` change semantics, the rest only a description."""
    base, head = [], []
    for i in range(count):
        base.append(f"[profiles.p{i:03}]\ntarget_examples = {300 + i}\nbatch_size = 8\n")
        if i < moving:
            head.append(f"[profiles.p{i:03}]\ntarget_micro_steps = {300 + i}\nbatch_size = 8\n")
        else:
            head.append(
                f'[profiles.p{i:03}]\ndescription = "same run"\ntarget_examples = {300 + i}\nbatch_size = 8\n'
            )
    return "\n".join(base), "\n".join(head)


def test_many_profiles_get_a_summary_and_a_collapsed_detail(make_repo):
    base, head = _many(30, 12)
    report = review_change(make_repo, {P: base}, {P: head})
    out = render_comment(report)
    assert len(report.profiles) == 30
    assert "Derived by the bot from the 30 changed profiles" in out
    assert "| Profile | semantics | max_steps | optimizer steps | effective examples |" in out
    # One summary row per profile whose numbers move, base → head, the change in bold.
    assert (
        "| `p000`<br>`training/compat_profiles/run.toml` | examples → **legacy-micro** | 38 → **37** |" in out
    )
    assert out.count("<br>`training/compat_profiles/run.toml` | examples → **legacy-micro**") == 12
    # The others by name on one line, and every value of the moving ones collapsed.
    assert "18 other changed profiles derive the same values at base and head: `p012`, `p013`," in out
    assert "and 0 more" not in out
    details = out.split("<details><summary>Every derived value, base → head</summary>")[1].split(
        "</details>"
    )[0]
    assert details.count("| semantics | examples | **legacy-micro** |") == 12 and "`p012`" not in details
    # The findings still follow: a notice per profile whose exposure or length unit changes: 11 change
    # their exposure, and the twelfth (304 micro steps are 38 whole steps either way) keeps it but now
    # counts micro-batches.
    assert out.count("**TRN004** training-exposure-changed") == 12
    assert out.count("keeps 304 examples (`max_steps` 38 → 38; its length now counts micro-batches") == 1


def test_a_few_profiles_stay_inline(make_repo):
    base, head = _many(3, 3)
    out = render_comment(review_change(make_repo, {P: base}, {P: head}))
    assert "<details>" not in out and "| Profile | Value | Base | Head |" in out


def test_hundreds_of_profiles_stay_under_the_limit_and_keep_the_findings(make_repo):
    base, head = _many(300, 300)
    report = review_change(make_repo, {P: base}, {P: head})
    out = render_comment(report)
    assert len(out) <= 65_000
    assert out.count("examples → **legacy-micro**") == 50
    assert "_250 more profiles with changed values not listed; the Report JSON has them all._" in out
    # The collapsed detail gives way before the findings do.
    assert "are left out to stay under GitHub's comment size limit" in out
    assert out.count("**TRN004** training-exposure-changed") == len(
        [f for f in report.findings if f.rule == "TRN004"]
    )
