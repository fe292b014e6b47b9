"""End to end: `samops up` on free ports with the Slack stand-in, as a new user would run it.

A new alarm in the simulator reaches Slack, `/sam panel` answers, the dashboard shows the alarm, and Ctrl-C
stops everything with nothing left running.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlencode

import httpx
import pytest

from tests.support.bot import slack_signature
from tests.support.browser import alarms_page_shows
from tests.support.chaos import processes_with
from tests.support.processes import ctrl_c, free_port, samops_cmd, samops_free_env
from tests.support.slack_standin import TEAM_ID, SlackStandIn

pytestmark = pytest.mark.slow

SIGNING_SECRET = "e2e-signing-secret-5f1d2c"
ALARMS = "C_E2E_ALARMS"
START_TIMEOUT_S = 180.0  # simulator, first sync, then bot and dashboard cold starts on a loaded 2-core box

CONFIG = f"""
[roles]
admins = ["U_E2E_ADMIN"]

[notify]
default_channel = "{ALARMS}"
interval = 1
summary_hours = 24
"""

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, what: str, proc: subprocess.Popen[bytes]) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"samops up exited with {proc.returncode} while waiting for {what}"
        try:
            result = predicate()
        except httpx.HTTPError:
            result = None
        if result:
            return result
        time.sleep(0.25)
    raise TimeoutError(f"{what} did not happen within {timeout} s")


def send_slash(bot_url: str, slack: SlackStandIn, text: str, user: str) -> str:
    """POST a slash command exactly as Slack does; returns the response_url name to wait on."""
    name = f"e2e{time.monotonic_ns()}"
    body = urlencode(
        {
            "team_id": TEAM_ID,
            "channel_id": "C_E2E_FIELD",
            "user_id": user,
            "command": "/sam",
            "text": text,
            "response_url": slack.response_url(name),
            "trigger_id": f"{int(time.time())}.{name}",
        }
    ).encode()
    stamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": slack_signature(SIGNING_SECRET, stamp, body),
    }
    assert httpx.post(bot_url, content=body, headers=headers, timeout=10).status_code == 200
    return name


def test_samops_up_runs_the_whole_product_and_stops_cleanly(tmp_path: Path) -> None:
    sim_port, bot_port, dash_port = free_port(), free_port(), free_port()
    data_dir = tmp_path / "data"
    config = tmp_path / "samops.toml"
    config.write_text(CONFIG)
    with SlackStandIn(channels={ALARMS}) as slack:
        env = samops_free_env()
        env.update(
            SAMOPS_DATA_DIR=str(data_dir),
            SAMOPS_CONFIG=str(config),
            SLACK_BOT_TOKEN="xoxb-e2e",
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_API_URL=slack.api_url,
        )
        cmd = samops_cmd(
            "up",
            *("--sim-port", str(sim_port), "--bot-port", str(bot_port), "--dashboard-port", str(dash_port)),
            *("--sync-every", "2", "--notify-interval", "1", "--simulator-option=--alarm-rate=0"),
        )
        log = (tmp_path / "up.log").open("wb")
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            run_checks(proc, slack, sim_port, bot_port, dash_port)
        finally:
            started = time.monotonic()
            try:
                ctrl_c(proc)
            finally:
                log.close()
            stop_took = time.monotonic() - started
        assert proc.returncode == 0, (tmp_path / "up.log").read_text()[-3000:]
        assert stop_took < 15, f"stopping took {stop_took:.1f} s"
        time.sleep(0.5)
        assert processes_with(str(data_dir)) == [], "processes left running after Ctrl-C"


def run_checks(
    proc: subprocess.Popen[bytes], slack: SlackStandIn, sim_port: int, bot_port: int, dash_port: int
) -> None:
    sim = f"http://127.0.0.1:{sim_port}"
    bot = f"http://127.0.0.1:{bot_port}"
    dashboard = f"http://127.0.0.1:{dash_port}"
    wait_until(lambda: httpx.get(f"{bot}/healthz", timeout=2).is_success, START_TIMEOUT_S, "the bot", proc)
    wait_until(lambda: httpx.get(f"{dashboard}/_stcore/health", timeout=2).is_success, START_TIMEOUT_S,
               "the dashboard", proc)  # fmt: skip
    # The notifier's first start summarizes the old alarms in one message instead of replaying them.
    wait_until(lambda: slack.calls_to("chat.postMessage"), START_TIMEOUT_S, "the first-start summary", proc)

    # A panel of the demo user's first organization (the simulator's third one is someone else's).
    history = httpx.get(f"{sim}/_sim/activities", params={"since": 0}).json()
    panel = next(a["resourceId"] for a in history if a["orgId"] == 1001)
    [alarm] = httpx.post(
        f"{sim}/_sim/activities", json={"resourceId": panel, "count": 1, "violationType": "alarm"}
    ).json()

    # 1. The new alarm reaches its channel.
    def card_posted() -> bool:
        return any(alarm["eventId"] in json.dumps(c.params) for c in slack.calls_to("chat.postMessage"))

    wait_until(card_posted, 60, f"the card of {alarm['eventId']}", proc)

    # 2. /sam panel answers with the panel.
    name = send_slash(f"{bot}/slack/events", slack, f"panel {panel}", "U_E2E_ADMIN")
    [answer] = wait_until(lambda: slack.responses(name), 60, "the /sam panel answer", proc)
    assert str(panel) in json.dumps(answer.params)
    assert "error" not in str(answer.params.get("text", "")).lower()

    # 3. The dashboard shows the alarm on the page the card links to.
    alarms_page_shows(dashboard, panel, alarm["description"], "e2e-alarms")
