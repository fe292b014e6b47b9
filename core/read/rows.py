"""The records the read API returns, and how it reads rows: by column name, as dicts.

Every reader takes an open database (from `core.cache.db.open_cache` or `open_reader`) and returns these
frozen dataclasses, never SQL rows, so that pages and listeners hold no SQL. Times are epoch-ms integers.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar, cast

from core.alarms import Alarm
from core.sqlite_lib import sqlite_utils

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# The read API's name for an alarm record: the one `core.alarms.Alarm`.
AlarmRow = Alarm


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
    weekday: int  # 0 = Monday ... 6 = Sunday (on the clock asked for, UTC by default)
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
    cameras_disabled: int = 0  # `enabled` false (a spec field, so always known); core.cameras.DISABLED


Params = Sequence[Any]
T = TypeVar("T", bound="DataclassInstance")


def record(cls: type[T], row: Mapping[str, Any], **computed: Any) -> T:
    """A record dataclass from a row whose columns are named as its fields; `computed` gives the others."""
    named = {f.name: row[f.name] for f in fields(cls) if f.name not in computed}
    return cls(**named, **computed)


# sqlite-utils leaves the types of its `params` (a bare Sequence) and of its rows (a bare dict) open, so a
# strict checker reads its `query` and `execute` as partially unknown: these helpers take that on once, for
# every read that goes through them.


def query(db: sqlite_utils.Database, sql: str, params: Params = ()) -> list[dict[str, Any]]:
    """The rows of `sql` as dicts keyed by column name (name every computed column with AS)."""
    rows = db.query(sql, list(params))  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return cast("list[dict[str, Any]]", list(rows))  # pyright: ignore[reportUnknownArgumentType]


def _cursor(db: sqlite_utils.Database, sql: str, params: Params) -> sqlite3.Cursor:
    """`sql` run as sqlite-utils runs it; scalar, column, tuples and first read their rows from it."""
    return db.execute(sql, list(params))  # pyright: ignore[reportUnknownMemberType]


def scalar(db: sqlite_utils.Database, sql: str, params: Params = ()) -> Any:
    """The first column of the first row of `sql` (a count, a sum)."""
    return _cursor(db, sql, params).fetchone()[0]


def column(db: sqlite_utils.Database, sql: str, params: Params = ()) -> list[Any]:
    """The first column of every row of `sql` (ids, rowids)."""
    return [row[0] for row in _cursor(db, sql, params).fetchall()]


def tuples(db: sqlite_utils.Database, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
    """Every row of `sql` as a tuple in column order, where positions read as well as names (pairs)."""
    return _cursor(db, sql, params).fetchall()


def first(db: sqlite_utils.Database, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
    """The first row of `sql` as a tuple in column order, None when it has none (a lookup by key)."""
    return _cursor(db, sql, params).fetchone()


def marks(values: Sized) -> str:
    """One `?` per value, for an IN list."""
    return ", ".join("?" for _ in range(len(values)))


def clean_text(text: str | None) -> str:
    """Search text as it is searched: control characters gone (tabs and line breaks become spaces), stripped.

    SQLite reads a LIKE pattern as a C string, so a NUL would end it there: `%<NUL>%` is `%`, which matches
    every row. Other control characters match nothing anyone could have meant."""
    kept = (ch if unicodedata.category(ch) != "Cc" else " " if ch.isspace() else "" for ch in text or "")
    return "".join(kept).strip()


def like(text: str) -> str:
    """A LIKE pattern (with `ESCAPE '\\'`) for `text` anywhere, case-folded as `lower()` folds it."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def where(clauses: list[str]) -> str:
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""
