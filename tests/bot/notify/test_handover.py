"""Handover digests: posted at each handover time in the organization's zone, once per time even across a
restart (a fake clock moves the notifier), with figures checked against counting by hand."""

from __future__ import annotations

import statistics
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.cache import quiet
from core.cache.writes import upsert_dicts, write_transaction
from core.clock import HOUR_MS, MINUTE_MS
from core.read.handover import handover
from tests.bot.notify.support import FakeClock, add_alarms, cache, notifier, posts, settle
from tests.support.slack_standin import SlackStandIn

BERLIN = ZoneInfo("Europe/Berlin")
CONFIG = {
    "timezones": {"1001": "Europe/Berlin"},
    "channels": {"C_SHIFT": {"handover": ["07:00", "19:00"], "org": 1001}},
}


def berlin(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=BERLIN).timestamp() * 1000)


def seed_shift(db: Any) -> dict[str, Any]:
    """The night shift 2026-11-22 19:00 – 2026-11-23 07:00 in Berlin, and what a person counts in it."""
    in_shift = berlin("2026-11-22 20:00")
    a101 = add_alarms(db, 101, in_shift, 5)
    a102 = add_alarms(db, 102, berlin("2026-11-23 03:00"), 2)
    add_alarms(db, 102, in_shift, 3, kind="event")  # events: not alarms
    add_alarms(db, 201, in_shift, 7)  # another organization
    add_alarms(db, 101, berlin("2026-11-22 18:59"), 4)  # the shift before
    add_alarms(db, 101, berlin("2026-11-23 07:00"), 1)  # the next shift
    with write_transaction(db):
        upsert_dicts(db, "cameras", [
            {"resource_id": 501, "org_id": 1001, "name": "Gate cam", "status": "offline"},
            {"resource_id": 502, "org_id": 1001, "name": "Yard cam", "status": "online"},
            {"resource_id": 503, "org_id": 1002, "name": "Pier cam", "status": "offline"},
        ], "resource_id")  # fmt: skip
        quiet.silence_panel(db, 102, berlin("2026-11-23 09:00"), "U_TECH", berlin("2026-11-23 06:00"))
        opened = in_shift
        states = [  # event, state, assignee, acknowledged after (min), by, resolved
            (a101[0], "acknowledged", None, 2, "U_ANA", None),
            (a101[1], "acknowledged", "U_BEN", 4, "U_ANA", None),
            (a101[2], "resolved", None, 10, "U_BEN", berlin("2026-11-22 23:00")),
            (a101[3], "open", None, None, None, None),
            (a102[0], "open", "U_CAT", None, None, None),
            (a101[4], "resolved", None, None, None, berlin("2026-11-23 08:00")),  # resolved next shift
        ]
        for event, state, assignee, after, by, resolved in states:
            acked = opened + after * MINUTE_MS if after is not None else None
            db.conn.execute(
                "INSERT INTO alarm_state (event_id, state, assignee, opened_at, acknowledged_at,"
                " acknowledged_by, resolved_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [event, state, assignee, opened, acked, by, resolved, opened],
            )
    return {
        "received": 5 + 2,
        "acknowledged": 3,
        "resolved": 1,
        "median_tta": statistics.median([2, 4, 10]) * MINUTE_MS,
        # Who holds each: its assignee only; a101[0] was acknowledged by U_ANA but is nobody's.
        "held": {a101[0]: None, a101[1]: "U_BEN", a101[3]: None, a102[0]: "U_CAT"},
    }


def test_the_digest_figures_match_counting_by_hand(tmp_path: Path) -> None:
    db = cache(tmp_path)
    expected = seed_shift(db)
    digest = handover(db, berlin("2026-11-22 19:00"), berlin("2026-11-23 07:00"), 1001)
    assert digest.alarms_received == expected["received"]
    assert [(p.resource_id, p.count) for p in digest.noisiest] == [(101, 5), (102, 2)]
    assert [c.resource_id for c in digest.cameras_offline] == [501]
    assert [(w.resource_id, w.kind) for w in digest.quiet] == [(102, "silence")]
    life = digest.lifecycle
    assert (life.acknowledged, life.resolved) == (
        expected["acknowledged"],
        expected["resolved"],
    )
    assert life.median_tta_ms == expected["median_tta"]
    assert {h.event_id: h.holder for h in life.held} == expected["held"] and life.held_count == 4


def test_alarms_nobody_handled_count_as_received_only(tmp_path: Path) -> None:
    db = cache(tmp_path)
    add_alarms(db, 101, berlin("2026-11-22 20:00"), 2)
    digest = handover(db, berlin("2026-11-22 19:00"), berlin("2026-11-23 07:00"), None)
    life = digest.lifecycle
    assert digest.alarms_received == 2
    assert (life.acknowledged, life.resolved, life.median_tta_ms, life.held_count) == (0, 0, None, 0)


def test_posted_at_its_time_once_even_across_a_restart(tmp_path: Path) -> None:
    db = cache(tmp_path)
    expected = seed_shift(db)
    clock = FakeClock(berlin("2026-11-23 06:58"))
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **CONFIG)
        settle(n, lambda: True)
        assert posts(slack, "C_SHIFT") == []  # 19:00 passed before the notifier watched: not caught up
        clock.now = berlin("2026-11-23 07:00")
        settle(n, lambda: posts(slack, "C_SHIFT"))
        [digest] = posts(slack, "C_SHIFT")
        assert (
            "Shift handover" in digest
            and "2026-11-22 19:00:00 Europe/Berlin – 2026-11-23 07:00:00 Europe/Berlin" in digest
        )
        assert f"*Alarms received*\n{expected['received']}" in digest
        assert "*Acknowledged*\n3" in digest and "*Resolved*\n1" in digest
        assert "*Median time to acknowledge*\n4 min" in digest
        assert "Still open or acknowledged: 4" in digest and "held by <@U_BEN>" in digest
        assert "nobody holds it" in digest
        assert "held by <@U_ANA>" not in digest  # she acknowledged two; she holds neither
        assert "acknowledged by <@U_ANA>, nobody holds it" in digest
        assert "acknowledged by <@U_ANA>, held by <@U_BEN>" in digest
        # Each with its priority; the two still open are past P1's SLA (2 min), the acknowledged ones are not.
        assert digest.count(" · P1 — ") == 4 and "P1 — acknowledged by <@U_ANA>" in digest
        assert digest.count("— open · :alarm_clock: *overdue*") == 2
        assert "acknowledged · :alarm_clock:" not in digest
        assert "Warehouse (101): 5" in digest and "Office (102): 2" in digest
        assert "Cameras offline: 1" in digest and "Gate cam (501)" in digest
        assert "Office (102)* silenced" in digest

        clock.now = berlin("2026-11-23 07:30")
        settle(n, lambda: True)
        restarted = notifier(db, slack, clock, **CONFIG)
        settle(restarted, lambda: True)
        assert len(posts(slack, "C_SHIFT")) == 1
        [key] = [r[0] for r in db.execute("SELECT key FROM bot_dedupe WHERE key LIKE 'handover:%'")]
        assert key == "handover:C_SHIFT:2026-11-23T07:00"

        clock.now = berlin("2026-11-23 19:00") + HOUR_MS  # late (down at 19:00): posted once, an hour late
        settle(restarted, lambda: len(posts(slack, "C_SHIFT")) == 2)
        assert (
            "2026-11-23 07:00:00 Europe/Berlin – 2026-11-23 19:00:00 Europe/Berlin"
            in posts(slack, "C_SHIFT")[1]
        )
        settle(restarted, lambda: True)
        assert len(posts(slack, "C_SHIFT")) == 2
