"""Once-only claims: they keep a double click or a Slack retry from running a write twice.

The bot claims a write's dedupe key (the Slack payload's) before it runs it; the `bot_dedupe` table
(schema v7) remembers the claims for DEDUPE_TTL_MS.
"""

from __future__ import annotations

import sqlite3

from core.cache.sql import execute
from core.cache.transactions import write_transaction
from core.clock import DAY_MS, now_ms
from core.sqlite_lib import sqlite_utils

# How long a claim is remembered: far longer than Slack retries (minutes) or a user double-clicking.
DEDUPE_TTL_MS = 7 * DAY_MS


def claim_once(db: sqlite_utils.Database, key: str, at: int | None = None) -> bool:
    """True the first time `key` is claimed, False ever after (within DEDUPE_TTL_MS): the caller that gets
    True runs the write, the others do not. Atomic across threads and processes sharing the file."""
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
    """Give a claim back, so that the work it guarded runs again (its effect did not happen after all)."""
    with write_transaction(db):
        db.conn.execute("DELETE FROM bot_dedupe WHERE key = ?", [key])


def is_claimed(db: sqlite_utils.Database, key: str, at: int | None = None) -> bool:
    """Whether `key` was claimed within DEDUPE_TTL_MS (a record samops made, such as a form it opened)."""
    at = at if at is not None else now_ms()
    since = at - DEDUPE_TTL_MS
    row = execute(db, "SELECT 1 FROM bot_dedupe WHERE key = ? AND at >= ?", [key, since]).fetchone()
    return row is not None
