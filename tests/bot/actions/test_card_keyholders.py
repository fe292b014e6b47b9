"""The card's keyholder line through the running bot with signed requests: a click that redraws the card (the
one `bot/cards.py` refresh) draws the line judged at the alarm's own time in the organization's zone
(Europe/Istanbul): inside a keyholder's window, outside every window, or the panel's authorizations could
not be read."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from core.access_windows import DayWindow, Validity
from core.cache.db import open_cache
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.transactions import write_transaction
from core.clock import HOUR_MS
from core.panel_access import validity_to_json
from tests.bot.actions.test_lifecycle import CARD_TS, click, seed, send, updates
from tests.support.bot import run_bot
from tests.support.slack_standin import SlackStandIn

ISTANBUL = ZoneInfo("Europe/Istanbul")
CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n\n[notify]\ntimezone = "Europe/Istanbul"\n'


def authorize(db_path: Path, day: int | None, error: str | None = None) -> None:
    """Panel 777: Ana may operate it all of `day` (ISO weekday, Istanbul); or the read failed."""
    db = open_cache(db_path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        if day is not None:
            validity = Validity(windows=(DayWindow(day, 0, 24 * HOUR_MS),))
            row = {"resource_id": 777, "user_id": 7001, "org_id": 1001, "name": "Ana Yılmaz",
                   "groups": '["Arm / disarm"]', "validity": json.dumps(validity_to_json(validity)),
                   "fetched_at": now}  # fmt: skip
            replace_panel_access(db, 1001, [777], [row])
        record_reads(db, 1001, [777], now, error=error)
    db.close()


def redrawn(tmp_path: Path, day: int | None, error: str | None = None) -> str:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-KEY-1"])  # a burglary on panel 777 (org 1001), now
    authorize(db_path, day, error)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        send(bot, click(slack, "alarm_ack", "EV-KEY-1", "U_TECH", "ack"))
        [text] = slack.wait_for(lambda: updates(slack, CARD_TS))
    assert "Acknowledged" in text
    return text


def test_a_redrawn_card_says_the_alarm_came_during_a_keyholders_window(tmp_path: Path) -> None:
    today = datetime.now(ISTANBUL)
    text = redrawn(tmp_path, today.isoweekday())
    day = today.strftime("%a")
    assert (
        f"Keyholders:* During the access window of Ana Yılmaz ({day} 00:00–24:00): possibly a user error"
        in text
    )


def test_a_redrawn_card_says_the_alarm_came_outside_every_window(tmp_path: Path) -> None:
    text = redrawn(tmp_path, (datetime.now(ISTANBUL) + timedelta(days=2)).isoweekday())
    assert "Keyholders:* Outside every authorized user's window" in text


def test_a_redrawn_card_says_the_authorizations_could_not_be_read(tmp_path: Path) -> None:
    text = redrawn(tmp_path, None, error="the service failed (HTTP 503)")
    assert "Keyholders:* Authorizations could not be read: the service failed (HTTP 503)" in text
