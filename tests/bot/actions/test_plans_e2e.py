"""The default action plan as `make run` shows it, with real processes: the spec-exact simulator raises a
burglary (violationType alarm: P1) and a warning (P3); `samops notify`, with a samops.toml naming no plan,
posts the burglary's card with the default P1 checklist and the warning's without one; `samops bot`, over
the same cache, refuses Resolve while "Dispatch or stand down" is left, takes the signed Done click (the card
edited through its refresh), then resolves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from core.cache.db import open_cache
from core.read import card_of_alarm
from tests.bot.notify.test_notify_e2e import (
    card_events,
    demo_panels,
    notify_env,
    run_notify,
    state,
    wait_until,
)
from tests.support.bot import SMALL_FLEET, blocks_text, opened_view, run_bot, submit
from tests.support.processes import run_simulator
from tests.support.slack_standin import TEAM_ID, SlackStandIn

CONFIG = """
[roles]
technicians = ["U_TECH"]

[notify]
default_channel = "C_ALL"

[notify.storm]
posts_per_second = 50

[notify.incidents]
enabled = false
"""


def card_text(slack: SlackStandIn, event_id: str) -> str:
    for call in slack.calls_to("chat.postMessage"):
        if (call.params["channel"], event_id) in card_events([call]):
            return blocks_text(call.params["attachments"][0]["blocks"])
    return ""


def click(
    slack: SlackStandIn, channel: str, ts: str, action_id: str, value: str, name: str
) -> dict[str, Any]:
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID},
        "user": {"id": "U_TECH", "name": "tech"},
        "channel": {"id": channel},
        "container": {"type": "message", "message_ts": ts, "channel_id": channel},
        "message": {"ts": ts, "text": "alarm"},
        "response_url": slack.response_url(name),
        "trigger_id": slack.trigger_id(),
        "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                     "action_ts": f"1700000002.{len(name):06d}"}],
    }  # fmt: skip


def test_the_default_plan_on_a_burglary_card_from_the_simulator_to_resolve(tmp_path: Path) -> None:
    with run_simulator(*SMALL_FLEET) as sim, SlackStandIn() as slack:
        env = notify_env(tmp_path, sim, slack, CONFIG)
        rid = demo_panels(sim)[0]
        with run_notify(tmp_path, env, "--interval", "0.3"):
            wait_until(lambda: state(tmp_path, "baseline"), 60, "the first start")

            def inject(kind: str, name: str) -> str:
                body = {"resourceId": rid, "violationType": kind, "violationName": name}
                return httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()[0][
                    "eventId"
                ]

            burglary, warning = inject("alarm", "Burglary"), inject("warning", "Low battery")
            wait_until(lambda: card_text(slack, burglary) and card_text(slack, warning), 60, "both cards")
        posted = card_text(slack, burglary)
        assert "Action plan: P1 alarm* · 0 of 3 steps, 1 mandatory left" in posted
        assert "Check the site's cameras" in posted and "Call a keyholder" in posted
        assert "*3. Dispatch or stand down* (mandatory) · to do" in posted
        assert "Action plan" not in card_text(slack, warning)  # P3: no plan by default

        card = card_of_alarm(open_cache(tmp_path / "cache.db"), burglary)
        assert card is not None
        with run_bot(tmp_path, slack, simulator=sim, config=CONFIG, db_path=tmp_path / "cache.db") as bot:

            def send(payload: dict[str, Any]) -> None:
                assert bot.send_payload(payload).status_code == 200

            send(click(slack, card.channel, card.ts, "alarm_resolve", burglary, "early"))
            [refusal] = slack.wait_for(lambda: slack.responses("early"), timeout=30)
            assert "“Dispatch or stand down”" in refusal.params["text"]

            step = json.dumps({"e": burglary, "s": 2})
            send(click(slack, card.channel, card.ts, "alarm_plan_step_2", step, "tick"))
            [edit] = slack.wait_for(lambda: slack.calls_to("chat.update"), timeout=30)
            edited = blocks_text(edit.params["attachments"][0]["blocks"])
            assert edit.params["ts"] == card.ts and "1 of 3 steps, no mandatory step left" in edited
            assert "done by <@U_TECH>" in edited

            send(click(slack, card.channel, card.ts, "alarm_resolve", burglary, "resolve"))
            view = opened_view(slack, "alarm_resolve_modal")
            submit(
                bot,
                view,
                {"disposition": "false_user_error", "note": "Stood down: the customer's code."},
                "U_TECH",
            )
            slack.wait_for(lambda: len(slack.calls_to("chat.update")) == 2, timeout=30)
            assert "Resolved* by <@U_TECH>" in blocks_text(
                slack.calls_to("chat.update")[-1].params["attachments"][0]["blocks"]
            )
