"""Issue 33, item 5: when samops first saw an activity does not depend on which path wrote it first
(core/cache/seen.py). Before, only the poller and reconciliation stamped `seen_at`, and only on rows new to
the cache: an alarm a sync (or the backfill) wrote first was never stamped, so it was never late. Real
cache file, every path's own write call."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import read
from core.cache.cursors import save_cursors
from core.cache.db import open_cache
from core.cache.seen import POLLER_CURSORS, mark_watch_from
from core.cache.transactions import write_transaction
from core.cache.writes import activity_row, upsert_activities
from core.clock import HOUR_MS, MINUTE_MS
from core.sqlite_lib import sqlite_utils

BASELINE = 1_790_000_000_000
WATCH_FROM = BASELINE - 24 * HOUR_MS
ORG, OTHER = 1, 2


def alarm(event_id: str, at: int, org: int = ORG) -> tuple[object, ...]:
    record = {"eventId": event_id, "activityTime": at, "eventType": "violation", "violationType": "alarm"}
    return activity_row(record, 7, org)


def written(db: sqlite_utils.Database, event_id: str, at: int, seen_at: int, org: int = ORG) -> None:
    with write_transaction(db):
        upsert_activities(db, "activities", [alarm(event_id, at, org)], seen_at=seen_at)


@pytest.fixture
def db(tmp_path: Path) -> sqlite_utils.Database:
    cache = open_cache(tmp_path / "cache.db")
    with write_transaction(cache):  # the poller's first poll of ORG is done; OTHER's is not
        mark_watch_from(cache, WATCH_FROM)
        save_cursors(cache, POLLER_CURSORS, [(ORG, BASELINE)])
    return cache


def test_the_first_sighting_stands(db: sqlite_utils.Database) -> None:
    happened = BASELINE + HOUR_MS
    arrived = happened + 10 * MINUTE_MS
    written(db, "late", happened, arrived)  # the first path saw it, 10 minutes after it happened
    for later in (arrived + MINUTE_MS, arrived + HOUR_MS):  # the others, after
        written(db, "late", happened, later)
    assert read.late_by(db, "late") == 10 * MINUTE_MS
    assert read.seen_times(db, ["late"]) == {"late": arrived}


def test_history_is_never_stamped_by_any_path(db: sqlite_utils.Database) -> None:
    written(db, "week-old", WATCH_FROM - HOUR_MS, BASELINE + HOUR_MS)  # before the watch: the backfill's
    written(db, "unpolled", BASELINE + HOUR_MS, BASELINE + 2 * HOUR_MS, org=OTHER)  # before its first poll
    assert read.seen_times(db, ["week-old", "unpolled"]) == {}
    assert read.late_by(db, "week-old") is None and read.late_by(db, "unpolled") is None


def test_the_watch_starts_once(db: sqlite_utils.Database) -> None:
    with write_transaction(db):
        mark_watch_from(db, BASELINE)  # a later poll's window: the first one stands
    written(db, "in-the-first-day", WATCH_FROM + HOUR_MS, BASELINE + HOUR_MS)
    assert read.seen_times(db, ["in-the-first-day"]) == {"in-the-first-day": BASELINE + HOUR_MS}
