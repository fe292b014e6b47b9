"""The team's records: samops' own tables, kept in `records.db` beside the re-syncable cache.

The cache (`cache.db`) holds what the service can give again; `records.db` holds what only samops knows
(what it posted, who acknowledged, silenced or lifted what, incidents, claims, the audit log). Every
connection to the cache ATTACHes the records file as the schema `records`, so a statement names a table
without its schema and SQLite finds it (main, then temp, then attached schemas): no query changed.

Two files are two WAL logs, and SQLite does not commit one transaction over both atomically. So every
write to the records is idempotent by its own key (an `eventId`, a claim key, a card's ts), and a
transaction that writes both commits the cache (main) before the records: a crash in between leaves the
records behind the cache, and the next cycle repeats the records' part (docs/storage.md).

`RECORDS_MIGRATIONS[n]` takes `records.db` from version n to n + 1; a migration of a records table goes
there, naming its schema (`CREATE INDEX IF NOT EXISTS records.x ON t (...)`), never into the cache's.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from core.cache.sql import execute, query
from core.cache.transactions import write_transaction
from core.sqlite_lib import sqlite_utils

SCHEMA = "records"
META = "records_meta"  # not `meta`: an unqualified `meta` must always mean the cache's own

# The tables of samops' own records that the cache file held before records.db (its version 11).
FROM_CACHE_TABLES: tuple[str, ...] = (
    "notify_outbox",  # what the notifier discovered and posted (exactly once), with each card's ts
    "notify_state",  # the notifier's baseline, watermark and health flags
    "notify_cards",  # storm cards and their threads
    "alarm_acks",  # acknowledgements before the lifecycle (no longer written, kept)
    "panel_silences",  # silences before quiet_windows (no longer written, kept)
    "alarm_state",  # each alarm's lifecycle: acknowledged, assigned, resolved, by whom
    "alarm_changes",  # every change to it
    "quiet_windows",  # silences and maintenance windows
    "quiet_held",  # which window held each alarm not posted
    "incidents",  # site incidents and their cards
    "incident_evidence",  # what joined each incident
    "camera_changes",  # when a camera was first seen offline: the service keeps no such history
    "bot_dedupe",  # keys claimed once across processes
    "task_state",  # the last operation-5 body samops sent for each task
    "audit_log",  # who did what through the bot, and the outcome
)
# Every table of samops' own records (docs/storage.md lists them with the re-syncable ones).
RECORDS_TABLES: tuple[str, ...] = (
    *FROM_CACHE_TABLES,
    "plan_ticks",  # each action-plan step ticked on an alarm: who, when (core/cache/plans.py)
    "plan_overrides",  # each alarm resolved with mandatory steps left, by an admin: why
    "page_prefs",  # each person's paging preferences, /sam notify-me (core/cache/paging.py)
    "pages_sent",  # each direct message paged: once per (person, alarm, level)
)

# The cache version whose records tables `records.db` started from (the last one holding them itself).
RECORDS_FROM_CACHE_VERSION = 11


def records_path(cache: Path) -> Path:
    """`records.db` beside `cache.db`; beside another name (SAMOPS_DB=x.db), `x-records.db`."""
    if cache.name == "cache.db":
        return cache.with_name("records.db")
    return cache.with_name(f"{cache.stem}-records.db")


@functools.cache
def _records_ddl() -> tuple[str, ...]:
    """The CREATE statements of the records tables and their indexes as cache version 11 made them, each
    in the `records` schema. Taken from the cache's own migrations, so the two can never differ."""
    from core.cache.schema import MIGRATIONS

    scratch = sqlite_utils.Database(memory=True)
    for migration in MIGRATIONS[:RECORDS_FROM_CACHE_VERSION]:
        execute(scratch, "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        migration(scratch)
    rows = scratch.conn.execute(
        "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN "
        f"({', '.join('?' * len(FROM_CACHE_TABLES))}) ORDER BY type DESC, rowid",  # tables before indexes
        FROM_CACHE_TABLES,
    ).fetchall()
    scratch.conn.close()
    qualify = re.compile(r"^CREATE (UNIQUE )?(TABLE|INDEX) (IF NOT EXISTS )?", re.IGNORECASE)
    return tuple(qualify.sub(rf"CREATE \1\2 IF NOT EXISTS {SCHEMA}.", sql, count=1) for _, sql in rows)


def _r1_tables(db: sqlite_utils.Database) -> None:
    for statement in _records_ddl():
        db.conn.execute(statement)


def _r2_action_plans(db: sqlite_utils.Database) -> None:
    """The ticks of action-plan steps (one per alarm and step: a tick is never doubled) and the overrides of
    an alarm's mandatory steps at Resolve (core/cache/plans.py)."""
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.plan_ticks (event_id TEXT NOT NULL, step TEXT NOT NULL,"
        " plan TEXT NOT NULL, by_user TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (event_id, step))"
    )
    db.conn.execute(f"CREATE INDEX IF NOT EXISTS {SCHEMA}.plan_ticks_by_user ON plan_ticks (by_user, at)")
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.plan_overrides (event_id TEXT PRIMARY KEY, plan TEXT NOT NULL,"
        " by_user TEXT NOT NULL, at INTEGER NOT NULL, reason TEXT NOT NULL, steps_left TEXT NOT NULL)"
    )


def _r3_dispositions(db: sqlite_utils.Database) -> None:
    # What each resolved alarm was resolved as (core/dispositions.py). Not in RECORDS_TABLES: that list is
    # the tables cache version 11 held, which records.db started from. Code, label and class are kept as
    # they were at the resolution: a label renamed later does not rewrite history.
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.alarm_dispositions (event_id TEXT PRIMARY KEY,"
        " code TEXT NOT NULL, label TEXT NOT NULL, class TEXT NOT NULL, at INT NOT NULL,"
        " by_user TEXT NOT NULL)"
    )
    db.conn.execute(f"CREATE INDEX IF NOT EXISTS {SCHEMA}.alarm_dispositions_at ON alarm_dispositions (at)")


def _r4_paging(db: sqlite_utils.Database) -> None:
    """Personal paging (docs/paging.md): each person's preferences, and each direct message sent, keyed by
    (person, alarm, level) so that none is sent twice, across restarts and notifiers."""
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.page_prefs (slack_user TEXT PRIMARY KEY,"
        " enabled INTEGER NOT NULL, priorities TEXT NOT NULL, quiet_from TEXT, quiet_to TEXT, zone TEXT,"
        " updated_at INTEGER NOT NULL)"
    )
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.pages_sent (slack_user TEXT NOT NULL, event_id TEXT NOT NULL,"
        " level INTEGER NOT NULL, at INTEGER NOT NULL, why TEXT NOT NULL, channel TEXT, ts TEXT,"
        " PRIMARY KEY (slack_user, event_id, level))"
    )
    db.conn.execute(f"CREATE INDEX IF NOT EXISTS {SCHEMA}.pages_sent_by_message ON pages_sent (channel, ts)")


def _add_column(db: sqlite_utils.Database, table: str, column: str, declaration: str) -> None:
    """ALTER TABLE … ADD COLUMN, once: a step run again (a file whose version was set back) finds it there."""
    columns = {str(row["name"]) for row in query(db, f"PRAGMA {SCHEMA}.table_info([{table}])")}
    if column not in columns:
        db.conn.execute(f"ALTER TABLE {SCHEMA}.{table} ADD COLUMN {column} {declaration}")


def _r5_life_safety(db: sqlite_utils.Database) -> None:
    """Life-safety alarms (core/life_safety.py): a maintenance window holds them only when planned to
    (`hold_life_safety`); a window remembers the audit reference it was made under (a silence's reason reads
    "held: silence R-…"); and the life-safety alarms posted during a window, marked so on their card, are
    recorded with it (`quiet_marked`, as `quiet_held` records those held)."""
    _add_column(db, "quiet_windows", "hold_life_safety", "INTEGER NOT NULL DEFAULT 0")
    _add_column(db, "quiet_windows", "reference", "TEXT")
    db.conn.execute(
        f"CREATE TABLE IF NOT EXISTS {SCHEMA}.quiet_marked (event_id TEXT PRIMARY KEY,"
        " window_id INTEGER NOT NULL)"
    )


RecordsMigration = Callable[[sqlite_utils.Database], None]
RECORDS_MIGRATIONS: list[RecordsMigration] = [
    _r1_tables,
    _r2_action_plans,
    _r3_dispositions,
    _r4_paging,
    _r5_life_safety,
]
RECORDS_VERSION = len(RECORDS_MIGRATIONS)


def _has_meta(db: sqlite_utils.Database) -> bool:
    sql = f"SELECT 1 FROM {SCHEMA}.sqlite_master WHERE type = 'table' AND name = ?"
    return db.conn.execute(sql, [META]).fetchone() is not None


def get_meta(db: sqlite_utils.Database, key: str) -> str | None:
    if not _has_meta(db):
        return None
    row = db.conn.execute(f"SELECT value FROM {SCHEMA}.{META} WHERE key = ?", [key]).fetchone()
    return None if row is None else str(row[0])


def set_meta(db: sqlite_utils.Database, key: str, value: str) -> None:
    execute(
        db,
        f"INSERT INTO {SCHEMA}.{META} (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )


def records_version(db: sqlite_utils.Database) -> int:
    return int(get_meta(db, "schema_version") or 0)


class RecordsTooNewError(RuntimeError):
    """records.db was written by a newer samops than this one."""


def migrate_records(db: sqlite_utils.Database) -> None:
    """Bring the attached records file to RECORDS_VERSION, one transaction per step."""
    found = records_version(db)
    if found > RECORDS_VERSION:
        raise RecordsTooNewError(
            f"records schema version {found} is newer than this samops ({RECORDS_VERSION})"
        )
    for version in range(found, RECORDS_VERSION):
        with write_transaction(db):
            if records_version(db) != version:
                continue
            execute(db, f"CREATE TABLE IF NOT EXISTS {SCHEMA}.{META} (key TEXT PRIMARY KEY, value TEXT)")
            RECORDS_MIGRATIONS[version](db)
            set_meta(db, "schema_version", str(version + 1))


def tables_in_main(db: sqlite_utils.Database) -> list[str]:
    """The records tables the cache file itself still holds (the layout before records.db)."""
    names = {row[0] for row in db.conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
    return [name for name in FROM_CACHE_TABLES if name in names]


def copy_out_of_main(db: sqlite_utils.Database) -> int:
    """Copy every row of the records tables the cache file holds into records.db, keeping rowids (a storm
    card names its outbox rowid); rows already there are kept as they are. Idempotent, so a crash before
    the tables are dropped from the cache repeats it safely. Returns the rows copied."""
    copied = 0
    with write_transaction(db):
        for table in tables_in_main(db):
            columns = [str(row["name"]) for row in query(db, f"PRAGMA main.table_info([{table}])")]
            names = ", ".join(["rowid", *(f"[{c}]" for c in columns)])
            cursor = db.conn.execute(
                f"INSERT OR IGNORE INTO {SCHEMA}.[{table}] ({names}) SELECT {names} FROM main.[{table}]"
            )
            copied += max(cursor.rowcount, 0)
    return copied


def drop_from_main(db: sqlite_utils.Database) -> None:
    """The cache's migration to RECORDS_APART (13): its copies of the records tables go (copied before)."""
    for table in tables_in_main(db):
        db.conn.execute(f"DROP TABLE main.[{table}]")


def attach(conn: sqlite3.Connection, target: str) -> None:
    conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", [target])
