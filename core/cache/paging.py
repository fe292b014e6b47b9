"""The records of personal paging (docs/paging.md), in records.db: `page_prefs`, each person's preferences
(/sam notify-me), and `pages_sent`, each direct message paged, one row per (person, alarm, level).

A page is claimed (its row inserted) before it is sent and released if Slack did not take it: so a page is
sent at most once, across restarts and two notifiers, and a refused one is tried again. A crash between the
claim and the post loses that one page rather than sending it twice (a page is a nudge; the card and the
channel's escalation still say it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from core.cache.sql import execute
from core.cache.transactions import joined, write_transaction
from core.paging import PagePrefs
from core.priorities import Priority
from core.sqlite_lib import sqlite_utils
from core.windows import parse_clock

_COLUMNS = "slack_user, enabled, priorities, quiet_from, quiet_to, zone"


def _prefs(row: tuple[object, ...]) -> PagePrefs:
    user, enabled, priorities, quiet_from, quiet_to, zone = row
    return PagePrefs(
        slack_user=str(user),
        enabled=bool(enabled),
        priorities=tuple(Priority[p] for p in str(priorities).split(",") if p in Priority.__members__),
        quiet_from=parse_clock(str(quiet_from)) if quiet_from else None,
        quiet_to=parse_clock(str(quiet_to)) if quiet_to else None,
        zone=str(zone) if zone else None,
    )


def prefs_of(db: sqlite_utils.Database, slack_user: str) -> PagePrefs | None:
    row = execute(db, f"SELECT {_COLUMNS} FROM page_prefs WHERE slack_user = ?", [slack_user]).fetchone()
    return _prefs(tuple(row)) if row else None


def prefs_of_all(db: sqlite_utils.Database, users: Iterable[str] | None = None) -> dict[str, PagePrefs]:
    """Everyone's preferences (or those of `users`), by Slack user id."""
    rows = execute(db, f"SELECT {_COLUMNS} FROM page_prefs").fetchall()
    wanted = None if users is None else set(users)
    return {str(r[0]): _prefs(tuple(r)) for r in rows if wanted is None or str(r[0]) in wanted}


def set_prefs(db: sqlite_utils.Database, prefs: PagePrefs, at: int) -> None:
    clock = "{:%H:%M}"
    with write_transaction(db):
        execute(
            db,
            "INSERT INTO page_prefs (slack_user, enabled, priorities, quiet_from, quiet_to, zone, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(slack_user) DO UPDATE SET enabled = excluded.enabled,"
            " priorities = excluded.priorities, quiet_from = excluded.quiet_from,"
            " quiet_to = excluded.quiet_to, zone = excluded.zone, updated_at = excluded.updated_at",
            [
                prefs.slack_user,
                int(prefs.enabled),
                ",".join(p.label for p in sorted(prefs.priorities)),
                clock.format(prefs.quiet_from) if prefs.quiet_from else None,
                clock.format(prefs.quiet_to) if prefs.quiet_to else None,
                prefs.zone,
                at,
            ],
        )


def follow_zone(db: sqlite_utils.Database, slack_user: str, zone: str) -> bool:
    """The person's Slack zone as the bot last read it (users.info `tz`), into their preferences if they
    have any and it changed: their pages and quiet hours then follow the clock their `/sam` answers and
    App Home show, not the one of their last `/sam notify-me`. True when a row changed."""
    current = prefs_of(db, slack_user)
    if current is None or current.zone == zone:  # read first: no write lock taken for nothing
        return False
    with write_transaction(db):
        changed = execute(
            db,
            "UPDATE page_prefs SET zone = ? WHERE slack_user = ? AND zone IS NOT ?",
            [zone, slack_user, zone],
        ).rowcount
    return changed > 0


def claim_page(
    db: sqlite_utils.Database, slack_user: str, event_id: str, level: int, why: str, at: int
) -> bool:
    """True the first time (person, alarm, level) is claimed, False ever after; atomic across processes."""
    try:
        with write_transaction(db):
            execute(
                db,
                "INSERT INTO pages_sent (slack_user, event_id, level, at, why) VALUES (?, ?, ?, ?, ?)",
                [slack_user, event_id, level, at, why],
            )
    except sqlite3.IntegrityError:
        return False
    return True


def release_page(db: sqlite_utils.Database, slack_user: str, event_id: str, level: int) -> None:
    """Give a claimed page back: Slack did not take it, so it is tried again."""
    with write_transaction(db):
        execute(
            db,
            "DELETE FROM pages_sent WHERE slack_user = ? AND event_id = ? AND level = ? AND ts IS NULL",
            [slack_user, event_id, level],
        )


def mark_page_sent(
    db: sqlite_utils.Database, slack_user: str, event_id: str, level: int, channel: str, ts: str
) -> None:
    """Where Slack put the page (the DM's channel and ts): a click on its buttons is checked against it. In
    the caller's transaction when it has one (the page's audit row goes with it)."""
    with joined(db):
        execute(
            db,
            "UPDATE pages_sent SET channel = ?, ts = ? WHERE slack_user = ? AND event_id = ? AND level = ?",
            [channel, ts, slack_user, event_id, level],
        )


def page_at(db: sqlite_utils.Database, channel: str, ts: str) -> str | None:
    """The alarm (event id) of the page samops sent at (channel, ts), None when it sent none there."""
    row = execute(
        db, "SELECT event_id FROM pages_sent WHERE channel = ? AND ts = ?", [channel, ts]
    ).fetchone()
    return str(row[0]) if row else None


def claimed_pages(db: sqlite_utils.Database, event_ids: Iterable[str]) -> set[tuple[str, str, int]]:
    """(person, alarm, level) of the pages of these alarms already claimed: a read, so that each cycle does
    not try (and fail) to claim them again under the write lock."""
    ids = list(dict.fromkeys(event_ids))
    found: set[tuple[str, str, int]] = set()
    for start in range(0, len(ids), 500):  # SQLite's variable limit
        chunk = ids[start : start + 500]
        rows = execute(
            db,
            "SELECT slack_user, event_id, level FROM pages_sent"
            f" WHERE event_id IN ({', '.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        found |= {(str(r[0]), str(r[1]), int(r[2])) for r in rows}
    return found


def pages_sent(db: sqlite_utils.Database, event_id: str) -> list[tuple[str, int, str]]:
    """(person, level, why) of every page of an alarm, in the order sent."""
    rows = execute(
        db, "SELECT slack_user, level, why FROM pages_sent WHERE event_id = ? ORDER BY at, rowid", [event_id]
    ).fetchall()
    return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]
