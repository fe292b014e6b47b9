"""The alarm lifecycle in core (states, idempotent changes, the migration carrying old acknowledgements over),
the handling figures against counts made by hand, and escalation by the notifier against the Slack stand-in
with a fake clock: once per level, across a restart, never once acknowledged."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import lifecycle
from core.cache import outbox, schema
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.clock import DAY_MS, MINUTE_MS
from core.config import NotifyConfigError, parse_notify
from core.lifecycle import Change, State
from core.notify.source import CacheSource
from core.read import handling
from tests.support.bot import blocks_text
from tests.support.seed_cache import old_cache
from tests.support.slack_standin import SlackStandIn

MIN = MINUTE_MS


def add_alarm(db: Any, event_id: str, rid: int, at: int) -> None:
    row = (
        event_id,
        rid,
        1001,
        at,
        f"Burglary alarm on P{rid} - Door",
        "violation",
        "Burglary",
        "alarm",
        2,
        1,
        1,
    )
    with write_transaction(db):
        upsert_activities(db, "activities", [row])


@pytest.fixture
def db(tmp_path: Path) -> Any:
    cache = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(cache):
        panels = [{"resource_id": r, "org_id": 1001, "name": n} for r, n in ((101, "Depot"), (102, "Office"))]
        upsert_dicts(cache, "panels", panels, "resource_id")
    return cache


# --- the state machine --------------------------------------------------------------------------------------


def test_states_move_forward_only_and_repeats_change_nothing(db: Any) -> None:
    t0 = 1_700_000_000_000
    first = lifecycle.apply(db, "E1", Change.ACKNOWLEDGED, "U_A", t0 + MIN, opened_at=t0)
    assert first.changed and first.state.state is State.ACKNOWLEDGED and first.state.acknowledged_by == "U_A"
    again = lifecycle.apply(db, "E1", Change.ACKNOWLEDGED, "U_B", t0 + 2 * MIN, opened_at=t0)
    assert not again.changed and again.reason == "already acknowledged"
    assert again.state.acknowledged_by == "U_A" and again.state.acknowledged_at == t0 + MIN
    taken = lifecycle.apply(db, "E1", Change.ASSIGNED, "U_B", t0 + 3 * MIN, opened_at=t0)
    assert taken.changed and taken.state.assignee == "U_B" and taken.state.holder == "U_B"
    assert (
        lifecycle.apply(db, "E1", Change.ASSIGNED, "U_B", t0 + 4 * MIN, opened_at=t0).reason
        == "already yours"
    )
    done = lifecycle.apply(db, "E1", Change.RESOLVED, "U_B", t0 + 5 * MIN, opened_at=t0, note="false alarm")
    assert done.changed and done.state.state is State.RESOLVED and done.state.note == "false alarm"
    for change in (Change.ACKNOWLEDGED, Change.ASSIGNED, Change.RESOLVED, Change.ESCALATED):
        assert (
            lifecycle.apply(db, "E1", change, "U_C", t0 + 6 * MIN, opened_at=t0).reason == "already resolved"
        )
    assert [(c[1], c[2], c[3]) for c in lifecycle.changes(db, "E1")] == [
        ("U_A", "acknowledged", None),
        ("U_B", "assigned", None),
        ("U_B", "resolved", "false alarm"),
    ]


def test_taking_an_open_alarm_assigns_it_and_resolving_acknowledges_it(db: Any) -> None:
    """Taking is assignment only (issue 24: the taker gets the escalations until someone acknowledges);
    resolving an open alarm is also its acknowledgement, so time to acknowledge is known for it."""
    t0 = 1_700_000_000_000
    taken = lifecycle.apply(db, "E1", Change.ASSIGNED, "U_A", t0 + MIN, opened_at=t0)
    assert taken.state.state is State.OPEN and taken.state.acknowledged_at is None
    assert taken.state.holder == "U_A"
    resolved = lifecycle.apply(db, "E2", Change.RESOLVED, "U_A", t0 + 2 * MIN, opened_at=t0, note="x")
    assert resolved.state.acknowledged_at == t0 + 2 * MIN and resolved.state.resolved_at == t0 + 2 * MIN
    assert [c[2] for c in lifecycle.changes(db, "E1")] == ["assigned"]
    assert [c[2] for c in lifecycle.changes(db, "E2")] == ["acknowledged", "resolved"]
    acked = lifecycle.apply(db, "E1", Change.ACKNOWLEDGED, "U_B", t0 + 3 * MIN, opened_at=t0)
    assert acked.state.state is State.ACKNOWLEDGED and acked.state.holder == "U_A"


def test_the_migration_carries_old_acknowledgements_over(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = old_cache(path, schema.MIGRATIONS.index(schema._v8_alarm_lifecycle))
    old.table("activities").insert({"event_id": "E1", "activity_time": 1000, "event_type": "violation"})
    old.table("alarm_acks").insert({"event_id": "E1", "slack_user": "U_OLD", "at": 61_000})
    old.conn.commit()
    old.close()
    db = open_cache(path)
    state = lifecycle.get(db, "E1")
    assert state is not None and state.state is State.ACKNOWLEDGED
    assert (state.opened_at, state.acknowledged_at, state.acknowledged_by) == (1000, 61_000, "U_OLD")
    assert lifecycle.changes(db, "E1") == [(61_000, "U_OLD", "acknowledged", None)]


# --- handling figures, against counts by hand ---------------------------------------------------------------


def test_time_to_acknowledge_and_resolve_per_day_and_panel(db: Any) -> None:
    day1 = 1_763_856_000_000  # 2025-11-23 00:00 UTC
    day2 = day1 + DAY_MS
    # Day 1, panel 101: acknowledged after 1, 2, 3, 4 and 10 minutes; two of them resolved after 5 and 20.
    for i, minutes in enumerate((1, 2, 3, 4, 10)):
        event = f"D1-{i}"
        opened = day1 + 3_600_000 + i
        add_alarm(db, event, 101, opened)
        lifecycle.apply(db, event, Change.ACKNOWLEDGED, "U_A", opened + minutes * MIN, opened_at=opened)
    for event, minutes in (("D1-0", 5), ("D1-1", 20)):
        lifecycle.apply(db, event, Change.RESOLVED, "U_A", day1 + 3_600_000 + minutes * MIN, opened_at=0)
    # Day 2, panel 102: one acknowledged after 6 minutes, one still open.
    add_alarm(db, "D2-0", 102, day2 + 60_000)
    add_alarm(db, "D2-1", 102, day2 + 120_000)
    lifecycle.apply(db, "D2-0", Change.ACKNOWLEDGED, "U_B", day2 + 60_000 + 6 * MIN, opened_at=day2 + 60_000)
    lifecycle.open_alarms(db, [("D2-1", day2 + 120_000)], day2 + 120_000)

    days = handling.handling_times(db, day1, day2 + DAY_MS)
    assert [d.key for d in days] == ["2025-11-23", "2025-11-24"]
    first, second = days
    # By hand: TTA 1, 2, 3, 4, 10 min → median 3, p90 (5th of 5) 10; TTR 5 - 0 ms and 20 min - 1 ms.
    assert (first.alarms, first.acknowledged, first.resolved) == (5, 5, 2)
    assert (first.tta_median, first.tta_p90) == (3 * MIN, 10 * MIN)
    assert (first.ttr_median, first.ttr_p90) == ((5 * MIN + 20 * MIN - 1) / 2, 20 * MIN - 1)
    assert (second.alarms, second.acknowledged, second.tta_median, second.resolved) == (2, 1, 6 * MIN, 0)
    assert second.ttr_median is None and second.ttr_p90 is None

    panels = handling.handling_times(db, day1, day2 + DAY_MS, by="panel")
    assert [(p.key, p.label, p.tta_median) for p in panels] == [
        ("102", "Office (102)", 6 * MIN),  # slowest first
        ("101", "Depot (101)", 3 * MIN),
    ]
    opened = handling.open_alarms(db, now=day2 + 120_000 + 30 * MIN)
    assert {(a.event_id, a.state) for a in opened} == {
        ("D1-2", State.ACKNOWLEDGED), ("D1-3", State.ACKNOWLEDGED), ("D1-4", State.ACKNOWLEDGED),
        ("D2-0", State.ACKNOWLEDGED), ("D2-1", State.OPEN),
    }  # fmt: skip
    buckets = dict((label, (o, a)) for label, o, a in handling.open_by_age(opened))
    # D2-1 is 30 min old and open, D2-0 31 min and acknowledged, day 1's (01:00) 23 h 32 min.
    assert buckets["15–60 min"] == (1, 1) and buckets["4–24 h"] == (0, 3)
    assert buckets["< 15 min"] == buckets["1–4 h"] == buckets["> 24 h"] == (0, 0)


def test_p90_is_the_nearest_rank() -> None:
    assert handling.p90([]) is None
    assert handling.p90([7.0]) == 7.0
    assert handling.p90([float(v) for v in range(1, 11)]) == 9.0  # ceil(9.0) = 9th of 10
    assert handling.p90([float(v) for v in range(1, 12)]) == 10.0  # ceil(9.9) = 10th of 11
    assert handling.median([1.0, 2.0, 3.0, 10.0]) == 2.5


# --- escalation ---------------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = int(time.time() * 1000)

    def real_now(self) -> int:
        """Back to the real time (alarms after the notifier's first start are replayed, not summarized)."""
        self.now = int(time.time() * 1000)
        return self.now

    def __call__(self) -> int:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += int(minutes * MIN)


ROUTE = {
    "channel": "C_FIRE",
    "panels": [101],
    "escalate_after": [10, 30],
    "escalate_to": ["S0FIRE", ["U0LEAD"]],
}


def make_notifier(db: Any, slack: SlackStandIn, clock: FakeClock) -> Notifier:
    cfg = parse_notify({"default_channel": "C_ALL", "routes": [ROUTE], "storm": {"posts_per_second": 50}})
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 50)
    n = Notifier(db, cfg, delivery, CacheSource(), "http://dash.local", clock=clock)
    n.start()
    return n


def deliver_all(n: Notifier) -> None:
    deadline = time.monotonic() + 20
    while True:
        n.cycle()
        if not n._has_work():
            return
        assert time.monotonic() < deadline
        time.sleep(0.05)


def escalate(n: Notifier) -> int:
    time.sleep(0.05)  # the channel's pacing slot (50 posts/s)
    return n.escalate()


def escalations(slack: SlackStandIn) -> list[tuple[str, str]]:
    return [
        (c.params["thread_ts"], c.params["text"])
        for c in slack.calls_to("chat.postMessage")
        if "Escalation level" in (c.params.get("text") or "")
    ]


def card_ts(db: Any, event_id: str) -> str | None:
    entry = outbox.entry(db, event_id)
    return entry[2] if entry else None


def test_an_open_alarm_escalates_once_per_level_even_across_a_restart(db: Any) -> None:
    clock = FakeClock()
    with SlackStandIn() as slack:
        n = make_notifier(db, slack, clock)
        clock.real_now()
        add_alarm(db, "E-OPEN", 101, clock.now)
        add_alarm(db, "E-ACKED", 101, clock.now)
        add_alarm(db, "E-OTHER", 102, clock.now)  # a route without escalation
        deliver_all(n)
        assert escalate(n) == 0 and escalations(slack) == []
        lifecycle.apply(db, "E-ACKED", Change.ACKNOWLEDGED, "U_A", clock.now + MIN, opened_at=clock.now)

        clock.advance(9.9)
        assert escalate(n) == 0
        clock.advance(0.2)
        assert escalate(n) == 1
        assert escalate(n) == 0  # once per level
        [(thread, text)] = escalations(slack)
        assert "level 1" in text and "<!subteam^S0FIRE>" in text and "Depot (101)" in text
        assert thread == card_ts(db, "E-OPEN")

        # A restart: a new notifier on the same cache does not repeat level 1.
        n = make_notifier(db, slack, clock)
        assert escalate(n) == 0
        clock.advance(20)
        assert escalate(n) == 1
        assert escalate(n) == 0
        clock.advance(600)
        assert escalate(n) == 0  # two levels configured, both done
        texts = [text for _, text in escalations(slack)]
        assert len(texts) == 2 and "level 2" in texts[1] and "<@U0LEAD>" in texts[1]
        assert all("E-ACKED" not in t for t in texts)
        notes = [c[3] for c in lifecycle.changes(db, "E-OPEN") if c[2] == "escalated"]
        assert notes == ["level 1", "level 2"]
        assert [c for c in lifecycle.changes(db, "E-ACKED") if c[2] == "escalated"] == []
        assert lifecycle.changes(db, "E-OTHER") == []


def test_acknowledging_stops_escalation(db: Any) -> None:
    clock = FakeClock()
    with SlackStandIn() as slack:
        n = make_notifier(db, slack, clock)
        add_alarm(db, "E1", 101, clock.real_now())
        deliver_all(n)
        clock.advance(11)
        assert escalate(n) == 1
        lifecycle.apply(db, "E1", Change.ACKNOWLEDGED, "U_A", clock.now, opened_at=0)
        clock.advance(60)
        assert escalate(n) == 0
        assert len(escalations(slack)) == 1


def test_taking_does_not_stop_escalation(db: Any) -> None:
    """'I'm on it' assigns; the alarm escalates until someone acknowledges it (its taker is paged)."""
    clock = FakeClock()
    with SlackStandIn() as slack:
        n = make_notifier(db, slack, clock)
        add_alarm(db, "E1", 101, clock.real_now())
        deliver_all(n)
        lifecycle.apply(db, "E1", Change.ASSIGNED, "U_A", clock.now, opened_at=0)
        clock.advance(11)
        assert escalate(n) == 1
        lifecycle.apply(db, "E1", Change.ACKNOWLEDGED, "U_A", clock.now, opened_at=0)
        clock.advance(60)
        assert escalate(n) == 0
        assert len(escalations(slack)) == 1


@pytest.mark.parametrize(
    ("route", "problem"),
    [
        ({"escalate_after": 10}, "go together"),
        ({"escalate_after": 10, "escalate_to": "bob"}, "not a user group"),
        ({"escalate_after": [30, 10], "escalate_to": "S1"}, "increasing"),
        ({"escalate_after": [1, 2, 3], "escalate_to": [["S1"], ["S2"]]}, "one per escalate_after level"),
        ({"escalate_after": 0, "escalate_to": "S1"}, "greater than 0"),
    ],
)
def test_bad_escalation_settings_name_the_field(route: dict[str, Any], problem: str) -> None:
    with pytest.raises(NotifyConfigError, match=problem):
        parse_notify({"routes": [{"channel": "C1", **route}]})


def test_escalation_targets_accept_ids_and_mentions() -> None:
    targets = ["<!subteam^S0FIRE|fire>", "U0A", "<@W0B>", "C0OPS"]
    config = parse_notify({"routes": [{"channel": "C1", "escalate_after": 5, "escalate_to": targets}]})
    [level] = config.routes[0].escalation()
    assert level.targets == ("<!subteam^S0FIRE>", "<@U0A>", "<@W0B>", "<#C0OPS>")
    assert level.after_minutes == 5


def test_alarms_past_the_catch_up_window_are_left_alone(db: Any) -> None:
    clock = FakeClock()
    with SlackStandIn() as slack:
        n = make_notifier(db, slack, clock)
        add_alarm(db, "E-OLD", 101, clock.real_now())
        deliver_all(n)
        clock.advance(30 + 24 * 60 + 1)  # the notifier was away past the last level and a day more
        assert escalate(n) == 0 and escalations(slack) == []
        add_alarm(db, "E-NEW", 101, clock.now)  # a day later, as the fake clock counts
        deliver_all(n)
        clock.advance(11)
        assert escalate(n) == 1  # a new alarm still escalates, whatever lies open behind it
        [(thread, _)] = escalations(slack)
        assert thread == card_ts(db, "E-NEW")


def test_the_notifier_keeps_a_storm_cards_handling_when_it_edits_the_card(db: Any) -> None:
    clock = FakeClock()
    with SlackStandIn() as slack:
        cfg = parse_notify({"default_channel": "C_ALL", "storm": {"threshold": 1, "posts_per_second": 50}})
        delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 50)
        n = Notifier(db, cfg, delivery, CacheSource(), "http://dash.local", clock=clock)
        n.start()
        now = clock.real_now()
        for i in range(4):
            add_alarm(db, f"E{i}", 102, now + i)
        deliver_all(n)
        [card] = outbox.cards(db, "C_ALL")
        grouped = [event for event, _ in handling.card_alarms(db, "C_ALL", card.ts)]
        assert len(grouped) == 3
        for event in grouped[:2]:  # someone acknowledged two of them from the card
            lifecycle.apply(db, event, Change.ACKNOWLEDGED, "U_A", now + MIN, opened_at=now)
        add_alarm(db, "E-MORE", 102, now + 10)  # a new alarm joins the card: the notifier edits it
        deliver_all(n)
        edits = [c for c in slack.calls_to("chat.update") if c.params["ts"] == card.ts]
        assert edits, "the card was not edited"
        text = blocks_text(edits[-1].params["attachments"][0]["blocks"])
        assert "4 alarms" in text and "2 open · 2 acknowledged · 0 resolved" in text
        blocks = edits[-1].params["attachments"][0]["blocks"]
        actions = [e["action_id"] for b in blocks for e in b.get("elements", []) if e["type"] == "button"]
        assert actions[:2] == ["alarm_ack_all", "alarm_resolve_all"]
