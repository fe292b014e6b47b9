"""Group-testing attribution (core/attribution.py, core/poller.py) against the spec-exact simulator: the
records carry no panel id, and every new alarm must still land on its own panel, for a cost of about
`k·log2(n/k)` requests, not one per panel."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.cache.db import open_cache
from core.client import SamClient
from core.poller import Poller
from core.settings import Settings
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator

PANELS = 256


@pytest.fixture(scope="module")
def fleet() -> Iterator[Simulator]:
    """Spec-exact (the default): no resourceId on any activity."""
    with run_simulator("--alarm-rate", "0", "--panels", str(PANELS), "--orgs", "2", seed=14) as sim:
        yield sim


@pytest.fixture(scope="module")
def named() -> Iterator[Simulator]:
    """A service that sends a panel id on its activities (an extension, not the spec)."""
    with run_simulator("--alarm-rate", "0", "--extensions", "activity-resource-id", seed=14) as sim:
        yield sim


def inject(sim: Simulator, rid: int, count: int = 1) -> list[str]:
    body = {"resourceId": rid, "count": count, "violationType": "alarm"}
    answer = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10)
    answer.raise_for_status()
    return [a["eventId"] for a in answer.json()]


def activity_requests(sim: Simulator) -> int:
    stats = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()
    return sum(n for op, n in stats["operations"].items() if op.startswith("3 "))


def attributed(db: Any, events: list[str]) -> dict[str, int]:
    marks = ",".join("?" * len(events))
    rows = db.execute(f"SELECT event_id, resource_id FROM activities WHERE event_id IN ({marks})", events)
    return dict(rows.fetchall())


def settled_poller(tmp_path: Path, client: SamClient) -> tuple[Any, Poller]:
    """A poller past its first polls: the window holds nothing it does not know."""
    db = open_cache(tmp_path / "cache.db")
    poller = Poller(client, history_ms=0)
    now = int(time.time() * 1000)
    poller.poll(db, now)
    poller.poll(db, now)
    return db, poller


def test_a_few_active_panels_among_many_each_alarm_on_its_own_panel(tmp_path: Path, fleet: Simulator) -> None:
    with SamClient(Settings(base_url=fleet.base_url, max_retries=0)) as client:
        panels = {known(p.resource_id): known(p.org_id) for p in client.login().panels}
        assert len(panels) == PANELS
        db, poller = settled_poller(tmp_path, client)

        before = activity_requests(fleet)
        poller.poll(db)
        orgs = len(set(panels.values()))
        assert activity_requests(fleet) - before == orgs  # idle: one request per organization

        chosen = sorted(panels)[3::61][:4]  # four panels, spread over both organizations
        expected = {event: rid for rid in chosen for event in inject(fleet, rid, 2)}
        before = activity_requests(fleet)
        report = poller.poll(db)
        cost = activity_requests(fleet) - before

    assert attributed(db, list(expected)) == expected
    assert report.new == len(expected)
    # Each active panel is found down one path of halvings: far fewer requests than one per panel.
    per_org = PANELS // orgs
    assert cost <= orgs + 2 * len(chosen) * math.ceil(math.log2(per_org))
    assert report.rounds == math.ceil(math.log2(per_org)) + 1


def test_a_second_poll_of_the_same_window_writes_nothing_new(tmp_path: Path, fleet: Simulator) -> None:
    with SamClient(Settings(base_url=fleet.base_url, max_retries=0)) as client:
        db, poller = settled_poller(tmp_path, client)
        rid = client.login().panels[7].resource_id
        inject(fleet, rid or 0)
        assert poller.poll(db).new == 1
        before = activity_requests(fleet)
        assert poller.poll(db).new == 0  # the overlap re-reads it: de-duplicated by eventId, no split
        assert activity_requests(fleet) - before == 2


def test_a_panel_id_on_the_records_is_used_without_splitting(tmp_path: Path, named: Simulator) -> None:
    with SamClient(Settings(base_url=named.base_url, max_retries=0)) as client:
        panels = sorted(known(p.resource_id) for p in client.login().panels if p.org_id == 1001)
        orgs = len({p.org_id for p in client.login().panels})
        db, poller = settled_poller(tmp_path, client)
        expected = {event: rid for rid in panels[:3] for event in inject(named, rid)}
        before = activity_requests(named)
        report = poller.poll(db)
        assert activity_requests(named) - before == orgs  # the probe per organization was enough
    assert attributed(db, list(expected)) == expected
    assert report.rounds == 1


def test_a_first_poll_attributes_a_days_history_to_the_right_panels(tmp_path: Path, fleet: Simulator) -> None:
    now = int(time.time() * 1000)
    with SamClient(Settings(base_url=fleet.base_url, max_retries=0)) as client:
        db = open_cache(tmp_path / "cache.db")
        Poller(client).poll(db, now)  # no cursor: the last 24 h
    since = now - 24 * 3_600_000
    truth = httpx.get(f"{fleet.root_url}/_sim/activities", params={"since": since}, timeout=30).json()
    expected = {a["eventId"]: a["resourceId"] for a in truth if a["activityTime"] >= since}
    assert len(expected) > PANELS  # most panels have something: the panel-by-panel case
    assert attributed(db, list(expected)) == expected
