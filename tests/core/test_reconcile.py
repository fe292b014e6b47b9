"""Reconciliation (core/reconcile.py) against the spec-exact simulator, counted from its own stats: a day
of history with nothing late costs one request; a late arrival is found on its own panel, stamped with when
samops saw it, for requests that grow with the logarithm of the history and of the panels, not with them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.cache.db import open_cache
from core.client import SamClient
from core.clock import HOUR_MS, MINUTE_MS, now_ms
from core.pacing import Pacer
from core.poller import Poller
from core.reconcile import Reconciler
from core.settings import Settings
from tests.core.test_attribution import activity_requests
from tests.support.processes import Simulator, run_simulator

PANELS = 64
DAY = 24 * HOUR_MS


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", str(PANELS), "--orgs", "1", seed=23) as s:
        yield s


def back_date(sim: Simulator, panel: int, at: int) -> str:
    body = {"resourceId": panel, "violationType": "alarm", "activityTime": at}
    [activity] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()
    return activity["eventId"]


def test_nothing_late_costs_one_request_and_a_late_arrival_is_found_on_its_panel(
    tmp_path: Path, sim: Simulator
) -> None:
    with SamClient(Settings(_env_file=None, base_url=sim.base_url, max_retries=0)) as client:
        db = open_cache(tmp_path / "cache.db")
        poller = Poller(client, history_ms=DAY)
        first = now_ms()
        poller.poll(db, first)  # the first poll: the day's history, not stamped
        poller.poll(db, first)
        history = db.execute("SELECT count(*) FROM activities").fetchone()[0]
        reconciler = Reconciler(client, Pacer(1000.0, threading.Event()), DAY, 2 * MINUTE_MS)
        orgs = set(poller.panels)

        before = activity_requests(sim)
        report = reconciler.run(db, poller.panels, orgs, first - DAY)
        assert (report.found, activity_requests(sim) - before) == (0, len(orgs))

        panel = sorted(p for ids in poller.panels.values() for p in ids)[17]
        late = back_date(sim, panel, now_ms() - 3 * HOUR_MS)
        assert poller.poll(db, first).new == 0  # behind the poller's window: only reconciliation finds it
        before, seen_from = activity_requests(sim), now_ms()
        report = reconciler.run(db, poller.panels, orgs, first - DAY)
        spent = activity_requests(sim) - before
        row = db.execute("SELECT resource_id, seen_at FROM activities WHERE event_id = ?", [late]).fetchone()
        assert report.found == 1 and row[0] == panel and row[1] >= seen_from
        # Counting down to a page, then group testing one record among the panels.
        bound = 2 + math.ceil(math.log2(max(2, history / 100))) + 1 + 2 * math.ceil(math.log2(PANELS))
        assert spent <= bound, (spent, bound, history)
        first_poll = db.execute("SELECT count(*) FROM activities WHERE seen_at IS NOT NULL").fetchone()[0]
        assert first_poll == 1  # the day the first poll read was history: only the late one was seen arriving

        before = activity_requests(sim)
        assert reconciler.run(db, poller.panels, orgs, first - DAY).found == 0
        assert activity_requests(sim) - before == len(orgs)  # settled again
