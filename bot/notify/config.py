"""The `[notify]` section of the TOML config: routing rules, storm control, health notices, time zones.

[notify]
default_channel = "C_ALARMS"
interval = 5                  # seconds between polls (default: SAMOPS_POLL_INTERVAL)
source = "service"            # the notifier polls the service (default); "cache": another process does
timezone = "UTC"              # organizations without their own entry below
summary_hours = 24            # first start: alarms of the last N hours are summarized, not replayed

[notify.timezones]
"1001" = "Europe/Berlin"

[[notify.routes]]             # first match wins; unset fields match anything
channel = "C_FIRE"
org = 1001
panels = [100101]
event_types = ["violation"]
violation_types = ["alarm"]

[notify.storm]
threshold = 10                # more than this many alarms for a channel within `window` → grouped cards
window = 60                   # seconds
posts_per_second = 1.0        # per channel
behind_after = 30             # seconds of backlog before the channel is told that delivery is behind

[notify.health]
channel = "C_OPS"
after = 300                   # seconds of failure before a notice
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.cache.outbox import Alarm


class NotifyConfigError(ValueError):
    """The `[notify]` section has an unknown key or a bad value; the message names the field."""


def _channel_id(value: str) -> str:
    if not value or not value.replace("_", "").isalnum() or not value[0].isalpha():
        raise ValueError(f"{value!r} is not a Slack channel id (like C0123ABCD)")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Route(_Section):
    channel: str
    org: int | None = None
    panels: tuple[int, ...] = ()
    event_types: tuple[str, ...] = ()
    violation_types: tuple[str, ...] = ()

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str) -> str:
        return _channel_id(value)

    def matches(self, alarm: Alarm) -> bool:
        return (
            (self.org is None or alarm.org_id == self.org)
            and (not self.panels or alarm.resource_id in self.panels)
            and (not self.event_types or alarm.event_type in self.event_types)
            and (not self.violation_types or alarm.violation_type in self.violation_types)
        )

    def describe(self) -> dict[str, str]:
        def show(values: tuple[Any, ...]) -> str:
            return ", ".join(map(str, values)) or "any"

        return {
            "org": "any" if self.org is None else str(self.org),
            "panels": show(self.panels),
            "event types": show(self.event_types),
            "violation types": show(self.violation_types),
        }


class StormConfig(_Section):
    threshold: int = Field(default=10, ge=1)
    window: float = Field(default=60, gt=0)
    posts_per_second: float = Field(default=1.0, gt=0, le=100)
    behind_after: float = Field(default=30, gt=0)
    details_per_reply: int = Field(default=200, ge=1, le=400)


class HealthConfig(_Section):
    channel: str | None = None
    after: float = Field(default=300, gt=0)

    @field_validator("channel")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        return value if value is None else _channel_id(value)


class NotifyConfig(_Section):
    default_channel: str | None = None
    interval: float | None = Field(default=None, gt=0)  # None: SAMOPS_POLL_INTERVAL, the one default
    source: str = "service"  # the notifier hosts the alarm poller (core/poller.py)
    timezone: str = "UTC"
    timezones: dict[int, str] = Field(default_factory=dict)
    summary_hours: float = Field(default=24, ge=0)
    dashboard_url: str | None = None  # default: [dashboard].url, else SAMOPS_DASHBOARD_URL
    routes: tuple[Route, ...] = ()
    storm: StormConfig = Field(default_factory=StormConfig)
    health: HealthConfig = Field(default_factory=HealthConfig)

    @field_validator("default_channel")
    @classmethod
    def _default_channel(cls, value: str | None) -> str | None:
        return value if value is None else _channel_id(value)

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        if value not in {"cache", "service"}:
            raise ValueError("must be 'cache' or 'service'")
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        _zone_info(value)
        return value

    @field_validator("timezones")
    @classmethod
    def _zones(cls, value: dict[int, str]) -> dict[int, str]:
        for zone in value.values():
            _zone_info(zone)
        return value

    def poll_interval(self, default: float) -> float:
        """Seconds between polls: `interval` when configured, else `default` (SAMOPS_POLL_INTERVAL)."""
        return default if self.interval is None else self.interval

    def channel_for(self, alarm: Alarm) -> str | None:
        """The first matching route's channel, else the default channel."""
        for route in self.routes:
            if route.matches(alarm):
                return route.channel
        return self.default_channel

    def zone_for(self, org_id: int | None) -> ZoneInfo:
        return ZoneInfo(self.timezones.get(org_id, self.timezone) if org_id is not None else self.timezone)

    def channels(self) -> list[str]:
        """Every channel the notifier may post to."""
        names = [r.channel for r in self.routes]
        names += [c for c in (self.default_channel, self.health.channel) if c]
        return list(dict.fromkeys(names))


def _zone_info(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name!r} is not a known time zone (like Europe/Berlin)") from None


def parse_notify(data: dict[str, Any], source: str = "config") -> NotifyConfig:
    try:
        return NotifyConfig.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(
            f"notify.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors(include_url=False)
        )
        raise NotifyConfigError(f"{source}: {problems}") from None


def load_notify(path: Path, required: bool = False) -> tuple[NotifyConfig, str | None]:
    """(the `[notify]` config, the `[dashboard].url`) from `path`; a missing file gives the defaults."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise NotifyConfigError(f"{path}: no such file") from None
        return NotifyConfig(), None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise NotifyConfigError(f"{path}: not valid TOML ({err})") from None
    section = data.get("notify", {})
    if not isinstance(section, dict):
        raise NotifyConfigError(f"{path}: notify: must be a table")
    dashboard = data.get("dashboard", {})
    url = dashboard.get("url") if isinstance(dashboard, dict) else None
    return parse_notify(section, str(path)), url if isinstance(url, str) else None
