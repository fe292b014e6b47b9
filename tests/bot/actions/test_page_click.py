"""The buttons of a page (a direct message, docs/paging.md) act on its alarm, through the running bot with
signed requests: the click comes from the DM, not from the card, and samops' record of the page stands for
the card; the card is re-rendered where it is and the clicker is answered. A click from a DM message samops
did not page, or naming another alarm than the page's, is refused as any click naming another card."""

from __future__ import annotations

import json
import time
from pathlib import Path

from core import cache, lifecycle
from core.cache.db import open_cache
from core.cache.writes import upsert_dicts, write_transaction
from core.lifecycle import State
from tests.bot.actions.test_lifecycle import ROLES, answer, click, seed, send, updates
from tests.support.bot import run_bot
from tests.support.slack_standin import SlackStandIn

DM = "D0TECH"
PAGE_TS = "1700000099.000001"
NOT_OURS = "does not match the card samops posted"


def from_dm(payload: dict, ts: str = PAGE_TS) -> dict:
    payload["channel"] = {"id": DM}
    payload["container"] = {"type": "message", "message_ts": ts, "channel_id": DM, "is_ephemeral": False}
    payload["message"] = {"ts": ts, "text": "page"}
    return payload


def test_a_pages_buttons_act_on_its_alarm(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-1", "EV-2"])
    db = open_cache(db_path)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 778, "org_id": 1001, "name": "Yard"}], "resource_id")
    assert cache.claim_page(db, "U_TECH", "EV-1", 1, "target", int(time.time() * 1000))
    cache.mark_page_sent(db, "U_TECH", "EV-1", 1, DM, PAGE_TS)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        send(bot, from_dm(click(slack, "alarm_ack", "EV-2", "U_TECH", "other")))  # the page is EV-1's
        assert NOT_OURS in answer(slack, "other")
        send(bot, from_dm(click(slack, "alarm_ack", "EV-1", "U_TECH", "unpaged"), ts="1700000099.000002"))
        assert NOT_OURS in answer(slack, "unpaged")
        assert lifecycle.get(db, "EV-1").state is State.OPEN  # type: ignore[union-attr]

        send(bot, from_dm(click(slack, "alarm_ack", "EV-1", "U_TECH", "paged")))
        assert "Done: the alarm is acknowledged; its card is updated." in answer(slack, "paged")
        assert updates(slack)  # the card in its channel, re-rendered
        state = lifecycle.get(db, "EV-1")
        assert state is not None and state.state is State.ACKNOWLEDGED and state.acknowledged_by == "U_TECH"

        # The page's Silence: its alarm's panel, not another one.
        other = from_dm(click(slack, "alarm_silence_30", json.dumps({"r": 778, "m": 30}), "U_TECH", "s778"))
        send(bot, other)
        assert NOT_OURS in answer(slack, "s778").replace("nothing was silenced", "")
        send(
            bot, from_dm(click(slack, "alarm_silence_30", json.dumps({"r": 777, "m": 30}), "U_TECH", "s777"))
        )
        slack.wait_for(lambda: slack.responses("s777"), timeout=30)
        assert cache.silence_until(db, 777) is not None and cache.silence_until(db, 778) is None
    db.close()
