"""The notifier finds a late arrival by when samops saw it, not by its own time (docs/history.md): an alarm
a day behind every watermark is posted once, marked late, with its lifecycle opened at its arrival; history
read rather than watched (no `seen_at`) is never posted. Real cache file, the Slack stand-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.cache.cursors import save_cursors
from core.cache.db import open_cache
from core.cache.seen import POLLER_CURSORS, mark_watch_from
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.clock import HOUR_MS
from tests.bot.notify.test_notify import PANELS, drain, notifier, now_ms, posted_events
from tests.support.slack_standin import SlackStandIn


@pytest.fixture
def db(tmp_path: Path) -> Any:
    cache = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(cache):
        panels = [{"resource_id": r, "org_id": o, "name": n} for r, (o, n) in PANELS.items()]
        upsert_dicts(cache, "panels", panels, "resource_id")
        # Watched (core/cache/seen.py): every organization polled once, from the start of time.
        mark_watch_from(cache, 0)
        save_cursors(cache, POLLER_CURSORS, [(o, 0) for o, _ in PANELS.values()])
    return cache


def write(db: Any, event_id: str, at: int, seen_at: int | None) -> None:
    row = (event_id, 101, PANELS[101][0], at, "Tamper", "violation", "Tamper alarm", "alarm", 2, 1, 1)
    with write_transaction(db):
        upsert_activities(db, "activities", [row], seen_at=seen_at)


def test_a_late_arrival_is_posted_marked_late_and_history_is_not(db: Any) -> None:
    with SlackStandIn() as slack:
        n = notifier(db, slack)
        write(db, "EV-NOW", now_ms(), now_ms())
        drain(n)  # the watermark is now at the present
        arrived = now_ms()
        write(db, "EV-LATE", arrived - 3 * HOUR_MS, arrived)  # found by reconciliation just now
        write(db, "EV-HISTORY", arrived - 3 * HOUR_MS + 1, None)  # the backfill's: read, not watched
        drain(n)
        drain(n)
        events = [e for _, e in posted_events(slack)]
        late = next(c for c in slack.calls_to("chat.postMessage") if "EV-LATE" in str(c.params))
    assert events == ["EV-NOW", "EV-LATE"]
    assert "Late:* happened 3 h ago, reported now" in str(late.params["attachments"])
    opened = db.execute("SELECT opened_at FROM alarm_state WHERE event_id = 'EV-LATE'").fetchone()[0]
    assert opened == arrived  # its time to acknowledge counts from its arrival
