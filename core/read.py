"""The read API over the cache: the only way the bot and the dashboard see cached data.

Every function takes an open database (from `core.cache.db.open_cache` or `open_reader`) and returns frozen
dataclasses, never SQL rows, so that pages and listeners hold no SQL. Times are epoch-ms integers.

CONTRACT: these signatures are what `bot/` and `dashboard/` are written against (docs/architecture.md).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from core.cache.schema import ACTIVITIES_FTS, TIME_KINDS_INDEX, alarm_sql
from core.models import INT64_MAX

# The largest integer SQLite holds: a bigger id typed as text matches no id instead of raising OverflowError.

# Severity order used for "problems first" and colours: the spec's violationType values.
SEVERITY = ("alarm", "red", "error", "warning", "yellow", "gray")


@dataclass(frozen=True)
class AlarmRow:
    event_id: str
    resource_id: int | None
    panel_name: str | None
    org_id: int | None
    activity_time: int
    description: str | None
    event_type: str | None
    violation_name: str | None
    violation_type: str | None


@dataclass(frozen=True)
class AlarmFilter:
    org_id: int | None = None
    resource_id: int | None = None
    violation_type: str | None = None  # exact violationType, e.g. "alarm"
    event_type: str | None = None  # exact eventType, e.g. "violation"
    since: int | None = None
    until: int | None = None
    text: str | None = None  # case-insensitive substring of description, violation name or panel name
    alarms_only: bool = True  # only violations (eventType "violation" or a violationType set)


@dataclass(frozen=True)
class CameraRow:
    resource_id: int
    org_id: int | None
    name: str | None
    brand: str | None
    model: str | None
    status: str | None
    bind_status: str | None
    sd_card_status: str | None
    version: str | None
    capabilities: tuple[str, ...]
    problems: tuple[str, ...]  # e.g. ("offline", "sd card: error"); empty when healthy
    enabled: bool | None = None  # the Resource summary's `enabled`; status fields are not in the spec


@dataclass(frozen=True)
class PanelRow:
    resource_id: int
    org_id: int | None
    name: str | None
    model: str | None
    brand: str | None
    enabled: bool | None


@dataclass(frozen=True)
class SensorRow:
    id: int
    sensor_id: int | None
    name: str | None
    description: str | None
    io_type: str | None
    io_direction: str | None
    partitions: tuple[str, ...]  # partition names, "name (no)"


@dataclass(frozen=True)
class ControllerRow:
    id: int
    controller_id: int | None
    name: str | None
    description: str | None
    io_type: str | None
    io_direction: str | None
    partitions: tuple[str, ...]
    value: str | None  # latest value from the controller data log
    last_update: int | None


@dataclass(frozen=True)
class PanelDetail:
    panel: PanelRow
    sensors_by_type: dict[str, list[SensorRow]]
    controllers: list[ControllerRow]
    last_activities: list[AlarmRow]  # newest first, alarms and other events
    data_as_of: int | None  # oldest last_success among the tables this view uses


@dataclass(frozen=True)
class HourCount:
    hour: int  # epoch-ms at the start of the hour (UTC)
    violation_type: str
    count: int


@dataclass(frozen=True)
class WeekdayHourCount:
    weekday: int  # 0 = Monday ... 6 = Sunday (UTC)
    hour: int  # 0..23 (UTC)
    count: int


@dataclass(frozen=True)
class TableFreshness:
    table: str
    last_success: int | None
    last_error: str | None
    last_error_at: int | None
    rows: int


@dataclass(frozen=True)
class Kpis:
    alarms_24h: int
    panels_with_alarms_24h: int
    cameras_offline: int | None  # None: the service reports no camera status (not a spec field)
    sd_card_problems: int | None  # None: no SD-card status reported
    sensors_with_errors_24h: int  # distinct (panel, violation name) with eventType "error" in 24 h
    alarms_per_hour_24h: list[int] = field(default_factory=list)  # 24 values, oldest first, for sparklines


HOUR_MS = 3_600_000
# The trigram index finds substrings of 3 characters or more; shorter text is searched with LIKE alone.
TRIGRAM = 3
# How far recent_alarms walks the newest activities for a text before it asks the text index instead:
# about 20 ms of scanning (some 10,000 rows) on the 2-core machine.
SCAN_BUDGET_STEPS = 250_000
_STEPS_PER_TICK = 10_000
# Trigrams of a searched text looked up in the index (each costs a doclist read), and up to how many
# candidate rows are fetched by rowid rather than probed along the newest-first walk.
TEXT_TRIGRAMS = 4
FETCH_CANDIDATES = 20_000
DAY_MS = 24 * HOUR_MS
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
ALARM_SQL = alarm_sql("a")
# Camera values that mean all is well; the spec does not enumerate them, so anything else is a problem.
CAMERA_OK_STATUS = frozenset({"online", "on", "1", "normal", "ok", "connected", "true"})
SD_CARD_OK = frozenset({"normal", "ok", "1", "healthy", "good", "none", "no_card", "nocard", "not_present"})


def _rows(db: sqlite_utils.Database, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[Any]:
    return db.execute(sql, list(params)).fetchall()


def clean_text(text: str | None) -> str:
    """Search text as it is searched: control characters gone (tabs and line breaks become spaces), stripped.

    SQLite reads a LIKE pattern as a C string, so a NUL would end it there: `%<NUL>%` is `%`, which matches
    every row. Other control characters match nothing anyone could have meant."""
    kept = (ch if unicodedata.category(ch) != "Cc" else " " if ch.isspace() else "" for ch in text or "")
    return "".join(kept).strip()


def _phrase(text: str) -> str:
    """`text` as one FTS5 phrase: quoted, so that its words and symbols are matched, never parsed."""
    return '"' + text.replace('"', '""') + '"'


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def organizations(db: sqlite_utils.Database) -> list[tuple[int, str]]:
    rows = _rows(db, "SELECT id, coalesce(name, '') FROM organizations ORDER BY name, id")
    return [(int(i), str(n)) for i, n in rows]


def _alarm_where(flt: AlarmFilter) -> tuple[str, list[Any], bool]:
    """WHERE clause over `activities a` (and `panels p` when text is searched) and whether p is needed."""
    clauses: list[str] = []
    params: list[Any] = []
    if flt.alarms_only:
        clauses.append(ALARM_SQL)
    for column, value in (
        ("a.org_id", flt.org_id),
        ("a.resource_id", flt.resource_id),
        ("a.violation_type", flt.violation_type),
        ("a.event_type", flt.event_type),
    ):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if flt.since is not None:
        clauses.append("a.activity_time >= ?")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append("a.activity_time < ?")
        params.append(flt.until)
    text = clean_text(flt.text)
    if text:
        pattern = _like(text)
        clauses.append(
            "(lower(a.description) LIKE ? ESCAPE '\\' OR lower(a.violation_name) LIKE ? ESCAPE '\\'"
            " OR lower(p.name) LIKE ? ESCAPE '\\')"
        )
        params += [pattern, pattern, pattern]
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params, bool(text)


def _text_candidates(db: sqlite_utils.Database, text: str) -> tuple[str, list[Any]] | None:
    """A condition narrowing `activities a` to the rows that may hold `text` (a superset of the LIKE matches:
    every trigram of the text is in a matching row, and the tokenizer folds case at least as widely as
    LIKE), with its parameters; None when no row can. The rows come from the trigram index (description,
    violation name) and from the panels whose name holds the text."""
    query = _text_query(text.lower())
    fts = f"SELECT rowid FROM {ACTIVITIES_FTS} WHERE {ACTIVITIES_FTS} MATCH ?"
    named = "SELECT resource_id FROM panels WHERE lower(name) LIKE ? ESCAPE '\\'"
    panels = [r for (r,) in _rows(db, named, [_like(text)])]
    marks = ", ".join("?" for _ in panels)
    of_panels = f"SELECT rowid FROM activities WHERE resource_id IN ({marks})"
    # Up to FETCH_CANDIDATES + 1 of them, to know whether they are few; a common text stops early.
    found = [r for (r,) in _rows(db, f"{fts} LIMIT ?", [query, FETCH_CANDIDATES + 1])]
    if panels and len(found) <= FETCH_CANDIDATES:
        found += [r for (r,) in _rows(db, f"{of_panels} LIMIT ?", [*panels, FETCH_CANDIDATES + 1])]
    if not found:
        return None
    if len(found) <= FETCH_CANDIDATES:
        return "a.rowid IN (SELECT value FROM json_each(?))", [json.dumps(found)]
    # Many: `+` hides rowid and resource_id from the planner, which then walks the time index newest first
    # and stops at `limit`, probing each row against the index's answer (computed once).
    panel_rows = f" OR +a.resource_id IN ({marks})" if panels else ""
    return f"(+a.rowid IN ({fts}){panel_rows})", [query, *panels]


def _text_query(text: str) -> str:
    """An FTS5 query for the rows holding 4 trigrams spread over `text`, first and last among them: about as
    selective as the whole phrase, for a fraction of the doclists read. Each is quoted, never parsed."""
    trigrams = [text[i : i + TRIGRAM] for i in range(len(text) - TRIGRAM + 1)]
    last = len(trigrams) - 1
    spread = dict.fromkeys(trigrams[round(j * last / (TEXT_TRIGRAMS - 1))] for j in range(TEXT_TRIGRAMS))
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in spread)


_ALARM_COLUMNS = (
    "a.event_id, a.resource_id, p.name, a.org_id, a.activity_time, a.description, a.event_type,"
    " a.violation_name, a.violation_type"
)


def _alarm_row(r: tuple[Any, ...]) -> AlarmRow:
    return AlarmRow(
        event_id=r[0],
        resource_id=r[1],
        panel_name=r[2],
        org_id=r[3],
        activity_time=r[4] or 0,
        description=r[5],
        event_type=r[6],
        violation_name=r[7],
        violation_type=r[8],
    )


def recent_alarms(db: sqlite_utils.Database, flt: AlarmFilter, limit: int = 500) -> list[AlarmRow]:
    """Newest first.

    A text is searched first by walking the activities newest first (quick when it is common: the first
    `limit` matches come early), within a budget of SQLite steps. Past it the text is rare: the text index
    gives the candidate rows, fetched by rowid when they are few, else probed along the same walk. The
    LIKE of `_alarm_where` decides every row, so each way gives the same rows."""
    limit = max(0, int(limit))
    where, params, _ = _alarm_where(flt)
    text = clean_text(flt.text)
    if len(text.lower()) < TRIGRAM:
        return _alarms(db, where, [*params, limit])
    try:
        with _step_budget(db, SCAN_BUDGET_STEPS):
            return _alarms(db, where, [*params, limit])
    except sqlite3.OperationalError as exc:
        if "interrupted" not in str(exc):
            raise
    narrowed = _text_candidates(db, text)
    if narrowed is None:
        return []
    clause, extra = narrowed
    # Few candidates: NOT INDEXED makes SQLite fetch them by rowid rather than walk the time index.
    hint = "" if clause.startswith("(+") else " NOT INDEXED"
    return _alarms(db, f"{where} AND {clause}", [*params, *extra, limit], hint)


def count_alarms(db: sqlite_utils.Database, flt: AlarmFilter) -> int:
    """How many alarms `flt` matches in all (for "and N more" under a shortened list)."""
    where, params, _ = _alarm_where(flt)
    sql = f"SELECT count(*) FROM activities a LEFT JOIN panels p ON p.resource_id = a.resource_id{where}"
    return int(_rows(db, sql, params)[0][0])


def _alarms(db: sqlite_utils.Database, where: str, params: list[Any], hint: str = "") -> list[AlarmRow]:
    sql = (
        f"SELECT {_ALARM_COLUMNS} FROM activities a{hint} LEFT JOIN panels p ON p.resource_id = a.resource_id"
        f"{where} ORDER BY a.activity_time DESC, a.event_id DESC LIMIT ?"
    )
    return [_alarm_row(r) for r in _rows(db, sql, params)]


@contextlib.contextmanager
def _step_budget(db: sqlite_utils.Database, steps: int) -> Iterator[None]:
    """Interrupt the statements run inside after about `steps` virtual-machine steps: a count, not a clock,
    so the same query takes the same way on a busy machine as on an idle one."""
    calls = 0

    def tick() -> int:
        nonlocal calls
        calls += 1
        return int(calls * _STEPS_PER_TICK > steps)

    db.conn.set_progress_handler(tick, _STEPS_PER_TICK)
    try:
        yield
    finally:
        db.conn.set_progress_handler(None, 0)


def _camera_problems(
    status: str | None, bind_status: str | None, sd_card: str | None, enabled: bool | None = None
) -> tuple[str, ...]:
    """What is wrong with a camera, from what the service sent: operation 17 promises only a Resource
    summary (`enabled`), so a missing status is "not reported", never "offline"."""
    problems = []
    if enabled is False:
        problems.append("disabled")
    state = (status or "").strip().lower()
    if state in ("offline", "off", "0", "false", "disconnected"):
        problems.append("offline")
    elif state and state not in CAMERA_OK_STATUS:
        problems.append(f"status: {status}")
    if sd_card is not None and sd_card.strip().lower() not in SD_CARD_OK:
        problems.append(f"sd card: {sd_card}")
    if (bind_status or "").strip().lower() in ("unbound", "unbind", "0", "false"):
        problems.append("not bound")
    return tuple(problems)


def camera_summary(
    db: sqlite_utils.Database, org_id: int | None = None, text: str | None = None, problems_only: bool = False
) -> list[CameraRow]:
    """Cameras with problems first, then by name."""
    clauses, params = [], []
    if org_id is not None:
        clauses.append("org_id = ?")
        params.append(org_id)
    if text := clean_text(text):
        clauses.append("(lower(name) LIKE ? ESCAPE '\\' OR CAST(resource_id AS TEXT) = ?)")
        params += [_like(text), text]
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    sql = (
        "SELECT resource_id, org_id, name, brand, model, status, bind_status, sd_card_status, version,"
        f" ability, json_extract(raw, '$.enabled') FROM cameras{where}"
    )
    cameras = []
    for r in _rows(db, sql, params):
        enabled = None if r[10] is None else bool(r[10])
        problems = _camera_problems(r[5], r[6], r[7], enabled)
        if problems_only and not problems:
            continue
        abilities = tuple(a.strip() for a in (r[9] or "").split(",") if a.strip())
        cameras.append(CameraRow(*r[:9], capabilities=abilities, problems=problems, enabled=enabled))
    cameras.sort(key=lambda c: (not c.problems, (c.name or "").lower(), c.resource_id))
    return cameras


def _panel_row(r: tuple[Any, ...]) -> PanelRow:
    return PanelRow(
        resource_id=r[0],
        org_id=r[1],
        name=r[2],
        model=r[3],
        brand=r[4],
        enabled=None if r[5] is None else bool(r[5]),
    )


_PANEL_COLUMNS = "resource_id, org_id, name, model, brand, enabled"


def find_panels(
    db: sqlite_utils.Database, text: str | None = None, org_id: int | None = None, limit: int = 50
) -> list[PanelRow]:
    """By id (exact) or name (case-insensitive substring)."""
    clauses, params = [], []
    if org_id is not None:
        clauses.append("org_id = ?")
        params.append(org_id)
    if t := clean_text(text):
        clauses.append("(resource_id = ? OR lower(name) LIKE ? ESCAPE '\\')")
        params += [_id_or_none(t), _like(t)]
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    sql = f"SELECT {_PANEL_COLUMNS} FROM panels{where} ORDER BY name COLLATE NOCASE, resource_id LIMIT ?"
    return [_panel_row(r) for r in _rows(db, sql, [*params, max(0, int(limit))])]


def _id_or_none(text: str) -> int | None:
    """`text` as a panel id when it is one SQLite can hold (a longer number, or `²`, matches no id)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    number = int(text)
    return number if number <= INT64_MAX else None


def _partition_names(raw: str | None) -> tuple[str, ...]:
    try:
        items = json.loads(raw or "[]")
    except ValueError:
        return ()
    return tuple(f"{p.get('name')} ({p.get('no')})" for p in items if isinstance(p, dict))


def _oldest_success(db: sqlite_utils.Database, tables: tuple[str, ...]) -> int | None:
    marks = ", ".join("?" for _ in tables)
    rows = _rows(db, f"SELECT table_name, last_success FROM sync_state WHERE table_name IN ({marks})", tables)
    found = {t: s for t, s in rows}
    if any(found.get(t) is None for t in tables):
        return None
    return min(found.values())


def panel_detail(db: sqlite_utils.Database, resource_id: int, activities: int = 10) -> PanelDetail | None:
    found = _rows(db, f"SELECT {_PANEL_COLUMNS} FROM panels WHERE resource_id = ?", [resource_id])
    if not found:
        return None
    sensors_by_type: dict[str, list[SensorRow]] = {}
    sensor_sql = (
        "SELECT type, id, sensor_id, name, description, io_type, io_direction, partitions FROM sensors"
        " WHERE resource_id = ? ORDER BY type, order_no, id"
    )
    for r in _rows(db, sensor_sql, [resource_id]):
        sensors_by_type.setdefault(r[0] or "other", []).append(SensorRow(*r[1:7], _partition_names(r[7])))
    # Latest value by resourceControllerId, else by the controller's order number on the same panel.
    controller_sql = (
        "SELECT c.id, c.controller_id, c.name, c.description, c.io_type, c.io_direction, c.partitions,"
        " coalesce(v.value, w.value), coalesce(v.last_update, w.last_update) FROM controllers c"
        " LEFT JOIN controller_values v ON v.resource_controller_id = c.id"
        " LEFT JOIN controller_values w ON w.resource_id = c.resource_id AND w.order_no = c.order_no"
        " AND v.resource_controller_id IS NULL"
        " WHERE c.resource_id = ? GROUP BY c.id ORDER BY c.order_no, c.id"
    )
    controllers = [
        ControllerRow(*r[:6], partitions=_partition_names(r[6]), value=r[7], last_update=r[8])
        for r in _rows(db, controller_sql, [resource_id])
    ]
    last = recent_alarms(db, AlarmFilter(resource_id=resource_id, alarms_only=False), limit=activities)
    tables = ("panels", "sensors", "controllers", "controller_values", "activities")
    return PanelDetail(
        panel=_panel_row(found[0]),
        sensors_by_type=sensors_by_type,
        controllers=controllers,
        last_activities=last,
        data_as_of=_oldest_success(db, tables),
    )


def noisiest_panels(db: sqlite_utils.Database, since: int, limit: int = 10) -> list[tuple[PanelRow, int]]:
    sql = (
        f"SELECT a.resource_id, count(*) AS n FROM activities a WHERE a.activity_time >= ? AND {ALARM_SQL}"
        " AND a.resource_id IS NOT NULL GROUP BY a.resource_id ORDER BY n DESC, a.resource_id LIMIT ?"
    )
    counts = _rows(db, sql, [since, max(0, int(limit))])
    marks = ", ".join("?" for _ in counts)
    found = _rows(
        db, f"SELECT {_PANEL_COLUMNS} FROM panels WHERE resource_id IN ({marks})", [c[0] for c in counts]
    )
    panels = {r[0]: _panel_row(r) for r in found}
    return [(panels.get(rid) or PanelRow(rid, None, None, None, None, None), n) for rid, n in counts]


def _kind_counts(
    db: sqlite_utils.Database,
    since: int | None,
    until: int | None,
    org_id: int | None = None,
    violation_type: str | None = None,
) -> dict[tuple[int, str], int]:
    """Alarms per (hour, kind) in [since, until): whole hours from the `activity_hours` rollup, the partial
    hours at either end from activities, so the answer is exact and fast over millions of rows."""
    since = 0 if since is None else since
    until = 2**62 if until is None else until
    first = -(-since // HOUR_MS) * HOUR_MS  # first whole hour
    last = until // HOUR_MS * HOUR_MS  # end of the last whole hour
    extra, params = "", []
    if org_id is not None:
        extra += " AND org_id = ?"
        params.append(org_id)
    if violation_type is not None:
        extra += " AND violation_type = ?"
        params.append(violation_type)
    kind = "coalesce(violation_type, event_type, 'unknown')"
    edges = [(since, until)] if first >= last else [(since, first), (last, until)]
    counts: dict[tuple[int, str], int] = {}
    for lo, hi in edges:
        if lo >= hi:
            continue
        sql = (
            f"SELECT (activity_time / {HOUR_MS}) * {HOUR_MS} AS hour, {kind} AS kind, count(*)"
            " FROM activities"
            f" WHERE activity_time >= ? AND activity_time < ? AND {alarm_sql()}{extra}"
            " GROUP BY hour, kind"
        )
        for hour, k, n in _rows(db, sql, [lo, hi, *params]):
            counts[(hour, k)] = counts.get((hour, k), 0) + n
    if first < last:
        sql = (
            f"SELECT hour, {kind} AS kind, sum(n) FROM activity_hours WHERE hour >= ? AND hour < ?{extra}"
            " GROUP BY hour, kind"
        )
        for hour, k, n in _rows(db, sql, [first, last, *params]):
            counts[(hour, k)] = counts.get((hour, k), 0) + n
    return counts


def hourly_counts(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None = None
) -> list[HourCount]:
    """Alarms per hour and violationType in [since, until)."""
    counts = _kind_counts(db, since, until, org_id)
    return [HourCount(hour=h, violation_type=k, count=n) for (h, k), n in sorted(counts.items())]


def weekday_hour_counts(db: sqlite_utils.Database, flt: AlarmFilter) -> list[WeekdayHourCount]:
    if flt.alarms_only and flt.resource_id is None and flt.event_type is None and not clean_text(flt.text):
        # Every filter left is a dimension of the hourly rollup.
        cells: dict[tuple[int, int], int] = {}
        for (hour, _), n in _kind_counts(db, flt.since, flt.until, flt.org_id, flt.violation_type).items():
            # 1970-01-01 was a Thursday: weekday 3 with Monday = 0.
            cell = ((hour // DAY_MS + 3) % 7, hour // HOUR_MS % 24)
            cells[cell] = cells.get(cell, 0) + n
        return [WeekdayHourCount(weekday=w, hour=h, count=n) for (w, h), n in sorted(cells.items())]
    where, params, needs_panel = _alarm_where(flt)
    join = " LEFT JOIN panels p ON p.resource_id = a.resource_id" if needs_panel else ""
    sql = (
        f"SELECT (a.activity_time / {DAY_MS} + 3) % 7 AS wd, (a.activity_time / {HOUR_MS}) % 24 AS hr,"
        f" count(*) FROM activities a{join}{where} GROUP BY wd, hr ORDER BY wd, hr"
    )
    return [WeekdayHourCount(weekday=w, hour=h, count=n) for w, h, n in _rows(db, sql, params)]


def freshness(db: sqlite_utils.Database) -> list[TableFreshness]:
    state = {
        r[0]: r[1:]
        for r in _rows(db, "SELECT table_name, last_success, last_error, last_error_at FROM sync_state")
    }
    result = []
    for table in SYNCED_TABLES:
        rows = _rows(db, f'SELECT count(*) FROM "{table}"')[0][0]
        last_success, last_error, last_error_at = state.get(table, (None, None, None))
        result.append(TableFreshness(table, last_success, last_error, last_error_at, rows))
    return result


def kpis(db: sqlite_utils.Database, now: int) -> Kpis:
    """The Overview's tiles over [now - 24 h, now). The counts read indexes only (the covering one on
    activity_time and the kinds, schema v5), never the table: the cost is the day's, not the cache's size."""
    since = now - DAY_MS
    # One range count per hour: each an index range, where a GROUP BY would sort the day's rows.
    per_hour = [
        n
        for (n,) in _rows(
            db,
            "WITH RECURSIVE h(b) AS (SELECT 0 UNION ALL SELECT b + 1 FROM h WHERE b < 23)"
            f" SELECT (SELECT count(*) FROM activities a INDEXED BY {TIME_KINDS_INDEX}"
            f" WHERE a.activity_time >= ? + h.b * {HOUR_MS} AND a.activity_time < ? + (h.b + 1) * {HOUR_MS}"
            f" AND {ALARM_SQL}) FROM h ORDER BY h.b",
            [since, since],
        )
    ]
    panels = _rows(
        db,
        # No index named: with statistics SQLite skips along (resource_id, activity_time), quicker still.
        "SELECT count(DISTINCT a.resource_id) FROM activities a"
        f" WHERE a.activity_time >= ? AND a.activity_time < ? AND {ALARM_SQL}",
        [since, now],
    )[0][0]
    errors = _rows(
        db,
        "SELECT count(*) FROM (SELECT DISTINCT a.resource_id, a.violation_name FROM activities a"
        f" INDEXED BY {TIME_KINDS_INDEX}"
        " WHERE a.activity_time >= ? AND a.activity_time < ? AND a.event_type = 'error')",
        [since, now],
    )[0][0]
    cameras = camera_summary(db)
    # Nothing to count from when no camera reports a status (operation 17 does not promise one).
    reported = not cameras or any(c.status for c in cameras)
    sd_reported = not cameras or any(c.sd_card_status for c in cameras)
    return Kpis(
        alarms_24h=sum(per_hour),
        panels_with_alarms_24h=panels,
        cameras_offline=sum(
            1 for c in cameras if any(p == "offline" or p.startswith("status:") for p in c.problems)
        )
        if reported
        else None,
        sd_card_problems=sum(1 for c in cameras if any(p.startswith("sd card:") for p in c.problems))
        if sd_reported
        else None,
        sensors_with_errors_24h=errors,
        alarms_per_hour_24h=per_hour,
    )
