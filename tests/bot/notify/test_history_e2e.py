"""Late events and the week's backfill (issue 22, items 3 and 4), through `samops notify` as a real process on
the spec-exact simulator with the Slack stand-in: alarms back-dated 10 minutes and 3 hours reach Slack marked
late at a request rate within the budget; the backfill fills the week, posts nothing, survives a restart
without asking a panel twice, and until it is done the dashboard says from when its data is complete.

Intervals are short (settings), and every bound is computed from the time the window really took."""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.client import SamClient
from core.clock import DAY_MS, HOUR_MS, MINUTE_MS, now_ms
from core.settings import Settings
from tests.bot.notify.test_notify_e2e import card_events, notify_env, run_notify, wait_until
from tests.support.apptest import open_page
from tests.support.cache_files import connect as connect_cache
from tests.support.processes import Simulator, run_simulator, samops_cmd, stop
from tests.support.slack_standin import Call, SlackStandIn

POLL_S = 0.5  # SAMOPS_POLL_INTERVAL
RECONCILE_S = 1.0  # SAMOPS_RECONCILE_INTERVAL
RATE = 4.0  # SAMOPS_HISTORY_RATE: reconciliation's and the backfill's requests per second per organization
CONFIG = '[notify]\ndefault_channel = "C_ALARMS"\n'


def history_env(tmp_path: Path, sim: Simulator, slack: SlackStandIn, **settings: str) -> dict[str, str]:
    env = notify_env(tmp_path, sim, slack, CONFIG)
    return env | {
        "SAMOPS_POLL_INTERVAL": str(POLL_S),
        "SAMOPS_RECONCILE_INTERVAL": str(RECONCILE_S),
        "SAMOPS_HISTORY_RATE": str(RATE),
        "SAMOPS_LATE_WINDOW": str(4 * 3600),
        **settings,
    }


def query(tmp_path: Path, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    with (
        contextlib.closing(connect_cache(tmp_path / "cache.db")) as conn,
        contextlib.suppress(sqlite3.Error),
    ):
        return conn.execute(sql, params).fetchall()
    return []


def polled(tmp_path: Path) -> bool:
    """The poller's first poll is written (the reconciliation starts after it)."""
    return bool(query(tmp_path, "SELECT 1 FROM panel_cursors WHERE table_name = 'poller'"))


def demo_panels(sim: Simulator) -> dict[int, int]:
    """panel -> organization of every panel the demo account sees."""
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
        return {int(p.resource_id or 0): int(p.org_id or 0) for p in client.login().panels}


def back_date(sim: Simulator, panel: int, at: int) -> str:
    """An alarm that reaches the service now with an activityTime in the past: a late arrival."""
    body = {
        "resourceId": panel,
        "violationType": "alarm",
        "violationName": "Tamper alarm",
        "activityTime": at,
    }
    [activity] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()
    return activity["eventId"]


def stats(sim: Simulator) -> dict[str, Any]:
    return httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()


def card_of(slack: SlackStandIn, event_id: str) -> Call | None:
    return next((c for c in slack.calls_to("chat.postMessage") if event_id in str(c.params)), None)


def card_text(call: Call) -> str:
    return str(call.params.get("attachments"))


def test_alarms_back_dated_10_min_and_3_h_reach_slack_marked_late_within_the_budget(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "24", seed=7) as sim, SlackStandIn() as slack:
        panels = demo_panels(sim)
        orgs = set(panels.values())
        env = history_env(tmp_path, sim, slack, SAMOPS_HISTORY_DAYS="1")  # the first poll's day: no backfill
        with run_notify(tmp_path, env) as proc:
            wait_until(lambda: polled(tmp_path), 120, "the first poll")
            time.sleep(2 * RECONCILE_S)  # the first reconciliation pass has run over the first poll's day
            httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
            since = stats(sim)["since"]
            first, second = sorted(panels)[3], sorted(panels)[-2]
            now = now_ms()
            minutes = back_date(sim, first, now - 10 * MINUTE_MS)
            hours = back_date(sim, second, now - 3 * HOUR_MS)
            injected = time.monotonic()
            # Within 6 minutes of reaching the service (here: well within, at these intervals).
            wait_until(lambda: card_of(slack, minutes) and card_of(slack, hours), 6 * 60, "the late cards")
            took = time.monotonic() - injected
            counted = stats(sim)
            seconds = (time.time() * 1000 - since) / 1000
            assert proc.poll() is None
    late_minutes, late_hours = card_of(slack, minutes), card_of(slack, hours)
    assert late_minutes is not None and late_hours is not None
    assert "Late:* happened 10 min ago, reported now" in card_text(late_minutes)
    assert "Late:* happened 3 h ago, reported now" in card_text(late_hours)
    assert {e for _, e in card_events(slack.calls_to("chat.postMessage"))} >= {minutes, hours}
    assert took < 60, took
    # Their time to acknowledge starts when they arrived, not when they happened.
    sql = (
        "SELECT s.opened_at, a.activity_time, a.seen_at FROM alarm_state s"
        " JOIN activities a ON a.event_id = s.event_id WHERE s.event_id IN (?, ?)"
    )
    rows = query(tmp_path, sql, [minutes, hours])
    assert len(rows) == 2 and all(opened == seen and seen - at > 2 * MINUTE_MS for opened, at, seen in rows)
    # The budget at these settings: a poll per organization per interval, reconciliation's and attribution's
    # paced requests, the one login, whatever the machine's speed.
    budget = len(orgs) * (math.ceil(seconds / POLL_S) + 1 + math.ceil(seconds * RATE) + 1) + 2
    assert counted["total"] <= budget, (counted["operations"], seconds)


BACKFILLED = "SELECT resource_id FROM panel_cursors WHERE table_name = 'backfill'"


def backfilled(tmp_path: Path) -> int:
    return len(query(tmp_path, BACKFILLED))


def plan(tmp_path: Path) -> dict[int, int]:
    return dict(
        query(tmp_path, "SELECT resource_id, cursor FROM panel_cursors WHERE table_name = 'backfill_plan'")
    )


def backfill_requests(sim: Simulator, since: int, after: int) -> list[int]:
    """The panel of each backfill request (operation 3, one panel, from `since`) the simulator answered
    after `after` (epoch-ms)."""
    asked = []
    for r in httpx.get(f"{sim.root_url}/_sim/requests", timeout=10).json():
        if r["path"] == "/api/activities" and r["body"] and r["at"] >= after:
            body = json.loads(r["body"])
            if body.get("startTime") == since and len(body.get("resourceIds") or []) == 1:
                asked.append(body["resourceIds"][0])
    return asked


def status_output(tmp_path: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        samops_cmd("status"), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


@pytest.mark.usefixtures("fresh_streamlit_cache")
def test_the_backfill_fills_the_week_resumes_after_a_restart_and_posts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    monkeypatch.setenv("SAMOPS_DB", str(tmp_path / "cache.db"))
    with run_simulator("--alarm-rate", "0", "--panels", "30", seed=11) as sim, SlackStandIn() as slack:
        panels = demo_panels(sim)
        # Slow enough to stop it halfway: two panels a second, reconciliation taking little of that.
        env = history_env(
            tmp_path,
            sim,
            slack,
            SAMOPS_HISTORY_DAYS="3",
            SAMOPS_HISTORY_RATE="2",
            SAMOPS_RECONCILE_INTERVAL="5",
        )
        with run_notify(tmp_path, env):
            wait_until(lambda: backfilled(tmp_path) >= 4, 120, "the backfill's first panels")
        done_before = {p for (p,) in query(tmp_path, BACKFILLED)}
        before = len(done_before)
        assert 0 < before < len(panels)
        window = plan(tmp_path)
        since, until = window[0], window[1]
        assert until - since == 2 * DAY_MS  # 3 days, the first poll read the last one

        # Stopped halfway: the period pages say from when their data is complete, and so does status.
        for page in ("views/overview.py", "views/alarms.py", "views/handling.py"):
            at = open_page(page)
            notices = [i.value for i in at.info]
            assert any("Complete from" in n and f"{before} of {len(panels)} panels" in n for n in notices), (
                page
            )
        assert f"backfill {before} of {len(panels)} panels done" in status_output(tmp_path, env)

        restarted = now_ms()
        with run_notify(tmp_path, env):
            wait_until(lambda: backfilled(tmp_path) == len(panels), 120, "the backfill's end")
        asked = backfill_requests(sim, since, restarted)
        # The restart went on with the panels not done, each asked once; none done before is asked again.
        assert sorted(asked) == sorted(set(panels) - done_before)

        # Every activity the simulator holds of those days, on its own panel; not one posted to Slack.
        items = httpx.get(f"{sim.root_url}/_sim/activities", params={"since": since}, timeout=10).json()
        expected = {
            a["eventId"]: a["resourceId"]
            for a in items
            if since <= a["activityTime"] < until and a["resourceId"] in panels and a.get("eventId")
        }
        cached = dict(query(tmp_path, "SELECT event_id, resource_id FROM activities WHERE activity_time >= ?"
                            " AND activity_time < ?", [since, until]))  # fmt: skip
        assert expected and cached == expected
        assert card_events(slack.calls_to("chat.postMessage")) == []

        st.cache_data.clear()
        at = open_page("views/overview.py")
        assert not any("Complete from" in i.value for i in at.info)
        assert f"backfill done ({len(panels)} panels" in status_output(tmp_path, env)


def test_an_idle_fleet_with_reconciliation_and_backfill_on_costs_at_most_1_request_per_second_per_org(
    tmp_path: Path,
) -> None:
    """At samops' defaults, everything `samops up` runs besides the bot and the dashboard: the poller, the
    reconciliation, the backfill (running through the window) and the tiered sync."""
    with run_simulator("--alarm-rate", "0", "--panels", "60", seed=19) as sim:
        orgs = set(demo_panels(sim).values())
        env = notify_env(tmp_path, sim, None, CONFIG)
        log = (tmp_path / "sync.log").open("w")
        sync = subprocess.Popen(
            samops_cmd("sync", "--every", "30", "--no-activities"),
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
        )
        try:
            with run_notify(tmp_path, env) as notify:
                wait_until(lambda: polled(tmp_path), 120, "the first poll")
                wait_until(
                    lambda: "synced " in (tmp_path / "sync.log").read_text(), 180, "the first sync tick"
                )
                httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()
                since, filled = stats(sim)["since"], backfilled(tmp_path)
                time.sleep(75)
                counted = stats(sim)
                seconds = (time.time() * 1000 - since) / 1000
                assert notify.poll() is None and sync.poll() is None
                filled_in_window = backfilled(tmp_path) - filled
                reconciled = [
                    r
                    for r in httpx.get(f"{sim.root_url}/_sim/requests", timeout=10).json()
                    if r["path"] == "/api/activities"
                    and r["at"] >= since
                    and json.loads(r["body"])["pageSize"] == 1
                ]
        finally:
            stop(sync)
            log.close()
    # Both were at work in the window, within the budget of the whole.
    assert filled_in_window > 0 and reconciled
    per_org = counted["total"] / seconds / len(orgs)
    assert per_org <= 1.0, (per_org, counted["operations"], seconds)


def test_a_back_dated_alarm_is_late_whichever_path_writes_it_first(tmp_path: Path) -> None:
    """Issue 33, item 5: the poller, the history thread (the week's backfill running, and reconciliation) and
    a sync reading every panel's activities race for each back-dated alarm. Before, the first writer decided:
    one that did not stamp `seen_at` (the sync, the backfill) left an alarm that was never posted or, posted
    by its own time, not marked late. Now every card says Late, every round."""
    with run_simulator("--alarm-rate", "0", "--panels", "12", seed=5) as sim, SlackStandIn() as slack:
        panels = sorted(demo_panels(sim))
        # The backfill is still filling the week while the rounds run; reconciliation passes every 3 s.
        env = history_env(
            tmp_path,
            sim,
            slack,
            SAMOPS_HISTORY_DAYS="7",
            SAMOPS_HISTORY_RATE="1",
            SAMOPS_RECONCILE_INTERVAL="3",
        )
        with run_notify(tmp_path, env) as proc:
            wait_until(lambda: polled(tmp_path), 120, "the first poll")
            sync_log = (tmp_path / "sync.log").open("ab")
            sync = subprocess.Popen(
                samops_cmd("sync", "--every", "1"), cwd=tmp_path, env=env, stdout=sync_log, stderr=sync_log
            )
            try:
                cards = []
                for round_ in range(4):
                    event = back_date(sim, panels[round_], now_ms() - 10 * MINUTE_MS)
                    cards.append(wait_until(lambda e=event: card_of(slack, e), 90, f"round {round_}'s card"))
                assert backfilled(tmp_path) < len(panels)  # the backfill was running all along
            finally:
                stop(sync)
                sync_log.close()
            assert proc.poll() is None
    for card in cards:
        assert "Late:* happened 10 min ago, reported now" in card_text(card), card_text(card)
