"""The notifier brings a card's keyholder line up to date (bot/notify/keyholders.py): a card posted before its
panel's authorizations were read says "Authorizations not read yet"; when a read fails, or succeeds, the card
is edited once per change through the one refresh, and not again while nothing changes. Real cache file, the
Slack stand-in, the notifier's own cycle."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.access_windows import DayWindow, Validity
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.writes import write_transaction
from core.clock import HOUR_MS, now_ms
from core.panel_access import validity_to_json
from tests.bot.notify.support import FakeClock, add_alarms, cache, notifier, settle
from tests.support.bot import blocks_text
from tests.support.slack_standin import SlackStandIn

ISTANBUL = ZoneInfo("Europe/Istanbul")


def card_texts(slack: SlackStandIn, event_id: str) -> list[str]:
    """The card of `event_id` as posted, then as each edit left it."""
    calls = [
        c
        for c in slack.calls_to("chat.postMessage") + slack.calls_to("chat.update")
        if event_id in str(c.params)
    ]
    calls.sort(key=lambda c: c.at)
    return [
        blocks_text([b for a in c.params.get("attachments") or [] for b in a.get("blocks") or []])
        for c in calls
    ]


def read_now(db: Any, validity: Validity, name: str = "Ana Yılmaz", ago_ms: int = 0) -> None:
    row = {
        "resource_id": 101,
        "user_id": 7001,
        "org_id": 1001,
        "name": name,
        "groups": json.dumps(["Arm / disarm"]),
        "validity": json.dumps(validity_to_json(validity)),
        "fetched_at": now_ms(),
    }
    with write_transaction(db):
        replace_panel_access(db, 1001, [101], [row])
        record_reads(db, 1001, [101], now_ms() - ago_ms)


def test_a_card_posted_before_the_read_is_edited_once_per_change(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, timezone="Europe/Istanbul")
        [event] = add_alarms(db, 101, now_ms())
        settle(n, lambda: card_texts(slack, event))
        assert "Keyholders:* Authorizations not read yet" in card_texts(slack, event)[0]

        with write_transaction(db):
            record_reads(db, 1001, [101], now_ms() + 1, error="the service did not answer")
        # Until the edit is out (the channel's pace may defer it a cycle), then once more: no second edit.
        settle(n, lambda: len(card_texts(slack, event)) >= 2)
        n.cycle()
        texts = card_texts(slack, event)
        assert len(texts) == 2
        assert "Keyholders:* Authorizations could not be read: the service did not answer" in texts[1]

        read_now(db, Validity(windows=tuple(DayWindow(d, 0, 24 * HOUR_MS) for d in range(1, 8))))
        settle(n, lambda: len(card_texts(slack, event)) >= 3)
        n.cycle()
        texts = card_texts(slack, event)
    assert len(texts) == 3, texts
    assert "During the access window of Ana Yılmaz (Mon–Sun 00:00–24:00): possibly a user error" in texts[2]


def test_a_card_drawn_after_the_read_shows_the_line_at_once_and_is_not_edited(tmp_path: Path) -> None:
    db = cache(tmp_path)
    tomorrow = datetime.now(ISTANBUL).isoweekday() % 7 + 1
    window = Validity(windows=(DayWindow(tomorrow, 8 * HOUR_MS, 9 * HOUR_MS),))
    read_now(db, window, name="Bora Kaya", ago_ms=120_000)  # two minutes before the card
    clock = FakeClock(now_ms())
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, timezone="Europe/Istanbul")
        [event] = add_alarms(db, 101, now_ms())
        settle(n, lambda: card_texts(slack, event))
        n.cycle()
        texts = card_texts(slack, event)
    assert len(texts) == 1, texts
    assert "Keyholders:* Outside every authorized user's window" in texts[0]
