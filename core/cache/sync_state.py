"""Writes of how the last refreshes went: `sync_state` per table (what `samops status` and the dashboard's
freshness read) and `rejected_records` (what the last sync dropped as invalid)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.cache.schema import REJECTED_RECORDS
from core.cache.sql import execute
from core.sqlite_lib import sqlite_utils


def record_table_state(
    db: sqlite_utils.Database, table: str, at: int, error: str | None, cursor: int | None
) -> None:
    """sync_state of `table` after a sync at `at`: last_success when no `error`, its row count recounted."""
    rows = execute(db, f'SELECT count(*) FROM "{table}"').fetchone()[0]
    db.conn.execute(
        "INSERT INTO sync_state"
        " (table_name, last_success, last_error, last_error_at, cursor, rows, last_attempt)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(table_name) DO UPDATE SET"
        " last_success = coalesce(excluded.last_success, last_success),"
        " last_error = coalesce(excluded.last_error, last_error),"
        " last_error_at = coalesce(excluded.last_error_at, last_error_at),"
        " cursor = coalesce(excluded.cursor, cursor), rows = excluded.rows,"
        " last_attempt = excluded.last_attempt",
        [table, None if error else at, error, at if error else None, cursor, rows, at],
    )


def record_poll_state(db: sqlite_utils.Database, at: int, error: str | None, new: int) -> None:
    """sync_state of activities after an alarm poll at `at`. Rows are counted up by what was new, not
    recounted: a count(*) would grow with the history on every poll."""
    values = [None if error else at, error, at if error else None, at]
    updated = db.conn.execute(
        "UPDATE sync_state SET last_success = coalesce(?, last_success),"
        " last_error = coalesce(?, last_error), last_error_at = coalesce(?, last_error_at),"
        " last_attempt = ?, rows = coalesce(rows, 0) + ? WHERE table_name = 'activities'",
        [*values, new],
    ).rowcount
    if not updated:  # the first poll of a new cache: counted once
        db.conn.execute(
            "INSERT INTO sync_state (table_name, last_success, last_error, last_error_at, last_attempt, rows)"
            " VALUES ('activities', ?, ?, ?, ?, (SELECT count(*) FROM activities))",
            values,
        )


LOGIN_REFUSED = "login_refused:"  # + the part ("sync", "notify"): its refused-login back-off, as JSON


def record_login_refusal(db: sqlite_utils.Database, part: str, refusal: str | None) -> None:
    """`part`'s back-off after refused logins (`Refusal.to_json()`), or None once its login works again;
    kept in `meta` so that `samops status` can say it."""
    if refusal is None:
        db.conn.execute("DELETE FROM meta WHERE key = ?", [LOGIN_REFUSED + part])
        return
    db.conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [LOGIN_REFUSED + part, refusal],
    )


def replace_rejections(db: sqlite_utils.Database, rows: Iterable[Sequence[object]]) -> None:
    """The records the last sync rejected, (operation, record, field, reason, count, at) each, in place of
    the previous sync's (caller's transaction)."""
    db.conn.execute(f"DELETE FROM {REJECTED_RECORDS}")
    db.conn.executemany(
        f"INSERT INTO {REJECTED_RECORDS} (operation, record, field, reason, count, at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        list(rows),
    )
