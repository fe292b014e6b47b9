"""What the read API says about history (core/read/history.py): from when the data is complete while the
backfill runs, which alarms reached samops late, and the handover and Handling figures that count them apart
(their time to acknowledge counted from their arrival)."""

from __future__ import annotations

from pathlib import Path

from core import lifecycle, read
from core.cache.cursors import save_cursors
from core.cache.db import open_cache
from core.cache.seen import POLLER_CURSORS, mark_watch_from
from core.cache.transactions import write_transaction
from core.cache.writes import activity_row, upsert_activities
from core.clock import HOUR_MS, MINUTE_MS
from core.lifecycle import Change
from core.read import history

NOW = 1_790_000_000_000


def alarm(event_id: str, at: int) -> tuple[object, ...]:
    record = {"eventId": event_id, "activityTime": at, "eventType": "violation", "violationType": "alarm"}
    return activity_row(record, 7, 1)


def test_complete_from_is_where_the_first_poll_began_until_every_panel_is_filled(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    assert read.complete_from(db) is None  # nothing planned: nothing to say
    with write_transaction(db):
        plan = [(history.PLAN_FROM, NOW - 7 * 24 * HOUR_MS), (history.PLAN_UNTIL, NOW - 24 * HOUR_MS)]
        save_cursors(db, history.BACKFILL_PLAN, [*plan, (history.PLAN_PANELS, 2)])
        save_cursors(db, history.BACKFILL, [(7, NOW - 7 * 24 * HOUR_MS)])
    progress = read.backfill_progress(db)
    assert progress is not None and (progress.panels_done, progress.panels, progress.done) == (1, 2, False)
    assert read.complete_from(db) == NOW - 24 * HOUR_MS
    with write_transaction(db):
        save_cursors(db, history.BACKFILL, [(8, NOW - 7 * 24 * HOUR_MS)])
    assert read.complete_from(db) is None


def test_late_alarms_are_marked_counted_apart_and_timed_from_their_arrival(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        # Watched from a day back, organization 1 polled once (core/cache/seen.py).
        mark_watch_from(db, NOW - 24 * HOUR_MS)
        save_cursors(db, POLLER_CURSORS, [(1, NOW - HOUR_MS)])
        upsert_activities(db, "activities", [alarm("history", NOW - 5 * HOUR_MS)])  # read, not watched
        upsert_activities(db, "activities", [alarm("on-time", NOW - 10_000)], seen_at=NOW)
        upsert_activities(db, "activities", [alarm("late", NOW - 3 * HOUR_MS)], seen_at=NOW)
        # Seen again later (a re-poll, a sync): the first sighting stays.
        upsert_activities(db, "activities", [alarm("on-time", NOW - 10_000)], seen_at=NOW + HOUR_MS)
    assert read.late_by(db, "late") == 3 * HOUR_MS
    assert read.late_by(db, "on-time") is None and read.late_by(db, "history") is None
    assert read.seen_times(db, ["history", "on-time", "late"]) == {"on-time": NOW, "late": NOW}

    # Opened as the notifier opens them: the late one at its arrival.
    lifecycle.open_alarms(db, [("on-time", NOW - 10_000), ("late", NOW)], NOW)
    for event in ("on-time", "late"):
        lifecycle.apply(db, event, Change.ACKNOWLEDGED, "U1", NOW + 2 * MINUTE_MS, opened_at=0)
    digest = read.handover(db, NOW - HOUR_MS, NOW + HOUR_MS)
    assert digest.late_received == 1
    assert digest.lifecycle.median_tta_ms is not None and digest.lifecycle.median_tta_ms < 3 * MINUTE_MS
    [day] = read.handling_times(db, NOW - 24 * HOUR_MS, NOW + HOUR_MS)
    assert (day.alarms, day.late) == (2, 1)
