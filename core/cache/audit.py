"""The bot's own records in the cache: the audit log of writes, and the once-only claims that keep a double
click or a Slack retry from running a write twice.

`audit_log` is created by the schema (core/cache/schema.py); `bot_dedupe` is the bot's alone and is created
here, idempotently, the first time it is needed. Summaries are stored as given: callers pass text that holds
no secret (see `bot/writes.py`), and `record` masks the known secret words again as a last guard.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass

import sqlite_utils

from core.cache.transactions import write_transaction

# How long a claim is remembered: far longer than Slack retries (minutes) or a user double-clicking.
DEDUPE_TTL_MS = 7 * 86_400_000

_SECRET_WORDS = re.compile(
    r"(?i)\b(securityCode|ncCode|pinCode|mqPassword|password|token)\b(\s*[=:]\s*)(\"[^\"]*\"|\S+)"
)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: int
    slack_user: str
    command: str
    org_id: int | None
    outcome: str  # "ok", "failed", "denied", "invalid"
    summary: str
    reference: str


def now_ms() -> int:
    return int(time.time() * 1000)


_TABLES_SQL = (
    "CREATE TABLE IF NOT EXISTS audit_log (id INTEGER PRIMARY KEY, at INTEGER, slack_user TEXT, command TEXT,"
    " org_id INTEGER, outcome TEXT, summary TEXT, reference TEXT)",
    "CREATE TABLE IF NOT EXISTS bot_dedupe (key TEXT PRIMARY KEY, at INTEGER)",
)


def _ensure_tables(db: sqlite_utils.Database) -> None:
    """The bot's tables (audit_log is also in the schema; bot_dedupe only here). Checked with a read, so the
    usual case takes no lock; created under the write lock, so threads racing on a new file wait, not fail."""
    if {"audit_log", "bot_dedupe"} <= set(db.table_names()):
        return
    with write_transaction(db):
        for sql in _TABLES_SQL:
            db.conn.execute(sql)


def mask_secrets(text: str) -> str:
    """`securityCode=1234` → `securityCode=***` (a guard; summaries should never carry secrets at all)."""
    return _SECRET_WORDS.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)


def record(
    db: sqlite_utils.Database,
    *,
    slack_user: str,
    command: str,
    outcome: str,
    summary: str,
    reference: str,
    org_id: int | None = None,
    at: int | None = None,
) -> int:
    """Append one audit row; returns its id."""
    _ensure_tables(db)
    row = {
        "at": at if at is not None else now_ms(),
        "slack_user": slack_user,
        "command": mask_secrets(command),
        "org_id": org_id,
        "outcome": outcome,
        "summary": mask_secrets(summary),
        "reference": reference,
    }
    with db.conn:
        cursor = db.conn.execute(
            "INSERT INTO audit_log (at, slack_user, command, org_id, outcome, summary, reference) "
            "VALUES (:at, :slack_user, :command, :org_id, :outcome, :summary, :reference)",
            row,
        )
    return int(cursor.lastrowid or 0)


def recent(
    db: sqlite_utils.Database, limit: int = 50, slack_user: str | None = None, command: str | None = None
) -> list[AuditEntry]:
    """The latest audit rows, newest first, optionally for one Slack user or one command word."""
    _ensure_tables(db)
    where, params = [], []
    if slack_user is not None:
        where.append("slack_user = ?")
        params.append(slack_user)
    if command is not None:
        where.append("command LIKE ?")
        params.append(f"{command}%")
    sql = "SELECT id, at, slack_user, command, org_id, outcome, summary, reference FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY at DESC, id DESC LIMIT ?"
    rows = db.execute(sql, [*params, limit]).fetchall()
    return [AuditEntry(*row) for row in rows]


def claim_once(db: sqlite_utils.Database, key: str, at: int | None = None) -> bool:
    """True the first time `key` is claimed, False ever after (within DEDUPE_TTL_MS): the caller that gets
    True runs the write, the others do not. Atomic across threads and processes sharing the file."""
    _ensure_tables(db)
    at = at if at is not None else now_ms()
    # A plain INSERT under the write lock: the primary key lets exactly one claimant in; the others get
    # IntegrityError. (INSERT OR IGNORE plus rowcount let two threads through once under load.)
    try:
        with write_transaction(db):
            db.conn.execute("DELETE FROM bot_dedupe WHERE at < ?", [at - DEDUPE_TTL_MS])
            db.conn.execute("INSERT INTO bot_dedupe (key, at) VALUES (?, ?)", [key, at])
    except sqlite3.IntegrityError:
        return False
    return True


def release(db: sqlite_utils.Database, key: str) -> None:
    """Forget a claim, so the same payload may be tried again (used when the write was refused before it ran,
    e.g. a validation error shown in the modal)."""
    _ensure_tables(db)
    with db.conn:
        db.conn.execute("DELETE FROM bot_dedupe WHERE key = ?", [key])
