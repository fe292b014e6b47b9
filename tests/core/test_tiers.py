"""Tiered freshness (core/tiers.py, core/sync.py): each slow table on its own schedule, spread over time.
The schedule is checked with a fake clock; the sync's use of it against the simulator, counting requests."""

from __future__ import annotations

import math
import subprocess
from collections import Counter
from pathlib import Path

import httpx

from core import tiers
from core.cache.db import open_cache
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.settings import Settings
from core.sync import SyncOptions, run_sync
from tests.support.processes import ROOT, Simulator, samops_cmd

MINUTE = 60_000


def simulate(
    schedule: tiers.Schedule, scopes: list[int], start: int, tick: int, ticks: int
) -> list[list[int]]:
    """A `sync --every` loop under a fake clock, every scope refreshed at `start` (a first full sync);
    returns the scopes refreshed at each tick."""
    refreshed = dict.fromkeys(scopes, start)
    runs = []
    for i in range(1, ticks + 1):
        now = start + i * tick
        due = schedule.due(scopes, refreshed, now)
        refreshed |= dict.fromkeys(due, now)
        runs.append(due)
        assert all(now - at <= schedule.interval_ms + tick for at in refreshed.values())
    return runs


def test_refreshes_are_spread_over_the_interval_not_a_burst() -> None:
    schedule = tiers.Schedule("sensors", 10 * MINUTE)
    scopes = list(range(100_001, 101_001))  # a thousand panels
    tick = MINUTE // 2
    runs = simulate(schedule, scopes, start=1_700_000_000_000, tick=tick, ticks=240)  # two hours
    per_tick = [len(run) for run in runs]
    even = len(scopes) * tick / schedule.interval_ms  # 50
    assert max(per_tick) <= 2 * even  # never everything at once
    assert min(per_tick[20:]) > 0  # and every tick takes its share
    counts = Counter(scope for run in runs for scope in run)
    assert set(counts.values()) <= {11, 12, 13}  # every panel about once per ten minutes, over two hours


def test_a_scope_that_failed_stays_due_and_a_new_one_is_due_at_once() -> None:
    schedule = tiers.Schedule("users", 10 * MINUTE)
    now = 1_700_000_000_000
    refreshed = {1001: now - 11 * MINUTE, 1002: now}
    assert schedule.due([1001, 1002, 1003], refreshed, now) == [1001, 1003]
    # Not refreshed (its fetch failed): still due on the next tick.
    assert schedule.due([1001, 1002, 1003], refreshed, now + 1) == [1001, 1003]


def test_a_scopes_phase_is_the_same_every_interval() -> None:
    schedule = tiers.Schedule("cameras", 10 * MINUTE)
    points = {schedule.last_due(1002, t) for t in range(0, 60 * MINUTE, 7_000) if t >= 10 * MINUTE}
    assert all((p - schedule.phase(1002)) % schedule.interval_ms == 0 for p in points)
    assert len(points) == math.ceil(50 * MINUTE / schedule.interval_ms) + 1


def sensor_requests(sim: Simulator) -> dict[str, int]:
    stats = httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()["operations"]
    return {op: n for op, n in stats.items() if n}


PUSH_HISTORY = "20 POST /resource/pushnotification/history"


def test_a_tiered_sync_fetches_only_what_is_due(tmp_path: Path, simulator: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    settings = Settings(base_url=simulator.base_url, max_retries=0)
    schedules = tiers.schedules(settings)
    with SamClient(settings) as client:
        assert run_sync(db, client).ok  # once: everything, every scope marked refreshed
        panel = sorted(tiers.refreshed(db, "push_history"))[3]
        with write_transaction(db):
            tiers.mark_refreshed(db, "push_history", [panel], 0)  # this panel's push history: long overdue
        httpx.post(f"{simulator.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
        report = run_sync(db, client, SyncOptions(activities=False, schedules=schedules))
    assert report.ok
    # The one overdue panel's push history: no other table was due, and the session of the first run is
    # kept (sensors and controllers came with its login, which is not due again for ten minutes).
    assert sensor_requests(simulator) == {PUSH_HISTORY: 1}
    assert tiers.refreshed(db, "push_history")[panel] == report.started_at


def test_sync_full_still_fetches_everything(tmp_path: Path, simulator: Simulator) -> None:
    db = open_cache(tmp_path / "cache.db")
    settings = Settings(base_url=simulator.base_url, max_retries=0)
    with SamClient(settings) as client:
        run_sync(db, client)
        panels = len(tiers.refreshed(db, "push_history"))
        httpx.post(f"{simulator.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
        report = run_sync(db, client, SyncOptions(full=True, schedules=tiers.schedules(settings)))
    asked = sensor_requests(simulator)
    # A fresh login brings every panel's sensors and controllers; push history is asked panel by panel.
    assert asked["1 POST /auth/login"] == 1 and asked[PUSH_HISTORY] == panels
    assert "18 GET /panel/{}/sensor/list" not in asked and "14 GET /panel/{}/controller/list" not in asked
    assert set(tiers.refreshed(db, "sensors").values()) == {report.started_at}
    assert len(tiers.refreshed(db, "sensors")) == panels


def test_status_shows_the_schedules(tmp_path: Path, simulator: Simulator) -> None:
    db_path = tmp_path / "cache.db"
    with SamClient(Settings(base_url=simulator.base_url, max_retries=0)) as client:
        run_sync(open_cache(db_path), client)
    env = {"SAMOPS_DB": str(db_path), "SAMOPS_REFRESH_CAMERAS": "900", "COLUMNS": "200", "PATH": "/usr/bin"}
    out = subprocess.run(
        samops_cmd("status"), cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "sensors every 10 min" in out and "cameras every 15 min" in out
    assert "activities every 5 s by the alarm poller" in out
