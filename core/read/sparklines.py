"""The Overview's sparklines: each KPI tile's count hour by hour over the same 24 hours as the tile.

Only what the cache keeps a history of has one: activities do; cameras are kept as their latest state only
(operation 17 answers the present), so their tiles have no line to draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.cache.schema import TIME_KINDS_INDEX
from core.clock import DAY_MS, HOUR_MS
from core.read.alarms import ALARM_SQL
from core.read.rows import query
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class KpiHours:
    """24 values each, oldest hour first, the hours of [now - 24 h, now)."""

    panels_with_alarms: list[int]
    sensors_with_errors: list[int]


def _per_hour(db: sqlite_utils.Database, sql: str, since: int, now: int) -> list[int]:
    counts = [0] * 24
    for row in query(db, sql, [since, since, now]):
        counts[int(row["b"])] = int(row["n"])
    return counts


def kpi_hours(db: sqlite_utils.Database, now: int) -> KpiHours:
    """Per hour: distinct panels with an alarm; distinct (panel, violation name) pairs with an error event
    (the tiles' own definitions, `core.read.kpis`, one hour at a time)."""
    since = now - DAY_MS
    panels = _per_hour(
        db,
        f"SELECT (a.activity_time - ?) / {HOUR_MS} AS b, count(DISTINCT a.resource_id) AS n FROM activities a"
        f" WHERE a.activity_time >= ? AND a.activity_time < ? AND {ALARM_SQL} GROUP BY b",
        since,
        now,
    )
    errors = _per_hour(
        db,
        "SELECT b, count(*) AS n FROM (SELECT DISTINCT (a.activity_time - ?) / "
        f"{HOUR_MS} AS b, a.resource_id, a.violation_name FROM activities a INDEXED BY {TIME_KINDS_INDEX}"
        " WHERE a.activity_time >= ? AND a.activity_time < ? AND a.event_type = 'error') GROUP BY b",
        since,
        now,
    )
    return KpiHours(panels_with_alarms=panels, sensors_with_errors=errors)
