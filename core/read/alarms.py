"""Alarms from the cache: filtered lists, newest first, and their counts."""

from __future__ import annotations

import sqlite3
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from core.alarms import alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS, alarm_sql
from core.read import search
from core.read.rows import AlarmRow, clean_text, like, query, scalar, where
from core.sqlite_lib import sqlite_utils

ALARM_SQL = alarm_sql("a")
_FROM = "FROM activities a{hint} LEFT JOIN panels p ON p.resource_id = a.resource_id"


@dataclass(frozen=True)
class AlarmFilter:
    org_id: int | None = None
    resource_id: int | None = None
    violation_type: str | None = None  # exact violationType, e.g. "alarm"
    event_type: str | None = None  # exact eventType, e.g. "violation"
    since: int | None = None
    until: int | None = None
    text: str | None = None  # case-insensitive substring of description, violation name or panel name
    alarms_only: bool = True  # only alarms (core.alarms: eventType "violation" or a violationType set)
    event_id: str | None = None  # one alarm (the Overview's link to the oldest not acknowledged)


def alarm_where(flt: AlarmFilter) -> tuple[str, list[Any], bool]:
    """WHERE clause over `activities a` (and `panels p` when text is searched) and whether p is needed."""
    clauses: list[str] = []
    params: list[Any] = []
    if flt.alarms_only:
        clauses.append(ALARM_SQL)
    for name, value in (
        ("a.org_id", flt.org_id),
        ("a.resource_id", flt.resource_id),
        ("a.violation_type", flt.violation_type),
        ("a.event_type", flt.event_type),
        ("a.event_id", flt.event_id),
    ):
        if value is not None:
            clauses.append(f"{name} = ?")
            params.append(value)
    if flt.since is not None:
        clauses.append("a.activity_time >= ?")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append("a.activity_time < ?")
        params.append(flt.until)
    text = clean_text(flt.text)
    if text:
        pattern = like(text)
        clauses.append(
            "(lower(a.description) LIKE ? ESCAPE '\\' OR lower(a.violation_name) LIKE ? ESCAPE '\\'"
            " OR lower(p.name) LIKE ? ESCAPE '\\')"
        )
        params += [pattern, pattern, pattern]
    return where(clauses), params, bool(text)


def recent_alarms(db: sqlite_utils.Database, flt: AlarmFilter, limit: int = 500) -> list[AlarmRow]:
    """Newest first.

    A text is searched first by walking the activities newest first (quick when it is common: the first
    `limit` matches come early), within a budget of SQLite steps. Past it the text is rare: the text index
    gives the candidate rows (core.read.search). The LIKE of `alarm_where` decides every row, so each way
    gives the same rows."""
    limit = max(0, int(limit))
    clause, params, _ = alarm_where(flt)
    text = clean_text(flt.text)
    if len(text.lower()) < search.TRIGRAM:
        return _alarms(db, clause, [*params, limit])
    try:
        with search.step_budget(db, search.SCAN_BUDGET_STEPS):
            return _alarms(db, clause, [*params, limit])
    except sqlite3.OperationalError as exc:
        if "interrupted" not in str(exc):
            raise
    narrowed = search.text_candidates(db, text)
    if narrowed is None:
        return []
    candidates, extra = narrowed
    # Few candidates: NOT INDEXED makes SQLite fetch them by rowid rather than walk the time index.
    hint = " NOT INDEXED" if search.fetches_by_rowid(candidates) else ""
    return _alarms(db, f"{clause} AND {candidates}", [*params, *extra, limit], hint)


def iter_alarms(db: sqlite_utils.Database, flt: AlarmFilter, chunk: int = 1000) -> Generator[list[AlarmRow]]:
    """Every alarm `flt` matches, newest first (as `recent_alarms` orders them), in lists of at most `chunk`:
    for exports of any size, never all in memory at once. One statement, so the rows are one snapshot of the
    cache (a WAL reader sees no write made after it began), however long the caller takes."""
    chunk = max(1, int(chunk))
    clause, params, _ = alarm_where(flt)
    cursor = db.conn.execute(
        f"SELECT {ALARM_COLUMNS} {_FROM.format(hint='')}{clause}"
        " ORDER BY a.activity_time DESC, a.event_id DESC",
        params,
    )
    try:
        names = [d[0] for d in cursor.description]
        while rows := cursor.fetchmany(chunk):
            yield [alarm_from(dict(zip(names, row, strict=True))) for row in rows]
    finally:
        cursor.close()


def count_alarms(db: sqlite_utils.Database, flt: AlarmFilter) -> int:
    """How many alarms `flt` matches in all (for "and N more" under a shortened list)."""
    clause, params, _ = alarm_where(flt)
    return int(scalar(db, f"SELECT count(*) {_FROM.format(hint='')}{clause}", params))


def _alarms(db: sqlite_utils.Database, clause: str, params: list[Any], hint: str = "") -> list[AlarmRow]:
    sql = (
        f"SELECT {ALARM_COLUMNS} {_FROM.format(hint=hint)}{clause}"
        " ORDER BY a.activity_time DESC, a.event_id DESC LIMIT ?"
    )
    return [alarm_from(row) for row in query(db, sql, params)]
