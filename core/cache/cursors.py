"""Writes of `panel_cursors`: per-scope positions under a table name (a sync's activity cursors, the alarm
poller's per-organization cursors, tiered refresh times). `core.read.cursors` reads them."""

from __future__ import annotations

from collections.abc import Iterable

from core.sqlite_lib import sqlite_utils


def save_cursors(db: sqlite_utils.Database, table: str, cursors: Iterable[tuple[int, int]]) -> None:
    """(scope, cursor) pairs under `table`, each replacing the scope's earlier cursor (in the caller's
    transaction)."""
    db.conn.executemany(
        "INSERT INTO panel_cursors (table_name, resource_id, cursor) VALUES (?, ?, ?)"
        " ON CONFLICT(table_name, resource_id) DO UPDATE SET cursor = excluded.cursor",
        [(table, scope, cursor) for scope, cursor in cursors],
    )
