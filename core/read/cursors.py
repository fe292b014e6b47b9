"""Reads of `panel_cursors` (`core.cache.cursors` writes them): per-scope positions under a table name."""

from __future__ import annotations

from core.read.rows import column, query
from core.sqlite_lib import sqlite_utils


def cursors(db: sqlite_utils.Database, table: str) -> dict[int, int]:
    """{scope: cursor} under `table`."""
    rows = query(db, "SELECT resource_id, cursor FROM panel_cursors WHERE table_name = ?", [table])
    return {int(r["resource_id"]): int(r["cursor"]) for r in rows}


def latest_cursor(db: sqlite_utils.Database, table: str) -> int | None:
    """The highest cursor under `table` (None: none)."""
    found = column(db, "SELECT max(cursor) FROM panel_cursors WHERE table_name = ?", [table])
    return int(found[0]) if found and found[0] is not None else None


def oldest_cursor(db: sqlite_utils.Database, table: str) -> int | None:
    """The lowest cursor under `table` (None: none)."""
    found = column(db, "SELECT min(cursor) FROM panel_cursors WHERE table_name = ?", [table])
    return int(found[0]) if found and found[0] is not None else None


def panels_at(db: sqlite_utils.Database, table: str, cursor: int) -> list[tuple[int, int | None]]:
    """(panel, its organization) of the scopes under `table` whose cursor is `cursor`, by panel id."""
    rows = query(
        db,
        "SELECT c.resource_id AS resource_id, p.org_id AS org_id FROM panel_cursors c"
        " LEFT JOIN panels p ON p.resource_id = c.resource_id WHERE c.table_name = ? AND c.cursor = ?"
        " ORDER BY c.resource_id",
        [table, cursor],
    )
    return [(int(r["resource_id"]), None if r["org_id"] is None else int(r["org_id"])) for r in rows]
