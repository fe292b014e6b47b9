"""Writes of `panel_access`: who is authorized on which panel (`core.panel_access` fetches them,
`core.read.who_can` reads them)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from core.sqlite_lib import sqlite_utils

TABLE = "panel_access"


def replace_panel_access(
    db: sqlite_utils.Database, org: int | None, panels: Collection[int] | None, rows: Sequence[dict[str, Any]]
) -> None:
    """`rows` in place of what the cache held for `panels` (every panel of `org` when None), in the caller's
    transaction."""
    if panels is None:
        db.conn.execute(f"DELETE FROM {TABLE} WHERE org_id IS ?", [org])
    elif panels:
        marks = ", ".join("?" for _ in panels)
        db.conn.execute(f"DELETE FROM {TABLE} WHERE resource_id IN ({marks})", list(panels))
    db.conn.executemany(
        f"INSERT OR REPLACE INTO {TABLE} (resource_id, user_id, org_id, name, groups, validity, "
        "fetched_at) VALUES (:resource_id, :user_id, :org_id, :name, :groups, :validity, :fetched_at)",
        rows,
    )


READS = "panel_access_reads"


def record_reads(
    db: sqlite_utils.Database, org: int | None, panels: Collection[int], at: int, error: str | None = None
) -> None:
    """How reading the authorizations of `panels` went at `at` (`error`: why it failed, None: read), in the
    caller's transaction. `changed_at` moves only when what a card's keyholder line says changes kind (never
    tried, read, failed); a later success keeps `read_at`'s data, a later failure keeps the last `read_at`."""
    ok = error is None
    for rid in panels:
        db.conn.execute(
            f"INSERT INTO {READS} (resource_id, org_id, read_at, tried_at, error, changed_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(resource_id) DO UPDATE SET"
            " org_id = excluded.org_id, tried_at = excluded.tried_at, error = excluded.error,"
            " read_at = COALESCE(excluded.read_at, read_at),"
            " changed_at = CASE WHEN (error IS NULL) = (excluded.error IS NULL) THEN changed_at"
            " ELSE excluded.changed_at END",
            [rid, org, at if ok else None, at, error, at],
        )
