"""The SQL of the alarm lifecycle (`core.lifecycle` holds its rules): `alarm_state`, where each alarm is now,
and `alarm_changes`, who changed what and when. Rows go in and come out as plain values; `core.lifecycle`
makes them its AlarmState. Its reads are here, beside its writes, rather than in core/read: core/read
imports `core.lifecycle`, which must not import core/read back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.cache.sql import execute
from core.sqlite_lib import sqlite_utils

STATE_COLUMNS = (
    "event_id, state, assignee, opened_at, acknowledged_at, acknowledged_by, resolved_at, resolved_by, note,"
    " updated_at"
)
_CHUNK = 500  # SQLite's variable limit
# core.lifecycle's rule of who holds an alarm (AlarmState.holder), as the alarm_state column the reads select
# it from: the assignee alone.
HOLDER_COLUMN = "assignee"


def state_row(db: sqlite_utils.Database, event_id: str) -> tuple[Any, ...] | None:
    """The alarm_state row of one alarm, columns as STATE_COLUMNS."""
    row = execute(db, f"SELECT {STATE_COLUMNS} FROM alarm_state WHERE event_id = ?", [event_id]).fetchone()
    return tuple(row) if row else None


def state_rows(db: sqlite_utils.Database, event_ids: Iterable[str]) -> list[tuple[Any, ...]]:
    """The alarm_state rows of these alarms (those that have one), columns as STATE_COLUMNS."""
    ids = list(event_ids)
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = execute(db, f"SELECT {STATE_COLUMNS} FROM alarm_state WHERE event_id IN ({marks})", chunk)
        found.extend(tuple(r) for r in rows.fetchall())
    return found


def insert_open(db: sqlite_utils.Database, entries: Iterable[tuple[str, int]], at: int) -> None:
    """(event_id, opened_at) alarms as open; an alarm already recorded is left as it is."""
    db.conn.executemany(
        "INSERT INTO alarm_state (event_id, state, opened_at, updated_at) VALUES (?, 'open', ?, ?)"
        " ON CONFLICT(event_id) DO NOTHING",
        [(event_id, opened_at, at) for event_id, opened_at in entries],
    )


def update_state(db: sqlite_utils.Database, event_id: str, sets: Mapping[str, object]) -> None:
    """Set these columns of one alarm's alarm_state (names are the caller's, never user input)."""
    assignments = ", ".join(f"{name} = ?" for name in sets)
    execute(db, f"UPDATE alarm_state SET {assignments} WHERE event_id = ?", [*sets.values(), event_id])


def record_changes(db: sqlite_utils.Database, rows: Iterable[Sequence[object]]) -> None:
    """(event_id, at, by_user, change, note) rows into alarm_changes."""
    db.conn.executemany(
        "INSERT INTO alarm_changes (event_id, at, by_user, change, note) VALUES (?, ?, ?, ?, ?)", list(rows)
    )


def change_rows(db: sqlite_utils.Database, event_id: str) -> list[tuple[Any, ...]]:
    """(at, by_user, change, note) of one alarm, oldest first."""
    rows = execute(
        db,
        "SELECT at, by_user, change, note FROM alarm_changes WHERE event_id = ? ORDER BY at, id",
        [event_id],
    ).fetchall()
    return [tuple(r) for r in rows]


def count_changes(db: sqlite_utils.Database, event_id: str, change: str) -> int:
    """How many `change` changes one alarm has had."""
    row = execute(
        db, "SELECT count(*) FROM alarm_changes WHERE event_id = ? AND change = ?", [event_id, change]
    ).fetchone()
    return int(row[0])
