import pytest

from bot.config import ConfigError, load_config, parse_config
from bot.models import Severity


def test_empty_and_missing_config_are_defaults():
    assert parse_config("") == load_config(None)
    assert load_config(None).labels.ready == "status:ready"


def test_rule_settings():
    cfg = parse_config("rules:\n  AGT001: {enabled: false}\n  TRN001: {severity: warning}\n")
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
        parse_config(text)
    assert where in str(exc.value)


def test_alias_bomb_fails_fast():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9)
    )
    with pytest.raises(ConfigError, match="anchors"):
        parse_config(bomb)


def test_error_does_not_echo_input():
    with pytest.raises(ConfigError) as exc:
        parse_config("handle: [" + "s3cr3t, " * 10 + "]\n")
    assert "s3cr3t" not in str(exc.value)


@pytest.mark.parametrize(
    "data, reason",
    [(b"\xff\xfe", "UTF-8"), (b"a: 1\x00", "NUL"), (b"x" * 300_000, "larger|limit")],
)
def test_unreadable_config_bytes(data, reason):
    with pytest.raises(ConfigError, match=reason):
        load_config(data)


def test_bom_is_accepted():
    assert load_config("\ufeffhandle: review-bot\n".encode()).handle == "review-bot"
