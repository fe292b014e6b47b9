"""The SQL of dispositions (`core.dispositions` holds the list and its rules): `alarm_dispositions` in the
records, one row per resolved alarm, holding the code, label and class as they were when it was resolved
(a label renamed or a code removed later does not rewrite history). Written in the Resolve's own
transaction (`core.lifecycle.apply` with a disposition), so an alarm is never resolved without one through
the bot, nor given one without being resolved. Its reads of single alarms are here, beside the write, as
for the lifecycle; the counts over time are core/read/false_alarms.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.cache.sql import execute
from core.sqlite_lib import sqlite_utils

_CHUNK = 500  # SQLite's variable limit


@dataclass(frozen=True)
class StoredDisposition:
    """What an alarm was resolved as."""

    event_id: str
    code: str
    label: str
    klass: str  # core.dispositions.DispositionClass's value
    at: int
    by_user: str


def record(
    db: sqlite_utils.Database, event_id: str, code: str, label: str, klass: str, at: int, by_user: str
) -> None:
    """Keep what `event_id` was resolved as; a second write for the same alarm keeps the first (a resolved
    alarm is not resolved again)."""
    execute(
        db,
        "INSERT INTO alarm_dispositions (event_id, code, label, class, at, by_user) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(event_id) DO NOTHING",
        [event_id, code, label, klass, at, by_user],
    )


def of_alarms(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, StoredDisposition]:
    """The dispositions of these alarms (those resolved with one)."""
    ids = list(event_ids)
    found: dict[str, StoredDisposition] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = execute(
            db,
            "SELECT event_id, code, label, class, at, by_user FROM alarm_dispositions"
            f" WHERE event_id IN ({marks})",
            chunk,
        ).fetchall()
        for r in rows:
            event_id, code, label, klass, at, by_user = r
            found[str(event_id)] = StoredDisposition(
                str(event_id), str(code), str(label), str(klass), int(at), str(by_user)
            )
    return found


def of_alarm(db: sqlite_utils.Database, event_id: str) -> StoredDisposition | None:
    return of_alarms(db, [event_id]).get(event_id)
