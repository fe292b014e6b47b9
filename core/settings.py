"""samops' one configuration: every variable of the settings table (docs/settings.md), read from the
environment and `.env` in the current folder (the environment wins; see `.env.example`).

Every program builds it through `load_settings`, so an invalid value stops any of them at start-up with
the same one line naming the variable.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import os
import sys
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

SIM_PORT = 8080  # the embedded simulator's port, unless SAMOPS_SIM_PORT or `samops up --sim-port` says


def simulator_url(port: int) -> str:
    """The embedded simulator's API on this machine, on `port`."""
    return f"http://127.0.0.1:{port}/api"


DEFAULT_BASE_URL = simulator_url(SIM_PORT)  # as `samops up` starts it, SAMOPS_SIM_PORT unset
DEMO_SCREEN_NAME = "demo"  # the embedded simulator's account
DEMO_PASSWORD = "demo"
# Who `samops slash` sends as unless `--as` says: on the embedded simulator (`samops up` runs the bot with
# `--demo-admin` it), an admin of the demo, so that every command and form can be tried.
SLASH_USER = "U_SAMOPS_CLI"


def _http_url(value: str) -> str:
    """A URL samops can send requests to: http or https, with a host (kept as written)."""
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    return value


HttpUrl = Annotated[str, AfterValidator(_http_url)]


def _env(name: str, default: Any = None, **constraints: Any) -> Any:
    """A field read from the environment variable `name` (and only from it: not from its attribute name)."""
    return Field(default=default, validation_alias=name, **constraints)


# Which file is read as `.env`: the one in the current folder, unless this variable names another ("" for
# none). The test suite names none, so that a developer's own `.env` reaches no test.
DOTENV = "SAMOPS_DOTENV"


def dotenv_path() -> str | None:
    return os.environ.get(DOTENV, ".env") or None


class Settings(BaseSettings):
    """Where the service is and how to talk to it (`SAM_*`), where samops keeps its files and runs its parts
    (`SAMOPS_*`), and how it reaches Slack (`SLACK_*`). Secrets are `SecretStr`."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # `SAM_ORGANIZATION_ID=` as in .env.example means "not set"
        extra="ignore",
    )

    def __init__(self, **values: Any) -> None:
        # Code and tests give values by attribute name (`Settings(base_url=...)`). pydantic's own way to
        # allow that (populate_by_name) would also read a bare `PASSWORD` or `DB` from the environment, so
        # the names are mapped to the variables here instead.
        variables = self.variables()
        values.setdefault("_env_file", dotenv_path())
        super().__init__(**{variables.get(name, name): value for name, value in values.items()})

    # The embedded simulator `samops up` starts when SAM_BASE_URL is not set (`--sim-port` wins over it).
    sim_port: int = _env("SAMOPS_SIM_PORT", SIM_PORT, ge=1, le=65535)

    # The service (core). Unset: the embedded simulator's, on SAMOPS_SIM_PORT (what `samops up` starts).
    base_url: HttpUrl = Field(
        default_factory=lambda values: simulator_url(values.get("sim_port", SIM_PORT)),
        validation_alias="SAM_BASE_URL",
    )
    screen_name: str = _env("SAM_SCREEN_NAME", DEMO_SCREEN_NAME)
    password: SecretStr = _env("SAM_PASSWORD", SecretStr(DEMO_PASSWORD))
    organization_id: int | None = _env("SAM_ORGANIZATION_ID")
    timeout: float = _env("SAM_TIMEOUT", 30.0, gt=0)
    connect_timeout: float = _env("SAM_CONNECT_TIMEOUT", 5.0, gt=0)
    max_retries: int = _env("SAM_MAX_RETRIES", 2, ge=0, le=20)
    first_page: int = _env("SAM_FIRST_PAGE", 1, ge=0)
    page_size: int = _env("SAM_PAGE_SIZE", 100, ge=1)
    # The largest response body samops reads from the service; the operations whose one unpaged answer
    # grows with the fleet (login with every panel, cameras, users, controller log: Operation.fleet) have
    # their own, larger bound: a 10,000-panel login answer is about 18 MB, 20,000 panels about 35 MB.
    max_response_bytes: int = _env("SAM_MAX_RESPONSE_BYTES", 16 * 1024 * 1024, ge=1024)
    max_fleet_response_bytes: int = _env("SAM_MAX_FLEET_RESPONSE_BYTES", 128 * 1024 * 1024, ge=1024)

    # The alarm poller (core/poller.py): seconds between polls, how far each poll re-reads before the last
    # one, and how many requests group testing has in flight at once.
    poll_interval: float = _env("SAMOPS_POLL_INTERVAL", 5.0, gt=0)
    poll_overlap: float = _env("SAMOPS_POLL_OVERLAP", 120.0, ge=0)
    poll_concurrency: int = _env("SAMOPS_POLL_CONCURRENCY", 8, ge=1, le=64)
    # Watching samops itself (docs/high-availability.md): the dead-man's-switch URL the notifier calls after
    # each cycle that polled and delivered (a secret: push URLs embed their token; `[heartbeat] url` in the
    # TOML is the other way to give it), and how long a notifier's cycle may stay unfinished before
    # `samops up` restarts it (None: 5 poll intervals, at least 60 s).
    heartbeat_url: SecretStr | None = _env("SAMOPS_HEARTBEAT_URL")
    hang_after: float | None = _env("SAMOPS_HANG_AFTER", None, gt=0)
    # History (docs/history.md), beside the poller: how far back reconciliation makes sure the cache holds
    # every activity the service holds (late arrivals), seconds between its passes, how many days the
    # backfill fills after the first start (the dashboard's default window), and the requests per second
    # per organization that reconciliation and the backfill share (within the idle budget of 1/s).
    late_window: float = _env("SAMOPS_LATE_WINDOW", 86_400.0, ge=0)
    reconcile_interval: float = _env("SAMOPS_RECONCILE_INTERVAL", 60.0, gt=0)
    history_days: float = _env("SAMOPS_HISTORY_DAYS", 7.0, ge=0, le=366)
    history_rate: float = _env("SAMOPS_HISTORY_RATE", 0.2, gt=0)
    # Keyholder context on alarm cards (docs/keyholders.md): seconds a panel's authorizations are kept before
    # they are read again (only panels with alarms are read, at the history's pace).
    keyholder_ttl: float = _env("SAMOPS_KEYHOLDER_TTL", 21_600.0, gt=0)

    # Tiered freshness of the slow tables under `samops sync --every` (core/tiers.py): seconds between
    # refreshes of each panel's (or organization's) records, spread over the interval.
    refresh_sensors: float = _env("SAMOPS_REFRESH_SENSORS", 600.0, gt=0)
    refresh_controllers: float = _env("SAMOPS_REFRESH_CONTROLLERS", 600.0, gt=0)
    refresh_push_history: float = _env("SAMOPS_REFRESH_PUSH_HISTORY", 600.0, gt=0)
    refresh_users: float = _env("SAMOPS_REFRESH_USERS", 600.0, gt=0)
    refresh_cameras: float = _env("SAMOPS_REFRESH_CAMERAS", 600.0, gt=0)
    refresh_controller_values: float = _env("SAMOPS_REFRESH_CONTROLLER_VALUES", 600.0, gt=0)
    # The per-panel tiers that cost a request per panel (push history; sensors and controllers only when
    # the login does not carry them) share this many requests per second per organization: at fleet size
    # their interval stretches beyond the one above (10,000 panels: push history about every 2 h).
    refresh_rate: float = _env("SAMOPS_REFRESH_RATE", 0.5, gt=0)
    # Subscription bills (operation 7, core/bills.py): each subscription read once per this many seconds,
    # at most SAMOPS_BILLS_RATE requests per second per organization on top of the tiers above.
    refresh_bills: float = _env("SAMOPS_REFRESH_BILLS", 86_400.0, gt=0)
    bills_rate: float = _env("SAMOPS_BILLS_RATE", 0.05, gt=0)

    # Local files.
    data_dir: Path = _env("SAMOPS_DATA_DIR", Path(".samops"))
    db: Path | None = _env("SAMOPS_DB")
    config_path: Path = _env("SAMOPS_CONFIG", Path("samops.toml"))

    # Slack and the bot.
    slack_bot_token: SecretStr | None = _env("SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = _env("SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = _env("SLACK_APP_TOKEN")  # set: Socket Mode
    slack_api_url: HttpUrl = _env("SLACK_API_URL", "https://slack.com/api/")
    bot_host: str = _env("SAMOPS_BOT_HOST", "127.0.0.1")
    bot_port: int = _env("SAMOPS_BOT_PORT", 3000, ge=0, le=65535)
    # Acks and lazy listeners share bolt's executor: it must hold every answer in flight plus the acks.
    bot_workers: int = _env("SAMOPS_BOT_WORKERS", 96, ge=4, le=1024)

    # The App Home (bot/events/refresh.py): seconds between looks at the cache for changes; how long after a
    # person last opened their Home it is kept up to date; the most views.publish calls per minute (Slack's
    # tier 4 allows 100+: the rest is left to opening Homes and forms); the least seconds between two
    # refreshes of one person's Home; how long the channels a person is in are kept (users.conversations).
    home_refresh: float = _env("SAMOPS_HOME_REFRESH", 5.0, gt=0, le=3600)
    home_recent: float = _env("SAMOPS_HOME_RECENT", 3600.0, gt=0)
    home_publish_rate: float = _env("SAMOPS_HOME_PUBLISH_RATE", 50.0, gt=0, le=100)
    home_user_gap: float = _env("SAMOPS_HOME_USER_GAP", 10.0, ge=0, le=3600)
    home_channels_ttl: float = _env("SAMOPS_HOME_CHANNELS_TTL", 300.0, ge=0, le=86400)

    # The dashboard.
    dashboard_host: str = _env("SAMOPS_DASHBOARD_HOST", "127.0.0.1")
    dashboard_port: int = _env("SAMOPS_DASHBOARD_PORT", 8501, ge=1, le=65535)
    dashboard_password: SecretStr | None = _env("SAMOPS_DASHBOARD_PASSWORD")
    # Unset: the dashboard these settings run (its host and port), so a notifier or bot started by hand links
    # where `samops dashboard` serves, not to 8501 whatever SAMOPS_DASHBOARD_PORT says.
    dashboard_url: HttpUrl = Field(
        default_factory=lambda values: dashboard_address(
            values.get("dashboard_host", "127.0.0.1"), values.get("dashboard_port", 8501)
        ),
        validation_alias="SAMOPS_DASHBOARD_URL",
    )

    @property
    def demo_account(self) -> bool:
        """Is the configured account the embedded simulator's demo one?"""
        return (self.screen_name, self.password.get_secret_value()) == (DEMO_SCREEN_NAME, DEMO_PASSWORD)

    @property
    def db_path(self) -> Path:
        """The cache file: `SAMOPS_DB`, else `cache.db` in the data folder."""
        return self.db if self.db is not None else self.data_dir / "cache.db"

    @property
    def api_url(self) -> str:
        """Slack's Web API base, with the trailing slash slack_sdk needs."""
        return self.slack_api_url if self.slack_api_url.endswith("/") else self.slack_api_url + "/"

    @property
    def bot_events_url(self) -> str:
        """Where a process on this machine reaches the bot's HTTP endpoint (`samops slash`)."""
        return f"http://{reachable_host(self.bot_host)}:{self.bot_port}/slack/events"

    def is_set(self, field: str) -> bool:
        """Did the user configure `field` (environment, `.env` or argument), rather than leave the default?"""
        return field in self.model_fields_set

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Environment variable of each field, e.g. {"base_url": "SAM_BASE_URL", ...}."""
        return {name: str(info.validation_alias) for name, info in cls.model_fields.items()}

    def as_env(self) -> dict[str, str]:
        """What the user configured, as the environment variables that give it (for child processes, so
        that they see these values whatever `.env` they find). Defaults are left out: a child leaves them
        unset too."""
        env: dict[str, str] = {}
        for name, variable in self.variables().items():
            value = getattr(self, name)
            if value is None or not self.is_set(name):
                continue
            env[variable] = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        return env


def dashboard_address(host: str, port: int) -> str:
    """The dashboard's URL on this machine when it serves on `host`:`port` (SAMOPS_DASHBOARD_URL unset)."""
    return f"http://{reachable_host(host)}:{port}"


def reachable_host(host: str) -> str:
    """An address a local client can connect to for a server bound to `host` (a wildcard means loopback)."""
    if host in {"", "0.0.0.0"}:
        return "127.0.0.1"
    if host.strip("[]") == "::":
        return "[::1]"
    try:
        return f"[{host.strip('[]')}]" if ipaddress.ip_address(host.strip("[]")).version == 6 else host
    except ValueError:
        return host


class SettingsError(ValueError):
    """An invalid value in the environment or `.env`. Its text is one line naming the variable(s)."""


def describe(error: ValidationError) -> str:
    """One line naming each invalid variable and why, never its value (it may be a secret)."""
    variables = Settings.variables()
    parts: list[str] = []
    for item in error.errors(include_input=False, include_url=False):
        if item["type"] == "default_factory_not_called":
            continue  # a default made of another variable, which is named already (SAMOPS_DASHBOARD_URL's)
        field = str(item["loc"][0]) if item["loc"] else ""
        parts.append(f"{variables.get(field, field.upper())} ({item['msg'].lower()})")
    return "invalid configuration: " + "; ".join(parts)


def load_settings(**overrides: Any) -> Settings:
    """The settings from the environment and `.env`; raises SettingsError (one line) on an invalid value."""
    try:
        return Settings(**overrides)
    except ValidationError as err:
        raise SettingsError(describe(err)) from None


def current_settings() -> Settings:
    """`load_settings()` for a process that asks on every request (the dashboard, several times per page):
    parsed again only when what it is read from changes (the `SAM*` and `SLACK_*` variables, the current
    folder, its `.env`), not each time (some 10 ms of a warm page's run)."""
    ours = ("SAM", "SLACK_")
    variables = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith(ours)))
    dotenv: tuple[int, int] | None = None
    if (path := dotenv_path()) is not None:
        with contextlib.suppress(OSError):
            stat = os.stat(path)
            dotenv = (stat.st_mtime_ns, stat.st_size)
    return _settings_of(variables, os.getcwd(), dotenv)


@functools.lru_cache(maxsize=8)
def _settings_of(variables: object, folder: str, dotenv: object) -> Settings:
    """The arguments are only the cache's key: what `load_settings` reads."""
    return load_settings()


def settings_or_report(prog: str) -> Settings | None:
    """For a program's start: the settings, or None after printing `prog: invalid configuration: ...`."""
    try:
        return load_settings()
    except SettingsError as err:
        print(f"{prog}: {err}", file=sys.stderr)  # noqa: T201  # a program's first words, before its logging
        return None
