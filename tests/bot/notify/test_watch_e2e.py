"""Never silent, through the real processes: `samops notify` against the simulator and the Slack stand-in, a
loopback listener as the heartbeat's target, and `samops bot`'s `/readyz` over the same records.

The heartbeat comes once per cycle; when the service stops it stops within 2 intervals, `/readyz` answers 503
naming the stale poll and the ops channel is told once; when the service returns, all three come back, and
the recovery is told once, by a notifier restarted meanwhile. Both notices are audited."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.bot.notify.test_notify_e2e import notify_env, run_notify, wait_until
from tests.support.bot import run_bot
from tests.support.cache_files import connect as connect_cache
from tests.support.heartbeat_target import HeartbeatTarget
from tests.support.processes import (
    ROOT,
    Simulator,
    free_port,
    run_simulator,
    samops_cmd,
    stop,
    wait_http,
)
from tests.support.slack_standin import SlackStandIn

INTERVAL = 1.0
TOKEN = "0c5e1d7a-heartbeat-secret"
CONFIG = """
[notify]
default_channel = "C_ALL"
ops_channel = "C_OPS"
[notify.health]
after = 2
[notify.incidents]
enabled = false
"""


@contextlib.contextmanager
def simulator_on(port: int) -> Iterator[Simulator]:
    """The simulator on `port` (the same port again after a stop: the service coming back)."""
    cmd = samops_cmd("simulator", "--port", str(port), "--seed", "1")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{root}/healthz", proc)
        yield Simulator(base_url=f"{root}/api", root_url=root, port=port, proc=proc)
    finally:
        stop(proc)


def ops_texts(slack: SlackStandIn) -> list[str]:
    return [
        str(c.params.get("text", ""))
        for c in slack.calls_to("chat.postMessage")
        if c.params["channel"] == "C_OPS"
    ]


def readyz(root: str) -> httpx.Response:
    return httpx.get(f"{root}/readyz", timeout=5)


def audited(db: Path) -> list[str]:
    with contextlib.closing(connect_cache(db)) as conn, contextlib.suppress(sqlite3.Error):
        rows = conn.execute("SELECT command FROM audit_log WHERE command LIKE 'ops notice%' ORDER BY id")
        return [r[0] for r in rows]
    return []


def test_heartbeat_readyz_and_the_ops_channel_follow_the_service(tmp_path: Path) -> None:
    port = free_port()
    with HeartbeatTarget() as target, SlackStandIn() as slack, contextlib.ExitStack() as first_run:
        sim = first_run.enter_context(simulator_on(port))
        env = notify_env(tmp_path, sim, slack, CONFIG) | {
            "SAMOPS_HEARTBEAT_URL": target.url(f"/ping/{TOKEN}"),
            "SAM_MAX_RETRIES": "0",
            "SAM_TIMEOUT": "2",
        }
        with (
            contextlib.ExitStack() as first_notifier,
            run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=tmp_path / "cache.db") as bot,
        ):
            first_notifier.enter_context(run_notify(tmp_path, env, "--interval", str(INTERVAL)))
            # A call per cycle: about one a second.
            wait_until(lambda: target.count() >= 3, 60, "three heartbeats")
            first = target.count()
            time.sleep(3 * INTERVAL)
            assert target.count() - first >= 2, "a heartbeat per cycle"
            assert target.pings[0].method == "GET" and target.pings[0].path == f"/ping/{TOKEN}"
            ready = wait_until(lambda: (r := readyz(bot.root_url)).status_code == 200 and r, 30, "ready")
            body = ready.json()
            assert body["status"] == "ok" and body["login"] == "ok" and body["delivery"] == "slack"
            assert body["last_poll_age_s"] < 5 and body["last_slack_success_age_s"] is not None
            assert TOKEN not in ready.text
            assert httpx.post(f"{bot.root_url}/readyz", timeout=5).status_code == 405

            first_run.close()  # the service goes away
            stopped_at = time.monotonic()
            down = wait_until(lambda: (r := readyz(bot.root_url)).status_code == 503 and r, 40, "503")
            assert any("last successful poll" in reason for reason in down.json()["reasons"]), down.json()
            last = target.last()
            assert last is not None and last.at <= stopped_at + 2 * INTERVAL, "the heartbeat stopped"
            wait_until(lambda: ops_texts(slack), 30, "the ops channel told")
            # A restart during the outage does not tell it again: the episode is in the records.
            first_notifier.close()
            notifier = first_run.enter_context(run_notify(tmp_path, env, "--interval", str(INTERVAL)))
            time.sleep(4 + 2 * INTERVAL)  # past [notify.health] after = 2 for the new process
            assert len(ops_texts(slack)) == 1, ops_texts(slack)

            with simulator_on(port):  # the service returns, on the same address
                silent = target.count()
                wait_until(lambda: target.count() > silent, 60, "the heartbeat again")
                wait_until(lambda: readyz(bot.root_url).status_code == 200, 30, "ready again")
                wait_until(lambda: len(ops_texts(slack)) >= 2, 30, "the recovery told")
                time.sleep(2 * INTERVAL)  # nothing more is told
                texts = ops_texts(slack)
                assert len(texts) == 2, texts
                assert "service has been failing" in texts[0] and "recovered" in texts[1], texts
                commands = audited(tmp_path / "cache.db")
                assert commands == ["ops notice service down", "ops notice service recovered"], commands
                assert notifier.poll() is None
        log = (tmp_path / "notify.log").read_text()
        assert TOKEN not in log


def status_out(tmp_path: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        samops_cmd("status"), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return " ".join(done.stdout.split())  # rich wraps lines to the terminal's width


@pytest.mark.slow  # the recovery waits for the client's back-off after a refused login (30 s)
def test_a_refused_login_stops_the_heartbeat_and_is_told_once_each_way(tmp_path: Path) -> None:
    with HeartbeatTarget() as target, SlackStandIn() as slack, run_simulator() as sim:
        env = notify_env(tmp_path, sim, slack, CONFIG) | {
            "SAMOPS_HEARTBEAT_URL": target.url(f"/ping/{TOKEN}"),
            "SAM_MAX_RETRIES": "0",
        }
        with run_notify(tmp_path, env, "--interval", str(INTERVAL)) as notifier:
            wait_until(lambda: target.count() >= 3, 60, "three heartbeats")
            assert "Alarms flow (as /readyz says)" in status_out(tmp_path, env)

            httpx.post(f"{sim.root_url}/_sim/logins", json={"refuse": True}, timeout=10).raise_for_status()
            refused_at = time.monotonic()
            wait_until(lambda: ops_texts(slack), 30, "the ops channel told")
            last = target.last()
            assert last is not None and last.at <= refused_at + 2 * INTERVAL, "the heartbeat stopped"
            out = status_out(tmp_path, env)
            assert "Alarms do not flow" in out and "refuses the notifier's login" in out, out

            httpx.post(f"{sim.root_url}/_sim/logins", json={"refuse": False}, timeout=10).raise_for_status()
            silent = target.count()
            wait_until(lambda: target.count() > silent, 90, "the heartbeat again")
            wait_until(lambda: len(ops_texts(slack)) >= 2, 30, "the recovery told")
            texts = ops_texts(slack)
            assert len(texts) == 2 and "recovered" in texts[1], texts
            assert notifier.poll() is None
