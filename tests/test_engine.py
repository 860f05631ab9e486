from bot.git.local import load_changeset
from bot.review.engine import review
from bot.review.render import render_comment
from rules.core.config import Config, RuleSetting
from rules.core.models import Severity
from tests.helpers import AGENTS_AGT001, codes, review_change

NEW_TEST = 'def test_new():\n    """Checks a thing no longer overflows."""\n    assert 1 + 1 == 2\n'


def test_clean_change_is_ready(make_repo):
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001}, {"src/a.py": "x = 1\n"})
    assert report.verdict == "ready"
    assert report.labels == ("status:ready", "review:pending")
    assert (report.coverage.files_changed, report.coverage.files_reviewed) == (1, 1)


def test_error_means_needs_work(make_repo):
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})
    assert codes(report) == ["AGT001"]
    assert report.verdict == "needs-work"
    assert report.labels == ("status:needs-work",)


def test_config_regrades_rule_to_warning(make_repo):
    config = "rules:\n  AGT001:\n    severity: warning\n"
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": config}, {"tests/test_a.py": NEW_TEST}
    )
    assert [f.severity for f in report.findings] == [Severity.WARNING]
    assert report.verdict == "ready"


def test_config_disables_rule_by_name(make_repo):
    config = "rules:\n  regression-test-without-reference:\n    enabled: false\n"
    report = review_change(
        make_repo, {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": config}, {"tests/test_a.py": NEW_TEST}
    )
    assert codes(report) == []


def test_config_enables_rule_without_agents_md(make_repo):
    config = "rules:\n  AGT001:\n    enabled: true\n"
    report = review_change(make_repo, {".github/bot.yml": config}, {"tests/test_a.py": NEW_TEST})
    assert codes(report) == ["AGT001"]
    assert report.findings[0].source is None


def test_config_is_read_from_base_not_head(make_repo):
    # The PR tries to switch off the rule that judges it; the base config still applies.
    head = {"tests/test_a.py": NEW_TEST, ".github/bot.yml": "rules:\n  AGT001:\n    enabled: false\n"}
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001}, head)
    assert codes(report) == ["AGT001"]


def test_invalid_config_is_a_finding_and_review_goes_on(make_repo):
    report = review_change(
        make_repo,
        {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": "rulez: {}\n"},
        {"tests/test_a.py": NEW_TEST},
    )
    assert codes(report) == ["BOT001", "AGT001"]
    assert "rulez" in report.findings[0].message


def test_crashing_rule_becomes_a_finding(make_repo):
    from rules.core.base import Rule

    def boom(ctx):
        raise RuntimeError("secret details")

    r = make_repo({"a.py": "1\n"}, {"a.py": "2\n"})
    bad = Rule(code="XXX001", name="boom", severity=Severity.WARNING, check=boom, doc="", summary="")
    report = review(load_changeset(r.path, base="main", head="pr"), Config(), {"XXX001": bad})
    (f,) = report.findings
    assert f.rule == "XXX001" and "RuntimeError" in f.message and "secret" not in f.message


def test_explicit_config_object(make_repo):
    r = make_repo({"AGENTS.md": AGENTS_AGT001}, {"tests/test_a.py": NEW_TEST})
    cfg = Config(rules={"AGT001": RuleSetting(enabled=False)})
    assert review(load_changeset(r.path, base="main", head="pr"), cfg).findings == ()


def test_excluded_paths_are_left_out_and_counted(make_repo):
    config = "exclude:\n  - 'examples/**'\n"
    base = {
        "AGENTS.md": AGENTS_AGT001,
        ".github/bot.yml": config,
        # A policy file under an excluded path governs nothing.
        "examples/demo/AGENTS.md": "- AGT001 does not apply here.\n",
    }
    head = {
        "tests/test_a.py": NEW_TEST,
        "examples/demo/tests/test_b.py": NEW_TEST,
        "examples/x.profile.toml": "[",
    }
    report = review_change(make_repo, base, head)
    assert [(f.rule, f.path) for f in report.findings] == [("AGT001", "tests/test_a.py")]
    assert report.policy_files == ("AGENTS.md",)
    cov = report.coverage
    assert (cov.files_changed, cov.files_reviewed, cov.files_excluded) == (3, 1, 2)
    assert "2 excluded by config" in render_comment(report)


def test_each_config_problem_is_a_bot001_finding_on_its_line(make_repo):
    config = "rules:\n  AGT01:\n    enabled: false\n  AGT001:\n    enabled: maybe\n"
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": config}, {"a.txt": "x"})
    assert [(f.rule, f.path, f.line) for f in report.findings] == [
        ("BOT001", ".github/bot.yml", 2),
        ("BOT001", ".github/bot.yml", 5),
    ]
    assert (
        report.findings[0].message
        == "`rules.AGT01`: no rule is called `AGT01`; did you mean `AGT001`? (config ignored, defaults used)."
    )


def test_a_pr_changing_the_config_is_told_when_it_takes_effect_and_what_breaks(make_repo):
    head = {".github/bot.yml": "rules:\n  AGT01: {enabled: false}\n"}
    report = review_change(make_repo, {"AGENTS.md": AGENTS_AGT001, ".github/bot.yml": "rules: {}\n"}, head)
    (f,) = report.findings
    assert (f.rule, f.line) == ("BOT001", 2) and f.message.startswith("`rules.AGT01`: after merge: no rule")
    assert any("takes effect after merge" in note for note in report.notes)
