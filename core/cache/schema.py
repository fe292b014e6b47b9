"""The cache's tables, indexes and schema migrations.

`MIGRATIONS[n]` upgrades a cache from version n to n + 1; each runs in one transaction together with the
version bump, so a cache is always at exactly one version. Never edit a released migration: append one.
"""

from __future__ import annotations

from collections.abc import Callable

from core.cache.alarm_sql import alarm_sql
from core.cache.records import copy_out_of_main, drop_from_main, migrate_records
from core.cache.sql import execute
from core.cache.transactions import write_transaction
from core.clock import HOUR_MS
from core.sqlite_lib import sqlite_utils

ACTIVITY_COLUMNS: dict[str, type] = {
    "event_id": str,
    "resource_id": int,
    "org_id": int,
    "activity_time": int,
    "description": str,
    "event_type": str,
    "violation_name": str,
    "violation_type": str,
    "msg_type": int,
    "vio_type": int,
    "grp": int,
}

# The spec gives sensors and controllers the same I/O point fields.
_IO_POINT_COLUMNS: dict[str, type] = {
    "description": str,
    "io_type": str,
    "io_direction": str,
    "partitions": str,
    "raw": str,
}

# table -> (columns, primary key), as docs/architecture.md lists them.
TABLES_V1: dict[str, tuple[dict[str, type], str]] = {
    "organizations": ({"id": int, "name": str}, "id"),
    "users": (
        {
            "user_id": int,
            "org_id": int,
            "screen_name": str,
            "email": str,
            "first_name": str,
            "last_name": str,
            "status": int,
            "raw": str,
        },
        "user_id",
    ),
    "panels": (
        {
            "resource_id": int,
            "org_id": int,
            "name": str,
            "network_id": str,
            "model": str,
            "brand": str,
            "enabled": int,
            "resource_type": str,
            "tree_path": str,
            "raw": str,
        },
        "resource_id",
    ),
    "sensors": (
        {
            "id": int,
            "resource_id": int,
            "sensor_id": int,
            "order_no": int,
            "type": str,
            "name": str,
            **_IO_POINT_COLUMNS,
        },
        "id",
    ),
    "controllers": (
        {
            "id": int,
            "resource_id": int,
            "controller_id": int,
            "order_no": int,
            "name": str,
            **_IO_POINT_COLUMNS,
        },
        "id",
    ),
    "controller_values": (
        {
            "resource_controller_id": int,
            "resource_id": int,
            "order_no": int,
            "value": str,
            "last_update": int,
        },
        "resource_controller_id",
    ),
    "cameras": (
        {
            "resource_id": int,
            "org_id": int,
            "name": str,
            "brand": str,
            "device_type": str,
            "model": str,
            "status": str,
            "bind_status": str,
            "sd_card_status": str,
            "version": str,
            "ability": str,
            "raw": str,
        },
        "resource_id",
    ),
    "activities": (ACTIVITY_COLUMNS, "event_id"),
    "push_history": (ACTIVITY_COLUMNS, "event_id"),
    "sync_state": (
        {
            "table_name": str,
            "last_success": int,
            "last_error": str,
            "last_error_at": int,
            "cursor": int,
            "rows": int,
        },
        "table_name",
    ),
    "notify_outbox": (
        {
            "event_id": str,
            "channel": str,
            "state": str,
            "ts": str,
            "posted_at": int,
            "attempts": int,
            "last_error": str,
        },
        "event_id",
    ),
    "alarm_acks": ({"event_id": str, "slack_user": str, "at": int}, "event_id"),
    "panel_silences": ({"resource_id": int, "until": int, "slack_user": str}, "resource_id"),
}


def _v1_tables(db: sqlite_utils.Database) -> None:
    for name, (columns, pk) in TABLES_V1.items():
        db.table(name).create(columns, pk=pk, if_not_exists=True)
    db.table("audit_log").create(
        {
            "id": int,
            "at": int,
            "slack_user": str,
            "command": str,
            "org_id": int,
            "outcome": str,
            "summary": str,
            "reference": str,
        },
        pk="id",
        if_not_exists=True,
    )


# (table, columns) of every index the read API and the sync rely on.
INDEXES_V2: list[tuple[str, list[str]]] = [
    ("activities", ["activity_time"]),
    ("activities", ["org_id", "activity_time"]),
    ("activities", ["resource_id", "activity_time"]),
    ("activities", ["violation_type", "activity_time"]),
    ("push_history", ["resource_id", "activity_time"]),
    ("push_history", ["activity_time"]),
    ("users", ["org_id"]),
    ("panels", ["org_id"]),
    ("sensors", ["resource_id"]),
    ("controllers", ["resource_id"]),
    ("controller_values", ["resource_id", "order_no"]),
    ("cameras", ["org_id"]),
    ("notify_outbox", ["state"]),
    ("audit_log", ["at"]),
]


def _v2_indexes_and_panel_cursors(db: sqlite_utils.Database) -> None:
    for table, columns in INDEXES_V2:
        db.table(table).create_index(columns, if_not_exists=True)
    # Per-panel cursors, so that a panel that failed is re-fetched from where *it* stopped.
    db.table("panel_cursors").create(
        {"table_name": str, "resource_id": int, "cursor": int},
        pk=("table_name", "resource_id"),
        if_not_exists=True,
    )
    db.table("sync_state").add_column("last_attempt", int)


def rebuild_activity_hours(
    db: sqlite_utils.Database, since: int | None = None, until: int | None = None
) -> None:
    """Recount from activities the alarms of the hours overlapping [since, until] (all when not given)."""
    lo = 0 if since is None else since // HOUR_MS * HOUR_MS
    hi = 2**62 if until is None else (until // HOUR_MS + 1) * HOUR_MS
    db.conn.execute("DELETE FROM activity_hours WHERE hour >= ? AND hour < ?", [lo, hi])
    db.conn.execute(
        "INSERT INTO activity_hours (hour, org_id, violation_type, event_type, n)"
        f" SELECT (activity_time / {HOUR_MS}) * {HOUR_MS}, org_id, violation_type, event_type, count(*)"
        f" FROM activities WHERE activity_time >= ? AND activity_time < ? AND {alarm_sql()}"
        " GROUP BY 1, 2, 3, 4",
        [lo, hi],
    )


def _v3_activity_hours(db: sqlite_utils.Database) -> None:
    # Alarms per hour, so that charts over a million activities answer in milliseconds. Kept exact by
    # writes.upsert_activities and writes.delete_missing, in the same transaction as the activities.
    db.table("activity_hours").create(
        {"hour": int, "org_id": int, "violation_type": str, "event_type": str, "n": int}, if_not_exists=True
    )
    db.table("activity_hours").create_index(["hour"], if_not_exists=True)
    rebuild_activity_hours(db)


# The text search of the read API (`AlarmFilter.text`): a trigram FTS5 index over the activities' own text
# columns, external content (the text is stored once, in activities). Triggers keep it exact in the same
# transaction as whatever writes activities (upserts, delete_missing, a bench's raw INSERT). It is keyed by
# the activities' implicit rowid, which VACUUM may renumber: after a VACUUM, run
# `INSERT INTO activities_fts(activities_fts) VALUES ('rebuild')`.
ACTIVITIES_FTS = "activities_fts"
_FTS_TRIGGERS = (
    f"""CREATE TRIGGER IF NOT EXISTS activities_fts_insert AFTER INSERT ON activities BEGIN
        INSERT INTO {ACTIVITIES_FTS} (rowid, description, violation_name)
            VALUES (new.rowid, new.description, new.violation_name);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS activities_fts_delete AFTER DELETE ON activities BEGIN
        INSERT INTO {ACTIVITIES_FTS} ({ACTIVITIES_FTS}, rowid, description, violation_name)
            VALUES ('delete', old.rowid, old.description, old.violation_name);
    END""",
    # An upsert rewrites every column: re-index only when the indexed text (or the rowid) really changed,
    # so that a sync fetching the same activities again costs the index nothing.
    f"""CREATE TRIGGER IF NOT EXISTS activities_fts_update AFTER UPDATE ON activities
        WHEN old.rowid != new.rowid OR old.description IS NOT new.description
            OR old.violation_name IS NOT new.violation_name
    BEGIN
        INSERT INTO {ACTIVITIES_FTS} ({ACTIVITIES_FTS}, rowid, description, violation_name)
            VALUES ('delete', old.rowid, old.description, old.violation_name);
        INSERT INTO {ACTIVITIES_FTS} (rowid, description, violation_name)
            VALUES (new.rowid, new.description, new.violation_name);
    END""",
)


def _v4_activities_text_index(db: sqlite_utils.Database) -> None:
    db.conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {ACTIVITIES_FTS} USING fts5(description, violation_name,"
        " content='activities', content_rowid='rowid', tokenize='trigram')"
    )
    for trigger in _FTS_TRIGGERS:
        db.conn.execute(trigger)
    # Index the activities already cached.
    db.conn.execute(f"INSERT INTO {ACTIVITIES_FTS} ({ACTIVITIES_FTS}) VALUES ('rebuild')")


TIME_KINDS_INDEX = "idx_activities_time_kinds"


def _v5_activity_time_covering_index(db: sqlite_utils.Database) -> None:
    # The KPIs count the last 24 h by event kind, panel and violation name: with every column they read in
    # the index, they never touch the table. It starts with activity_time, so it replaces that index.
    db.table("activities").create_index(
        ["activity_time", "event_type", "violation_type", "resource_id", "violation_name"],
        index_name=TIME_KINDS_INDEX,
        if_not_exists=True,
    )
    db.conn.execute("DROP INDEX IF EXISTS idx_activities_activity_time")


REJECTED_RECORDS = "rejected_records"


def _v6_rejected_records(db: sqlite_utils.Database) -> None:
    # Records the last sync dropped as invalid (an int beyond 64 bits, a time outside 2000..2100, a wrong
    # type), per operation and field, for `samops status`. Replaced as a whole by every sync.
    db.table(REJECTED_RECORDS).create(
        {"operation": str, "record": str, "field": str, "reason": str, "count": int, "at": int},
        pk=("operation", "record", "field", "reason"),
        if_not_exists=True,
    )


def _v7_side_tables(db: sqlite_utils.Database) -> None:
    # Tables that samops before v7 created outside the migrations, the first time a module needed them
    # (IF NOT EXISTS: a cache written then has them). Now every table comes from here.
    # The notifier's state (first-start baseline, health flags) and its storm cards.
    db.table("notify_state").create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db.table("notify_cards").create(
        {
            "ts": str,
            "channel": str,
            "resource_id": int,
            "opened_at": int,
            "updated_at": int,
            "details_rowid": int,
        },
        pk="ts",
        if_not_exists=True,
    )
    db.table("notify_cards").create_index(["channel", "resource_id", "updated_at"], if_not_exists=True)
    db.table("notify_outbox").create_index(["ts"], if_not_exists=True)
    db.table("notify_outbox").create_index(["channel", "posted_at"], if_not_exists=True)
    # The bot's once-only claims of a write (core/cache/claims.py).
    db.table("bot_dedupe").create({"key": str, "at": int}, pk="key", if_not_exists=True)
    # The last operation-5 body samops sent for each scheduled task (core/cache/tasks.py).
    db.table("task_state").create(
        {"task_id": int, "org_id": int, "updated_at": int, "updated_by": str, "body": str},
        pk="task_id",
        if_not_exists=True,
    )


def _v8_alarm_lifecycle(db: sqlite_utils.Database) -> None:
    # The alarm lifecycle (core/lifecycle.py): where each alarm is now, and every change to it. Column
    # names are a contract: the handover digest reads them too.
    db.conn.execute(
        "CREATE TABLE IF NOT EXISTS alarm_state (event_id TEXT PRIMARY KEY, state TEXT NOT NULL,"
        " assignee TEXT NULL, opened_at INT NOT NULL, acknowledged_at INT NULL, acknowledged_by TEXT NULL,"
        " resolved_at INT NULL, resolved_by TEXT NULL, note TEXT NULL, updated_at INT)"
    )
    db.conn.execute(
        "CREATE TABLE IF NOT EXISTS alarm_changes (id INTEGER PRIMARY KEY, event_id TEXT, at INT,"
        " by_user TEXT, change TEXT, note TEXT NULL)"
    )
    db.table("alarm_changes").create_index(["event_id"], if_not_exists=True)
    db.table("alarm_changes").create_index(["at"], if_not_exists=True)
    db.table("alarm_state").create_index(["state"], if_not_exists=True)
    # Acknowledgements made before the lifecycle existed carry over, with their time and who.
    db.conn.execute(
        "INSERT OR IGNORE INTO alarm_state (event_id, state, opened_at, acknowledged_at, acknowledged_by,"
        " updated_at) SELECT k.event_id, 'acknowledged', COALESCE(a.activity_time, k.at), k.at, k.slack_user,"
        " k.at FROM alarm_acks k LEFT JOIN activities a ON a.event_id = k.event_id"
    )
    db.conn.execute(
        "INSERT INTO alarm_changes (event_id, at, by_user, change) SELECT event_id, at, slack_user,"
        " 'acknowledged' FROM alarm_acks"
    )


def _v9_quiet_windows(db: sqlite_utils.Database) -> None:
    # Silences (of a panel, from a card's button) and maintenance windows (of a panel or an organization,
    # from /sam maintenance or an occurrence of a weekly [[notify.maintenance]] entry), in one table so that
    # "is this alarm held back, and by what" has one answer. `lifted_at` ends one early; `summarized_at`
    # is set once the message about what it held back is out. `config_key` makes a TOML occurrence one row.
    db.conn.execute(
        """CREATE TABLE IF NOT EXISTS quiet_windows (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            resource_id INTEGER,
            org_id INTEGER,
            starts_at INTEGER NOT NULL,
            ends_at INTEGER NOT NULL,
            reason TEXT,
            created_by TEXT,
            created_at INTEGER NOT NULL,
            config_key TEXT UNIQUE,
            lifted_at INTEGER,
            lifted_by TEXT,
            summarized_at INTEGER
        )"""
    )
    db.conn.execute("CREATE INDEX IF NOT EXISTS idx_quiet_windows_ends ON quiet_windows (ends_at)")
    # Which window held each alarm the notifier recorded but did not post (outbox state 'silenced').
    db.conn.execute(
        "CREATE TABLE IF NOT EXISTS quiet_held (event_id TEXT PRIMARY KEY, window_id INTEGER NOT NULL)"
    )
    db.conn.execute("CREATE INDEX IF NOT EXISTS idx_quiet_held_window ON quiet_held (window_id)")
    # Silences still in force move over; panel_silences is no longer written.
    db.conn.execute(
        "INSERT INTO quiet_windows (kind, resource_id, starts_at, ends_at, created_by, created_at) "
        "SELECT 'silence', resource_id, 0, until, slack_user, 0 FROM panel_silences"
        " WHERE until > CAST(strftime('%s', 'now') AS INTEGER) * 1000"
    )


def _v10_panel_access(db: sqlite_utils.Database) -> None:
    # Who is authorized on each panel (operation 2) with their privilege groups and validity windows
    # (operation 15), as core/panel_access.py last fetched them; read by core/read/who_can.py. No pin codes.
    db.table("panel_access").create(
        {
            "resource_id": int,
            "user_id": int,
            "org_id": int,
            "name": str,
            "groups": str,  # JSON list of group names ("group 3" when the service gives no name)
            "validity": str,  # JSON {start, expiration, windows: [[dayOfWeek, start, end], ...], listed}
            "fetched_at": int,
        },
        pk=("resource_id", "user_id"),
        if_not_exists=True,
    )


def _v11_site_incidents(db: sqlite_utils.Database) -> None:
    """Site incidents (core/incidents.py): each incident of a panel with its card, the evidence joined into
    it, and the camera changes (offline or out of service) seen by the sync or the notifier."""
    execute(
        db,
        "CREATE TABLE IF NOT EXISTS incidents (id INTEGER PRIMARY KEY, resource_id INTEGER NOT NULL,"
        " org_id INTEGER, first_time INTEGER NOT NULL, last_time INTEGER NOT NULL, evidence INTEGER NOT NULL,"
        " kinds INTEGER NOT NULL DEFAULT 1, channel TEXT, card_ts TEXT, version INTEGER NOT NULL DEFAULT 0,"
        " edited INTEGER NOT NULL DEFAULT 0, created_at INTEGER)",
    )
    execute(db, "CREATE INDEX IF NOT EXISTS incidents_panel ON incidents (resource_id, last_time)")
    execute(db, "CREATE INDEX IF NOT EXISTS incidents_card ON incidents (card_ts)")
    # Every delivery asks which incident cards wait for an edit: few rows, whatever the history.
    execute(
        db,
        "CREATE INDEX IF NOT EXISTS incidents_to_edit ON incidents (channel, last_time)"
        " WHERE card_ts IS NOT NULL AND kinds >= 2 AND version > edited",
    )
    execute(db, "CREATE INDEX IF NOT EXISTS incidents_shown ON incidents (last_time) WHERE kinds >= 2")
    execute(
        db,
        "CREATE TABLE IF NOT EXISTS incident_evidence (ref TEXT PRIMARY KEY, incident_id INTEGER NOT NULL,"
        " kind TEXT NOT NULL, time INTEGER NOT NULL, text TEXT, event_id TEXT, arrived_at INTEGER)",
    )
    execute(db, "CREATE INDEX IF NOT EXISTS incident_evidence_incident ON incident_evidence (incident_id)")
    execute(db, "CREATE INDEX IF NOT EXISTS incident_evidence_event ON incident_evidence (event_id)")
    execute(
        db,
        "CREATE TABLE IF NOT EXISTS camera_changes (id INTEGER PRIMARY KEY, camera_id INTEGER NOT NULL,"
        " org_id INTEGER, name TEXT, tree_path TEXT, problem TEXT NOT NULL, first_seen INTEGER NOT NULL)",
    )
    execute(db, "CREATE INDEX IF NOT EXISTS camera_changes_seen ON camera_changes (first_seen)")


def _v12_activities_seen_at(db: sqlite_utils.Database) -> None:
    # When samops first saw an activity arrive (core/cache/writes.py), NULL for history it read rather than
    # watched (a first poll's day, the backfill): a late arrival is found, and posted, by this time, not by
    # its own activityTime (docs/history.md).
    execute(db, "ALTER TABLE activities ADD COLUMN seen_at INT")
    execute(db, "CREATE INDEX IF NOT EXISTS idx_activities_seen_at ON activities (seen_at)")


def _v13_records_apart(db: sqlite_utils.Database) -> None:
    # samops' own records live in records.db from here on (core/cache/records.py). `migrate` has copied
    # them there in a transaction of its own before this step drops the cache's copies: two files commit
    # apart, so the copy is done (and repeatable) before anything is dropped.
    drop_from_main(db)


def _v14_panel_access_reads(db: sqlite_utils.Database) -> None:
    # How each panel's authorizations were last read (core/keyholder_reads.py, `/sam who-can`): when a read
    # last succeeded, when one was last tried and why it failed, and when what a card's keyholder line says
    # last changed kind (read, failed), so that a card posted before it is edited once (docs/keyholders.md).
    execute(
        db,
        "CREATE TABLE IF NOT EXISTS panel_access_reads (resource_id INTEGER PRIMARY KEY, org_id INTEGER,"
        " read_at INTEGER, tried_at INTEGER NOT NULL, error TEXT, changed_at INTEGER NOT NULL)",
    )


def _v15_bills(db: sqlite_utils.Database) -> None:
    # Each subscription's bills (operation 7) as core/bills.py last read them, for the at-risk list
    # (core/read/at_risk.py). Due and payment dates as epoch-ms when the service's text parses, else NULL.
    db.table("bills").create(
        {
            "subscription_id": int,
            "bill_id": str,
            "org_id": int,
            "bill_no": str,
            "due_at": int,
            "paid_at": int,
            "amount": float,
            "unit": str,
            "state": str,
            "fetched_at": int,
        },
        pk=("subscription_id", "bill_id"),
        if_not_exists=True,
    )
    execute(db, "CREATE INDEX IF NOT EXISTS idx_bills_org ON bills (org_id)")


Migration = Callable[[sqlite_utils.Database], None]

# MIGRATIONS[n] takes a cache at version n to n + 1 (version 0 = an empty file).
MIGRATIONS: list[Migration] = [
    _v1_tables,
    _v2_indexes_and_panel_cursors,
    _v3_activity_hours,
    _v4_activities_text_index,
    _v5_activity_time_covering_index,
    _v6_rejected_records,
    _v7_side_tables,
    _v8_alarm_lifecycle,
    _v9_quiet_windows,
    _v10_panel_access,
    _v11_site_incidents,
    _v12_activities_seen_at,
    _v13_records_apart,
    _v14_panel_access_reads,
    _v15_bills,
]
RECORDS_APART = 13  # the version from which the records tables live in records.db
SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNewError(RuntimeError):
    """The cache was written by a newer samops than this one."""


def schema_version(db: sqlite_utils.Database) -> int:
    if not db["meta"].exists():
        return 0
    row = execute(db, "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def _set_version(db: sqlite_utils.Database, version: int) -> None:
    execute(
        db,
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [str(version)],
    )


def migrate(db: sqlite_utils.Database) -> int:
    """Bring the records (attached, core/cache/records.py) to RECORDS_VERSION, then the cache to
    SCHEMA_VERSION, one transaction per step; returns the cache version found.

    Before versions 1..11 the records tables lived in the cache file: a fresh cache still makes them there
    (the released steps are not edited) and step 12 moves what they hold into records.db."""
    found = schema_version(db)
    if found > SCHEMA_VERSION:
        raise SchemaTooNewError(f"cache schema version {found} is newer than this samops ({SCHEMA_VERSION})")
    migrate_records(db)
    for version in range(found, SCHEMA_VERSION):
        if version + 1 == RECORDS_APART:
            copy_out_of_main(db)
        # Take the write lock before reading the version: two processes opening an old cache at once
        # must not both run the same step.
        with write_transaction(db):
            if schema_version(db) != version:
                continue
            db.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
            MIGRATIONS[version](db)
            _set_version(db, version + 1)
    return found
