"""The bot's TOML config: the example file, the manifest, unknown keys and bad ids refused."""

from __future__ import annotations

import tomllib

import pytest

from core.config import NotifyConfig, SamopsConfig, load_config, parse_config
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
    from core.config import ConfigError

    with pytest.raises(ConfigError, match=r"roles\.admin"):
        parse_config({"roles": {"admin": ["U1"]}})
    with pytest.raises(ConfigError, match="not a Slack user or user-group id"):
        parse_config({"roles": {"admins": ["bob"]}})
    with pytest.raises(ConfigError, match=r"channels\.C1\.org"):
        parse_config({"channels": {"C1": {"org": "x"}}})
    # [notify] is parsed with the rest, once: a mistake there is the same error, naming the key.
    with pytest.raises(ConfigError, match=r"^config: notify\.anything: "):
        parse_config({"notify": {"anything": 1}})
    with pytest.raises(ConfigError, match=r"notify\.routes\.0\.escalate_to"):
        parse_config({"notify": {"routes": [{"channel": "C1", "escalate_after": 5, "escalate_to": ["x"]}]}})
    assert isinstance(parse_config({"notify": {"timezone": "Europe/Berlin"}}).notify, NotifyConfig)
    # A misspelt section would drop every role list.
    with pytest.raises(ConfigError, match=r"^config: role: "):
        parse_config({"role": {"admins": ["U1"]}, "notify": {}})


def test_service_role_names_are_one_name_in_any_case() -> None:
    from core.config import ConfigError

    with pytest.raises(ConfigError, match="mapped twice, to admin and to viewer"):
        parse_config({"roles": {"from_service": {"Administrator": "admin", "administrator": "viewer"}}})
    with pytest.raises(ConfigError, match="a service role name is empty"):
        parse_config({"roles": {"from_service": {" ": "admin"}}})
    same = {"Administrator": "admin", "ADMINISTRATOR": "admin"}
    assert parse_config({"roles": {"from_service": same}}).roles.from_service == same


def test_the_dashboard_link_is_read_in_one_place() -> None:
    assert SamopsConfig().dashboard_url("http://127.0.0.1:8501") == "http://127.0.0.1:8501"
    assert parse_config({"dashboard": {"url": "https://dash"}}).dashboard_url("x") == "https://dash"
    both = {"dashboard": {"url": "https://dash"}, "notify": {"dashboard_url": "https://notify"}}
    assert parse_config(both).dashboard_url("x") == "https://notify"


def test_a_handover_channel_takes_its_org_from_the_bot_section() -> None:
    data = {"channels": {"C_A": {"org": 7}}, "notify": {"channels": {"C_A": {"handover": ["07:00"]}}}}
    assert parse_config(data).notify.per_channel["C_A"].org == 7


def test_the_config_file_is_parsed_in_one_place() -> None:
    """One parse per process: only core/config/model.py reads the TOML or validates a section of it; the bot,
    the notifier, the dashboard, the CLI and `samops up` are handed the `SamopsConfig` it gives."""
    model = ROOT / "core" / "config" / "model.py"
    models = {model, ROOT / "core" / "config" / "notify.py"}  # where the models live
    # Streamlit's own secrets.toml (its `[auth]` section) is not samops' config: dashboard/auth.py reads it.
    streamlit_secrets = ROOT / "dashboard" / "auth.py"
    for package in ("bot", "core", "dashboard", "samops"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            parsing = ("parse_notify(", "NotifyConfig.model_validate", "NotifyConfig()")
            needles = parsing if path not in models else ()
            for needle in ("tomllib", *needles) if path not in {model, streamlit_secrets} else needles:
                assert needle not in text, f"{path.relative_to(ROOT)} parses the config itself ({needle})"
