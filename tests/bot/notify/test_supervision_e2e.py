"""Silent-panel supervision end to end (issue 24, item 1): the notifier, its alarm poller speaking to the
spec-exact simulator as a real process, posting into the Slack stand-in, with a fake clock the test moves.

A panel silenced through the simulator's `/_sim` control raises one "communication lost" card after its
`silent_after` (and not before, and no other panel does), a restarted notifier does not post it again, and
when the panel reports again the alarm is resolved by samops with "restored after 26 h" in its thread and on
its card, audited as samops' own change. Meanwhile the service sees only the poller's own requests: one
operation 3 per organization per cycle, nothing for supervision."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from core import cache, lifecycle, read
from core.cache.db import open_cache
from core.client import SamClient
from core.clock import HOUR_MS, MINUTE_MS
from core.config import parse_config
from core.notify.source import ServiceSource
from core.settings import Settings
from tests.bot.notify.support import FakeClock, settle
from tests.bot.notify.test_notify_e2e import notify_env, run_notify, wait_until
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

CHANNEL = "C_ALARMS"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0") as sim:
        yield sim


def demo_panels(sim: Simulator) -> dict[int, int]:
    """panel -> organization of every panel the demo account sees."""
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
        return {int(p.resource_id or 0): int(p.org_id or 0) for p in client.login().panels}


def op_counts(sim: Simulator) -> dict[str, int]:
    return dict(httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()["operations"])


def lost_cards(slack: SlackStandIn) -> list[str]:
    """The eventId of every "Communication lost" card posted, read from its Acknowledge button."""
    out = []
    for call in slack.calls_to("chat.postMessage"):
        if "Communication lost" not in json.dumps(call.params.get("attachments") or []):
            continue
        for attachment in call.params["attachments"]:
            for block in attachment["blocks"]:
                out += [e["value"] for e in block.get("elements", []) if e.get("action_id") == "alarm_ack"]
    return out


def cycles(n: Notifier, until: Callable[[], object] = lambda: True) -> int:
    """`settle`, counting the cycles (each polls every organization once)."""
    count = 0

    def counted() -> float:
        nonlocal count
        count += 1
        return cycle()

    cycle, n.cycle = n.cycle, counted
    try:
        settle(n, until)
    finally:
        n.cycle = cycle
    return count


def notifier(
    db: Any, sim: Simulator, slack: SlackStandIn, clock: FakeClock, toml: dict[str, Any]
) -> Notifier:
    config = parse_config(toml)
    client = SamClient(Settings(_env_file=None, base_url=sim.base_url))
    delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 50)
    n = Notifier(
        db,
        config.notify,
        delivery,
        ServiceSource(client, overlap_s=1),
        "http://dash.local",
        clock=clock,
        priorities=config.priority_book(),
        supervision_config=config.supervision,
    )
    n.start()
    return n


def test_a_silenced_panel_is_alarmed_once_and_resolved_when_it_reports(
    tmp_path: Path, sim: Simulator
) -> None:
    from core.sync import run_sync

    panels = demo_panels(sim)
    silent, talking = sorted(panels)[:2]
    # Its last word before it falls silent (an event, and a controller update with it).
    [last] = httpx.post(f"{sim.root_url}/_sim/panels/{silent}/report", timeout=10).json()
    heard = int(last["activityTime"])
    toml = {
        "notify": {"default_channel": CHANNEL, "storm": {"posts_per_second": 50}},
        # Every panel may be quiet for two days; the silenced one only for a day.
        "supervision": {"silent_after": "48h", "panels": {str(silent): "24h"}},
    }
    db = open_cache(tmp_path / "cache.db")
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
        run_sync(db, client)  # what the tiered refresh keeps: panels, controller values (operation 19)
    httpx.post(f"{sim.root_url}/_sim/panels/{silent}/silence", timeout=10).raise_for_status()
    with SlackStandIn() as slack:
        clock = FakeClock(0)
        n = notifier(db, sim, slack, clock, toml)
        start = n.baseline()  # silence is counted from when samops started watching at the earliest
        clock.now = start
        settle(n, lambda: True)
        httpx.post(f"{sim.root_url}/_sim/stats/reset", timeout=10).raise_for_status()

        polled = 0
        clock.now = start + 24 * HOUR_MS - MINUTE_MS  # a minute short of a day: not silent yet
        polled += cycles(n)
        assert lost_cards(slack) == []
        for hours in (24, 25):  # silent: one card, not one per cycle
            clock.now = start + hours * HOUR_MS + MINUTE_MS
            polled += cycles(n, lambda: lost_cards(slack))
        [event_id] = lost_cards(slack)
        assert event_id.startswith(f"silent:{silent}:")
        card = read.card_of_alarm(db, event_id)
        assert card is not None and card.channel == CHANNEL
        ts = card.ts

        # Supervision asked the service nothing: the requests are the idle polls, one per organization.
        orgs = len(set(panels.values()))
        assert op_counts(sim) == {"3 POST /activities": polled * orgs}

        # A restart (a new notifier on the same records) does not post it again.
        n = notifier(db, sim, slack, clock, toml)
        clock.now = start + 25 * HOUR_MS + 30 * MINUTE_MS
        settle(n, lambda: True)
        assert lost_cards(slack) == [event_id]
        state = lifecycle.get(db, event_id)
        assert state is not None and state.state is lifecycle.State.OPEN

        # The panel reports again: the poller brings its event, and the alarm is resolved by samops.
        httpx.post(f"{sim.root_url}/_sim/panels/{silent}/report", timeout=10).raise_for_status()
        clock.now = heard + 26 * HOUR_MS  # silent for 26 h since its last word

        def told() -> bool:
            return any(c.params.get("thread_ts") == ts for c in slack.calls_to("chat.postMessage"))

        settle(n, told)
        state = lifecycle.get(db, event_id)
        assert state is not None and state.state is lifecycle.State.RESOLVED
        assert (state.resolved_by, state.note) == ("samops", "restored after 26 h")
        [reply] = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == ts]
        assert "restored after 26 h" in str(reply.params["text"])
        last_edit = [c for c in slack.calls_to("chat.update") if c.params.get("ts") == ts][-1]
        edited = json.dumps(last_edit.params["attachments"])
        assert "*Resolved* by samops" in edited and "restored after 26 h" in edited
        assert "alarm_ack" not in edited  # nothing left to acknowledge
        # samops' own acts of supervision (its ops notices are audited beside them)
        audit = [
            a for a in cache.recent_audit(db, slack_user="samops") if a.command.startswith("supervision")
        ]
        assert [(a.command, a.outcome) for a in audit] == [(f"supervision resolve {event_id}", "ok")]
        assert "restored after 26 h" in audit[0].summary

        # The other panel (two days allowed) never fell silent, and nothing more was posted.
        assert all(f"silent:{talking}:" not in e for e in lost_cards(slack))
        assert len(lost_cards(slack)) == 1


def test_nothing_is_raised_while_the_service_does_not_answer(tmp_path: Path, sim: Simulator) -> None:
    """A day without answers from the service would make every panel look silent: that silence is samops'
    own, and nothing is raised until the service answers again (then the panel that is really silent is)."""
    silent = sorted(demo_panels(sim))[2]
    httpx.post(f"{sim.root_url}/_sim/panels/{silent}/silence", timeout=10).raise_for_status()
    toml = {
        "notify": {"default_channel": CHANNEL},
        "supervision": {"silent_after": "off", "panels": {str(silent): "24h"}},
    }
    db = open_cache(tmp_path / "cache.db")
    with SlackStandIn() as slack:
        clock = FakeClock(0)
        n = notifier(db, sim, slack, clock, toml)
        start = clock.now = n.baseline()
        settle(n, lambda: True)
        try:
            httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 1}, timeout=10).raise_for_status()
            clock.now = start + 25 * HOUR_MS
            n.cycle()
            assert n._service_failing_since is not None  # the poll failed: samops hears nothing
            settle(n, lambda: True)
            assert lost_cards(slack) == []
        finally:
            httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": 0}, timeout=10).raise_for_status()
        # The service answers again: the panel really is silent, and now samops can say so.
        settle(n, lambda: lost_cards(slack))
        assert lost_cards(slack) == [f"silent:{silent}:{start}"]


@pytest.mark.slow
def test_samops_notify_alarms_a_silenced_panel_and_resolves_it_when_it_reports(
    tmp_path: Path, sim: Simulator
) -> None:
    """As a new user tries it: `samops notify` as a real process, `[supervision]` in samops.toml, the panel
    silenced and let go through the simulator's controls; one card, resolved by itself, also across a
    restart. A minute of silence, so that the test takes two."""
    panel = sorted(demo_panels(sim))[-1]
    toml = (
        f'[notify]\ndefault_channel = "{CHANNEL}"\n'
        f'[supervision]\nsilent_after = "off"\npanels = {{ {panel} = "1m" }}\n'
    )
    with SlackStandIn() as slack:
        env = notify_env(tmp_path, sim, slack, toml) | {"SAMOPS_POLL_INTERVAL": "1"}
        httpx.post(f"{sim.root_url}/_sim/panels/{panel}/silence", timeout=10).raise_for_status()
        with run_notify(tmp_path, env):
            wait_until(lambda: lost_cards(slack), 180, "the communication-lost card")
        with run_notify(tmp_path, env):  # restarted: the same silence, no second card
            time.sleep(5)
            [event_id] = lost_cards(slack)
            assert event_id.startswith(f"silent:{panel}:")
            httpx.post(f"{sim.root_url}/_sim/panels/{panel}/report", timeout=10).raise_for_status()

            def resolved() -> bool:
                edits = [json.dumps(c.params.get("attachments")) for c in slack.calls_to("chat.update")]
                return any("Resolved* by samops" in e and "restored after" in e for e in edits)

            wait_until(resolved, 60, "the card resolved by samops")
        replies = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts")]
        assert len(replies) == 1 and "restored after" in str(replies[0].params["text"])
        assert lost_cards(slack) == [event_id]
