"""The read API over the cache: the only way the bot and the dashboard see cached data.

Every function takes an open database (from `core.cache.db.open_cache` or `open_reader`) and returns frozen
dataclasses, never SQL rows, so that pages and listeners hold no SQL. Times are epoch-ms integers.

CONTRACT: these signatures are what `bot/` and `dashboard/` are written against (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlite_utils

# Severity order used for "problems first" and colours: the spec's violationType values.
SEVERITY = ("alarm", "red", "error", "warning", "yellow", "gray")


@dataclass(frozen=True)
class AlarmRow:
    event_id: str
    resource_id: int | None
    panel_name: str | None
    org_id: int | None
    activity_time: int
    description: str | None
    event_type: str | None
    violation_name: str | None
    violation_type: str | None


@dataclass(frozen=True)
class AlarmFilter:
    org_id: int | None = None
    resource_id: int | None = None
    violation_type: str | None = None  # exact violationType, e.g. "alarm"
    event_type: str | None = None  # exact eventType, e.g. "violation"
    since: int | None = None
    until: int | None = None
    text: str | None = None  # case-insensitive substring of description, violation name or panel name
    alarms_only: bool = True  # only violations (eventType "violation" or a violationType set)


@dataclass(frozen=True)
class CameraRow:
    resource_id: int
    org_id: int | None
    name: str | None
    brand: str | None
    model: str | None
    status: str | None
    bind_status: str | None
    sd_card_status: str | None
    version: str | None
    capabilities: tuple[str, ...]
    problems: tuple[str, ...]  # e.g. ("offline", "sd card: error"); empty when healthy


@dataclass(frozen=True)
class PanelRow:
    resource_id: int
    org_id: int | None
    name: str | None
    model: str | None
    brand: str | None
    enabled: bool | None


@dataclass(frozen=True)
class SensorRow:
    id: int
    sensor_id: int | None
    name: str | None
    description: str | None
    io_type: str | None
    io_direction: str | None
    partitions: tuple[str, ...]  # partition names, "name (no)"


@dataclass(frozen=True)
class ControllerRow:
    id: int
    controller_id: int | None
    name: str | None
    description: str | None
    io_type: str | None
    io_direction: str | None
    partitions: tuple[str, ...]
    value: str | None  # latest value from the controller data log
    last_update: int | None


@dataclass(frozen=True)
class PanelDetail:
    panel: PanelRow
    sensors_by_type: dict[str, list[SensorRow]]
    controllers: list[ControllerRow]
    last_activities: list[AlarmRow]  # newest first, alarms and other events
    data_as_of: int | None  # oldest last_success among the tables this view uses


@dataclass(frozen=True)
class HourCount:
    hour: int  # epoch-ms at the start of the hour (UTC)
    violation_type: str
    count: int


@dataclass(frozen=True)
class WeekdayHourCount:
    weekday: int  # 0 = Monday ... 6 = Sunday (UTC)
    hour: int  # 0..23 (UTC)
    count: int


@dataclass(frozen=True)
class TableFreshness:
    table: str
    last_success: int | None
    last_error: str | None
    last_error_at: int | None
    rows: int


@dataclass(frozen=True)
class Kpis:
    alarms_24h: int
    panels_with_alarms_24h: int
    cameras_offline: int
    sd_card_problems: int
    sensors_with_errors_24h: int  # distinct (panel, violation name) with eventType "error" in 24 h
    alarms_per_hour_24h: list[int] = field(default_factory=list)  # 24 values, oldest first, for sparklines


def organizations(db: sqlite_utils.Database) -> list[tuple[int, str]]:
    raise NotImplementedError


def recent_alarms(db: sqlite_utils.Database, flt: AlarmFilter, limit: int = 500) -> list[AlarmRow]:
    """Newest first."""
    raise NotImplementedError


def camera_summary(
    db: sqlite_utils.Database, org_id: int | None = None, text: str | None = None, problems_only: bool = False
) -> list[CameraRow]:
    """Cameras with problems first, then by name."""
    raise NotImplementedError


def find_panels(
    db: sqlite_utils.Database, text: str | None = None, org_id: int | None = None, limit: int = 50
) -> list[PanelRow]:
    """By id (exact) or name (case-insensitive substring)."""
    raise NotImplementedError


def panel_detail(db: sqlite_utils.Database, resource_id: int, activities: int = 10) -> PanelDetail | None:
    raise NotImplementedError


def noisiest_panels(db: sqlite_utils.Database, since: int, limit: int = 10) -> list[tuple[PanelRow, int]]:
    raise NotImplementedError


def hourly_counts(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None
) -> list[HourCount]:
    """Alarms per hour and violationType in [since, until)."""
    raise NotImplementedError


def weekday_hour_counts(db: sqlite_utils.Database, flt: AlarmFilter) -> list[WeekdayHourCount]:
    raise NotImplementedError


def freshness(db: sqlite_utils.Database) -> list[TableFreshness]:
    raise NotImplementedError


def kpis(db: sqlite_utils.Database, now: int) -> Kpis:
    raise NotImplementedError
