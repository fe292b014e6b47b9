"""Under load an alarm's card goes out before the cycle's slower work: the notifier against the real
simulator (service source) and the Slack stand-in, the order read from both sides' own records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core.cache.db import open_cache
from core.client import SamClient
from core.config import parse_notify
from core.notify.source import ServiceSource
from core.settings import Settings
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn


def camera_listings(sim: Simulator) -> list[int]:
    """When (epoch-ms) the simulator received each operation 17 (cameras of an organization)."""
    requests: list[dict[str, Any]] = httpx.get(f"{sim.root_url}/_sim/requests", timeout=10).json()
    return [r["at"] for r in requests if r["path"].startswith("/api/camera/list")]


def test_the_card_is_posted_before_the_cameras_are_listed(tmp_path: Path, simulator: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db", check_same_thread=False)
    client = SamClient(Settings(base_url=simulator.base_url, max_retries=0))
    source = ServiceSource(client, cameras_every=0.5)
    with SlackStandIn() as slack, client:
        cfg = parse_notify({"default_channel": "C_ALL", "storm": {"posts_per_second": 50}})
        web = WebClient(token="xoxb-test", base_url=slack.api_url)
        n = Notifier(db, cfg, SlackDelivery(web, 50), source, "http://dash.local")
        n.start()
        n.cycle()  # the first poll (a day's history, summarized) and the first listing of cameras
        panel = next(p for ids in source.poller.panels.values() for p in ids)
        time.sleep(0.6)  # the cameras are due again
        body = {"resourceId": panel, "count": 1, "violationType": "alarm"}
        [alarm] = httpx.post(f"{simulator.root_url}/_sim/activities", json=body, timeout=10).json()
        listed_before = len(camera_listings(simulator))
        n.cycle()
        [card] = [c for c in slack.calls_to("chat.postMessage") if alarm["eventId"] in str(c.params)]
        listings = camera_listings(simulator)
        assert len(listings) > listed_before  # this cycle listed the cameras too
        # ... but only once the card was out: a listing per organization can take seconds on a busy service.
        assert min(listings[listed_before:]) >= int(card.at * 1000)
    db.close()
