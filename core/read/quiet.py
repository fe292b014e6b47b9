"""Silences and maintenance windows (the `quiet_windows` table): what is in force, what comes, what a
window held back. The notifier writes them through `core.cache.quiet`; the bot and the dashboard read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.cache.quiet import MAINTENANCE, SILENCE, WINDOW_COLUMNS, WINDOW_FROM, QuietWindow, window
from core.cache.sql import has_table
from core.read.rows import query
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class HeldGroup:
    """What a window held back in one channel, per panel and kind."""

    channel: str
    resource_id: int | None
    panel_name: str | None
    kind: str
    count: int
    first_time: int
    last_time: int


def _has_table(db: sqlite_utils.Database) -> bool:
    return has_table(db, "quiet_windows")


def windows_in_force(
    db: sqlite_utils.Database, at: int, org_id: int | None = None, upcoming: bool = False
) -> list[QuietWindow]:
    """Silences and windows in force at `at` (and, with `upcoming`, those that start later), soonest end
    first; with `org_id`, those of that organization's panels or of the organization itself."""
    if not _has_table(db):
        return []
    sql = f"SELECT {WINDOW_COLUMNS} {WINDOW_FROM} WHERE w.lifted_at IS NULL AND w.ends_at > ?" + (
        "" if upcoming else " AND w.starts_at <= ?"
    )
    params: list[object] = [at] if upcoming else [at, at]
    if org_id is not None:
        sql += " AND (w.org_id = ? OR p.org_id = ?)"
        params += [org_id, org_id]
    rows = query(db, sql + " ORDER BY w.starts_at > ?, w.ends_at, w.id", [*params, at])
    return [QuietWindow(**r) for r in rows]


def held_back(db: sqlite_utils.Database, window_id: int) -> list[HeldGroup]:
    """The alarms `window_id` held back, counted per channel, panel and kind, oldest first."""
    rows = query(
        db,
        "SELECT o.channel AS channel, a.resource_id AS resource_id, p.name AS panel_name,"
        " COALESCE(a.violation_name, a.violation_type, a.event_type, 'alarm') AS kind, count(*) AS count,"
        " min(a.activity_time) AS first_time, max(a.activity_time) AS last_time"
        " FROM quiet_held h JOIN notify_outbox o ON o.event_id = h.event_id"
        " JOIN activities a ON a.event_id = h.event_id LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " WHERE h.window_id = ? GROUP BY o.channel, a.resource_id, kind"
        " ORDER BY o.channel, first_time, a.resource_id, kind",
        [window_id],
    )
    return [HeldGroup(**r) for r in rows]


__all__ = [
    "MAINTENANCE",
    "SILENCE",
    "WINDOW_COLUMNS",
    "HeldGroup",
    "QuietWindow",
    "held_back",
    "window",
    "windows_in_force",
]
