"""A "communication lost" alarm takes the pipeline every alarm takes (issue 24, item 1): routed by a
`[notify]` route that names its eventType, escalated by its priority's levels in its card's thread, taken
and held like any alarm (the handover digest lists who holds it), and, once its panel reports again,
resolved by samops with the handover counting it resolved. Through the Slack stand-in, with a fake clock."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import lifecycle, read
from core.cache import audit, outbox, write_transaction
from core.clock import HOUR_MS, MINUTE_MS
from core.config import parse_config
from core.lifecycle import Change
from core.notify.source import CacheSource
from tests.bot.notify.support import FakeClock, add_alarms, cache, settle
from tests.support.slack_standin import SlackStandIn

TOML: dict[str, Any] = {
    "notify": {
        "default_channel": "C_ALL",
        "storm": {"posts_per_second": 100},
        "routes": [{"channel": "C_OPS", "event_types": ["supervision"]}],
        "escalation": {"P2": {"escalate_after": [10], "escalate_to": ["S0LEAD"]}},
    },
    "supervision": {"silent_after": "off", "panels": {"101": "24h"}},
}


def supervised(db: Any, slack: SlackStandIn, clock: FakeClock) -> Notifier:
    config = parse_config(TOML)
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 100)
    n = Notifier(
        db,
        config.notify,
        delivery,
        CacheSource(),
        "http://d",
        clock=clock,
        priorities=config.priority_book(),
        supervision_config=config.supervision,
    )
    n.start()
    return n


def in_channel(slack: SlackStandIn, channel: str, contains: str) -> list[Any]:
    return [
        c
        for c in slack.calls_to("chat.postMessage")
        if c.params.get("channel") == channel and contains in str(c.params)
    ]


def test_routed_escalated_taken_and_handed_over_as_any_alarm(tmp_path: Path) -> None:
    db = cache(tmp_path)
    with SlackStandIn() as slack:
        clock = FakeClock(int(time.time() * 1000))
        n = supervised(db, slack, clock)
        start = n.baseline()
        add_alarms(db, 101, start - HOUR_MS, kind="event")
        clock.now = start + 24 * HOUR_MS + MINUTE_MS
        settle(n, lambda: in_channel(slack, "C_OPS", "Communication lost"))
        [lost] = in_channel(slack, "C_OPS", "Communication lost")  # the route naming its eventType
        assert in_channel(slack, "C_ALL", "Communication lost") == []
        event_id = f"silent:101:{start}"
        card = read.card_of_alarm(db, event_id)
        assert card is not None and card.channel == "C_OPS"
        assert "P2" in str(lost.params["attachments"])

        clock.now += 10 * MINUTE_MS  # P2's first level
        time.sleep(0.05)
        n.escalate()
        [level] = in_channel(slack, "C_OPS", "Escalation level 1")
        assert level.params["thread_ts"] == card.ts and "S0LEAD" in str(level.params["text"])

        clock.now += MINUTE_MS
        taken = lifecycle.apply(db, event_id, Change.ASSIGNED, "U0TECH", clock.now, opened_at=start)
        assert taken.changed
        digest = read.handover(db, start, clock.now + 1)
        [held] = [h for h in digest.lifecycle.held if h.event_id == event_id]
        assert (held.holder, held.panel_name, held.kind) == ("U0TECH", "Warehouse", "Communication lost")

        add_alarms(db, 101, clock.now, kind="event")  # the panel reports again
        clock.now += MINUTE_MS
        settle(n, lambda: in_channel(slack, "C_OPS", "restored after"))
        state = lifecycle.get(db, event_id)
        assert state is not None and state.state is lifecycle.State.RESOLVED and state.resolved_by == "samops"
        assert state.assignee == "U0TECH"  # who held it stays on record
        digest = read.handover(db, start, clock.now + 1)
        assert digest.lifecycle.resolved == 1 and event_id not in {h.event_id for h in digest.lifecycle.held}


def test_a_silenced_panel_is_recorded_not_posted_and_not_resolved_into_a_lifecycle(tmp_path: Path) -> None:
    db = cache(tmp_path)
    with SlackStandIn() as slack:
        clock = FakeClock(int(time.time() * 1000))
        n = supervised(db, slack, clock)
        start = n.baseline()
        with write_transaction(db):  # someone pressed "Silence" on the panel for two days
            outbox.silence_panel(db, 101, start + 48 * HOUR_MS, "U0TECH")
        clock.now = start + 24 * HOUR_MS + MINUTE_MS
        settle(n, lambda: True)
        event_id = f"silent:101:{start}"
        assert outbox.entry(db, event_id) == ("C_OPS", "silenced", None)
        assert in_channel(slack, "C_OPS", "Communication lost") == []
        add_alarms(db, 101, clock.now, kind="event")  # the panel reports again
        clock.now += MINUTE_MS
        settle(n, lambda: True)
        assert lifecycle.get(db, event_id) is None  # never posted: nothing to acknowledge or resolve
        [row] = [a for a in audit.recent(db) if a.slack_user == "samops"]
        assert "no change: held back by a silence" in row.summary
        assert [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")] == []


def test_a_card_edit_slack_defers_is_made_later_and_the_thread_told_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "bot.notify.supervision")
    db = cache(tmp_path)
    toml = {
        "notify": {"default_channel": "C_ALL", "storm": {"posts_per_second": 100}},
        "sla": {"P2": "none"},  # no overdue edit: the card's one edit is the restoration's
        "supervision": {"silent_after": "off", "panels": {"101": "24h"}},
    }
    config = parse_config(toml)
    with SlackStandIn() as slack:
        clock = FakeClock(int(time.time() * 1000))
        delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 100)
        n = Notifier(
            db,
            config.notify,
            delivery,
            CacheSource(),
            "http://d",
            clock=clock,
            priorities=config.priority_book(),
            supervision_config=config.supervision,
        )
        start = n.start()
        clock.now = start + 24 * HOUR_MS
        settle(n, lambda: in_channel(slack, "C_ALL", "Communication lost"))
        card = read.card_of_alarm(db, f"silent:101:{start}")
        assert card is not None
        slack.throttle("chat.update")  # Slack's limit: the redraw waits a second
        add_alarms(db, 101, clock.now, kind="event")
        clock.now += MINUTE_MS

        def redrawn() -> bool:
            return any("Resolved* by samops" in str(c.params) for c in slack.calls_to("chat.update"))

        settle(n, redrawn)
        replies = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == card.ts]
        assert len(replies) == 1 and "restored after 24 h 1 min" in str(replies[0].params["text"])
        assert "the restored note of silent:101:" in caplog.text  # the redraw did wait for Slack's limit
