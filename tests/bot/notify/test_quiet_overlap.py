"""Windows over windows in the notifier: an alarm held back by an organization's maintenance and by its
panel's silence too is summed up when the last window holding it ends, not when the organization's is
lifted early (found by the new-user trial)."""

from __future__ import annotations

import time
from pathlib import Path

from core.cache import quiet
from core.cache.writes import upsert_activities, write_transaction
from core.clock import HOUR_MS, MINUTE_MS
from core.read.quiet import MAINTENANCE
from tests.bot.notify.support import FakeClock, add_alarms, alarm_cards, cache, notifier, posts, settle
from tests.support.slack_standin import SlackStandIn


def now_ms() -> int:
    return int(time.time() * 1000)


def test_lifting_an_org_window_sums_up_only_what_no_window_holds_any_more(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock)
        with write_transaction(db):
            org_window = quiet.add_window(db, kind=MAINTENANCE, org_id=1001, starts_at=clock.now - MINUTE_MS,
                                          ends_at=clock.now + 2 * HOUR_MS, created_at=clock.now,
                                          created_by="U_TECH")  # fmt: skip
            silence = quiet.silence_panel(db, 101, clock.now + HOUR_MS, "U_TECH", clock.now - MINUTE_MS)
        add_alarms(db, 101, now_ms(), 2)  # held by both: the org's window ends last
        add_alarms(db, 102, now_ms())  # held by the org's window only
        loud = add_alarms(db, 201, now_ms())
        settle(n, lambda: alarm_cards(slack))
        assert alarm_cards(slack) == loud

        with write_transaction(db):
            assert quiet.lift(db, org_window, "U_TECH", clock.now)
        settle(n, lambda: posts(slack, "C_ALL", "held back"))
        [lifted] = posts(slack, "C_ALL", "held back")
        assert "organization 1001 was lifted" in lifted and "held back 1 alarm:" in lifted
        assert "Office (102): 1 ×" in lifted and "Warehouse" not in lifted  # the silence still holds 101

        clock.now += HOUR_MS  # the silence ends: its summary has the two alarms of 101
        settle(n, lambda: len(posts(slack, "C_ALL", "held back")) > 1)
        n.cycle()
        first, ended = posts(slack, "C_ALL", "held back")
        assert first == lifted
        assert "Warehouse (101)" in ended and "held back 2 alarms:" in ended and "Office" not in ended
        assert db.execute("SELECT count(*) FROM quiet_held WHERE window_id = ?", [silence]).fetchone()[0] == 2
        assert alarm_cards(slack) == loud  # nothing held back was posted as a card


def test_a_fire_alarm_held_by_a_fire_test_is_not_handed_on_to_a_silence(tmp_path: Path) -> None:
    """A silence never holds a life-safety alarm: lifting the window that held one sums it up at once."""
    db = cache(tmp_path)
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock)
        with write_transaction(db):
            test_window = quiet.add_window(db, kind=MAINTENANCE, org_id=1001, starts_at=clock.now - MINUTE_MS,
                                           ends_at=clock.now + 2 * HOUR_MS, created_at=clock.now,
                                           created_by="U_TECH", hold_life_safety=True)  # fmt: skip
            quiet.silence_panel(db, 101, clock.now + HOUR_MS, "U_TECH", clock.now - MINUTE_MS)
        fire = ("EV-101-FIRE", 101, 1001, now_ms(), "Fire", "violation", "Fire alarm", "alarm", 2, 1, 2)
        with write_transaction(db):
            upsert_activities(db, "activities", [fire])
        add_alarms(db, 101, now_ms())  # a burglary: the silence goes on holding it
        settle(n, lambda: True)
        assert alarm_cards(slack) == []
        with write_transaction(db):
            assert quiet.lift(db, test_window, "U_TECH", clock.now)
        settle(n, lambda: posts(slack, "C_ALL", "held back"))
        [lifted] = posts(slack, "C_ALL", "held back")
        assert "held back 1 alarm:" in lifted and "Fire alarm" in lifted and "Alarm name" not in lifted
