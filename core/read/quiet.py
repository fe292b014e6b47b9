"""Silences and maintenance windows (the `quiet_windows` table): what is in force, what comes, what a
window held back. The notifier writes them through `core.cache.quiet`; the bot and the dashboard read here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.alarms import Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS
from core.cache.quiet import (
    MAINTENANCE,
    SILENCE,
    WINDOW_COLUMNS,
    WINDOW_FROM,
    QuietWindow,
    window,
    window_columns,
    window_from,
)
from core.cache.sql import has_table
from core.read.rows import query, scalar
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
    return [window_from(r) for r in rows]


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


def held_reasons(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, QuietWindow]:
    """The window that held back each of these alarms (not posted: a silence or a maintenance window), by
    event id; an alarm posted is absent. Its words are `QuietWindow.held_reason`, the same everywhere."""
    return _windows_of(db, "quiet_held", event_ids)


def marked_reasons(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, QuietWindow]:
    """The maintenance window each of these life-safety alarms was posted during (`quiet_marked`: its card
    says so), by event id; others are absent. Its words are `QuietWindow.during`, as on the card."""
    return _windows_of(db, "quiet_marked", event_ids)


def _windows_of(db: sqlite_utils.Database, table: str, event_ids: Iterable[str]) -> dict[str, QuietWindow]:
    """The window `table` (quiet_held or quiet_marked) records for each of `event_ids`."""
    ids = list(dict.fromkeys(event_ids))
    if not ids or not has_table(db, table):
        return {}
    found: dict[str, QuietWindow] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = query(
            db,
            f"SELECT h.event_id AS event_id, {window_columns('w_')} FROM {table} h"
            " JOIN quiet_windows w ON w.id = h.window_id LEFT JOIN panels p ON p.resource_id = w.resource_id"
            f" WHERE h.event_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        found |= {str(r["event_id"]): window_from(r, "w_") for r in rows}
    return found


def marked_during(db: sqlite_utils.Database, event_id: str) -> QuietWindow | None:
    """The maintenance window a life-safety alarm was posted during (its card says so), if any."""
    if not has_table(db, "quiet_marked"):
        return None
    rows = query(
        db,
        f"SELECT {window_columns('w_')} FROM quiet_marked m JOIN quiet_windows w ON w.id = m.window_id"
        " LEFT JOIN panels p ON p.resource_id = w.resource_id WHERE m.event_id = ?",
        [event_id],
    )
    return window_from(rows[0], "w_") if rows else None


@dataclass(frozen=True)
class HeldBack:
    """An alarm a silence or maintenance window held back (not posted), and the window."""

    alarm: Alarm
    window: QuietWindow


def _held_where(org_id: int | None) -> tuple[str, list[object]]:
    org = " AND a.org_id = ?" if org_id is not None else ""
    return (
        "FROM quiet_held h JOIN activities a ON a.event_id = h.event_id"
        " JOIN quiet_windows w ON w.id = h.window_id LEFT JOIN panels p ON p.resource_id = a.resource_id"
        # The window's panel, under a name of its own: `p` is the alarm's.
        " LEFT JOIN panels wp ON wp.resource_id = w.resource_id"
        f" WHERE a.activity_time >= ? AND a.activity_time < ?{org}",
        [org_id] if org_id is not None else [],
    )


def held_alarms(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None, limit: int = 1000
) -> list[HeldBack]:
    """The alarms of [since, until) held back by a silence or maintenance window, newest first (the Handling
    page lists them beside the open ones: they never got a card, and must not be out of sight)."""
    if not _has_table(db):
        return []
    where, org = _held_where(org_id)
    rows = query(
        db,
        f"SELECT {ALARM_COLUMNS}, {window_columns('w_', panel='wp')} {where}"
        " ORDER BY a.activity_time DESC, a.event_id LIMIT ?",
        [since, until, *org, limit],
    )
    return [HeldBack(alarm_from(r), window_from(r, "w_")) for r in rows]


def held_count(db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None) -> int:
    """How many alarms of [since, until) a silence or maintenance window held back (the handover counts
    them apart from those posted)."""
    if not _has_table(db):
        return 0
    where, org = _held_where(org_id)
    return int(scalar(db, f"SELECT count(*) {where}", [since, until, *org]))


__all__ = [
    "MAINTENANCE",
    "SILENCE",
    "WINDOW_COLUMNS",
    "HeldBack",
    "HeldGroup",
    "QuietWindow",
    "held_alarms",
    "held_back",
    "held_count",
    "held_reasons",
    "marked_during",
    "marked_reasons",
    "window",
    "windows_in_force",
]
