"""How fresh the cache is: each synced table's last success, last error and row count, and whether what is
shown from it is stale (`assess`: the one judgement the dashboard's banner and the App Home both show).

Two times answer "how fresh": the last successful sync (`Freshness.last_sync`, the newest success of any
table: the alarm poller's every few seconds) and the oldest table's (`as_of`: sensors, cameras and the other
tiered tables refresh every ten minutes or more, core/tiers.py). The dashboard's banner says the first, and
the newest activity the cache holds (`newest_activity`) beside it; "data as of" the oldest read as if the
sync had stopped (issue 22)."""

from __future__ import annotations

from dataclasses import dataclass

from core.clock import MINUTE_MS
from core.read.rows import TableFreshness, marks, query, scalar
from core.sqlite_lib import sqlite_utils

# The sync runs every minute or so; a quarter of an hour without success means the view is not to be trusted.
STALE_AFTER_MS = 15 * MINUTE_MS

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


def freshness(db: sqlite_utils.Database, count_rows: bool = True) -> list[TableFreshness]:
    """Each synced table's freshness; `count_rows=False` leaves `rows` at 0 (counting reads every table: too
    much for a check that runs every few seconds)."""
    state = {
        row["table_name"]: row
        for row in query(db, "SELECT table_name, last_success, last_error, last_error_at FROM sync_state")
    }
    result: list[TableFreshness] = []
    for table in SYNCED_TABLES:
        known = state.get(table, {})
        result.append(
            TableFreshness(
                table=table,
                last_success=known.get("last_success"),
                last_error=known.get("last_error"),
                last_error_at=known.get("last_error_at"),
                rows=int(scalar(db, f'SELECT count(*) FROM "{table}"')) if count_rows else 0,
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


@dataclass(frozen=True)
class Freshness:
    as_of: int | None  # the oldest last success: everything shown is at least this fresh
    failing: tuple[TableFreshness, ...]  # tables whose last error is newer than their last success
    stale: bool
    has_data: bool
    last_sync: int | None = None  # the newest last success: when samops last heard from the service


def assess(tables: list[TableFreshness], now: int) -> Freshness:
    successes = [t.last_success for t in tables if t.last_success]
    failing = tuple(t for t in tables if t.last_error_at and t.last_error_at > (t.last_success or 0))
    as_of = min(successes) if successes else None
    stale = as_of is None or now - as_of > STALE_AFTER_MS
    has_data = bool(successes) or any(t.rows for t in tables)
    last_sync = max(successes) if successes else None
    return Freshness(as_of=as_of, failing=failing, stale=stale, has_data=has_data, last_sync=last_sync)


def newest_activity(db: sqlite_utils.Database) -> int | None:
    """The time of the newest activity in the cache (one step down the activity_time index)."""
    found = scalar(db, "SELECT max(activity_time) FROM activities")
    return None if found is None else int(found)
