"""The notifier's records in the cache: the outbox of alarms (exactly once per eventId), acknowledgements,
panel silences, storm cards and the notifier's own small state (first-start baseline, health flags).

Every table here is created by the schema's migrations (core/cache/schema.py), as every cache table is.
Functions that write run in the caller's transaction unless they say otherwise: the notifier wraps
discovery and recording in `core.cache.writes.write_transaction`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# Alarm is the one alarm record (core.alarms); the notifier imports it from here too.
from core.alarms import ALARM_FIELDS, Alarm, alarm_from
from core.cache import quiet
from core.cache.alarm_sql import ALARM_COLUMNS, alarm_sql
from core.cache.sql import execute
from core.clock import now_ms
from core.sqlite_lib import sqlite_utils

# The outbox states. 'silenced': the panel was silenced when the alarm was discovered (kept, not posted).
PENDING, POSTED, GROUPED, CONSOLE, SILENCED = "pending", "posted", "grouped", "console", "silenced"

ALARM_SQL = alarm_sql("a")


@dataclass(frozen=True)
class OutboxEntry:
    alarm: Alarm
    channel: str
    state: str
    ts: str | None
    attempts: int
    rowid: int


@dataclass(frozen=True)
class CardThread:
    """What the notifier keeps of a card that groups alarms (a storm card: one message per (channel, panel);
    an incident card, tracked here for its thread): when it was last counted into, and how far its thread
    lists them. The card itself is `core.read.cards.Card`."""

    ts: str
    channel: str
    resource_id: int | None
    opened_at: int
    updated_at: int
    details_rowid: int  # outbox rowid up to which the thread has the details


@dataclass(frozen=True)
class CardCounts:
    count: int
    first_time: int
    last_time: int
    kinds: tuple[str, ...]


# --- state -------------------------------------------------------------------------------------------------


def get_state(db: sqlite_utils.Database, key: str) -> str | None:
    row = execute(db, "SELECT value FROM notify_state WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def set_state(db: sqlite_utils.Database, key: str, value: str | None) -> None:
    if value is None:
        execute(db, "DELETE FROM notify_state WHERE key = ?", [key])
        return
    execute(
        db,
        "INSERT INTO notify_state (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )


def _starting(prefix: str) -> str:
    """A LIKE pattern (with `ESCAPE '\\'`) for keys starting with `prefix`."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def any_state(db: sqlite_utils.Database, prefix: str) -> bool:
    """Whether any key starting with `prefix` is set."""
    found = execute(
        db, "SELECT 1 FROM notify_state WHERE key LIKE ? ESCAPE '\\' LIMIT 1", [_starting(prefix)]
    ).fetchone()
    return found is not None


def clear_states(db: sqlite_utils.Database, prefix: str) -> None:
    """Unset every key starting with `prefix`."""
    execute(db, "DELETE FROM notify_state WHERE key LIKE ? ESCAPE '\\'", [_starting(prefix)])


# --- alarms and the outbox ---------------------------------------------------------------------------------

_ALARM_COLUMNS = ALARM_COLUMNS  # the Alarm's fields, in order


def _alarm(row: Sequence[Any]) -> Alarm:
    return alarm_from(dict(zip(ALARM_FIELDS, row, strict=False)))


# Discovery re-reads this much before its watermark. It covers the sync's own overlap (core.sync, 10 min)
# and the poller's (SAMOPS_POLL_OVERLAP, 2 min by default): activities written later are never older.
DISCOVERY_OVERLAP_MS = 10 * 60_000
WATERMARK = "discovery_watermark"


def discovery_since(db: sqlite_utils.Database, baseline: int, floor: int | None = None) -> int:
    """Where discovery starts: the watermark (the latest activity time discovered) minus the overlap, never
    before the baseline. `floor` is the oldest point a source may still write activities at (a poller's
    oldest cursor): while an organization fails, its late activities are still found when it recovers."""
    watermark = get_state(db, WATERMARK)
    if watermark is None:
        return baseline
    start = int(watermark) if floor is None else min(int(watermark), floor)
    return max(baseline, start - DISCOVERY_OVERLAP_MS)


def advance_watermark(db: sqlite_utils.Database, found: list[Alarm], now: int) -> None:
    """Move the watermark to the latest activity time among `found`, never past `now` (a panel's clock in
    the future must not hide the alarms after it) and never back."""
    if not found:
        return
    latest = min(max(a.activity_time for a in found), now)
    current = get_state(db, WATERMARK)
    if current is None or latest > int(current):
        set_state(db, WATERMARK, str(latest))


def undiscovered_alarms(db: sqlite_utils.Database, since: int, limit: int = 10_000) -> list[Alarm]:
    """Alarms at or after `since` (epoch-ms) that are not in the outbox yet, oldest first. With `since` from
    `discovery_since`, the index on activity_time keeps the cost that of the overlap, whatever the history."""
    rows = execute(
        db,
        f"SELECT {_ALARM_COLUMNS} FROM activities a LEFT JOIN panels p ON p.resource_id = a.resource_id "
        "WHERE a.activity_time >= ? AND " + ALARM_SQL + " "
        "AND NOT EXISTS (SELECT 1 FROM notify_outbox o WHERE o.event_id = a.event_id) "
        "ORDER BY a.activity_time, a.event_id LIMIT ?",
        [since, limit],
    ).fetchall()
    return [_alarm(r) for r in rows]


# Late arrivals (docs/history.md): an activity the poller or reconciliation wrote is found by when samops
# saw it (`activities.seen_at`), not by its own time, which may be a day behind every watermark. History read
# rather than watched (a first poll's day, the backfill) has no seen_at and is never found here.
SEEN_WATERMARK = "discovery_seen"
SEEN_OVERLAP_MS = 60_000  # the seen_at of a transaction that committed after a later one's


def seen_since(db: sqlite_utils.Database, baseline: int) -> int:
    """Where discovery by arrival starts: the seen watermark minus the overlap, else the baseline."""
    watermark = get_state(db, SEEN_WATERMARK)
    return baseline if watermark is None else int(watermark) - SEEN_OVERLAP_MS


def undiscovered_arrivals(db: sqlite_utils.Database, since: int, limit: int = 10_000) -> list[Alarm]:
    """Alarms that samops saw arrive at or after `since` and that are not in the outbox yet, by arrival
    (the index on seen_at keeps the cost that of the overlap)."""
    rows = execute(
        db,
        f"SELECT {_ALARM_COLUMNS} FROM activities a LEFT JOIN panels p ON p.resource_id = a.resource_id "
        "WHERE a.seen_at >= ? AND " + ALARM_SQL + " "
        "AND NOT EXISTS (SELECT 1 FROM notify_outbox o WHERE o.event_id = a.event_id) "
        "ORDER BY a.seen_at, a.activity_time, a.event_id LIMIT ?",
        [since, limit],
    ).fetchall()
    return [_alarm(r) for r in rows]


def advance_seen_watermark(db: sqlite_utils.Database, found: int, limit: int = 10_000) -> None:
    """Move the seen watermark to the latest arrival in the cache (unless discovery stopped at `limit`)."""
    if found >= limit:
        return
    latest = execute(db, "SELECT max(seen_at) FROM activities").fetchone()[0]
    if latest is not None:
        set_state(db, SEEN_WATERMARK, str(latest))


def alarms_before(db: sqlite_utils.Database, since: int, until: int) -> list[Alarm]:
    """Alarms in [since, until), for the first-start summary."""
    rows = execute(
        db,
        f"SELECT {_ALARM_COLUMNS} FROM activities a LEFT JOIN panels p ON p.resource_id = a.resource_id "
        "WHERE a.activity_time >= ? AND a.activity_time < ? AND " + ALARM_SQL + " ORDER BY a.activity_time",
        [since, until],
    ).fetchall()
    return [_alarm(r) for r in rows]


def get_alarm(db: sqlite_utils.Database, event_id: str) -> Alarm | None:
    row = execute(
        db,
        f"SELECT {_ALARM_COLUMNS} FROM activities a LEFT JOIN panels p ON p.resource_id = a.resource_id "
        "WHERE a.event_id = ?",
        [event_id],
    ).fetchone()
    return _alarm(row) if row else None


def enqueue(db: sqlite_utils.Database, entries: Iterable[tuple[str, str, str]]) -> int:
    """Record (event_id, channel, state) rows; an eventId already in the outbox is left as it is."""
    cursor = db.conn.executemany(
        "INSERT INTO notify_outbox (event_id, channel, state, attempts) VALUES (?, ?, ?, 0) "
        "ON CONFLICT(event_id) DO NOTHING",
        entries,
    )
    return cursor.rowcount


def pending(db: sqlite_utils.Database, channel: str | None = None, limit: int = 10_000) -> list[OutboxEntry]:
    """Entries still to deliver, oldest first."""
    where, params = ("AND o.channel = ?", [channel]) if channel else ("", [])
    rows = execute(
        db,
        f"SELECT {_ALARM_COLUMNS}, o.channel, o.state, o.ts, o.attempts, o.rowid FROM notify_outbox o "
        "JOIN activities a ON a.event_id = o.event_id LEFT JOIN panels p ON p.resource_id = a.resource_id "
        f"WHERE o.state = 'pending' {where} ORDER BY a.activity_time, o.rowid LIMIT ?",
        [*params, limit],
    ).fetchall()
    return [OutboxEntry(_alarm(r), r[9], r[10], r[11], r[12] or 0, r[13]) for r in rows]


def pending_channels(db: sqlite_utils.Database) -> list[str]:
    rows = execute(db, "SELECT DISTINCT channel FROM notify_outbox WHERE state = 'pending' ORDER BY channel")
    return [r[0] for r in rows.fetchall()]


def mark_delivered(db: sqlite_utils.Database, event_ids: Iterable[str], state: str, ts: str | None) -> None:
    db.conn.executemany(
        "UPDATE notify_outbox SET state = ?, ts = ?, posted_at = ?, last_error = NULL WHERE event_id = ?",
        [(state, ts, now_ms(), e) for e in event_ids],
    )


def record_failure(db: sqlite_utils.Database, event_ids: Iterable[str], error: str) -> None:
    db.conn.executemany(
        "UPDATE notify_outbox SET attempts = COALESCE(attempts, 0) + 1, last_error = ? WHERE event_id = ?",
        [(error[:500], e) for e in event_ids],
    )


def delivered_since(db: sqlite_utils.Database, channel: str, since: int) -> int:
    """Alarms of `channel` posted or grouped since `since` (epoch-ms): the storm detector's window."""
    row = execute(
        db,
        "SELECT count(*) FROM notify_outbox "
        "WHERE channel = ? AND posted_at >= ? AND state IN ('posted', 'grouped')",
        [channel, since],
    ).fetchone()
    return int(row[0])


def entry(db: sqlite_utils.Database, event_id: str) -> tuple[str, str, str | None] | None:
    """(channel, state, ts) of one outbox entry."""
    row = execute(
        db, "SELECT channel, state, ts FROM notify_outbox WHERE event_id = ?", [event_id]
    ).fetchone()
    return (row[0], row[1], row[2]) if row else None


def counts_by_state(db: sqlite_utils.Database) -> dict[str, int]:
    rows = execute(db, "SELECT state, count(*) FROM notify_outbox GROUP BY state").fetchall()
    return {r[0]: int(r[1]) for r in rows}


# --- storm cards -------------------------------------------------------------------------------------------


def open_card(
    db: sqlite_utils.Database, channel: str, resource_id: int | None, since: int
) -> CardThread | None:
    """The newest card of (channel, panel) updated at or after `since`, if any."""
    # An incident card (core/cache/incidents.py) is its incident's alone: a storm never counts into it.
    row = execute(
        db,
        "SELECT ts, channel, resource_id, opened_at, updated_at, details_rowid FROM notify_cards c "
        "WHERE channel = ? AND resource_id IS ? AND updated_at >= ? "
        "AND NOT EXISTS (SELECT 1 FROM incidents i WHERE i.card_ts = c.ts AND i.channel = c.channel) "
        "ORDER BY updated_at DESC LIMIT 1",
        [channel, resource_id, since],
    ).fetchone()
    return CardThread(*row) if row else None


def track_card(db: sqlite_utils.Database, ts: str, channel: str, resource_id: int | None, now: int) -> None:
    """Count a card that alarms are grouped into (an incident card) among the cards whose thread lists
    them; a card already tracked keeps how far its thread got."""
    execute(
        db,
        "INSERT INTO notify_cards (ts, channel, resource_id, opened_at, updated_at, details_rowid) "
        "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT(ts) DO UPDATE SET updated_at = excluded.updated_at",
        [ts, channel, resource_id, now, now],
    )


def save_card(db: sqlite_utils.Database, card: CardThread) -> None:
    execute(
        db,
        "INSERT INTO notify_cards (ts, channel, resource_id, opened_at, updated_at, details_rowid) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(ts) DO UPDATE SET updated_at = excluded.updated_at, "
        "details_rowid = excluded.details_rowid",
        [card.ts, card.channel, card.resource_id, card.opened_at, card.updated_at, card.details_rowid],
    )


def cards(db: sqlite_utils.Database, channel: str | None = None) -> list[CardThread]:
    where, params = ("WHERE channel = ?", [channel]) if channel else ("", [])
    rows = execute(
        db,
        f"SELECT ts, channel, resource_id, opened_at, updated_at, details_rowid FROM notify_cards {where} "
        "ORDER BY opened_at",
        params,
    ).fetchall()
    return [CardThread(*r) for r in rows]


def card_counts(db: sqlite_utils.Database, ts: str) -> CardCounts:
    row = execute(
        db,
        "SELECT count(*), min(a.activity_time), max(a.activity_time), "
        "json_group_array(DISTINCT COALESCE(a.violation_name, a.violation_type, a.event_type)) "
        "FROM notify_outbox o JOIN activities a ON a.event_id = o.event_id "
        "WHERE o.ts = ? AND o.state = 'grouped'",
        [ts],
    ).fetchone()
    kinds = tuple(sorted(k for k in json.loads(row[3] or "[]") if k))
    return CardCounts(int(row[0]), int(row[1] or 0), int(row[2] or 0), kinds)


def undetailed(db: sqlite_utils.Database, card: CardThread, limit: int) -> list[OutboxEntry]:
    """Alarms of `card` whose details are not yet in its thread, oldest first: those grouped into it, and an
    incident card's first alarm (posted alone as that card, before the card became the incident's), whose
    event id would otherwise be nowhere in Slack once its card shows the incident."""
    rows = execute(
        db,
        f"SELECT {_ALARM_COLUMNS}, o.channel, o.state, o.ts, o.attempts, o.rowid FROM notify_outbox o "
        "JOIN activities a ON a.event_id = o.event_id LEFT JOIN panels p ON p.resource_id = a.resource_id "
        "WHERE o.ts = ? AND o.channel = ? AND o.state IN ('grouped', 'posted') AND o.rowid > ?"
        " ORDER BY o.rowid LIMIT ?",
        [card.ts, card.channel, card.details_rowid, limit],
    ).fetchall()
    return [OutboxEntry(_alarm(r), r[9], r[10], r[11], r[12] or 0, r[13]) for r in rows]


# --- silences (quiet windows: core/cache/quiet.py) -----------------------------------------------------


def silence_panel(db: sqlite_utils.Database, resource_id: int, until: int, slack_user: str) -> None:
    """Silence a panel from now until `until` (a silence is a quiet window: core/cache/quiet.py)."""
    quiet.silence_panel(db, resource_id, until, slack_user, now_ms())


def silence_until(db: sqlite_utils.Database, resource_id: int) -> int | None:
    """The end of the panel's silence in force now, if any."""
    return quiet.silence_until(db, resource_id, now_ms())
