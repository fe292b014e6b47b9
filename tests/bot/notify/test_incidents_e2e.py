"""Site incidents end to end: `samops notify` (a real process, service source) against the real spec-exact
simulator and the Slack stand-in, and `samops bot` receiving a signed click.

The parts of one incident are injected OUT OF ORDER: the site's camera goes out of service first, then a
tamper alarm back-dated before it arrives, then a burglary alarm back-dated before both. One card is posted
and edited until its timeline holds all three in time order; its Acknowledge acknowledges every alarm of
the incident; a restart of the notifier posts nothing again.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from core.client import SamClient
from core.settings import Settings
from tests.bot.notify.test_notify_e2e import notify_env, run_notify, state, wait_until
from tests.support.bot import blocks_text, run_bot
from tests.support.cache_files import connect as connect_cache
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import TEAM_ID, Call, SlackStandIn

CHANNEL = "C_ALL"
CONFIG = f"""
[roles]
technicians = ["U_TECH"]

[notify]
default_channel = "{CHANNEL}"

[notify.storm]
posts_per_second = 50

[notify.incidents]
window = "10m"
cameras_every = "5s"
"""


def query(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with contextlib.closing(connect_cache(db)) as conn, contextlib.suppress(sqlite3.Error):
        return conn.execute(sql, params or []).fetchall()
    return []


def a_site(sim: Simulator) -> tuple[int, str, int]:
    """(panel id, panel name, camera id): a panel of the demo user and an in-service camera of its
    organization, renamed after the panel (cameras of the simulator are named after districts)."""
    with SamClient(Settings(base_url=sim.base_url)) as client:
        panel = client.login().panels[0]
        assert panel.resource_id is not None and panel.resource_name and panel.org_id is not None
        cameras = [c for c in client.list_cameras(org=panel.org_id) if c.enabled]
    camera = cameras[0].resource_id
    assert camera is not None
    answer = httpx.post(f"{sim.root_url}/_sim/cameras/{camera}", json={"name": f"{panel.resource_name} yard"})
    assert answer.status_code == 200, answer.text
    return panel.resource_id, panel.resource_name, camera


def inject(sim: Simulator, panel: int, name: str, at: int) -> str:
    body = {"resourceId": panel, "violationType": "alarm", "violationName": name, "activityTime": at}
    [activity] = httpx.post(f"{sim.root_url}/_sim/activities", json=body).json()
    assert activity["activityTime"] == at
    return activity["eventId"]


def cards(slack: SlackStandIn) -> list[Call]:
    return [c for c in slack.calls_to("chat.postMessage") if c.params.get("attachments")]


def card_text(call: Call) -> str:
    return blocks_text(call.params["attachments"][0]["blocks"])


def test_an_incident_out_of_order_is_one_card_acknowledged_as_a_whole(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0") as sim, SlackStandIn() as slack:
        panel, panel_name, camera = a_site(sim)
        notify_dir = tmp_path / "notify"
        notify_dir.mkdir()
        env = notify_env(notify_dir, sim, slack, CONFIG)
        db = notify_dir / "cache.db"
        with run_notify(notify_dir, env, "--interval", "0.3"):
            baseline = int(wait_until(lambda: state(notify_dir, "baseline"), 60, "the first start"))
            wait_until(lambda: query(db, "SELECT 1 FROM cameras WHERE resource_id = ?", [camera]), 60,
                       "the camera's first listing")  # fmt: skip
            wait_until(lambda: time.time() * 1000 > baseline + 6000, 10, "room after the baseline")

            # 1. The camera goes out of service (spec-exact: only `enabled` says so), seen first.
            httpx.post(f"{sim.root_url}/_sim/cameras/{camera}", json={"enabled": False}).raise_for_status()
            [(seen,)] = wait_until(
                lambda: query(db, "SELECT first_seen FROM camera_changes"), 60, "the change"
            )
            # 2. A tamper alarm from before the camera went down arrives next ...
            tamper = inject(sim, panel, "Tamper alarm", seen - 2000)
            wait_until(lambda: query(db, "SELECT 1 FROM notify_outbox WHERE event_id = ?", [tamper]), 60,
                       "the tamper alarm discovered")  # fmt: skip
            # 3. ... and last a burglary alarm from before both.
            burglary = inject(sim, panel, "Burglary alarm", seen - 4000)

            def complete_edit() -> Call | None:
                edits = [c for c in slack.calls_to("chat.update") if "Burglary" in card_text(c)]
                return edits[-1] if edits else None

            edit = wait_until(complete_edit, 60, "the card edited with the whole timeline")
            [card] = cards(slack)  # one card for the whole incident
            assert card.params["channel"] == CHANNEL and "Tamper alarm" in card_text(card)
            [(ts, channel, count)] = query(db, "SELECT card_ts, channel, evidence FROM incidents")
            assert (edit.params["ts"], edit.params["channel"], channel, count) == (ts, CHANNEL, CHANNEL, 3)
            text = card_text(edit)
            assert f"Incident on {panel_name} ({panel}): alarm, tamper, camera disabled" in text
            # The timeline in time order, not in the order the parts arrived.
            order = [
                text.index("Burglary alarm"),
                text.index("Tamper alarm"),
                text.index(f"{panel_name} yard"),
            ]
            assert order == sorted(order), text
            buttons = [
                e["action_id"]
                for b in edit.params["attachments"][0]["blocks"]
                for e in b.get("elements", [])
                if e.get("type") == "button"
            ]
            assert buttons[:3] == ["alarm_ack_all", "alarm_take_all", "alarm_resolve_all"]

            # Every alarm of the incident is named in the card's thread, however long the timeline grows.
            def in_thread() -> bool:
                replies = [
                    str(c.params)
                    for c in slack.calls_to("chat.postMessage")
                    if c.params.get("thread_ts") == ts
                ]
                return all(any(f"`{e}`" in r for r in replies) for e in (tamper, burglary))

            wait_until(in_thread, 30, "the alarms listed in the card's thread")
            grouped = query(db, "SELECT event_id, state, ts FROM notify_outbox ORDER BY event_id")
            assert sorted(grouped) == sorted([(tamper, "grouped", ts), (burglary, "grouped", ts)])

        # Acknowledge on the card, a signed request to the running bot, acknowledges every alarm.
        with run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=db) as bot:
            click = {
                "type": "block_actions",
                "team": {"id": TEAM_ID},
                "user": {"id": "U_TECH", "name": "tech"},
                "channel": {"id": CHANNEL},
                "container": {"type": "message", "message_ts": ts, "channel_id": CHANNEL},
                "message": {"ts": ts, "text": "incident"},
                "response_url": slack.response_url("ack"),
                "trigger_id": slack.trigger_id(),
                "actions": [{"action_id": "alarm_ack_all", "block_id": "b", "value": str(panel),
                             "type": "button", "action_ts": "1700000001.000001"}],
            }  # fmt: skip
            answer = bot.post_signed(urlencode({"payload": json.dumps(click)}).encode())
            assert answer.status_code == 200

            def acknowledged() -> bool:
                rows = query(db, "SELECT event_id, state, acknowledged_by FROM alarm_state")
                return sorted(rows) == sorted(
                    [(tamper, "acknowledged", "U_TECH"), (burglary, "acknowledged", "U_TECH")]
                )

            wait_until(acknowledged, 30, "both alarms acknowledged")
            shown = wait_until(
                lambda: [c for c in slack.calls_to("chat.update") if "state: *acknowledged*" in card_text(c)],
                30,
                "the card showing the incident acknowledged",
            )
            assert shown[-1].params["ts"] == ts and "alarm_ack_all" not in json.dumps(shown[-1].params)
            audit = query(db, "SELECT command FROM audit_log")
            assert (f"alarm acknowledge all {ts}",) in audit

        # A restart posts nothing again: the card and its alarms are recorded.
        posts = len(slack.calls_to("chat.postMessage"))
        with run_notify(notify_dir, env, "--interval", "0.3"):
            wait_until(lambda: int(state(notify_dir, "baseline") or 0) == baseline, 30, "the restart")
            time.sleep(3)  # several polls
        assert len(slack.calls_to("chat.postMessage")) == posts
