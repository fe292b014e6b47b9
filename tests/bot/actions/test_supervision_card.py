"""A "communication lost" card's buttons through the running bot, as any alarm card's: the notifier posts it
for a silent panel, a technician clicks "I'm on it" (signed, as Slack sends it) and the card says who holds
it; when the panel reports again the notifier resolves it as samops, and a click on a stale card is told it
was already resolved by samops. Every change is in the audit log, samops' own among them."""

from __future__ import annotations

import time
from pathlib import Path

from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import lifecycle
from core.cache import audit
from core.clock import HOUR_MS, MINUTE_MS
from core.config import parse_config
from core.notify.source import CacheSource
from core.read import card_of_alarm
from tests.bot.actions.test_lifecycle import ROLES, answer, click, send, updates
from tests.bot.notify.support import FakeClock, add_alarms, cache, settle
from tests.support.bot import run_bot
from tests.support.slack_standin import SlackStandIn


def test_take_a_communication_lost_card_then_samops_resolves_it(tmp_path: Path) -> None:
    db = cache(tmp_path)
    config = parse_config(
        {
            "notify": {"default_channel": "C_ALARMS", "storm": {"posts_per_second": 100}},
            "supervision": {"silent_after": "off", "panels": {"101": "24h"}},
        }
    )
    with (
        SlackStandIn() as slack,
        run_bot(tmp_path, slack, db_path=tmp_path / "cache.db", config=ROLES) as bot,
    ):
        clock = FakeClock(int(time.time() * 1000))
        delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 100)
        n = Notifier(
            db,
            config.notify,
            delivery,
            CacheSource(),
            "http://d",
            clock=clock,
            supervision_config=config.supervision,
        )
        start = n.start()
        clock.now = start + 24 * HOUR_MS
        event_id = f"silent:101:{start}"
        settle(n, lambda: card_of_alarm(db, event_id))
        card = card_of_alarm(db, event_id)
        assert card is not None

        send(bot, click(slack, "alarm_take", event_id, "U_TECH", "take", ts=card.ts))
        [taken] = slack.wait_for(lambda: updates(slack, card.ts), timeout=30)
        assert "held by <@U_TECH>" in taken and "Communication lost" in taken

        add_alarms(db, 101, clock.now, kind="event")  # the panel reports again
        clock.now += MINUTE_MS
        settle(n, lambda: len(updates(slack, card.ts)) == 2)
        resolved = updates(slack, card.ts)[-1]
        # Nothing was ever heard from it: silent from when samops started watching.
        assert "Resolved* by samops" in resolved and "restored after 24 h 1 min" in resolved
        send(bot, click(slack, "alarm_ack", event_id, "U_OTHER", "stale", ts=card.ts))
        assert "Already resolved by samops at" in answer(slack, "stale")

    state = lifecycle.get(db, event_id)
    assert state is not None and (state.assignee, state.resolved_by) == ("U_TECH", "samops")
    # samops' own row is stamped by the notifier's (fake) clock, a day ahead of the bot's: compared unordered.
    rows = sorted((e.slack_user, e.command, e.outcome) for e in audit.recent(db))
    assert rows == sorted(
        [
            ("U_TECH", f"alarm take {event_id}", "ok"),
            ("samops", f"supervision resolve {event_id}", "ok"),
            (
                "U_OTHER",
                f"alarm acknowledge {event_id}",
                "ok",
            ),  # audited; its summary says it changed nothing
        ]
    )
