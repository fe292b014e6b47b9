"""Tiered refresh at fleet size (issue 14): sensors and controllers from the login rather than panel by
panel, the session kept between the login's refreshes, per-panel tiers paced to SAMOPS_REFRESH_RATE, and
the alarm poller's panel list taken from the sync's latest login instead of a login of its own. Against
the real spec-exact simulator, counting its requests (`/_sim/stats`); time is a fake clock or a stored
refresh time set back, never a wait."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core import tiers
from core.cache import writes
from core.cache.db import open_cache
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.models import LoginResult
from core.poller import PANELS_EVERY_MS, Poller
from core.settings import Settings
from core.sync import SyncOptions, _carried, run_sync
from tests.core.test_tiers import simulate
from tests.support.processes import Simulator, run_simulator

MINUTE = 60_000
LOGIN = "1 POST /auth/login"
SENSORS = "18 GET /panel/{}/sensor/list"
CONTROLLERS = "14 GET /panel/{}/controller/list"
ACTIVITIES = "3 POST /activities"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", "40", seed=18) as s:
        yield s


def asked(sim: Simulator) -> dict[str, int]:
    """Requests per operation since the last call (it resets the counts)."""
    counts = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()["operations"]
    httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
    return {op: n for op, n in counts.items() if n}


def settings_for(sim: Simulator) -> Settings:
    return Settings(_env_file=None, base_url=sim.base_url, max_retries=0)


def test_sensors_and_controllers_come_from_the_login_and_match_the_panel_answers(
    tmp_path: Path, sim: Simulator
) -> None:
    db = open_cache(tmp_path / "cache.db")
    settings = settings_for(sim)
    with SamClient(settings) as client:
        asked(sim)
        report = run_sync(db, client, SyncOptions(activities=False, schedules=tiers.schedules(settings)))
        counts = asked(sim)
        panels = sorted(tiers.refreshed(db, "sensors"))
        assert report.ok and len(panels) == report.panels > 20
        assert counts[LOGIN] == 1 and SENSORS not in counts and CONTROLLERS not in counts
        for rid in panels[:3]:  # what the cache took from the login is what the panel's own answer says
            own = writes.sensor_rows(client.list_panel_sensors(rid), rid)
            cached = db.execute("SELECT raw FROM sensors WHERE resource_id = ? ORDER BY id", [rid]).fetchall()
            assert [json.loads(r[0]) for r in cached] == [json.loads(r["raw"]) for r in own]
            controllers = client.list_panel_controllers(rid)
            count = db.execute("SELECT count(*) FROM controllers WHERE resource_id = ?", [rid]).fetchone()[0]
            assert count == len(controllers)


def test_the_session_is_kept_until_the_login_tier_falls_due(tmp_path: Path, sim: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    settings = settings_for(sim)
    options = SyncOptions(activities=False, schedules=tiers.schedules(settings))
    with SamClient(settings) as client:
        first = run_sync(db, client, options)
        asked(sim)
        # A tick within the sensors' ten minutes: no login, nothing per panel but what is due.
        kept = run_sync(db, client, options)
        counts = asked(sim)
        assert kept.ok and LOGIN not in counts and SENSORS not in counts and CONTROLLERS not in counts
        assert not {"organizations", "panels", "sensors", "controllers"} & set(kept.rows)  # not rewritten
        assert set(tiers.refreshed(db, "sensors").values()) == {first.started_at}
        # Eleven minutes later (the login's refresh time set back): one login refreshes every panel.
        with write_transaction(db):
            tiers.mark_refreshed(db, tiers.LOGIN, [0], first.started_at - 11 * MINUTE)
        later = run_sync(db, client, options)
        counts = asked(sim)
    assert counts[LOGIN] == 1 and SENSORS not in counts and CONTROLLERS not in counts
    assert set(tiers.refreshed(db, "sensors").values()) == {later.started_at}
    assert set(tiers.refreshed(db, "controllers").values()) == {later.started_at}


def test_a_panel_whose_summary_lacks_its_sensors_is_asked_alone() -> None:
    login = LoginResult.model_validate(
        {
            "resources": [
                {"resourceId": 1, "resourceSensors": [{"type": "Zone", "sensors": [{"id": 11}]}]},
                {"resourceId": 2, "resourceSensors": [], "resourceControllers": []},  # has none
                {"resourceId": 3},  # the service did not say: ask the panel
            ]
        }
    )
    carried = _carried(login, {1, 2, 3})
    assert sorted(carried["sensors"]) == [1, 2] and carried["sensors"][2] == []
    assert [r["id"] for r in carried["sensors"][1]] == [11]
    assert sorted(carried["controllers"]) == [2]


def test_per_panel_tiers_are_paced_to_the_refresh_rate_at_fleet_size() -> None:
    """5,000 panels in an organization at 0.5 requests per second: every panel once per 10,000 s (not
    every 10 min, 8.3 requests per second), evenly over `sync --every`'s 30-s ticks."""
    schedule = tiers.Schedule("push_history", 10 * MINUTE).paced(5_000, 0.5)
    assert schedule.interval_ms == 10_000_000
    tick = MINUTE // 2
    runs = simulate(schedule, list(range(100_001, 105_001)), start=1_700_000_000_000, tick=tick, ticks=1_000)
    per_tick = [len(run) for run in runs]
    even = 0.5 * tick / 1000  # 15 requests a tick
    assert sum(per_tick) / len(per_tick) <= even * 1.05
    assert max(per_tick) <= 3 * even
    # A small fleet keeps its configured interval.
    assert tiers.Schedule("push_history", 10 * MINUTE).paced(24, 0.5).interval_ms == 10 * MINUTE


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def panels_asked(sim: Simulator, since: float) -> set[int]:
    """Every panel named in an operation-3 request the simulator received since `since` (epoch-ms)."""
    requests = httpx.get(f"{sim.root_url}/_sim/requests", timeout=10).json()
    ours = [r for r in requests if r["path"] == "/api/activities" and r["at"] >= since]
    return {rid for r in ours for rid in json.loads(r["body"])["resourceIds"]}


def real_now() -> float:
    return time.time() * 1000


def test_the_poller_keeps_its_session_and_takes_the_panel_list_from_the_sync(
    tmp_path: Path, sim: Simulator
) -> None:
    db = open_cache(tmp_path / "cache.db")
    settings = settings_for(sim)
    with SamClient(settings) as client:
        clock = Clock(run_sync(db, client, SyncOptions(activities=False)).started_at)
        poller = Poller(client, overlap_ms=0, history_ms=MINUTE, clock=clock)
        asked(sim)
        poller.poll(db)
        assert asked(sim)[LOGIN] == 1  # the first panel list comes with the session's login
        listed = tiers.listed_panels(db, tiers.last_listed(db) or 0)
        fleet = {rid for ids in listed.values() for rid in ids}
        # The sync's next login (later) lists one panel fewer: it was removed from the service.
        gone = min(fleet)
        with write_transaction(db):
            tiers.mark_listed(db, sorted(fleet - {gone}), clock.now + MINUTE)
        clock.now += 5 * MINUTE
        since = real_now()
        poller.poll(db)  # within ten minutes: the list it has
        assert panels_asked(sim, since) == fleet
        clock.now += PANELS_EVERY_MS
        since = real_now()
        poller.poll(db)
        counts = asked(sim)
        assert LOGIN not in counts and counts[ACTIVITIES] >= 2
        assert panels_asked(sim, since) == fleet - {gone}
        # No newer list for twice that long (no sync running): the poller logs in itself.
        clock.now += 2 * PANELS_EVERY_MS
        since = real_now()
        poller.poll(db)
        assert asked(sim)[LOGIN] == 1
        assert panels_asked(sim, since) == fleet  # the service still lists it
    relisted = tiers.listed_panels(db, tiers.last_listed(db) or 0)
    assert {rid for ids in relisted.values() for rid in ids} == fleet
