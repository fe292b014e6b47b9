"""Overdue cards: an alarm card still open past its priority's SLA is edited once, from the notifier's
cycle, through the Slack stand-in; a card acknowledged in time, or whose SLA has not passed, is left alone;
a rate-limited edit is tried again later. The clock is a fake the test moves."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import lifecycle
from core.cache.cursors import save_cursors
from core.cache.seen import POLLER_CURSORS, mark_watch_from
from core.cache.writes import upsert_activities, write_transaction
from core.clock import MINUTE_MS
from core.config import parse_config
from core.lifecycle import Change
from core.notify.source import CacheSource
from core.read import card_of_alarm
from tests.bot.notify.support import FakeClock, add_alarms, alarm_cards, cache, posts, settle
from tests.support.bot import blocks_text
from tests.support.slack_standin import SlackStandIn


def priority_notifier(
    db: Any, slack: SlackStandIn, clock: FakeClock, notify_extra: dict[str, Any] | None = None, **toml: Any
) -> Notifier:
    notify = {"default_channel": "C_ALL", "storm": {"posts_per_second": 100}, **(notify_extra or {})}
    config = parse_config({"notify": notify, **toml})
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 100)
    n = Notifier(
        db, config.notify, delivery, CacheSource(), "http://d", clock=clock, priorities=config.priority_book()
    )
    n.start()
    return n


def updates(slack: SlackStandIn) -> list[tuple[str, str]]:
    """(card ts, its text) of every chat.update Slack took."""
    out = []
    for call in slack.calls_to("chat.update"):
        blocks = [b for a in call.params.get("attachments") or [] for b in a.get("blocks") or []]
        out.append((str(call.params["ts"]), blocks_text(blocks)))
    return out


def card_ts(db: Any, event_id: str) -> str:
    card = card_of_alarm(db, event_id)
    assert card is not None
    return card.ts


def test_an_open_card_past_its_sla_is_marked_overdue_once(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, sla={"P1": "2m"})
        start = int(time.time() * 1000) + 1  # after the notifier's baseline
        [p1] = add_alarms(db, 101, start)  # violationType alarm: P1
        [p3] = add_alarms(db, 102, start, kind="warning")  # P3: 30 min
        [acked] = add_alarms(db, 201, start)  # P1, acknowledged in time
        settle(n, lambda: len(alarm_cards(slack)) == 3)
        assert len(posts(slack, "C_ALL", "P1 · ack within 2 min")) == 2
        assert len(posts(slack, "C_ALL", "P3 · ack within 30 min")) == 1
        assert posts(slack, "C_ALL", "Overdue") == []
        with write_transaction(db):
            lifecycle.apply(db, acked, Change.ACKNOWLEDGED, "U0OPS", start + MINUTE_MS, opened_at=start)

        clock.now = start + 2 * MINUTE_MS - 1
        n.cycle()
        assert updates(slack) == []

        clock.now = start + 2 * MINUTE_MS
        n.cycle()
        n.cycle()
        [(ts, text)] = updates(slack)
        assert ts == card_ts(db, p1)
        assert "Overdue" in text and "P1 alarms are to be acknowledged within 2 min" in text

        clock.now = start + 30 * MINUTE_MS - 1
        n.cycle()
        assert len(updates(slack)) == 1  # once only; the acknowledged card is left alone

        slack.throttle("chat.update")  # Slack's limit: the edit waits, then happens once
        clock.now = start + 30 * MINUTE_MS
        n.cycle()
        assert len(updates(slack)) == 1
        deadline = time.monotonic() + 10
        while len(updates(slack)) < 2:
            assert time.monotonic() < deadline, "the throttled edit was never retried"
            time.sleep(0.2)
            n.cycle()
        n.cycle()
        assert [ts for ts, _ in updates(slack)] == [card_ts(db, p1), card_ts(db, p3)]
        assert "P3 alarms are to be acknowledged within 30 min" in updates(slack)[1][1]


def test_a_late_alarms_sla_counts_from_its_arrival(tmp_path: Path) -> None:
    """A back-dated alarm (it happened 10 minutes before samops saw it, `activities.seen_at`) is not overdue
    when its card posts, and becomes overdue its SLA after its arrival: as the handover times it."""
    db = cache(tmp_path)
    with write_transaction(db):  # watched (core/cache/seen.py): organization 1001 polled from the start
        mark_watch_from(db, 0)
        save_cursors(db, POLLER_CURSORS, [(1001, 0)])
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, sla={"P1": "2m"})
        arrived = int(time.time() * 1000) + 1
        clock.now = arrived
        row = ("EV-LATE", 101, 1001, arrived - 10 * MINUTE_MS, "Burglary on Warehouse - Door 1", "violation",
               "Burglary", "alarm", 2, 1, 1)  # fmt: skip
        with write_transaction(db):
            upsert_activities(db, "activities", [row], seen_at=arrived)
        settle(n, lambda: len(alarm_cards(slack)) == 1)
        [card] = posts(slack, "C_ALL", "EV-LATE")
        assert "Late:" in card and "Overdue" not in card  # 10 min after it happened, 2 min SLA: just arrived

        clock.now = arrived + 2 * MINUTE_MS - 1
        n.cycle()
        assert updates(slack) == []

        clock.now = arrived + 2 * MINUTE_MS
        n.cycle()
        n.cycle()
        [(ts, text)] = updates(slack)
        assert ts == card_ts(db, "EV-LATE")
        assert "Overdue" in text and "acknowledged within 2 min of reaching samops" in text
