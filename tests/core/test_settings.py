"""The one configuration: every variable in one model, read from the environment and `.env`, documented in
`.env.example` and docs/settings.md, and an invalid value stopping every program with one line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from pydantic import SecretStr

from core.settings import Settings, SettingsError, current_settings, load_settings
from tests.support.processes import OWN_DOTENV, ROOT, samops_cmd, samops_free_env

VARIABLE = re.compile(r"`((?:SAM|SAMOPS|SLACK)_[A-Z_]+)`")


def test_one_model_holds_every_variable_with_its_default(no_samops_env: Path) -> None:
    settings = Settings()
    assert set(Settings.variables().values()) == {
        *("SAM_BASE_URL", "SAM_SCREEN_NAME", "SAM_PASSWORD", "SAM_ORGANIZATION_ID", "SAM_TIMEOUT"),
        *(
            "SAM_CONNECT_TIMEOUT",
            "SAM_MAX_RETRIES",
            "SAM_FIRST_PAGE",
            "SAM_PAGE_SIZE",
            "SAM_MAX_RESPONSE_BYTES",
            "SAM_MAX_FLEET_RESPONSE_BYTES",
        ),
        *("SAMOPS_DATA_DIR", "SAMOPS_DB", "SAMOPS_CONFIG", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"),
        *("SLACK_APP_TOKEN", "SLACK_API_URL", "SAMOPS_BOT_HOST", "SAMOPS_BOT_PORT", "SAMOPS_BOT_WORKERS"),
        *(
            "SAMOPS_DASHBOARD_HOST",
            "SAMOPS_DASHBOARD_PORT",
            "SAMOPS_DASHBOARD_PASSWORD",
            "SAMOPS_DASHBOARD_URL",
        ),
        *("SAMOPS_POLL_INTERVAL", "SAMOPS_POLL_OVERLAP", "SAMOPS_POLL_CONCURRENCY"),
        *("SAMOPS_HEARTBEAT_URL", "SAMOPS_HANG_AFTER"),
        *("SAMOPS_LATE_WINDOW", "SAMOPS_RECONCILE_INTERVAL", "SAMOPS_HISTORY_DAYS", "SAMOPS_HISTORY_RATE"),
        "SAMOPS_KEYHOLDER_TTL",
        *("SAMOPS_REFRESH_SENSORS", "SAMOPS_REFRESH_CONTROLLERS", "SAMOPS_REFRESH_PUSH_HISTORY"),
        *("SAMOPS_REFRESH_USERS", "SAMOPS_REFRESH_CAMERAS", "SAMOPS_REFRESH_CONTROLLER_VALUES"),
        "SAMOPS_REFRESH_RATE",
        *("SAMOPS_REFRESH_BILLS", "SAMOPS_BILLS_RATE"),
        *("SAMOPS_HOME_REFRESH", "SAMOPS_HOME_RECENT", "SAMOPS_HOME_PUBLISH_RATE", "SAMOPS_HOME_USER_GAP"),
        "SAMOPS_HOME_CHANNELS_TTL",
        "SAMOPS_SIM_PORT",
    }
    assert settings.max_response_bytes == 16 * 1024 * 1024
    assert (settings.bot_port, settings.dashboard_port, settings.db_path) == (
        3000,
        8501,
        Path(".samops/cache.db"),
    )
    assert settings.model_fields_set == set()  # nothing configured: every value is the default


def test_dotenv_is_read_and_the_environment_wins(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (no_samops_env / ".env").write_text(
        "SAM_BASE_URL=http://127.0.0.1:1/api\nSAMOPS_DATA_DIR=from-dotenv\nSAMOPS_BOT_PORT=3100\n"
        "SLACK_BOT_TOKEN=xoxb-dotenv-secret\nSAMOPS_DASHBOARD_PASSWORD=dash-secret\nSAM_MAX_RESPONSE_BYTES=4096\n"
        "SAMOPS_DASHBOARD_URL=\n"
    )
    monkeypatch.setenv("SAMOPS_BOT_PORT", "3200")
    settings = Settings()
    assert settings.base_url == "http://127.0.0.1:1/api"
    assert settings.db_path == Path("from-dotenv/cache.db")
    assert settings.bot_port == 3200  # the environment wins over .env
    assert settings.max_response_bytes == 4096
    assert isinstance(settings.slack_bot_token, SecretStr) and isinstance(
        settings.dashboard_password, SecretStr
    )
    assert "xoxb-dotenv-secret" not in repr(settings) and "dash-secret" not in repr(settings)
    assert not settings.is_set("dashboard_url")  # empty means not set
    assert settings.is_set("base_url") and not settings.is_set("screen_name")
    # What a child needs to see the same: the configured values only, under their variables.
    env = settings.as_env()
    assert env["SAMOPS_BOT_PORT"] == "3200" and env["SLACK_BOT_TOKEN"] == "xoxb-dotenv-secret"
    assert "SAM_SCREEN_NAME" not in env and "SAMOPS_CONFIG" not in env


def test_the_dashboard_and_the_cache_default_follow_dotenv(no_samops_env: Path) -> None:
    from core.cache.db import default_path
    from dashboard import auth
    from dashboard.paths import db_path

    (no_samops_env / ".env").write_text("SAMOPS_DATA_DIR=field\nSAMOPS_DASHBOARD_PASSWORD=pw-from-dotenv\n")
    assert db_path() == default_path() == Path("field/cache.db")
    assert auth.password() == "pw-from-dotenv" and auth.configured()


def test_the_dashboard_url_follows_the_dashboards_host_and_port(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unset, SAMOPS_DASHBOARD_URL is where the dashboard these settings run serves: a notifier started by
    hand links to SAMOPS_DASHBOARD_PORT's dashboard (it linked to 8501 whatever the port)."""
    (no_samops_env / ".env").write_text("SAMOPS_DASHBOARD_PORT=9493\n")
    settings = Settings()
    assert settings.dashboard_url == "http://127.0.0.1:9493" and not settings.is_set("dashboard_url")
    assert "SAMOPS_DASHBOARD_URL" not in settings.as_env()  # `samops up` still sets it from --dashboard-port
    monkeypatch.setenv("SAMOPS_DASHBOARD_HOST", "0.0.0.0")  # every interface: reached on loopback
    assert Settings().dashboard_url == "http://127.0.0.1:9493"
    monkeypatch.setenv("SAMOPS_DASHBOARD_HOST", "::1")
    assert Settings().dashboard_url == "http://[::1]:9493"
    monkeypatch.setenv("SAMOPS_DASHBOARD_URL", "https://dash.example")  # set: it wins
    assert Settings().dashboard_url == "https://dash.example"
    monkeypatch.delenv("SAMOPS_DASHBOARD_URL")
    monkeypatch.setenv("SAMOPS_DASHBOARD_PORT", "x")
    with pytest.raises(SettingsError) as caught:  # the bad port named, not the URL made of it
        load_settings()
    assert "SAMOPS_DASHBOARD_PORT" in str(caught.value) and "SAMOPS_DASHBOARD_URL" not in str(caught.value)


def test_the_simulators_port_is_a_setting_the_flag_wins_over(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SAMOPS_SIM_PORT: where `samops up` (`make run`, which passes no flag) starts the embedded simulator,
    and where a program started by hand without SAM_BASE_URL reaches it; `--sim-port` wins."""
    from samops import up

    assert Settings().sim_port == 8080 and Settings().base_url == "http://127.0.0.1:8080/api"
    (no_samops_env / ".env").write_text("SAMOPS_SIM_PORT=9090\n")
    settings = Settings()
    assert settings.base_url == "http://127.0.0.1:9090/api" and not settings.is_set("base_url")  # embedded
    assert up.plan(up.parse_args([]), settings).embedded
    assert up.wanted_sim_port(up.parse_args([]), settings) == 9090
    assert up.wanted_sim_port(up.parse_args(["--sim-port", "9191"]), settings) == 9191
    monkeypatch.setenv("SAMOPS_SIM_PORT", "70000")
    with pytest.raises(SettingsError, match="SAMOPS_SIM_PORT") as caught:
        load_settings()
    assert "SAM_BASE_URL" not in str(caught.value)


def test_current_settings_are_parsed_again_only_when_their_sources_change(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard asks on every page run: one answer until a variable, the folder or `.env` changes."""
    first = current_settings()
    assert current_settings() is first
    monkeypatch.setenv("SAMOPS_BOT_PORT", "3300")
    assert current_settings().bot_port == 3300
    (no_samops_env / ".env").write_text("SAMOPS_DATA_DIR=elsewhere\n")
    assert current_settings().db_path == Path("elsewhere/cache.db")
    other = no_samops_env / "other"
    other.mkdir()
    monkeypatch.chdir(other)
    assert current_settings().db_path != Path("elsewhere/cache.db")
    monkeypatch.setenv("SAM_TIMEOUT", "abc")
    with pytest.raises(SettingsError, match="SAM_TIMEOUT"):  # an invalid value is never kept
        current_settings()


@pytest.mark.parametrize(
    ("variable", "value", "why"),
    [
        ("SAM_TIMEOUT", "abc", "valid number"),
        ("SAMOPS_BOT_PORT", "99999", "less than or equal to 65535"),
        ("SAM_MAX_RESPONSE_BYTES", "10", "greater than or equal to 1024"),
        ("SAM_ORGANIZATION_ID", "x", "valid integer"),
        ("SAM_BASE_URL", "ftp://x", "http:// or https:// url"),
        ("SLACK_API_URL", "slack.com/api", "http:// or https:// url"),
        ("SAMOPS_DASHBOARD_URL", "http://", "http:// or https:// url"),
    ],
)
def test_an_invalid_value_is_one_line_naming_the_variable(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, why: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    text = str(caught.value)
    assert "\n" not in text and variable in text and why in text
    assert "pydantic" not in text


PROGRAMS = {
    "up": ["up"],
    "sync": ["sync", "--once"],
    "notify": ["notify", "--once"],
    "bot": ["bot"],
    "slash": ["slash", "/sam help", "--timeout", "1"],
    "dashboard": ["dashboard"],
    "status": ["status"],
    "call": ["call", "list_cameras"],
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_program_stops_at_start_on_an_invalid_value(program: str, tmp_path: Path) -> None:
    # The bad port comes from .env and the bad timeout from the environment: both are named, on one line.
    (tmp_path / ".env").write_text("SAMOPS_BOT_PORT=99999\nSAMOPS_DATA_DIR=data\n")
    done = subprocess.run(
        samops_cmd(*PROGRAMS[program]),
        cwd=tmp_path,
        env=samops_free_env(SAM_TIMEOUT="abc", PYTHONPATH=str(ROOT), **OWN_DOTENV),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"samops {program}: invalid configuration: ")
    assert "SAM_TIMEOUT" in lines[0] and "SAMOPS_BOT_PORT" in lines[0]
    assert not (tmp_path / "data").exists()  # stopped before touching anything


def readme_settings_variables() -> set[str]:
    text = (ROOT / "docs/settings.md").read_text()  # the reference the README links to
    section = text.split("\n## Environment variables\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in VARIABLE.findall(row.split("|")[1])}


def test_readme_settings_table_lists_exactly_the_models_variables() -> None:
    assert readme_settings_variables() == set(Settings.variables().values())


def test_env_example_lists_every_variable_with_a_comment() -> None:
    lines = (ROOT / ".env.example").read_text().splitlines()
    listed = {line.split("=", 1)[0]: i for i, line in enumerate(lines) if re.match(r"[A-Z_]+=", line)}
    assert set(listed) == set(Settings.variables().values())
    for name, index in listed.items():  # a comment above it, or above the group it belongs to
        above = next(line for line in reversed(lines[:index]) if not re.match(r"[A-Z_]+=", line))
        assert above.startswith("# "), f"{name} has no comment"


def test_env_example_copied_to_dotenv_runs_on_the_embedded_simulator(no_samops_env: Path) -> None:
    """A new user's first step (`cp .env.example .env`) must not look like a configured service."""
    (no_samops_env / ".env").write_text((ROOT / ".env.example").read_text())
    settings = Settings()
    assert not settings.is_set("base_url")
    assert not settings.is_set("screen_name") and not settings.is_set("password")
    # Every other value it sets is the model's default.
    defaults = Settings(_env_file=None)
    for name in Settings.variables():
        assert getattr(settings, name) == getattr(defaults, name), name


def test_only_the_documented_variables_are_read(no_samops_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attribute names work in code (`Settings(base_url=...)`), never as variables: a `PASSWORD` or `DB`
    meant for another program must not become samops' password or cache."""
    for name, value in {
        "PASSWORD": "not-ours",
        "DB": "/elsewhere.db",
        "TIMEOUT": "abc",
        "BOT_PORT": "1",
    }.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.password.get_secret_value() == "demo" and settings.db is None
    assert (settings.timeout, settings.bot_port) == (30.0, 3000)
    assert Settings(base_url="http://127.0.0.1:2/api").base_url == "http://127.0.0.1:2/api"
