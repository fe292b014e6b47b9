"""What a card shows of an alarm, in one call (core/views.py): read from a real cache as the alarm moves
through its lifecycle, and the card drawn from the view alone."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.render.alarms import alarm_card
from core.access_windows import DayWindow, Validity
from core.action_plans import DEFAULT_PLANS, ActionPlans
from core.alarms import Alarm
from core.cache import write_transaction
from core.cache.db import open_cache
from core.cache.panel_access import record_reads, replace_panel_access
from core.clock import MINUTE_MS
from core.dispositions import DEFAULTS, resolve
from core.keyholders import Verdict
from core.lifecycle import Change, State, apply
from core.panel_access import validity_to_json
from core.priorities import Priorities, Priority
from core.views import Looks, alarm_view
from tests.support.seed_cache import insert_posted_alarms

T = 1_700_000_000_000
BERLIN = ZoneInfo("Europe/Berlin")
ALARM = Alarm("EV-1", 101, 1001, T, "Burglary on Depot - Door", "violation", "Burglary", "alarm", "Depot")


def looks(now: int) -> Looks:
    priorities = Priorities()
    return Looks(BERLIN, T, "http://dash", priorities, ActionPlans(DEFAULT_PLANS, priorities), now)


def test_an_alarms_view_follows_it_from_open_to_resolved_and_draws_its_card(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        insert_posted_alarms(db, [(ALARM.event_id, 101, 1001, T, "violation", "alarm")])

    fresh = alarm_view(db, ALARM, looks(T + MINUTE_MS))
    assert fresh.state is None and not fresh.resolved and fresh.resolved_as is None
    assert fresh.priority is Priority.P1 and fresh.sla_minutes is not None
    assert fresh.checklist is not None  # the default P1 plan is for it
    late = alarm_view(db, ALARM, looks(T + 24 * 60 * MINUTE_MS))
    assert late.overdue  # still open a day later: past any acknowledgement SLA

    apply(db, ALARM.event_id, Change.ACKNOWLEDGED, "U_TECH", T + 2 * MINUTE_MS, opened_at=T)
    acked = alarm_view(db, ALARM, looks(T + 24 * 60 * MINUTE_MS))
    assert acked.state is not None and acked.state.state is State.ACKNOWLEDGED and not acked.overdue

    resolve(db, ALARM.event_id, DEFAULTS[0], "U_TECH", T + 3 * MINUTE_MS, opened_at=T)
    done = alarm_view(db, ALARM, looks(T + 3 * MINUTE_MS))
    assert done.resolved and done.resolved_as == DEFAULTS[0].label

    text = str(alarm_card(done).attachments)  # the card from the view alone: no database
    assert DEFAULTS[0].label in text and "Europe/Berlin" in text and "P1" in text
    db.close()


def test_keyholders_are_judged_on_the_organizations_clock_whatever_clock_the_card_is_shown_on(
    tmp_path: Path,
) -> None:
    """A card printed on a console in New York (or a page in a person's zone) still judges the alarm against
    the access windows where they are set, the organization's zone: the trial's alarm at 01:42 in Istanbul
    (17:42 in New York) was called inside an 08:00–18:00 window."""
    istanbul, new_york = ZoneInfo("Europe/Istanbul"), ZoneInfo("America/New_York")
    at = int(datetime(2026, 12, 8, 1, 42, tzinfo=istanbul).timestamp() * 1000)
    alarm = Alarm(
        "EV-2", 101, 1001, at, "Burglary on Depot - Door", "violation", "Burglary", "alarm", "Depot"
    )
    db = open_cache(tmp_path / "cache.db")
    office = Validity(
        windows=tuple(DayWindow(d, 8 * 60 * MINUTE_MS, 18 * 60 * MINUTE_MS) for d in range(1, 8))
    )
    row = {
        "resource_id": 101,
        "user_id": 7001,
        "org_id": 1001,
        "name": "Selin Celik",
        "groups": json.dumps(["Arm / disarm"]),
        "validity": json.dumps(validity_to_json(office)),
        "fetched_at": at,
    }
    with write_transaction(db):
        insert_posted_alarms(db, [(alarm.event_id, 101, 1001, at, "violation", "alarm")])
        replace_panel_access(db, 1001, [101], [row])
        record_reads(db, 1001, [101], at)
    shown_in_new_york = replace(looks(at), zone=new_york)

    judged = alarm_view(db, alarm, replace(shown_in_new_york, judged_in=istanbul)).keyholders
    assert judged is not None and judged.verdict is Verdict.OUTSIDE, judged
    on_the_wrong_clock = alarm_view(db, alarm, shown_in_new_york).keyholders  # what the card used to say
    assert on_the_wrong_clock is not None and on_the_wrong_clock.verdict is Verdict.INSIDE
    db.close()
