"""The ops channel hears when alarm cards wait past their priority's SLA: one message when the first card
crosses it, none more while any does, one when none does any more; each audited, and sent once by two
notifiers on the same records (each claims the notice before sending it). Real records, the Slack stand-in;
the clock is a fake the test moves."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import lifecycle
from core.cache import recent_audit
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.clock import MINUTE_MS
from core.config import parse_config
from core.lifecycle import Change
from core.notify.source import CacheSource
from tests.bot.notify.support import FakeClock, add_alarms, alarm_cards, cache, settle
from tests.support.slack_standin import SlackStandIn


def notifier(db: Any, slack: SlackStandIn, clock: FakeClock, owner: str) -> Notifier:
    notify = {"default_channel": "C_ALL", "ops_channel": "C_OPS", "storm": {"posts_per_second": 100}}
    config = parse_config({"notify": notify, "sla": {"P1": "2m"}})
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 100)
    n = Notifier(
        db,
        config.notify,
        delivery,
        CacheSource(),
        "http://d",
        clock=clock,
        priorities=config.priority_book(),
        owner=owner,
    )
    n.start()
    return n


def ops(slack: SlackStandIn) -> list[str]:
    return [
        str(c.params.get("text"))
        for c in slack.calls_to("chat.postMessage")
        if c.params["channel"] == "C_OPS"
    ]


def test_cards_past_their_sla_are_told_once_each_way_by_two_notifiers(tmp_path: Path) -> None:
    db = cache(tmp_path)
    other_db = open_cache(tmp_path / "cache.db", check_same_thread=False)
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn() as slack:
        first = notifier(db, slack, clock, "host:1")
        second = notifier(other_db, slack, clock, "host:2")  # a standby on the same records
        start = int(time.time() * 1000) + 1
        [p1] = add_alarms(db, 101, start)  # P1: 2 min
        [p3] = add_alarms(db, 102, start, kind="warning")  # P3: 30 min
        settle(first, lambda: len(alarm_cards(slack)) == 2)
        assert ops(slack) == []

        clock.now = start + 2 * MINUTE_MS - 1
        first.cycle()
        second.cycle()
        assert ops(slack) == []  # not yet past

        clock.now = start + 3 * MINUTE_MS
        for _ in range(2):
            first.cycle()
            second.cycle()
        [told] = ops(slack)
        assert "past their acknowledgement SLA" in told and "1 open alarm card" in told and "P1" in told, told

        with write_transaction(db):  # acknowledged: the episode ends
            lifecycle.apply(db, p1, Change.ACKNOWLEDGED, "U0OPS", clock.now, opened_at=start)
        for _ in range(2):
            second.cycle()
            first.cycle()
        assert len(ops(slack)) == 2 and "No alarm card waits past its SLA" in ops(slack)[1], ops(slack)
        assert p3  # the P3 card within its 30 min: never counted

        commands = [e.command for e in recent_audit(db, limit=10) if e.command.startswith("ops notice")]
        assert sorted(commands) == ["ops notice sla down", "ops notice sla recovered"]
