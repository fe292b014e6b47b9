"""Counts of alarms over time and across panels: the charts, the heatmap, the noisiest panels, the KPIs."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from core.cache.alarm_sql import alarm_sql
from core.cache.schema import TIME_KINDS_INDEX
from core.cameras import DISABLED, OFFLINE, camera_down
from core.clock import DAY_MS, HOUR_MS
from core.read.alarms import ALARM_SQL, AlarmFilter, alarm_where
from core.read.cameras import camera_summary
from core.read.panels import PANEL_COLUMNS, panel_row
from core.read.rows import (
    HourCount,
    Kpis,
    PanelRow,
    WeekdayHourCount,
    clean_text,
    column,
    marks,
    query,
    scalar,
)
from core.sqlite_lib import sqlite_utils
from core.timefmt import wall_ms

_KIND = "coalesce(violation_type, event_type, 'unknown')"


def noisiest_panels(db: sqlite_utils.Database, since: int, limit: int = 10) -> list[tuple[PanelRow, int]]:
    sql = (
        f"SELECT a.resource_id AS resource_id, count(*) AS n FROM activities a"
        f" WHERE a.activity_time >= ? AND {ALARM_SQL} AND a.resource_id IS NOT NULL"
        " GROUP BY a.resource_id ORDER BY n DESC, a.resource_id LIMIT ?"
    )
    counts = [(row["resource_id"], row["n"]) for row in query(db, sql, [since, max(0, int(limit))])]
    ids = [rid for rid, _ in counts]
    found = query(db, f"SELECT {PANEL_COLUMNS} FROM panels WHERE resource_id IN ({marks(ids)})", ids)
    panels = {row["resource_id"]: panel_row(row) for row in found}
    return [(panels.get(rid) or PanelRow(rid, None, None, None, None, None), n) for rid, n in counts]


def _kind_counts(
    db: sqlite_utils.Database,
    since: int | None,
    until: int | None,
    org_id: int | None = None,
    violation_type: str | None = None,
) -> dict[tuple[int, str], int]:
    """Alarms per (hour, kind) in [since, until): whole hours from the `activity_hours` rollup, the partial
    hours at either end from activities, so the answer is exact and fast over millions of rows."""
    since = 0 if since is None else since
    until = 2**62 if until is None else until
    first = -(-since // HOUR_MS) * HOUR_MS  # first whole hour
    last = until // HOUR_MS * HOUR_MS  # end of the last whole hour
    extra = ""
    params: list[object] = []
    if org_id is not None:
        extra += " AND org_id = ?"
        params.append(org_id)
    if violation_type is not None:
        extra += " AND violation_type = ?"
        params.append(violation_type)
    edges = [(since, until)] if first >= last else [(since, first), (last, until)]
    counts: dict[tuple[int, str], int] = {}
    for lo, hi in edges:
        if lo >= hi:
            continue
        sql = (
            f"SELECT (activity_time / {HOUR_MS}) * {HOUR_MS} AS hour, {_KIND} AS kind, count(*) AS n"
            " FROM activities"
            f" WHERE activity_time >= ? AND activity_time < ? AND {alarm_sql()}{extra}"
            " GROUP BY hour, kind"
        )
        _add(counts, query(db, sql, [lo, hi, *params]))
    if first < last:
        sql = (
            f"SELECT hour, {_KIND} AS kind, sum(n) AS n FROM activity_hours"
            f" WHERE hour >= ? AND hour < ?{extra} GROUP BY hour, kind"
        )
        _add(counts, query(db, sql, [first, last, *params]))
    return counts


def _add(counts: dict[tuple[int, str], int], rows: list[dict[str, Any]]) -> None:
    for row in rows:
        key = (row["hour"], row["kind"])
        counts[key] = counts.get(key, 0) + row["n"]


def hourly_counts(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None
) -> list[HourCount]:
    """Alarms per hour and violationType in [since, until)."""
    counts = _kind_counts(db, since, until, org_id)
    return [HourCount(hour=h, violation_type=k, count=n) for (h, k), n in sorted(counts.items())]


def weekday_hour_counts(
    db: sqlite_utils.Database, flt: AlarmFilter, tz: tzinfo | None = None
) -> list[WeekdayHourCount]:
    """Alarms per weekday and hour of day on the wall clock of `tz` (UTC when None). Counted per UTC hour,
    then each hour moved to its local weekday and hour: exact for a zone a whole number of hours off UTC
    (daylight saving included, the offset is taken per hour); in a zone off by a half or quarter hour a UTC
    hour falls in the local hour it starts in."""
    per_hour: dict[int, int] = {}
    if flt.alarms_only and flt.resource_id is None and flt.event_type is None and not clean_text(flt.text):
        # Every filter left is a dimension of the hourly rollup.
        for (hour, _), n in _kind_counts(db, flt.since, flt.until, flt.org_id, flt.violation_type).items():
            per_hour[hour] = per_hour.get(hour, 0) + n
    else:
        clause, params, needs_panel = alarm_where(flt)
        join = " LEFT JOIN panels p ON p.resource_id = a.resource_id" if needs_panel else ""
        sql = (
            f"SELECT (a.activity_time / {HOUR_MS}) * {HOUR_MS} AS hour, count(*) AS n"
            f" FROM activities a{join}{clause} GROUP BY hour"
        )
        per_hour = {r["hour"]: r["n"] for r in query(db, sql, params)}
    cells: dict[tuple[int, int], int] = {}
    for hour, n in per_hour.items():
        try:
            wall = wall_ms(hour, tz)
        except (OverflowError, OSError, ValueError):  # a time no calendar shows (an old cache's): as UTC
            wall = hour
        # 1970-01-01 was a Thursday: weekday 3 with Monday = 0.
        cell = ((wall // DAY_MS + 3) % 7, wall // HOUR_MS % 24)
        cells[cell] = cells.get(cell, 0) + n
    return [WeekdayHourCount(weekday=w, hour=h, count=n) for (w, h), n in sorted(cells.items())]


def kpis(db: sqlite_utils.Database, now: int) -> Kpis:
    """The Overview's tiles over [now - 24 h, now). The counts read indexes only (the covering one on
    activity_time and the kinds, schema v5), never the table: the cost is the day's, not the cache's size."""
    since = now - DAY_MS
    # One range count per hour: each an index range, where a GROUP BY would sort the day's rows.
    per_hour = column(
        db,
        "WITH RECURSIVE h(b) AS (SELECT 0 UNION ALL SELECT b + 1 FROM h WHERE b < 23)"
        f" SELECT (SELECT count(*) FROM activities a INDEXED BY {TIME_KINDS_INDEX}"
        f" WHERE a.activity_time >= ? + h.b * {HOUR_MS} AND a.activity_time < ? + (h.b + 1) * {HOUR_MS}"
        f" AND {ALARM_SQL}) FROM h ORDER BY h.b",
        [since, since],
    )
    panels = scalar(
        db,
        # No index named: with statistics SQLite skips along (resource_id, activity_time), quicker still.
        "SELECT count(DISTINCT a.resource_id) FROM activities a"
        f" WHERE a.activity_time >= ? AND a.activity_time < ? AND {ALARM_SQL}",
        [since, now],
    )
    errors = scalar(
        db,
        "SELECT count(*) FROM (SELECT DISTINCT a.resource_id, a.violation_name FROM activities a"
        f" INDEXED BY {TIME_KINDS_INDEX}"
        " WHERE a.activity_time >= ? AND a.activity_time < ? AND a.event_type = 'error')",
        [since, now],
    )
    cameras = camera_summary(db)
    # Nothing to count from when no camera reports a status (operation 17 does not promise one).
    reported = not cameras or any(c.status for c in cameras)
    sd_reported = not cameras or any(c.sd_card_status for c in cameras)
    return Kpis(
        alarms_24h=sum(per_hour),
        panels_with_alarms_24h=panels,
        # One rule with the Cameras page and incident cards (core.cameras.camera_down): offline is what the
        # service reports offline; a disabled camera is counted as disabled, never as offline.
        cameras_offline=sum(1 for c in cameras if camera_down(c.problems) == OFFLINE) if reported else None,
        sd_card_problems=sum(1 for c in cameras if any(p.startswith("sd card:") for p in c.problems))
        if sd_reported
        else None,
        sensors_with_errors_24h=errors,
        alarms_per_hour_24h=per_hour,
        cameras_disabled=sum(1 for c in cameras if camera_down(c.problems) == DISABLED),
    )
