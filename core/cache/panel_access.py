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
