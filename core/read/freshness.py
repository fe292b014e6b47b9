"""How fresh the cache is: each synced table's last success, last error and row count."""

from __future__ import annotations

from core.read.rows import TableFreshness, marks, query, scalar
from core.sqlite_lib import sqlite_utils

# Tables whose freshness is reported, in the order a person reads them.
SYNCED_TABLES = (
    "organizations",
    "users",
    "panels",
    "sensors",
    "controllers",
    "controller_values",
    "cameras",
    "activities",
    "push_history",
)


def freshness(db: sqlite_utils.Database) -> list[TableFreshness]:
    state = {
        row["table_name"]: row
        for row in query(db, "SELECT table_name, last_success, last_error, last_error_at FROM sync_state")
    }
    result = []
    for table in SYNCED_TABLES:
        known = state.get(table, {})
        result.append(
            TableFreshness(
                table=table,
                last_success=known.get("last_success"),
                last_error=known.get("last_error"),
                last_error_at=known.get("last_error_at"),
                rows=int(scalar(db, f'SELECT count(*) FROM "{table}"')),
            )
        )
    return result


def oldest_success(db: sqlite_utils.Database, tables: tuple[str, ...]) -> int | None:
    """The oldest last success among `tables`: how old a view built from them may be (None: one never
    succeeded)."""
    sql = f"SELECT table_name, last_success FROM sync_state WHERE table_name IN ({marks(tables)})"
    found = {row["table_name"]: row["last_success"] for row in query(db, sql, tables)}
    if any(found.get(t) is None for t in tables):
        return None
    return min(found.values())
