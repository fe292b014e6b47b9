"""Which activities the cache already holds (the alarm poller's de-duplication)."""

from __future__ import annotations

from collections.abc import Collection

from core.read.rows import column, marks
from core.sqlite_lib import sqlite_utils

_CHUNK = 500  # SQLite bounds the ? of a statement


def known_events(db: sqlite_utils.Database, event_ids: Collection[str]) -> set[str]:
    """The event ids the cache already holds with a panel."""
    ids, found = list(event_ids), set[str]()
    for at in range(0, len(ids), _CHUNK):
        chunk = ids[at : at + _CHUNK]
        sql = (
            f"SELECT event_id FROM activities WHERE event_id IN ({marks(chunk)}) AND resource_id IS NOT NULL"
        )
        found |= {str(e) for e in column(db, sql, chunk)}
    return found
