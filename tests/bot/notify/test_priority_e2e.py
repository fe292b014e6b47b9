"""Priorities end to end on the spec-exact simulator: alarms injected into the service, synced, posted by
the notifier into the Slack stand-in; each card carries the priority of the first matching [[priorities]]
rule, else the default of its violationType."""

from __future__ import annotations

from pathlib import Path

import httpx
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core.cache.db import open_cache
from core.client import SamClient
from core.config import parse_config
from core.notify.source import CacheSource
from core.settings import Settings
from tests.bot.notify.test_notify_e2e import demo_panels, quiet_sim, wait_until
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn

__all__ = ["quiet_sim"]  # the simulator fixture, shared with the notifier's other end-to-end tests


def test_cards_carry_the_rules_priority_else_the_default(tmp_path: Path, quiet_sim: Simulator) -> None:
    from core.sync import run_sync

    first, second = demo_panels(quiet_sim)[-2:]
    config = parse_config(
        {
            # no site incidents: each alarm keeps its own card here
            "notify": {
                "default_channel": "C_ALL",
                "storm": {"posts_per_second": 50},
                "incidents": {"enabled": False},
            },
            "priorities": [
                {"priority": "P1", "panels": [second], "violation_types": ["warning"]},
                {"priority": "P4", "violation_name": "*test*"},
            ],
        }
    )
    db = open_cache(tmp_path / "cache.db")
    with SamClient(Settings(base_url=quiet_sim.base_url)) as client, SlackStandIn() as slack:
        run_sync(db, client)
        web = WebClient(token="xoxb-test", base_url=slack.api_url)
        notifier = Notifier(
            db,
            config.notify,
            SlackDelivery(web, 50),
            CacheSource(),
            "http://d",
            priorities=config.priority_book(),
        )
        notifier.start()
        notifier.cycle()
        expected: dict[str, str] = {}
        for rid, kind, name, priority in [
            (first, "warning", None, "P3"),
            (first, "error", None, "P2"),
            (first, "alarm", None, "P1"),
            (second, "warning", None, "P1"),  # the first rule (a default P3)
            (first, "alarm", "Line TEST", "P4"),  # the second rule, by name (a default P1)
        ]:
            body: dict[str, object] = {"resourceId": rid, "count": 1, "violationType": kind}
            body |= {"violationName": name} if name else {}
            [made] = httpx.post(f"{quiet_sim.root_url}/_sim/activities", json=body).json()
            expected[made["eventId"]] = priority
        run_sync(db, client)
        notifier.cycle()
        wait_until(lambda: notifier.deliver() and not notifier._has_work(), 30, "delivery")
        cards = {
            str(e["value"]): str(call.params["attachments"])
            for call in slack.calls_to("chat.postMessage")
            for attachment in call.params.get("attachments") or []
            for block in attachment["blocks"]
            for e in block.get("elements", [])
            if e.get("action_id") == "alarm_ack"
        }
    assert set(cards) == set(expected)
    for event_id, priority in expected.items():
        assert f"*Priority*\\n{priority}" in cards[event_id], (event_id, priority)
