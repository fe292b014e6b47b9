"""Every event id stays in Slack (issue 22, item 5): `samops notify` (a real process) against the spec-exact
simulator and the Slack stand-in.

An alarm is posted on its own card (which shows its event id); then the site's camera is disabled, so the
card is edited in place into an incident card, and a later alarm joins the incident; then another panel
has a storm. Slack keeps only the last version of an edited message, so each alarm's id must be in what
Slack shows now: the last version of its card, or its card's thread.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx

from core.client import SamClient
from core.settings import Settings
from tests.bot.notify.test_incidents_e2e import a_site, card_text, inject, query
from tests.bot.notify.test_notify_e2e import notify_env, run_notify, state, wait_until
from tests.support.processes import run_simulator
from tests.support.slack_standin import SlackStandIn

CHANNEL = "C_ALL"
CONFIG = f"""
[notify]
default_channel = "{CHANNEL}"

[notify.storm]
posts_per_second = 50
threshold = 4
window = 60

[notify.incidents]
window = "10m"
cameras_every = "5s"
"""


def shown_now(slack: SlackStandIn, ts: str) -> str:
    """What Slack shows now for the card at `ts` and its thread: the card's last edit, and every reply."""
    edits = [c for c in slack.calls_to("chat.update") if c.params.get("ts") == ts]
    replies = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == ts]
    card = card_text(edits[-1]) if edits else ""
    return card + "\n" + "\n".join(json.dumps(c.params) for c in replies)


def never_edited_posts(slack: SlackStandIn) -> str:
    """Every top-level post (an alarm's own card, never edited, shows what it was posted with)."""
    return "\n".join(
        json.dumps(c.params) for c in slack.calls_to("chat.postMessage") if not c.params.get("thread_ts")
    )


def test_every_event_id_of_an_incident_and_a_storm_is_in_slack(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0") as sim, SlackStandIn() as slack:
        panel, _name, camera = a_site(sim)
        with SamClient(Settings(base_url=sim.base_url)) as client:
            other = next(p.resource_id for p in client.login().panels if p.resource_id not in (None, panel))
        assert other is not None
        notify_dir = tmp_path / "notify"
        notify_dir.mkdir()
        env = notify_env(notify_dir, sim, slack, CONFIG)
        db = notify_dir / "cache.db"
        with run_notify(notify_dir, env, "--interval", "0.3"):
            baseline = int(wait_until(lambda: state(notify_dir, "baseline"), 60, "the first start"))
            wait_until(lambda: query(db, "SELECT 1 FROM cameras WHERE resource_id = ?", [camera]), 60,
                       "the camera's first listing")  # fmt: skip
            wait_until(lambda: time.time() * 1000 > baseline + 3000, 10, "room after the baseline")

            # 1. An alarm alone: its own card, with its event id.
            first = inject(sim, panel, "Burglary alarm", int(time.time() * 1000) - 1000)
            [(first_ts,)] = wait_until(
                lambda: query(
                    db, "SELECT ts FROM notify_outbox WHERE event_id = ? AND ts IS NOT NULL", [first]
                ),
                60,
                "the first alarm posted on its own card",
            )
            # 2. The site's camera is disabled: the card becomes the incident's, edited in place.
            httpx.post(f"{sim.root_url}/_sim/cameras/{camera}", json={"enabled": False}).raise_for_status()
            edit = wait_until(
                lambda: [c for c in slack.calls_to("chat.update") if c.params.get("ts") == first_ts], 60,
                "the card edited into an incident card",
            )  # fmt: skip
            assert "Incident on" in card_text(edit[-1]) and "camera disabled" in card_text(edit[-1])
            assert "camera offline" not in card_text(edit[-1])  # `enabled` false is no status "offline"
            # 3. A later alarm joins the incident (grouped under its card).
            later = inject(sim, panel, "Burglary alarm", int(time.time() * 1000) - 1000)
            # 4. Another panel has a storm.
            body = {"resourceId": other, "count": 12, "violationType": "alarm"}
            storm = [a["eventId"] for a in httpx.post(f"{sim.root_url}/_sim/activities", json=body).json()]

            def missing() -> list[str]:
                rows = query(db, "SELECT event_id, state, ts FROM notify_outbox")
                where = {str(e): (s, t) for e, s, t in rows}
                gone = []
                for event in [first, later, *storm]:
                    found = where.get(event)
                    if found is None or found[1] is None:
                        gone.append(event)
                        continue
                    card_state, ts = found
                    edited = any(c.params.get("ts") == ts for c in slack.calls_to("chat.update"))
                    # An edited card shows only its last version; one never edited, what it was posted with.
                    text = (
                        shown_now(slack, ts)
                        if edited or card_state == "grouped"
                        else never_edited_posts(slack)
                    )
                    if f"`{event}`" not in text:
                        gone.append(event)
                return gone

            deadline = time.monotonic() + 60
            while (left := missing()) and time.monotonic() < deadline:
                time.sleep(0.3)
            assert not left, f"event ids nowhere in Slack: {left}"
            # The storm was a storm, and the later alarm joined the incident's card.
            states = dict(query(db, "SELECT event_id, state FROM notify_outbox"))
            assert states[later] == "grouped" and sum(states[e] == "grouped" for e in storm) >= 8
            [(incident_ts,)] = query(
                db, "SELECT card_ts FROM incidents WHERE kinds >= 2 AND resource_id = ?", [panel]
            )
            assert incident_ts == first_ts
            # The first alarm's id is on the incident card itself (its timeline), not only in its thread.
            last = [c for c in slack.calls_to("chat.update") if c.params.get("ts") == first_ts][-1]
            assert f"`{first}`" in card_text(last)
