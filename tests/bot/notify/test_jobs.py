"""The timed jobs run beside the alarm path (bot/notify/jobs.py): a long-running notifier against the real
simulator (service source) and the Slack stand-in posts a new alarm's card while a slow job is still busy.
The slow job is one more line in the registry (`Notifier.timed_jobs`), as any new job is."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.jobs import Job
from bot.notify.service import Notifier
from core.cache.db import open_cache
from core.client import SamClient
from core.config import parse_notify
from core.notify.source import ServiceSource
from core.settings import Settings
from tests.support.processes import Simulator
from tests.support.slack_standin import SlackStandIn

SLOW_S = 8.0  # a job this slow (a paced read, a slow listing) ...
BUDGET_S = 4.0  # ... and the card still out within this, polling every INTERVAL_S
INTERVAL_S = 0.5


@dataclass
class SlowJob:
    """A timed job that takes SLOW_S each time it runs."""

    name: str = "slow"
    started: float = 0.0

    def tick(self, now: int) -> None:
        self.started = time.monotonic()
        time.sleep(SLOW_S)


SLOW = SlowJob()


class WithSlowJob(Notifier):
    def timed_jobs(self) -> list[Job]:
        return [*super().timed_jobs(), SLOW]


def test_a_slow_job_does_not_hold_up_the_next_alarms_card(tmp_path: Path, simulator: Simulator) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path, check_same_thread=False)
    client = SamClient(Settings(base_url=simulator.base_url, max_retries=0))
    stop = threading.Event()
    with SlackStandIn() as slack, client:
        cfg = parse_notify({"default_channel": "C_ALL", "storm": {"posts_per_second": 50}})
        web = WebClient(token="xoxb-test", base_url=slack.api_url)
        source = ServiceSource(client)
        n = WithSlowJob(db, cfg, SlackDelivery(web, 50), source, "http://dash.local", db_path=path)
        runner = threading.Thread(target=n.run, args=(INTERVAL_S, stop), daemon=True)
        runner.start()
        try:
            deadline = time.monotonic() + 60
            while not (SLOW.started and source.poller.panels) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert SLOW.started, "the slow job never ran"
            panel = next(p for ids in source.poller.panels.values() for p in ids)
            # Injected while the slow job has most of its time still to go.
            body = {"resourceId": panel, "count": 1, "violationType": "alarm"}
            [alarm] = httpx.post(f"{simulator.root_url}/_sim/activities", json=body, timeout=10).json()
            injected = time.monotonic()
            assert injected - SLOW.started < SLOW_S - BUDGET_S

            def card() -> bool:
                return any(alarm["eventId"] in str(c.params) for c in slack.calls_to("chat.postMessage"))

            while not card() and time.monotonic() - injected < SLOW_S:
                time.sleep(0.05)
            took = time.monotonic() - injected
            assert card() and took < BUDGET_S, f"the card took {took:.1f} s behind a {SLOW_S:g} s job"
        finally:
            stop.set()
            runner.join(timeout=SLOW_S + 10)
    db.close()
