"""Helpers of the notifier's quiet-window and handover tests: a cache with panels, alarms as the sync writes
them, a notifier on the Slack stand-in with a clock the test moves."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.config import parse_notify
from core.notify.source import CacheSource
from tests.support.bot import blocks_text
from tests.support.slack_standin import SlackStandIn

PANELS = {101: (1001, "Warehouse"), 102: (1001, "Office"), 201: (1002, "Harbor gate")}
_seq = itertools.count(1)


@dataclass
class FakeClock:
    now: int

    def __call__(self) -> int:
        return self.now


def cache(tmp_path: Path) -> Any:
    db = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(db):
        panels = [{"resource_id": r, "org_id": o, "name": n} for r, (o, n) in PANELS.items()]
        upsert_dicts(db, "panels", panels, "resource_id")
        upsert_dicts(
            db, "organizations", [{"id": 1001, "name": "Acme"}, {"id": 1002, "name": "Harbor"}], "id"
        )
    return db


def add_alarms(db: Any, rid: int, at: int, count: int = 1, kind: str = "alarm") -> list[str]:
    """Activities on panel `rid` at `at` (+1 ms each); kind "event" is not an alarm."""
    org, name = PANELS[rid]
    rows = []
    for i in range(count):
        n = next(_seq)
        event_type = "event" if kind == "event" else "violation"
        violation = None if kind == "event" else kind
        rows.append((f"EV-{rid}-{n:06d}", rid, org, at + i, f"{kind} on {name} - Door {n}", event_type,
                     f"{kind.title()} name", violation, 2, 1, 1))  # fmt: skip
    with write_transaction(db):
        upsert_activities(db, "activities", rows)
    return [r[0] for r in rows]


def notifier(db: Any, slack: SlackStandIn, clock: FakeClock, **config: Any) -> Notifier:
    cfg = parse_notify({"default_channel": "C_ALL", "storm": {"posts_per_second": 100}, **config})
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), cfg.storm.posts_per_second)
    n = Notifier(db, cfg, delivery, CacheSource(), "http://dash.local", clock=clock)
    n.start()
    return n


def posts(slack: SlackStandIn, channel: str, contains: str = "") -> list[str]:
    """The text (fallback and blocks) of every message posted to `channel` that contains `contains`."""
    out = []
    for call in slack.calls_to("chat.postMessage"):
        if call.params.get("channel") != channel:
            continue
        blocks = list(call.params.get("blocks") or [])
        for attachment in call.params.get("attachments") or []:
            blocks += attachment.get("blocks") or []
        text = str(call.params.get("text") or "") + "\n" + blocks_text(blocks)
        if contains in text:
            out.append(text)
    return out


def alarm_cards(slack: SlackStandIn) -> list[str]:
    """eventIds of the alarm cards posted (from their Acknowledge button)."""
    return [
        element["value"]
        for call in slack.calls_to("chat.postMessage")
        for attachment in call.params.get("attachments") or []
        for block in attachment["blocks"]
        for element in block.get("elements", [])
        if element.get("action_id") == "alarm_ack"
    ]


def settle(n: Notifier, until: Callable[[], object] = lambda: False, timeout: float = 20.0) -> None:
    """Run cycles until `until()` holds and nothing is left to deliver (pacing may defer a post a little)."""
    deadline = time.monotonic() + timeout
    while True:
        n.cycle()
        if until() and not n._has_work():
            return
        assert time.monotonic() < deadline, "the notifier did not settle"
        time.sleep(0.02)
