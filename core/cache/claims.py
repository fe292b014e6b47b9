"""Once-only claims: they keep a double click or a Slack retry from running a write twice.

The bot claims a write's dedupe key (the Slack payload's) before it runs it; the `bot_dedupe` table
(schema v7) remembers the claims for DEDUPE_TTL_MS.
"""

from __future__ import annotations

import os
import socket
import sqlite3

from core.cache.sql import execute
from core.cache.transactions import joined, write_transaction
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


# --- leases: a claim that lapses ---------------------------------------------------------------------------
#
# A notifier claims what it is about to post (a channel's deliveries, an escalation level) before it asks
# Slack, so that a second notifier on the same records does not post it too. A plain claim would be lost
# for good if the notifier died between the claim and Slack's answer; a lease names its owner (host and pid)
# and a deadline, and is free again when its owner ends it, when its owner is a process of this machine that
# no longer runs (a kill -9: the next notifier takes over at once), or when the deadline passes (an owner on
# another machine). Leases live in `notify_state` (records.db) under `lease:<key>`.

LEASE_PREFIX = "lease:"


def process_owner() -> str:
    """This process as a lease's owner: `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_gone(owner: str) -> bool:
    """Whether `owner` (`host:pid`) is a process of this machine that no longer runs."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's: only its deadline frees it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # runs, as another user
    return False


def take_lease(db: sqlite_utils.Database, key: str, owner: str, now: int, lease_ms: int) -> bool:
    """Claim `key` for `owner` until now + lease_ms. True when it was free, lapsed, already `owner`'s, or
    held by a process of this machine that is gone; False while another owner holds it. Atomic across
    processes (one IMMEDIATE transaction), so exactly one of two claimants gets it."""
    with write_transaction(db):
        row = execute(db, "SELECT value FROM notify_state WHERE key = ?", [LEASE_PREFIX + key]).fetchone()
        if row is not None:
            holder, _, until = str(row[0]).rpartition(" ")
            held = holder != owner and until.isdigit() and int(until) > now
            if held and not _owner_gone(holder):
                return False
        execute(
            db,
            "INSERT INTO notify_state (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [LEASE_PREFIX + key, f"{owner} {now + lease_ms}"],
        )
    return True


def end_lease(db: sqlite_utils.Database, key: str, owner: str) -> None:
    """End `owner`'s lease of `key` (in the caller's transaction when it has one, so that the record of what
    was done and the lease's end commit together); a lease another owner took meanwhile stays."""
    with joined(db):
        execute(
            db,
            "DELETE FROM notify_state WHERE key = ? AND value LIKE ? ESCAPE '\\'",
            [LEASE_PREFIX + key, owner.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + " %"],
        )
