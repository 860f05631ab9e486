import pytest

from rules.catalog import REGISTRY
from rules.core.config import ConfigError, load_config, parse_config
from rules.core.models import Severity

RULES = REGISTRY.values()


def test_empty_and_missing_config_are_defaults():
    assert parse_config("", RULES) == load_config(None, RULES)
    assert load_config(None, RULES).labels.ready == "status:ready"


def test_rule_settings():
    cfg = parse_config("rules:\n  AGT001: {enabled: false}\n  TRN001: {severity: warning}\n", RULES)
    assert cfg.setting("AGT001", "x").enabled is False
    assert cfg.setting("TRN001", "x").severity is Severity.WARNING
    assert cfg.setting("AGT002", "tautological-test").enabled is None


@pytest.mark.parametrize(
    "text, where",
    [
        ("rulez: {}\n", "rulez"),
        ("rules:\n  AGT001: {enabeld: true}\n", "rules.AGT001.enabeld"),
        ("rules:\n  AGT001: {severity: fatal}\n", "rules.AGT001.severity"),
        ("labels:\n  ready: 'a,b'\n", "labels.ready"),
        ("labels:\n  ready: '" + "x" * 51 + "'\n", "labels.ready"),
        ("- a\n- b\n", "mapping"),
        ("a: [\n", "invalid YAML"),
        ("a: &x [1]\nb: *x\n", "anchors"),
        ("a: 1\na: 2\n", "duplicate key"),
    ],
)
def test_invalid_config_names_the_field(text, where):
    with pytest.raises(ConfigError) as exc:
        parse_config(text, RULES)
    assert where in str(exc.value)


def test_alias_bomb_fails_fast():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9)
    )
    with pytest.raises(ConfigError, match="anchors"):
        parse_config(bomb, RULES)


def test_error_does_not_echo_input():
    with pytest.raises(ConfigError) as exc:
        parse_config("handle: [" + "s3cr3t, " * 10 + "]\n", RULES)
    assert "s3cr3t" not in str(exc.value)


@pytest.mark.parametrize(
    "data, reason",
    [(b"\xff\xfe", "UTF-8"), (b"a: 1\x00", "NUL"), (b"x" * 300_000, "larger|limit")],
)
def test_unreadable_config_bytes(data, reason):
    with pytest.raises(ConfigError, match=reason):
        load_config(data, RULES)


def test_bom_is_accepted():
    assert load_config("\ufeffhandle: review-bot\n".encode(), RULES).handle == "review-bot"


TYPOS = (
    "rules:\n"  # line 1
    "  AGT01:\n"  # line 2
    "    enabled: true\n"
    "  regression-test-without-refrence:\n"  # line 4
    "    severity: loud\n"  # line 5
    "  AGT002:\n"
    "    enabled: maybe\n"  # line 7
    "    options:\n"
    "      regresion: evidence\n"  # line 9: AGT002 has no options at all
    "  AGT001:\n"
    "    options:\n"
    "      regresion: evidence\n"  # line 12
    "labels:\n"
    "  redy: ok\n"  # line 14
)


def test_every_problem_is_reported_at_once_with_its_line_and_a_suggestion():
    with pytest.raises(ConfigError) as caught:
        parse_config(TYPOS, RULES)
    problems = [(p.line, p.key, p.message) for p in caught.value.problems]
    assert problems == [
        (2, "rules.AGT01", "no rule is called `AGT01`; did you mean `AGT001`?"),
        (
            4,
            "rules.regression-test-without-refrence",
            "no rule is called `regression-test-without-refrence`; "
            "did you mean `regression-test-without-reference`?",
        ),
        (5, "rules.regression-test-without-refrence.severity", "should be one of: error, warning, notice"),
        (7, "rules.AGT002.enabled", "should be true or false"),
        (9, "rules.AGT002.options.regresion", "AGT002 has no option `regresion`; its options: none"),
        (
            12,
            "rules.AGT001.options.regresion",
            "AGT001 has no option `regresion`; did you mean `regression`?",
        ),
        (14, "labels.redy", "unknown key; did you mean `ready`?"),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("exclude: 3\n", 'should be a list, e.g. ["examples/**"]'),
        ("rules:\n  AGT001:\n    severity: loud\n", "should be one of: error, warning, notice"),
        ("rules:\n  AGT001: 3\n", "should be a mapping of keys to values"),
        ("rules:\n  NOPE1: {}\n", "no rule is called `NOPE1`; `bot rules` lists them"),
        ("rules:\n  AGT001: {enabeld: true}\n", "unknown key; did you mean `enabled`?"),
    ],
)
def test_messages_use_the_words_of_the_file_not_python_types(text, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(text, RULES)
    assert [p.message for p in caught.value.problems] == [message]
    assert not any(word in str(caught.value) for word in ("tuple", "dict", "Input should", "bool"))


def test_one_glob_may_be_written_without_a_list():
    assert parse_config('exclude: "tests/**"\n', RULES).exclude == ("tests/**",)
    assert parse_config("profiles:\n  globs: '**/*.toml'\n", RULES).profiles.globs == ("**/*.toml",)


def test_invalid_yaml_in_the_config_is_placed_on_its_line_with_the_reason(make_repo):
    from tests.helpers import review_change

    report = review_change(make_repo, {".github/bot.yml": "rules:\n\tAGT001: {}\n"}, {"a.py": "1\n"})
    (f,) = report.findings
    assert (f.rule, f.path, f.line) == ("BOT001", ".github/bot.yml", 2)
    assert "invalid YAML: found character '\\t' that cannot start any token" in f.message


BAD_VALUES = (
    "rules:\n"
    "  AGT001:\n"
    "    enabled: 'yes'\n"  # line 3: a string, not YAML's true
    "    options:\n"
    "      regression: all-new-test\n"  # line 5
    "      issues: 'on'\n"  # line 6
    "  AGT003:\n"
    "    enabled: 0\n"  # line 8
    "    options:\n"
    "      when: allways\n"  # line 10
)


def test_a_bad_option_value_is_a_problem_at_its_line_with_a_suggestion_next_to_others():
    """Before: `regression: all-new-test` became an AGT001 finding with no place, and next to another error
    (the config then ignored as a whole) it was not reported at all; `enabled: 'yes'` was taken for true."""
    with pytest.raises(ConfigError) as caught:
        parse_config(BAD_VALUES, RULES)
    problems = [(p.line, p.key, p.message) for p in caught.value.problems]
    assert problems == [
        (3, "rules.AGT001.enabled", "should be true or false"),
        (
            5,
            "rules.AGT001.options.regression",
            "should be one of `evidence`, `all-new-tests`, `fix-prs`, `marked`; got `all-new-test`; "
            "did you mean `all-new-tests`?",
        ),
        (6, "rules.AGT001.options.issues", "should be one of `auto`, `true`, `false`; got `on`"),
        (8, "rules.AGT003.enabled", "should be true or false"),
        (
            10,
            "rules.AGT003.options.when",
            "should be one of `test-only-prs`, `always`; got `allways`; did you mean `always`?",
        ),
    ]


def test_good_option_values_pass():
    text = "rules:\n  AGT001:\n    enabled: true\n    options: {regression: fix-prs, issues: no}\n"
    assert parse_config(text, RULES).setting("AGT001", "x").options == {
        "regression": "fix-prs",
        "issues": False,
    }


def test_a_bad_option_value_is_bot001_at_its_line_in_the_review(make_repo, capsys):
    from bot.cli.main import main

    bad = "rules:\n  AGT001:\n    options:\n      regression: all-new-test\n"
    r = make_repo({".github/bot.yml": bad}, {"a.py": "1\n"})
    code = main(["check", "--repo", str(r.path), "--base", "main", "--head", "pr", "--format", "text"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith(".github/bot.yml:4: BOT001 `rules.AGT001.options.regression`: should be one of ")
