"""Silences and maintenance windows in the notifier: alarms inside are recorded (outbox 'silenced'), not
posted; when the window ends or is lifted, ONE message per channel summarizes them. The TOML's weekly
window runs over midnight in its organization's zone."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core import read
from core.cache import outbox, quiet
from core.cache.writes import upsert_activities, write_transaction
from core.clock import HOUR_MS, MINUTE_MS
from core.read.quiet import MAINTENANCE, windows_in_force
from tests.bot.notify.support import (
    PANELS,
    FakeClock,
    add_alarms,
    alarm_cards,
    cache,
    notifier,
    posts,
    settle,
)
from tests.support.slack_standin import SlackStandIn


def now_ms() -> int:
    return int(time.time() * 1000)


def zone_just_past_midnight(at: int) -> tuple[str, str]:
    """A whole-hour zone where `at` is between 00:00 and 01:59 local, and yesterday's weekday there: a window
    22:00–03:00 starting yesterday covers `at` over midnight, whatever the hour the test runs."""
    hour = datetime.fromtimestamp(at / 1000, UTC).hour
    offset = next(o for o in range(-12, 15) if (hour + o) % 24 == 0)
    name = f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}" if offset else "UTC"
    local = datetime.fromtimestamp(at / 1000, ZoneInfo(name))
    return name, (local.date() - timedelta(days=1)).strftime("%a").lower()


def test_a_weekly_window_over_midnight_holds_alarms_and_summarizes_them_once(tmp_path: Path) -> None:
    db = cache(tmp_path)
    start = now_ms()
    zone, yesterday = zone_just_past_midnight(start)
    clock = FakeClock(start)
    entry = {"panels": [101], "days": [yesterday], "from": "22:00", "to": "03:00", "reason": "night works"}
    config = {"timezones": {"1001": zone}, "maintenance": [entry]}
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **config)
        n.cycle()
        [window] = windows_in_force(db, clock.now)
        assert (window.kind, window.resource_id, window.reason) == (MAINTENANCE, 101, "night works")
        local_end = datetime.fromtimestamp(window.ends_at / 1000, ZoneInfo(zone))
        assert (local_end.hour, local_end.minute) == (
            3,
            0,
        ) and window.ends_at - window.starts_at == 5 * HOUR_MS

        held = add_alarms(db, 101, now_ms(), 3) + add_alarms(db, 101, now_ms(), 1, kind="warning")
        loud = add_alarms(db, 102, now_ms())
        settle(n, lambda: alarm_cards(slack))
        assert alarm_cards(slack) == loud
        assert all((outbox.entry(db, e) or ("", ""))[1] == "silenced" for e in held)
        assert posts(slack, "C_ALL", "held back") == []

        clock.now = window.ends_at  # the window is over: one summary, then never again
        settle(n, lambda: posts(slack, "C_ALL", "held back"))
        n.cycle()
        [summary] = posts(slack, "C_ALL", "held back")
        assert "held back 4 alarms" in summary and "Warehouse (101): 3 × Alarm name" in summary
        assert "Warehouse (101): 1 × Warning name" in summary and "ended" in summary
        # After the window, the panel's alarms are posted again.
        later = add_alarms(db, 101, now_ms())
        settle(n, lambda: len(alarm_cards(slack)) > 1)
        assert alarm_cards(slack) == loud + later
        # A restart does not repeat the summary, nor record the occurrence again.
        again = notifier(db, slack, clock, **config)
        again.cycle()
        assert len(posts(slack, "C_ALL", "held back")) == 1
        assert db.execute("SELECT count(*) FROM quiet_windows").fetchone()[0] == 1


def test_an_org_window_holds_every_panel_of_the_org_and_a_lift_ends_it_early(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, routes=[{"channel": "C_ORG2", "org": 1002}])
        with write_transaction(db):
            wid = quiet.add_window(db, kind=MAINTENANCE, org_id=1001, starts_at=clock.now - MINUTE_MS,
                                   ends_at=clock.now + HOUR_MS, created_at=clock.now,
                                   created_by="U_TECH")  # fmt: skip
        held = add_alarms(db, 101, now_ms()) + add_alarms(db, 102, now_ms(), 2)
        other_org = add_alarms(db, 201, now_ms())
        settle(n, lambda: alarm_cards(slack))
        assert alarm_cards(slack) == other_org
        with write_transaction(db):
            result = quiet.lift(db, wid, "U_TECH", clock.now)
            again = quiet.lift(db, wid, "U_BOB", clock.now + 1)
        assert result is not None and result[1] and again is not None and not again[1]
        assert again[0].lifted_by == "U_TECH"
        settle(n, lambda: posts(slack, "C_ALL", "held back"))
        [summary] = posts(slack, "C_ALL", "held back")
        assert "organization 1001 was lifted" in summary and "held back 3 alarms" in summary
        assert "Warehouse (101): 1 ×" in summary and "Office (102): 2 ×" in summary
        assert posts(slack, "C_ORG2", "held back") == []  # nothing of its was held
        assert {(outbox.entry(db, e) or ("", ""))[1] for e in held} == {"silenced"}
        after = add_alarms(db, 102, now_ms())
        settle(n, lambda: len(alarm_cards(slack)) > 1)
        assert alarm_cards(slack) == other_org + after


def fire_alarm(db: Any, rid: int, at: int) -> str:
    """A fire alarm on panel `rid`, as the sync writes it (violationName "Fire alarm": life-safety)."""
    org, name = PANELS[rid]
    event_id = f"EV-{rid}-FIRE-{at}"
    row = (event_id, rid, org, at, f"Fire alarm on {name}", "violation", "Fire alarm", "alarm", 2, 1, 2)
    with write_transaction(db):
        upsert_activities(db, "activities", [row])
    return event_id


def test_a_silence_never_holds_a_life_safety_alarm_and_says_why_it_holds_the_rest(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock)
        with write_transaction(db):
            quiet.silence_panel(db, 101, clock.now + HOUR_MS, "U0TECH", clock.now - MINUTE_MS, "R-ABC123")
        burglary = add_alarms(db, 101, now_ms())
        fire = fire_alarm(db, 101, now_ms())
        settle(n, lambda: alarm_cards(slack))
        assert alarm_cards(slack) == [fire]  # posted, and not marked: a silence is no maintenance
        assert posts(slack, "C_ALL", "During maintenance") == []
        reasons = read.held_reasons(db, [*burglary, fire])
        assert list(reasons) == burglary
        words = reasons[burglary[0]].held_reason(ZoneInfo("Europe/Istanbul"))
        assert words.startswith("held: silence R-ABC123 by @U0TECH until ") and "Europe/Istanbul" in words
        digest = read.handover(db, clock.now - HOUR_MS, clock.now + HOUR_MS)
        assert digest.held_back == 1  # counted apart from the alarms posted with buttons


def test_a_weekly_window_with_hold_life_safety_holds_the_fire_alarm(tmp_path: Path) -> None:
    db = cache(tmp_path)
    start = now_ms()
    zone, yesterday = zone_just_past_midnight(start)
    entry = {"panels": [101], "days": [yesterday], "from": "22:00", "to": "03:00", "hold_life_safety": True}
    clock = FakeClock(start)
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, timezones={"1001": zone}, maintenance=[entry])
        n.cycle()
        fire = fire_alarm(db, 101, now_ms())
        loud = add_alarms(db, 102, now_ms())
        settle(n, lambda: alarm_cards(slack))
        assert alarm_cards(slack) == loud
        [window] = read.held_reasons(db, [fire]).values()
        assert window.hold_life_safety and "(life-safety held too)" in window.held_reason(ZoneInfo(zone))
        assert "from the config" in window.held_reason(ZoneInfo(zone))
