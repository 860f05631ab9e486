"""The learning-rate schedule (rules/training/lr_schedule.py): its shape, the chart, the sparkline."""

from __future__ import annotations

import math
import re

import pytest

from bot.cli.main import main
from rules.core.models import StepValues
from rules.training.lr_schedule import MAX_POINTS, chart_of, grid, rate_at, schedule_of, sparkline


def _side(scheduler: str | None, steps: int, warmup: int, decay: int | None = None) -> StepValues:
    return StepValues(
        semantics="optimizer",
        scheduler=scheduler,
        optimizer_steps=steps,
        warmup_steps=warmup,
        decay_steps=decay,
    )


@pytest.mark.parametrize(
    ("kind", "step", "expected"),
    [
        ("linear", 0, 0.0),
        ("linear", 5, 0.5),  # half-way up a 10-step warmup
        ("linear", 10, 1.0),  # the peak at the end of warmup
        ("linear", 55, 0.5),  # half-way through the 90-step decay
        ("linear", 100, 0.0),
        ("cosine", 5, 0.5),
        ("cosine", 10, 1.0),
        ("cosine", 55, 0.5),  # cos(pi/2) is the midpoint
        ("cosine", 32, 0.5 * (1 + math.cos(math.pi * 22 / 90))),
        ("cosine", 100, 0.0),
        ("constant", 55, 1.0),
        ("constant", 3, 0.3),
    ],
)
def test_the_rate_at_known_steps_of_a_100_step_run_with_10_warmup(kind, step, expected):
    assert rate_at(step, 100, 10, 10, kind) == pytest.approx(expected)


def test_decay_steps_decay_only_the_last_steps():
    sched = schedule_of(_side("linear", 100, 10, decay=20), (50, 80, 90, 100))
    assert sched.rates == (1.0, 1.0, 0.5, 0.0)


def test_the_grid_is_at_most_forty_points_and_covers_the_run():
    assert len(grid(10_000)) == MAX_POINTS and grid(10_000)[0] == 0 and grid(10_000)[-1] == 10_000
    assert grid(3) == (0, 1, 2, 3)


def test_an_unknown_scheduler_is_said_and_nothing_invented():
    for kind in ("one_cycle", None):
        sched = schedule_of(_side(kind, 100, 10))
        assert sched.rates == () and sched.unknown is not None
    assert schedule_of(StepValues(semantics="x", scheduler="cosine")).unknown == "optimizer steps not known"


def test_a_shorter_side_ends_at_zero_on_the_shared_axis():
    chart = chart_of(_side("linear", 100, 0), _side("linear", 50, 0))
    assert chart.steps[-1] == 100 and len(chart.base.rates) == len(chart.head.rates) == len(chart.steps)
    assert chart.head.rates[-1] == 0.0 and chart.base.rates[0] == 1.0


def test_the_sparkline_has_one_character_per_point():
    line = sparkline(schedule_of(_side("cosine", 100, 10)))
    assert len(line) == MAX_POINTS and line[0] == "▁" and "█" in line and line[-1] == "▁"
    assert sparkline(schedule_of(_side("one_cycle", 100, 10))) == ""


# --- The comment and the terminal, for a real-git PR ---

AXOLOTL = """base_model: org/small
datasets:
  - path: org/chat
    type: chat_template
sequence_len: 2048
sample_packing: false
micro_batch_size: 1
gradient_accumulation_steps: {ga}
num_epochs: 1
warmup_steps: 10
learning_rate: 2e-5
{extra}"""
BOT_YML = "training:\n  world_size: 1\n  datasets:\n    org/chat: 300\n"
_CHART = re.compile(
    r"```mermaid\nxychart-beta\n"
    r'    x-axis "optimizer step" \[(?P<x>[0-9", ]+)\]\n'
    r'    y-axis "learning rate \(fraction of peak\)" 0 --> 1\n'
    r"(?P<lines>(?:    line \[[0-9., e-]+\]\n)+)```"
)


def _check(capsys, make_repo, base: dict, head: dict, fmt: str) -> str:
    repo = make_repo({".github/bot.yml": BOT_YML, **base}, head).path
    capsys.readouterr()
    main(["check", "--repo", str(repo), "--base", "main", "--head", "pr", "--format", fmt])
    return capsys.readouterr().out


def _charts(out: str) -> list[tuple[list[int], list[list[float]]]]:
    found = []
    for m in _CHART.finditer(out):
        xs = [int(v.strip('"')) for v in m["x"].split(", ")]
        lines = [
            [float(v) for v in line.split(", ")] for line in re.findall(r"line \[([^\]]+)\]", m["lines"])
        ]
        assert all(len(line) == len(xs) for line in lines)
        found.append((xs, lines))
    return found


def test_a_pr_changing_an_axolotl_config_draws_base_and_head(make_repo, capsys):
    """GA 4 -> 8 on 300 examples: 75 -> 38 updates, both cosine (axolotl's default) after 10 warmup steps."""
    base = {"configs/sft.yaml": AXOLOTL.format(ga=4, extra="")}
    out = _check(capsys, make_repo, base, {"configs/sft.yaml": AXOLOTL.format(ga=8, extra="")}, "markdown")
    ((xs, (old, new)),) = _charts(out)
    assert xs[0] == 0 and xs[-1] == 75 and len(xs) <= MAX_POINTS
    assert max(old) <= 1.0 and old[-1] == 0.0 and new[-1] == 0.0
    assert new[xs.index(next(x for x in xs if x > 38))] == 0.0  # the head run has stopped by then
    assert "<details><summary>Learning-rate schedules" not in out
    assert "Lines: base then head." in out


def test_two_changed_runs_are_collapsed(make_repo, capsys):
    base = {f"configs/{n}.yaml": AXOLOTL.format(ga=4, extra="") for n in ("a", "b")}
    head = {f"configs/{n}.yaml": AXOLOTL.format(ga=8, extra="") for n in ("a", "b")}
    out = _check(capsys, make_repo, base, head, "markdown")
    opened = out.index("<details><summary>Learning-rate schedules, base → head</summary>")
    charts = _charts(out[opened:])
    assert len(charts) == 2 and out.index("</details>", opened) > out.rindex("xychart-beta")


def test_an_unknown_scheduler_draws_nothing_and_says_so(make_repo, capsys):
    base = {"configs/sft.yaml": AXOLOTL.format(ga=4, extra="lr_scheduler: one_cycle\n")}
    head = {"configs/sft.yaml": AXOLOTL.format(ga=8, extra="lr_scheduler: one_cycle\n")}
    out = _check(capsys, make_repo, base, head, "markdown")
    assert "xychart-beta" not in out
    assert "Not drawn: base: scheduler one\\_cycle; head: scheduler one\\_cycle." in out
    assert "learning rate" not in _check(capsys, make_repo, base, head, "text")


def test_the_terminal_shows_one_sparkline_per_side(make_repo, capsys):
    base = {"configs/sft.yaml": AXOLOTL.format(ga=4, extra="lr_scheduler: linear\n")}
    out = _check(capsys, make_repo, base, {"configs/sft.yaml": AXOLOTL.format(ga=8, extra="")}, "text")
    (old,) = re.findall(r"^  learning rate  base  (\S+)$", out, re.M)
    (new,) = re.findall(r"^ +head  (\S+)$", out, re.M)
    assert len(old) == len(new) <= MAX_POINTS and set(old + new) <= set("▁▂▃▄▅▆▇█")
    assert new.endswith("▁▁▁") and old[len(old) // 2] != new[len(new) // 2]
