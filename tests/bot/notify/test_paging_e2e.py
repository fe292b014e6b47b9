"""Personal paging through the real processes: `samops notify` polling the spec-exact simulator, `samops bot`
taking the clicks, the Slack stand-in. An alarm injected into the simulator escalates by DM to a user group's
members and then to a user, each once, across a kill -9 of the notifier; an alarm acknowledged with a signed
click from its card pages nobody; a technician who took an alarm from its card gets its escalation by DM, and
nothing once it is acknowledged. Escalation levels of seconds keep it short (real clocks)."""

from __future__ import annotations

import itertools
import json
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from core import cache, lifecycle
from core.cache.db import open_cache
from core.lifecycle import State
from core.read import card_of_alarm
from tests.bot.notify.test_notify_e2e import demo_panels, notify_env, run_notify, state, wait_until
from tests.support.bot import run_bot
from tests.support.processes import run_simulator
from tests.support.slack_standin import TEAM_ID, SlackStandIn

CONFIG = """
action_plans = []
[roles]
technicians = ["U0ANNA"]
[notify]
default_channel = "C_ALL"
[notify.storm]
posts_per_second = 50
[notify.incidents]
enabled = false
[notify.escalation.P1]
escalate_after = [0.1, 0.2]  # minutes: 6 s, 12 s
escalate_to = [["S0FIRE"], ["U0LEAD", "C0OPS"]]
"""
_clicks = itertools.count(1)


def dms(slack: SlackStandIn) -> list[tuple[str, str]]:
    """(person, eventId) of every page: a chat.postMessage to a user id, its alarm read from its button."""
    out = []
    for call in slack.calls_to("chat.postMessage"):
        if not str(call.params.get("channel") or "").startswith("U"):
            continue
        values = {
            e["value"]
            for a in call.params.get("attachments") or []
            for b in a["blocks"]
            for e in b.get("elements", [])
            if e.get("action_id") == "alarm_ack"
        }
        out += [(str(call.params["channel"]), v) for v in values]
    return out


def inject(root_url: str, panel: int) -> str:
    body = {"resourceId": panel, "count": 1, "violationType": "alarm"}
    [made] = httpx.post(f"{root_url}/_sim/activities", json=body, timeout=10).json()
    return str(made["eventId"])


def card_click(slack: SlackStandIn, card: Any, action_id: str, event_id: str, name: str) -> dict[str, Any]:
    """A signed click by U0ANNA (a technician) on one of the alarm card's buttons, as Slack sends it."""
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID},
        "user": {"id": "U0ANNA", "name": "anna"},
        "channel": {"id": card.channel},
        "container": {"type": "message", "message_ts": card.ts, "channel_id": card.channel},
        "message": {"ts": card.ts, "text": "alarm"},
        "response_url": slack.response_url(name),
        "trigger_id": slack.trigger_id(),
        "actions": [{"action_id": action_id, "block_id": "b", "value": event_id, "type": "button",
                     "action_ts": f"1700000001.{next(_clicks):06d}"}],
    }  # fmt: skip


def test_escalation_pages_once_across_a_kill_and_none_after_an_acknowledgement(tmp_path: Path) -> None:
    with (
        run_simulator("--alarm-rate", "0") as sim,
        SlackStandIn(usergroups={"S0FIRE": ["U0ANNA", "U0BEN"]}) as slack,
    ):
        env = notify_env(tmp_path, sim, slack, CONFIG)
        panel = demo_panels(sim)[0]
        with run_notify(tmp_path, env, "--interval", "0.3") as proc:
            wait_until(lambda: state(tmp_path, "baseline"), 60, "the first start")
            time.sleep(1.0)  # the first poll has read the panels
            paged = inject(sim.root_url, panel)
            wait_until(lambda: {("U0ANNA", paged), ("U0BEN", paged)} <= set(dms(slack)), 60, "level 1 pages")
            # Killed between the levels, once both pages are recorded: Slack taking a DM and samops recording
            # it cannot be one transaction (a kill in between leaves the page claimed, never sent twice, but
            # unaudited), and this test is about what comes after the kill.
            wait_until(lambda: _audited_pages(tmp_path) == 2, 30, "level 1 pages recorded")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        with (
            run_notify(tmp_path, env, "--interval", "0.3"),
            run_bot(tmp_path, slack, db_path=tmp_path / "cache.db", config=CONFIG) as bot,
        ):
            wait_until(lambda: ("U0LEAD", paged) in dms(slack), 60, "the level 2 page")

            # A second alarm, acknowledged from its card by a signed click before its first level.
            acked = inject(sim.root_url, panel)
            db = open_cache(tmp_path / "cache.db")
            card = wait_until(lambda: card_of_alarm(db, acked), 30, "the second alarm's card")
            assert bot.send_payload(card_click(slack, card, "alarm_ack", acked, "ack")).status_code == 200
            wait_until(lambda: slack.responses("ack") or _acked(db, acked), 30, "the acknowledgement")
            assert _acked(db, acked)
            time.sleep(14)  # past both levels of the second alarm, several notifier cycles
        pages = Counter(dms(slack))
        assert pages == Counter({("U0ANNA", paged): 1, ("U0BEN", paged): 1, ("U0LEAD", paged): 1}), (
            json.dumps(list(pages.items()))
        )
        assert [(u, lvl) for u, lvl, _ in cache.pages_sent(db, paged)] == [
            ("U0ANNA", 1),
            ("U0BEN", 1),
            ("U0LEAD", 2),
        ]
        assert cache.pages_sent(db, acked) == []
        assert _audited_pages(tmp_path) == 3


def _audited_pages(folder: Path) -> int:
    db = open_cache(folder / "cache.db")
    try:
        return len([e for e in cache.recent_audit(db, 100) if e.command.startswith("page ")])
    finally:
        db.conn.close()
        db.close()


def _acked(db: object, event_id: str) -> bool:
    return _state(db, event_id) is State.ACKNOWLEDGED


def test_the_taker_gets_the_escalation_by_dm_and_nothing_once_it_is_acknowledged(tmp_path: Path) -> None:
    """Issue 24's Done-when through the real processes: U0ANNA takes an alarm from its card ("I'm on it": it
    stays open), is paged at its first level as its taker, acknowledges it, and is paged no more."""
    config = CONFIG.replace("[0.1, 0.2]  # minutes: 6 s, 12 s", "[0.1, 0.3]  # minutes: 6 s, 18 s")
    with (
        run_simulator("--alarm-rate", "0") as sim,
        SlackStandIn(usergroups={"S0FIRE": ["U0BEN"]}) as slack,
    ):
        env = notify_env(tmp_path, sim, slack, config)
        panel = demo_panels(sim)[0]
        with (
            run_notify(tmp_path, env, "--interval", "0.3"),
            run_bot(tmp_path, slack, db_path=tmp_path / "cache.db", config=config) as bot,
        ):
            wait_until(lambda: state(tmp_path, "baseline"), 60, "the first start")
            time.sleep(1.0)  # the first poll has read the panels
            taken = inject(sim.root_url, panel)
            db = open_cache(tmp_path / "cache.db")
            card = wait_until(lambda: card_of_alarm(db, taken), 30, "the alarm's card")
            assert bot.send_payload(card_click(slack, card, "alarm_take", taken, "take")).status_code == 200
            wait_until(lambda: _holder(db, taken) == "U0ANNA", 30, "the take")
            assert _state(db, taken) is State.OPEN  # taking is not acknowledging

            wait_until(lambda: ("U0ANNA", taken) in dms(slack), 60, "the taker's level 1 page")
            assert ("U0ANNA", 1, "taken") in cache.pages_sent(db, taken)
            assert bot.send_payload(card_click(slack, card, "alarm_ack", taken, "ack")).status_code == 200
            wait_until(lambda: _state(db, taken) is State.ACKNOWLEDGED, 30, "the acknowledgement")
            paged_before = cache.pages_sent(db, taken)
            time.sleep(22)  # past the second level (18 s after the alarm), many notifier cycles
            assert cache.pages_sent(db, taken) == paged_before
        assert Counter(dms(slack))[("U0ANNA", taken)] == 1
        db.close()


def _holder(db: object, event_id: str) -> str | None:
    current = lifecycle.get(db, event_id)  # type: ignore[arg-type]
    return current.holder if current else None


def _state(db: object, event_id: str) -> State | None:
    current = lifecycle.get(db, event_id)  # type: ignore[arg-type]
    return current.state if current else None
