"""Profile sources: compat-profile files, Python literal dicts, Prime-RL configs, and malformed input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.git.local import load_changeset
from bot.review.engine import review
from rules.training.claims import claims
from rules.training.profiles import ProfileError, parse_profiles, parse_python_profiles
from tests.helpers import codes, review_change

MOBILE_BASE = 'name = "m300"\ntarget_examples = 300\nbatch_size = 8\n'
MOBILE_HEAD = 'name = "m300"\ntarget_micro_steps = 300\nbatch_size = 8\n'
PROFILE = "training/compat_profiles/m300.toml"

PRIME_RL = """max_steps = {max_steps}

[model]
name = "Qwen/Qwen3-0.6B"

[data]
batch_size = {batch}
micro_batch_size = 1
seq_len = 2048

[scheduler]
type = "linear"
warmup_steps = 0
decay_steps = 20
"""


def _only(report):
    (row,) = report.profiles
    return row


def _numbers(values):
    return (
        values.max_steps,
        values.decay_steps,
        values.effective_train_examples,
        values.unapplied_micro_steps,
    )


@pytest.mark.parametrize(
    "path, base, head",
    [
        (PROFILE, MOBILE_BASE, MOBILE_HEAD),
        (
            "training/compat_profiles/m300.yaml",
            "name: m300\ntarget_examples: 300\nbatch_size: 8\n",
            "name: m300\ntarget_micro_steps: 300\nbatch_size: 8\n",
        ),
        (
            "training/compat_profiles/m300.json",
            json.dumps({"name": "m300", "target_examples": 300, "batch_size": 8}),
            json.dumps({"name": "m300", "target_micro_steps": 300, "batch_size": 8}),
        ),
        ("runs/m300.profile.toml", MOBILE_BASE, MOBILE_HEAD),
    ],
)
def test_profile_file_formats(make_repo, path, base, head):
    report = review_change(make_repo, {path: base}, {path: head})
    row = _only(report)
    assert (row.path, row.name, row.kind) == (path, "m300", "profile")
    assert _numbers(row.base) == (38, 38, 304, None)
    assert _numbers(row.head) == (37, 37, 296, 4)
    assert {"max_steps", "semantics", "effective_train_examples"} <= set(row.changed)
    assert codes(report) == ["TRN004"]


def test_profiles_table_reports_only_changed_profiles(make_repo):
    base = (
        "profiles:\n  a:\n    target_examples: 300\n    batch_size: 8\n"
        "  b:\n    max_steps: 10\n    batch_size: 8\n"
    )
    head = base.replace("target_examples: 300", "target_examples: 400")
    report = review_change(
        make_repo, {"x/compat_profiles/all.yml": base}, {"x/compat_profiles/all.yml": head}
    )
    row = _only(report)
    assert row.name == "a" and (row.base.max_steps, row.head.max_steps) == (38, 50)


PY_MODULE = '''"""Training CLI: importing this module would exit the interpreter."""
import sys

sys.exit("imported!")

COMPAT_PROFILES: dict = {{
    "env0-mobile300-pr828": {{
        "{key}": 300,
        "batch_size": 8,
        "expect": {{"max_steps": 37}},
    }},
    "other": {{"max_steps": 5, "batch_size": 8}},
}}
'''


def test_python_literal_profiles_are_read_not_imported(make_repo):
    base = {"training/cli.py": PY_MODULE.format(key="target_examples")}
    head = {"training/cli.py": PY_MODULE.format(key="target_micro_steps")}
    report = review_change(make_repo, base, head)  # would exit if the module were imported
    row = _only(report)
    assert (row.kind, row.name, row.line) == ("python", "env0-mobile300-pr828", 7)
    assert (row.base.max_steps, row.head.max_steps) == (38, 37)
    assert codes(report) == ["TRN004"]  # the expect table holds at head


def test_python_expect_mismatch_at_head_names_both_numbers(make_repo):
    base = {"training/cli.py": "x = 1\n"}
    head = {"training/cli.py": PY_MODULE.format(key="target_examples")}
    report = review_change(make_repo, base, head)
    (f,) = report.findings
    assert (f.rule, f.path, f.line) == ("TRN001", "training/cli.py", 7)
    assert "expects max_steps=37" in f.message and "gives 38" in f.message


@pytest.mark.parametrize(
    "source, problem",
    [
        ("COMPAT_PROFILES = build_profiles()\n", "is not a literal dict"),
        ("COMPAT_PROFILES = {'a': {'max_steps': 2 ** 10}}\n", "is not a literal dict"),
        ("COMPAT_PROFILES = [1, 2]\n", "is not a dict of profiles"),
        ("COMPAT_PROFILES = {'a': {'max_steps': '37'}}\n", "a'].max_steps`: should be a whole number"),
        ("COMPAT_PROFILES = {'a': {'max_step': 37}}\n", "max_step`: unknown key; did you mean `max_steps`?"),
        ("COMPAT_PROFILES = {'a': 5}\n", "is not a dict"),
        ("COMPAT_PROFILES = {\n", "not valid Python"),
        ("COMPAT_PROFILES = {'a': {'max_steps': 1e999}}\n", "NaN or infinite"),
        ("COMPAT_PROFILES = " + "[" * 5000 + "]" * 5000 + "\n", "nested"),
        ("COMPAT_PROFILES = {'a': " + "[" * 50 + "]" * 50 + "}\n", "nested more than 32 levels"),
        ("COMPAT_PROFILES = {'a': {'max_steps': " + "9" * 5000 + "}}\n", "not valid Python"),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else None,
)
def test_python_profiles_that_cannot_be_read(make_repo, source, problem):
    report = review_change(make_repo, {"train.py": "x = 1\n"}, {"train.py": source, PROFILE: MOBILE_HEAD})
    bad = [f for f in report.findings if f.path == "train.py"]
    assert len(bad) == 1 and bad[0].rule == "TRN001", report.findings
    assert problem in bad[0].message
    assert [p.name for p in report.profiles] == ["m300"]  # the other profile is still reviewed


def test_python_module_without_profiles_is_not_a_profile(make_repo):
    report = review_change(make_repo, {"a.py": "x = 1\n"}, {"a.py": "def broken(:\n"})
    assert report.profiles == () and codes(report) == []


def test_prime_rl_config_by_glob(make_repo):
    path = "configs/sft/run.toml"
    report = review_change(
        make_repo,
        {path: PRIME_RL.format(max_steps=40, batch=8)},
        {path: PRIME_RL.format(max_steps=50, batch=8)},
    )
    row = _only(report)
    assert (row.kind, row.name) == ("prime-rl", "run.toml")
    assert (row.base.max_steps, row.head.max_steps) == (40, 50)
    assert (row.head.decay_steps, row.head.effective_train_examples, row.head.tokens_per_step) == (
        20,
        400,
        16384,
    )
    assert row.head.scheduler == "linear" and row.head.grad_accum == 8
    (f,) = report.findings
    assert f.rule == "TRN004" and "400 examples instead of 320" in f.message


def test_prime_rl_config_by_shape(make_repo):
    path = "sft/mobile.toml"
    report = review_change(
        make_repo,
        {path: PRIME_RL.format(max_steps=40, batch=8)},
        {path: PRIME_RL.format(max_steps=40, batch=16)},
    )
    row = _only(report)
    assert row.kind == "prime-rl" and (row.base.batch_size, row.head.batch_size) == (8, 16)


def test_prime_rl_default_batch_size(make_repo):
    """An SFT config that names its dataset but not its batch trains at Prime-RL's default of 128."""
    path = "configs/sft/run.toml"
    data = '\n[data]\nname = "org/set"\n'
    report = review_change(make_repo, {path: "max_steps = 10" + data}, {path: "max_steps = 20" + data})
    assert _only(report).head.effective_train_examples == 20 * 128


@pytest.mark.parametrize("body", ["max_steps = {n}\n", 'max_steps = {n}\n[model]\nname = "m"\n'])
def test_a_config_without_a_data_table_gets_no_invented_batch(make_repo, body):
    """No [data] table: the batch is not in the file (an RL trainer's is the orchestrator's); no row."""
    path = "configs/sft/run.toml"
    report = review_change(make_repo, {path: body.format(n=10)}, {path: body.format(n=20)})
    assert report.profiles == () and codes(report) == []


def test_other_toml_is_not_a_profile(make_repo):
    report = review_change(
        make_repo,
        {"pyproject.toml": '[project]\nname = "a"\n'},
        {"pyproject.toml": '[project]\nname = "b"\n'},
    )
    assert report.profiles == () and report.findings == ()


CONFIG = "configs/sft/mobile300.toml"


@pytest.mark.parametrize(
    "profile, batch, max_steps",
    [
        (f'config = "{CONFIG}"\ntarget_micro_steps = 300\n', 16, 18),  # batch from the config
        (f'config = "{CONFIG}"\ntarget_micro_steps = 300\nbatch_size = 8\n', 8, 37),  # profile overrides
        ('config = "../../configs/sft/mobile300.toml"\ntarget_micro_steps = 300\n', 16, 18),  # relative
    ],
)
def test_profile_takes_batch_size_from_its_config(make_repo, profile, batch, max_steps):
    base = {CONFIG: PRIME_RL.format(max_steps=100, batch=16), PROFILE: MOBILE_BASE}
    report = review_change(make_repo, base, {PROFILE: profile})
    row = _only(report)
    assert (row.head.batch_size, row.head.max_steps, row.head.config_path) == (batch, max_steps, CONFIG)
    assert row.head.decay_steps == max_steps  # synced, replacing the config's 20


@pytest.mark.parametrize(
    "profile, problem",
    [
        ('config = "configs/sft/missing.toml"\ntarget_micro_steps = 300\n', "does not exist at head"),
        ('config = "/etc/passwd"\ntarget_micro_steps = 300\n', "must be a path inside the repository"),
        ('config = "../../../../x.toml"\ntarget_micro_steps = 300\n', "must be a path inside the repository"),
        ('config = "README.md"\ntarget_micro_steps = 300\n', "is not a Prime-RL TOML config"),
        ('config = "configs/sft/bad.toml"\ntarget_micro_steps = 300\n', "data.batch_size"),
        ("target_micro_steps = 300\n", "batch_size is unknown"),
    ],
)
def test_profile_config_problems(make_repo, profile, problem):
    base = {
        CONFIG: PRIME_RL.format(max_steps=100, batch=16),
        "configs/sft/bad.toml": 'max_steps = 3\n[data]\nbatch_size = "eight"\n',
        "README.md": "hi\n",
    }
    report = review_change(make_repo, base, {PROFILE: profile})
    trn001 = [f for f in report.findings if f.rule == "TRN001"]
    assert len(trn001) == 1 and trn001[0].path == PROFILE and problem in trn001[0].message


def test_unchanged_profile_follows_its_changed_config(make_repo):
    profile = f'name = "m300"\nconfig = "{CONFIG}"\ntarget_micro_steps = 300\n'
    base = {CONFIG: PRIME_RL.format(max_steps=100, batch=8), PROFILE: profile}
    report = review_change(make_repo, base, {CONFIG: PRIME_RL.format(max_steps=100, batch=16)})
    rows = {(p.kind, p.name): p for p in report.profiles}
    dependent = rows[("profile", "m300")]
    assert (dependent.base.max_steps, dependent.head.max_steps) == (37, 18)
    assert "now sees 288 examples instead of 296" in " ".join(f.message for f in report.findings)


@pytest.mark.parametrize("count", [1, 5])
def test_shared_config_is_parsed_once_per_side(make_repo, monkeypatch, count):
    """Profiles pointing at one changed config reuse its parse: the count of parses does not grow."""
    import rules.training.primerl  # profiles.py imports it where a config is parsed

    calls = []
    real = rules.training.primerl.parse_prime_rl
    monkeypatch.setattr(rules.training.primerl, "parse_prime_rl", lambda data: calls.append(1) or real(data))
    profiles = "".join(
        f'[profiles.p{i}]\nconfig = "{CONFIG}"\ntarget_micro_steps = {300 + i}\n' for i in range(count)
    )
    base = {CONFIG: PRIME_RL.format(max_steps=100, batch=8), PROFILE: profiles}
    report = review_change(make_repo, base, {CONFIG: PRIME_RL.format(max_steps=100, batch=16)})
    steps = {p.name: (p.base.max_steps, p.head.max_steps) for p in report.profiles if p.kind == "profile"}
    assert steps == {f"p{i}": ((300 + i) // 8, (300 + i) // 16) for i in range(count)}
    assert len(calls) == 4  # the changed config at base and head, and once per side for its profiles


def test_profile_sources_follow_the_config(make_repo):
    config = (
        "profiles:\n  globs: ['runs/*.yaml']\n  python_globs: ['train/*.py']\n"
        "  python_variables: ['RUNS']\n  prime_rl_globs: []\n"
    )
    base = {".github/bot.yml": config, "train/cli.py": "RUNS = {}\n"}
    head = {
        "runs/a.yaml": "target_examples: 300\nbatch_size: 8\n",
        "train/cli.py": "RUNS = {'b': {'max_steps': 3, 'batch_size': 8}}\n",
        "training/compat_profiles/c.toml": MOBILE_HEAD,  # default glob, switched off by the config
    }
    report = review_change(make_repo, base, head)
    assert sorted((p.path, p.name) for p in report.profiles) == [("runs/a.yaml", "a"), ("train/cli.py", "b")]


def test_config_profile_globs_are_validated(make_repo):
    report = review_change(make_repo, {".github/bot.yml": "profiles:\n  globz: []\n"}, {"a.py": "1\n"})
    assert codes(report) == ["BOT001"] and "profiles.globz" in report.findings[0].message


GOOD = ("training/compat_profiles/good.toml", MOBILE_HEAD)

MALFORMED = [
    ("bad.toml", "target_examples = \n", "invalid TOML"),
    ("bad.yaml", "target_examples: [1\n", "invalid YAML"),
    ("bad.json", '{"target_examples": 300,}', "invalid JSON"),
    ("alias.yaml", "a: &x 1\nb: *x\n", "anchors are not allowed"),
    ("dup.yaml", "batch_size: 8\nbatch_size: 9\n", "duplicate key"),
    ("dup.json", '{"batch_size": 8, "batch_size": 9}', "duplicate key"),
    ("nan.json", '{"batch_size": NaN}', "NaN is not allowed"),
    (
        "types.toml",
        'target_examples = "300"\nbatch_size = 8\n',
        "line 1: `target_examples`: should be a whole number",
    ),
    (
        "bool.toml",
        "target_examples = 300\nbatch_size = true\n",
        "line 2: `batch_size`: should be a whole number",
    ),
    (
        "unknown.toml",
        "target_examples = 300\nbatch_sise = 8\n",
        "line 2: `batch_sise`: unknown key; did you mean `batch_size`?",
    ),
    ("list.yaml", "- 1\n- 2\n", "expected a table/mapping"),
    ("named.yaml", "profiles:\n  a: 3\n", "profile 'a' is not a table/mapping"),
    ("deep.json", "[" * 200 + "]" * 200, "nested"),
    ("deep.toml", "a = " + "[" * 200 + "]" * 200 + "\n", "nested"),
    ("deep.yaml", "a: " + "[" * 200 + "]" * 200 + "\n", "nested"),
    ("huge.toml", "# " + "x" * 600_000 + "\n", "over the 524,288-byte limit"),
    ("bigint.toml", "batch_size = " + "9" * 5000 + "\n", "invalid"),
    ("latin1.toml", 'name = "caf\xe9"\n'.encode("latin-1"), "not valid UTF-8"),
    ("nul.toml", b"batch_size = 8\x00\n", "NUL bytes"),
]


@pytest.mark.parametrize("name, content, problem", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_profile_is_a_finding_and_others_are_reviewed(make_repo, name, content, problem):
    path = f"training/compat_profiles/{name}"
    report = review_change(make_repo, {"README.md": "x\n"}, {path: content, GOOD[0]: GOOD[1]})
    bad = [f for f in report.findings if f.path == path]
    assert len(bad) == 1, report.findings
    assert bad[0].rule == "TRN001" and bad[0].severity == "error"
    if problem.startswith("line "):  # the finding is placed on the line, the message says what
        where, _, problem = problem.partition(": ")
        assert bad[0].line == int(where.removeprefix("line "))
    assert problem in bad[0].message
    assert [p.path for p in report.profiles] == [GOOD[0]]
    assert report.verdict == "needs-work"


PLACED = [
    ("tab.yaml", "name: q\n\ttarget_micro_steps: 300\n", [(2, "invalid YAML: found character '\\t' that")]),
    ("open.toml", "batch_size = 8\nfoo = [\n", [(2, "invalid TOML: Invalid value")]),
    ("bad.json", '{\n"batch_size": 8,\n}', [(3, "invalid JSON: Expecting property name")]),
    (
        "two.toml",
        "target_micro_steps = 300\nbatch_size = 8\nwarmup = 3\nbatch_sise = 2\n",
        [
            (3, "`warmup`: unknown key; did you mean `scheduler.warmup_steps`?"),
            (4, "`batch_sise`: unknown key; did you mean `batch_size`?"),
        ],
    ),
    (
        "named.toml",
        "[profiles.a]\ntarget_micro_steps = 300\nbatch_size = 8\n[profiles.a.scheduler]\ndecay = 3\n",
        [(5, "`profiles.a.scheduler.decay`: unknown key; did you mean `decay_steps`?")],
    ),
]


@pytest.mark.parametrize("name, content, problems", PLACED, ids=[p[0] for p in PLACED])
def test_every_profile_problem_is_a_finding_at_its_line(make_repo, capsys, name, content, problems):
    """Before: one finding with no line ("invalid YAML at line 2", "`warmup`: unknown key; `batch_sise`:
    ..."), put on line 1 by SARIF."""
    from bot.cli.main import main

    path = f"training/compat_profiles/{name}"
    r = make_repo({"README.md": "x\n"}, {path: content})
    report = review(load_changeset(r.path, base="main", head="pr"))  # the same repository as the CLI's
    bad = [(f.line, f.message) for f in report.findings if f.path == path]
    assert len(bad) == len(problems), bad
    for (line, message), (want_line, want) in zip(bad, problems, strict=True):
        assert line == want_line and want in message, (line, message)
    main(["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "text"])
    out = capsys.readouterr().out
    for want_line, _ in problems:
        assert f"{path}:{want_line}: TRN001 " in out


def test_malformed_base_side_is_shown_not_blamed(make_repo):
    path = "training/compat_profiles/m300.toml"
    report = review_change(make_repo, {path: "target_examples = \n"}, {path: MOBILE_HEAD})
    assert codes(report) == []
    row = _only(report)
    assert row.base is None and row.head.max_steps == 37


@pytest.mark.parametrize(
    "content, problem",
    [
        ('max_steps = "ten"\n[data]\nbatch_size = 8\n', "max_steps: Input should be a valid integer"),
        ("max_steps = 10\n[data]\nbatch_size = 8.5\n", "data.batch_size"),
        ("max_steps = 10\n[data]\nbatch_size = 8\n[scheduler]\ntype = 3\n", "scheduler.type"),
        ("max_steps = 10\n[data\n", "invalid TOML"),
    ],
)
def test_malformed_prime_rl_config(make_repo, content, problem):
    path = "configs/sft/run.toml"
    report = review_change(make_repo, {"README.md": "x\n"}, {path: content, GOOD[0]: GOOD[1]})
    (bad,) = [f for f in report.findings if f.path == path]
    assert bad.rule == "TRN001" and problem in bad.message
    assert [p.path for p in report.profiles] == [GOOD[0]]


@given(text=st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_python_profile_parser_only_ever_raises_profile_error(text):
    try:
        parse_python_profiles("m.py", "COMPAT_PROFILES = " + text, ("COMPAT_PROFILES",))
    except ProfileError:
        pass


@given(text=st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_profile_file_parser_only_ever_raises_profile_error(text):
    for name in ("p.toml", "p.yaml", "p.json"):
        try:
            parse_profiles(name, text)
        except ProfileError:
            pass


@given(text=st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_claims_never_fail(text):
    for claim in claims(text):
        assert claim.value >= 0


def test_every_expect_key_is_a_derived_value():
    """TRN001 compares each `expect` key with the StepValues field of the same name."""
    from rules.core.models import StepValues
    from rules.training.profiles import Expect

    assert set(Expect.model_fields) <= set(StepValues.model_fields)
