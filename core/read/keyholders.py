"""Reads behind the keyholder line (docs/keyholders.md): how each panel's authorizations were last read
(`panel_access_reads`), which panels with alarms are due a read, and which alarm cards were drawn before
what their line says changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.cache.alarm_sql import alarm_sql
from core.clock import DAY_MS
from core.read.rows import marks, query
from core.read.who_can import PanelUser, panel_users
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class AccessRead:
    """How a panel's authorizations were last read: `read_at` the last success (None: never), `tried_at` the
    last attempt, `error` why it failed (None: it did not), `changed_at` when the line last changed kind."""

    resource_id: int
    read_at: int | None
    tried_at: int
    error: str | None
    changed_at: int


@dataclass(frozen=True)
class PanelAccess:
    """What the cache holds of one panel's authorizations: how they were read (None: never tried) and its
    users as last read."""

    read: AccessRead | None
    users: tuple[PanelUser, ...]


def access_reads(db: sqlite_utils.Database, resource_ids: Iterable[int]) -> dict[int, AccessRead]:
    ids = sorted(set(resource_ids))
    if not ids:
        return {}
    rows = query(
        db,
        "SELECT resource_id, read_at, tried_at, error, changed_at FROM panel_access_reads"
        f" WHERE resource_id IN ({marks(ids)})",
        ids,
    )
    return {
        int(r["resource_id"]): AccessRead(
            int(r["resource_id"]), r["read_at"], int(r["tried_at"]), r["error"], int(r["changed_at"])
        )
        for r in rows
    }


def panel_access(db: sqlite_utils.Database, resource_ids: Iterable[int]) -> dict[int, PanelAccess]:
    """Each panel's read and users, for drawing keyholder lines (a card, a Home, a page of alarms)."""
    ids = sorted(set(resource_ids))
    reads = access_reads(db, ids)
    return {rid: PanelAccess(reads.get(rid), tuple(panel_users(db, rid))) for rid in ids}


def panels_due(
    db: sqlite_utils.Database, alarms_since: int, now: int, ttl_ms: int, retry_ms: int, limit: int = 500
) -> dict[int | None, list[int]]:
    """The panels with an alarm since `alarms_since` whose authorizations are due a read, by organization:
    never tried, read more than `ttl_ms` ago, or failed more than `retry_ms` ago. The newest alarms' panels
    first, at most `limit`."""
    rows = query(
        db,
        "SELECT a.resource_id AS rid, a.org_id AS org, max(a.activity_time) AS newest"
        " FROM activities a LEFT JOIN panel_access_reads r ON r.resource_id = a.resource_id"
        f" WHERE a.activity_time >= ? AND a.resource_id IS NOT NULL AND {alarm_sql('a')}"
        " AND (r.resource_id IS NULL OR (r.error IS NULL AND r.tried_at <= ?)"
        " OR (r.error IS NOT NULL AND r.tried_at <= ?))"
        " GROUP BY a.resource_id ORDER BY newest DESC, a.resource_id LIMIT ?",
        [alarms_since, now - ttl_ms, now - retry_ms, limit],
    )
    due: dict[int | None, list[int]] = {}
    for r in rows:
        due.setdefault(r["org"], []).append(int(r["rid"]))
    return due


@dataclass(frozen=True)
class StaleCard:
    """An alarm card posted before what its keyholder line says last changed (`changed_at`)."""

    channel: str
    ts: str
    event_id: str
    changed_at: int


def edit_key(channel: str, ts: str, changed_at: int) -> str:
    """The claim (`core.cache.claim_once`) of one edit of a card for one change of its panel's read."""
    return f"keyholders:{channel}:{ts}:{changed_at}"


_EDIT_KEY_SQL = "'keyholders:' || o.channel || ':' || o.ts || ':' || r.changed_at"  # edit_key, in SQL

# A card is drawn a moment before Slack answers and its post is recorded: a read that lands in between is
# counted as after the post, so the card is edited (once) rather than left saying "not read yet".
POST_MARGIN_MS = 30_000


def cards_behind(db: sqlite_utils.Database, posted_since: int, limit: int) -> list[StaleCard]:
    """Alarm cards (posted alone) since `posted_since` whose panel's read changed kind after they were
    drawn and not edited since (`edit_key` claimed), oldest first: their keyholder line said "not read yet"
    (or what has since changed). Alarms that
    happened more than a day before `posted_since` are not looked at (the late window, docs/history.md)."""
    # Driven by the reads that changed since (few: panels with alarms), then each panel's recent activities
    # by their (resource_id, activity_time) index, then the outbox by event id: never a scan of the outbox,
    # whose posted alarms grow with the install's history. CROSS JOIN keeps SQLite to that order.
    rows = query(
        db,
        "SELECT o.channel AS channel, o.ts AS ts, o.event_id AS event_id, r.changed_at AS changed_at"
        " FROM panel_access_reads r CROSS JOIN activities a CROSS JOIN notify_outbox o"
        " WHERE r.changed_at >= ? AND a.resource_id = r.resource_id AND a.activity_time >= ?"
        " AND o.event_id = a.event_id AND o.state = 'posted' AND o.ts IS NOT NULL AND o.posted_at >= ?"
        " AND r.changed_at > o.posted_at - ?"
        f" AND NOT EXISTS (SELECT 1 FROM bot_dedupe d WHERE d.key = {_EDIT_KEY_SQL})"
        " ORDER BY o.posted_at, o.event_id LIMIT ?",
        [posted_since - POST_MARGIN_MS, posted_since - DAY_MS, posted_since, POST_MARGIN_MS, limit],
    )
    return [
        StaleCard(str(r["channel"]), str(r["ts"]), str(r["event_id"]), int(r["changed_at"])) for r in rows
    ]


__all__ = [
    "AccessRead",
    "PanelAccess",
    "StaleCard",
    "access_reads",
    "cards_behind",
    "edit_key",
    "panel_access",
    "panels_due",
]
