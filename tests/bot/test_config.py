"""The bot's TOML config: the example file, the manifest, unknown keys and bad ids refused."""

from __future__ import annotations

import tomllib

import pytest

from bot.config import BotConfig, load_config, parse_config
from tests.support.processes import ROOT


def test_example_config_and_manifest() -> None:
    example = ROOT / "samops.example.toml"
    config = load_config(example, required=True)
    assert config.roles.admins == () and config.audit.channel is None
    assert isinstance(tomllib.loads(example.read_text()), dict)
    manifest = (ROOT / "manifest.yml").read_text()
    for needle in (
        "command: /sam",
        "- commands",
        "- chat:write",
        "- usergroups:read",
        "- app_home_opened",
        "interactivity:",
        "is_enabled: true",
        "socket_mode_enabled:",
        "/slack/events",
    ):
        assert needle in manifest, needle


def test_config_rejects_unknown_keys_and_bad_ids() -> None:
    from bot.config import ConfigError

    with pytest.raises(ConfigError, match=r"roles\.admin"):
        parse_config({"roles": {"admin": ["U1"]}})
    with pytest.raises(ConfigError, match="not a Slack user or user-group id"):
        parse_config({"roles": {"admins": ["bob"]}})
    with pytest.raises(ConfigError, match=r"channels\.C1\.org"):
        parse_config({"channels": {"C1": {"org": "x"}}})
    assert parse_config({"notify": {"anything": 1}}) == BotConfig(notify={"anything": 1})  # its own parser
    # A misspelt section would drop every role list.
    with pytest.raises(ConfigError, match=r"^config: role: "):
        parse_config({"role": {"admins": ["U1"]}, "notify": {}})


def test_service_role_names_are_one_name_in_any_case() -> None:
    from bot.config import ConfigError

    with pytest.raises(ConfigError, match="mapped twice, to admin and to viewer"):
        parse_config({"roles": {"from_service": {"Administrator": "admin", "administrator": "viewer"}}})
    with pytest.raises(ConfigError, match="a service role name is empty"):
        parse_config({"roles": {"from_service": {" ": "admin"}}})
    same = {"Administrator": "admin", "ADMINISTRATOR": "admin"}
    assert parse_config({"roles": {"from_service": same}}).roles.from_service == same
