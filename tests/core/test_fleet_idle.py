"""The idle request budget (issue 14): what `samops up` runs while nothing happens, the alarm poller
(`samops notify`) and the tiered sync (`sync --every --no-activities`), costs the service at most one
poll per organization per interval, one login per sensors/controllers interval, the per-organization tiers,
and SAMOPS_REFRESH_RATE per organization for the per-panel ones; never a panel-by-panel sensor or controller
read. Real processes against the spec-exact simulator, counted from `/_sim/stats`; the clock is short
(intervals of seconds), and every bound is computed from the time the window really took, so a slow
machine only makes fewer requests."""

from __future__ import annotations

import math
import os
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from core.client import SamClient
from core.settings import Settings
from tests.support.processes import ROOT, Simulator, run_simulator, samops_cmd, stop

POLL_S = 0.5  # SAMOPS_POLL_INTERVAL
TIER_S = 2.0  # sensors, controllers (the login), users, cameras, controller values
PUSH_S = 1.0  # push history, before pacing
RATE = 4.0  # SAMOPS_REFRESH_RATE: per-panel requests per second per organization


def wait_for(condition: Callable[[], bool], procs: list[subprocess.Popen[bytes]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert all(p.poll() is None for p in procs), "a samops process stopped"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.1)


def stats(sim: Simulator) -> dict:
    return httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()


def polled_once(db: Path) -> bool:
    """The poller has finished a poll (its first one reads a day of history, panel by panel)."""
    if not db.exists():
        return False
    try:
        with sqlite3.connect(db) as conn:
            row = conn.execute(
                "SELECT last_success FROM sync_state WHERE table_name = 'activities'"
            ).fetchone()
    except sqlite3.Error:
        return False
    return bool(row and row[0])


def test_an_idle_fleet_costs_what_the_budget_says(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "60", seed=19) as sim:
        with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
            panels = client.login().panels
        orgs = {p.org_id for p in panels}
        largest = max(sum(p.org_id == o for p in panels) for o in orgs)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SAM_", "SAMOPS_", "SLACK_"))}
        env |= {
            "SAM_BASE_URL": sim.base_url,
            "SAMOPS_DATA_DIR": str(tmp_path),
            "PYTHONPATH": str(ROOT),
            "SAMOPS_POLL_INTERVAL": str(POLL_S),
            "SAMOPS_REFRESH_RATE": str(RATE),
            "SAMOPS_REFRESH_PUSH_HISTORY": str(PUSH_S),
            # Without reconciliation and the backfill (docs/history.md): their share of the budget is
            # measured with them on, at defaults, in tests/bot/notify/test_history_e2e.py.
            "SAMOPS_LATE_WINDOW": "0",
            "SAMOPS_HISTORY_DAYS": "0",
            **{
                f"SAMOPS_REFRESH_{table}": str(TIER_S)
                for table in ("SENSORS", "CONTROLLERS", "USERS", "CAMERAS", "CONTROLLER_VALUES")
            },
        }
        logs = [(tmp_path / name).open("w") for name in ("notify.log", "sync.log")]
        procs = [
            subprocess.Popen(samops_cmd("notify"), cwd=tmp_path, env=env, stdout=logs[0], stderr=logs[0]),
            subprocess.Popen(
                # -v: a cycle that changes nothing says so at DEBUG only, and the ticks are counted here.
                samops_cmd("sync", "--every", "0.3", "--no-activities", "-v"),
                cwd=tmp_path,
                env=env,
                stdout=logs[1],
                stderr=logs[1],
            ),
        ]
        try:
            sync_log = tmp_path / "sync.log"
            # Past the start: the poller's first poll, and the sync's first ticks (every panel new: due).
            wait_for(lambda: polled_once(tmp_path / "cache.db"), procs, timeout=120)
            wait_for(lambda: sync_log.read_text().count("synced ") >= 3, procs, timeout=120)
            httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
            since = stats(sim)["since"]
            # A window of several polls and several sync ticks, however long they take here.
            ticks = sync_log.read_text().count("synced ")
            wait_for(
                lambda: (
                    stats(sim)["operations"].get("3 POST /activities", 0) >= 8 * len(orgs)
                    and sync_log.read_text().count("synced ") >= ticks + 8
                ),
                procs,
                timeout=180,
            )
            counted = stats(sim)
            seconds = (time.time() * 1000 - since) / 1000
        finally:
            for proc in procs:
                stop(proc)
            for log in logs:
                log.close()
    asked = {op: n for op, n in counted["operations"].items() if n}
    n = len(orgs)

    def at_most(every: float) -> int:
        return math.ceil(seconds / every) + 1

    # Never a panel's sensors or controllers on their own: the login carries them.
    assert "18 GET /panel/{}/sensor/list" not in asked and "14 GET /panel/{}/controller/list" not in asked
    # One poll per organization per interval, nothing to split: nothing happened.
    assert asked["3 POST /activities"] <= n * at_most(POLL_S)
    # The sync's login once per tier interval; the poller keeps its session.
    assert asked.get("1 POST /auth/login", 0) <= at_most(TIER_S)
    for op in (
        "12 GET /user/{}/organization-users",
        "17 GET /camera/list",
        "19 GET /activities/controller/list",
    ):
        assert asked.get(op, 0) <= n * at_most(TIER_S), op
    # Push history: each panel once per paced interval (the largest organization at RATE per second).
    paced = max(PUSH_S, largest / RATE)
    assert asked.get("20 POST /resource/pushnotification/history", 0) <= len(panels) * at_most(paced)
    budget = n * at_most(POLL_S) + 4 * n * at_most(TIER_S) + len(panels) * at_most(paced)
    assert counted["total"] <= budget, asked
