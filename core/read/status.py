"""What `samops status` shows besides freshness: the notifier's backlog and failing deliveries, and the
records the last sync rejected."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from core.cache.schema import REJECTED_RECORDS
from core.cache.sync_state import LOGIN_REFUSED
from core.read.rows import query, scalar
from core.sqlite_lib import sqlite_utils


def outbox_backlog(db: sqlite_utils.Database) -> int:
    """How many alarms wait to be posted."""
    return int(scalar(db, "SELECT count(*) FROM notify_outbox WHERE state = 'pending'"))


def failing_deliveries(db: sqlite_utils.Database, limit: int = 5) -> list[tuple[str, str, int, str]]:
    """(event_id, channel, attempts, last_error) of the pending alarms that failed, most tried first."""
    rows = query(
        db,
        "SELECT event_id, channel, attempts, last_error FROM notify_outbox"
        " WHERE state = 'pending' AND last_error IS NOT NULL ORDER BY attempts DESC LIMIT ?",
        [limit],
    )
    return [(str(r["event_id"]), str(r["channel"]), int(r["attempts"]), str(r["last_error"])) for r in rows]


def rejected_records(db: sqlite_utils.Database) -> list[tuple[Any, ...]]:
    """(operation, record, field, reason, at, count) the last sync rejected, most first; none on a cache
    older than the table."""
    if not db[REJECTED_RECORDS].exists():
        return []
    rows = query(
        db,
        f"SELECT operation, record, field, reason, at, count FROM {REJECTED_RECORDS}"
        " ORDER BY count DESC, operation, field",
    )
    return [(r["operation"], r["record"], r["field"], r["reason"], r["at"], r["count"]) for r in rows]


def login_refusals(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(part, its refused-login back-off as JSON) of each part whose logins the service refuses now."""
    rows = query(db, "SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key", [LOGIN_REFUSED + "%"])
    return [(str(r["key"])[len(LOGIN_REFUSED) :], str(r["value"])) for r in rows]


@dataclass(frozen=True)
class RefusedLogin:
    """A part whose logins the service refuses now (its record of core.client.login_backoff.Refusal)."""

    part: str  # "sync", "notify"
    reason: str
    since_ms: int | None


def refused_logins(db: sqlite_utils.Database) -> list[RefusedLogin]:
    """The parts whose logins the service refuses now, read from their records (the dashboard's banner
    says so: what those parts would fetch is not fresh, however recent the last successful sync)."""
    found: list[RefusedLogin] = []
    for part, text in login_refusals(db):
        try:
            parsed: object = json.loads(text)
        except ValueError:
            parsed = None
        record = cast("dict[str, object]", parsed) if isinstance(parsed, dict) else {}
        reason, since = record.get("reason"), record.get("since_ms")
        found.append(
            RefusedLogin(
                part, reason if isinstance(reason, str) and reason else "refused",
                since if isinstance(since, int) else None,
            )
        )  # fmt: skip
    return found
