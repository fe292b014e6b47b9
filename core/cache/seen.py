"""When samops first saw an activity (`activities.seen_at`): the one rule every path that writes activities
goes by (the poller, reconciliation, the backfill, the sync), so that which of them writes an activity first
changes nothing (docs/history.md).

An activity is *watched* when samops reads it after its organization's first poll (the poller's cursor for
it exists) and its own time is at or after the watch's start (`WATCH_FROM`: the notifier's baseline minus
the day its first poll read, recorded by that poll). A watched activity's `seen_at` is stamped the first time
any path writes it, with the time that path saw it; it is never changed after. Everything else is history
(the first poll's day, the backfill's week, what a sync read before the poller watched): no `seen_at`, never
posted as it arrives, never late.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.cache.sql import execute
from core.sqlite_lib import sqlite_utils

WATCH_FROM = "watch_from"  # notify_state key: the oldest activity time the poller watches (epoch-ms)
POLLER_CURSORS = (
    "poller"  # panel_cursors.table_name of the poller's per-organization cursors (core/poller.py)
)


def mark_watch_from(db: sqlite_utils.Database, at: int) -> None:
    """Record where the watch starts, once (the first poll's; in the caller's transaction)."""
    execute(db, "INSERT OR IGNORE INTO notify_state (key, value) VALUES (?, ?)", [WATCH_FROM, str(at)])


def stamp_first_seen(
    db: sqlite_utils.Database, rows: Sequence[Sequence[Any]], seen_at: int, org_at: int, time_at: int
) -> None:
    """Stamp `seen_at` on those of `rows` (event_id first; the organization at `org_at`, the activity time at
    `time_at`) that are watched and carry none yet (in the caller's transaction)."""
    found = execute(db, "SELECT value FROM notify_state WHERE key = ?", [WATCH_FROM]).fetchone()
    if found is None or not rows:
        return
    watch_from = int(found[0])
    polled = {
        int(r[0])
        for r in execute(
            db, "SELECT resource_id FROM panel_cursors WHERE table_name = ?", [POLLER_CURSORS]
        ).fetchall()
    }
    watched = [
        (seen_at, row[0])
        for row in rows
        if (row[org_at] or 0) in polled and row[time_at] is not None and row[time_at] >= watch_from
    ]
    db.conn.executemany("UPDATE activities SET seen_at = ? WHERE event_id = ? AND seen_at IS NULL", watched)
