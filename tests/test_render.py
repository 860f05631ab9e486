from bot.review.render import MARKER, render_comment
from rules.core.models import Coverage, Finding, ProfileMath, Report, Severity, StepValues, Waiver


def _report(**kw):
    base = dict(
        verdict="ready",
        labels=("status:ready", "review:pending"),
        coverage=Coverage(files_changed=2, files_reviewed=2),
    )
    base.update(kw)
    return Report(**base)


def _finding(path="tests/test_a.py", line=3, message="Bad `thing`.", **kw):
    return Finding(
        rule="AGT001",
        name="regression-test-without-reference",
        severity=Severity.ERROR,
        path=path,
        line=line,
        message=message,
        **kw,
    )


def test_marker_first_then_verdict():
    out = render_comment(_report())
    assert out.splitlines()[0] == MARKER
    assert "ready for review" in out and "No findings." in out
    assert "Reviewed 2 of 2 changed files" in out


def test_findings_grouped_by_file_with_source():
    report = _report(
        verdict="needs-work",
        labels=("status:needs-work",),
        findings=(
            _finding(source="AGENTS.md:14", source_text="Regression tests must name the PR."),
            _finding(line=9),
            _finding(path="tests/test_b.py", line=1),
        ),
    )
    out = render_comment(report)
    assert "needs work" in out
    assert out.count("**`tests/test_a.py`**") == 1 and out.count("**`tests/test_b.py`**") == 1
    assert "per `AGENTS.md:14`" in out
    assert out.index("line 3") < out.index("line 9") < out.index("tests/test_b.py")


def test_step_math_table_shows_base_to_head():
    p = ProfileMath(
        path="profiles/p.toml",
        name="p",
        base=StepValues(
            semantics="examples",
            batch_size=8,
            target_examples=300,
            max_steps=38,
            decay_steps=38,
            effective_train_examples=304,
        ),
        head=StepValues(
            semantics="legacy-micro",
            batch_size=8,
            target_micro_steps=300,
            max_steps=37,
            decay_steps=37,
            effective_train_examples=296,
            unapplied_micro_steps=4,
        ),
    )
    out = render_comment(_report(profiles=(p,)))
    assert "| max_steps | 38 | **37** |" in out
    assert "| scheduler.decay_steps | 38 | **37** |" in out
    assert "| unapplied micro steps | — | **4** |" in out
    assert "| batch size | 8 | 8 |" in out


def test_untrusted_finding_text_cannot_spoof_marker_or_ping():
    evil = _finding(path="x<!-- bot-review:status -->.py", message="@admin <!-- bot-review:status --> #1")
    out = render_comment(_report(findings=(evil,)))
    assert out.count(MARKER) == 1
    assert "@admin" not in out


def test_waivers_are_listed():
    out = render_comment(
        _report(waivers=(Waiver(rule="AGT001", path="t.py", line=4, reason="flaky upstream", by="maint"),))
    )
    assert "Waived" in out and "flaky upstream" in out and "maint" in out


def test_huge_report_is_truncated_under_limit_with_marker():
    findings = tuple(_finding(line=i, message="x" * 900) for i in range(1, 400))
    out = render_comment(_report(findings=findings))
    assert len(out) <= 65_000
    assert out.startswith(MARKER)
    assert "more findings not shown" in out
