"""Chaos: the whole product as separate processes against a faulty simulator — 10% 5xx, 5% 429, latency
jitter, 20-second tokens, live alarms plus injected bursts — with one `kill -9` each of the notifier and of
the sync along the way and slash commands throughout. After the faults stop, every alarm of the simulator is
in the cache and reached Slack (at most one repeat, for the one notifier kill), every slash command got an
answer, and nothing is left running.

What reached Slack is read only from the stand-in; what the simulator produced, only from `/_sim/activities`.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest

from tests.bot.notify.test_notify_e2e import card_events, demo_orgs, sim_alarms, state, wait_until
from tests.support.bot import BotProcess, blocks_text, run_bot
from tests.support.chaos import Stack, processes_with
from tests.support.slack_standin import SlackStandIn

CHANNEL = "C_ALARMS"
CHAOS_S = 60.0
CONFIG = f"""
[notify]
default_channel = "{CHANNEL}"
interval = 1

[notify.storm]
posts_per_second = 20
"""
COMMANDS = ["help", "alarms", "alarms 1h", "cameras problems", "panel {rid}", "frobnicate", "alarms {rid} 2h"]


def cached_event_ids(db_path: Path) -> set[str]:
    """Event ids in the cache's activities table (none while the sync has not made it yet)."""
    if not db_path.exists():  # connecting would create it, with the wrong mode
        return set()
    with contextlib.closing(sqlite3.connect(db_path)) as conn, contextlib.suppress(sqlite3.Error):
        return {row[0] for row in conn.execute("SELECT event_id FROM activities")}
    return set()


def mentioned(slack: SlackStandIn, event_ids: set[str]) -> set[str]:
    """The event ids named in any message posted or updated: an alarm card or a storm card's details."""
    calls = slack.calls_to("chat.postMessage") + slack.calls_to("chat.update")
    text = " ".join(str(c.params) for c in calls)
    return {e for e in event_ids if f"'{e}'" in text or f"`{e}`" in text}


def send_command(bot: BotProcess, text: str) -> str:
    """Send `/sam text` without waiting for the answer; returns the response_url name to wait on."""
    form = bot.command_form(text, user="U_CHAOS")
    response = bot.post_signed(urlencode(form).encode(), timeout=30.0)
    assert response.status_code == 200, (text, response.status_code, response.text)
    return form["response_url"].rsplit("/", 1)[1]


@pytest.mark.slow
def test_faults_kills_and_restarts_lose_no_alarm(tmp_path: Path) -> None:
    rng = random.Random(8)
    with SlackStandIn(channels={CHANNEL}) as slack, Stack(tmp_path) as stack:
        stack.config_path.write_text(CONFIG)
        sim = stack.simulator(
            "--panels", "9", "--history-days", "1", "--alarm-rate", "60", "--token-ttl", "20",
            "--error-rate", "0.1", "--throttle-rate", "0.05", "--latency-ms", "20",
        )  # fmt: skip
        orgs = set(demo_orgs(sim))
        panels = sorted({a["resourceId"] for a in httpx.get(f"{sim.root_url}/_sim/activities").json()
                         if a["orgId"] in orgs})  # fmt: skip
        stack.start("sync", "sync", "--every", "2")
        wait_until(lambda: cached_event_ids(stack.db_path), 90, "the first sync")
        stack.start("notify", "notify", "--interval", "1", env=stack.env(slack))
        env = {"SAMOPS_DATA_DIR": str(stack.data_dir), "SAMOPS_CONFIG": str(stack.config_path)}
        with run_bot(tmp_path, slack, simulator=sim, config=CONFIG, env=env, db_path=stack.db_path) as bot:
            baseline = int(wait_until(lambda: state(stack.data_dir, "baseline"), 90, "the notifier's start"))
            asked: dict[str, str] = {}
            started = time.monotonic()
            killed: set[str] = set()
            while (elapsed := time.monotonic() - started) < CHAOS_S:
                # Jitter: the simulator has one latency for all requests, so change it as we go.
                httpx.post(f"{sim.root_url}/_sim/faults", json={"latencyMs": rng.randint(0, 80)}, timeout=10)
                text = COMMANDS[len(asked) % len(COMMANDS)].format(rid=rng.choice(panels))
                asked[send_command(bot, text)] = text
                if elapsed > 15 and "notify" not in killed:
                    stack.kill9_and_restart("notify")
                    killed.add("notify")
                if elapsed > 30 and "sync" not in killed:
                    stack.kill9_and_restart("sync")
                    killed.add("sync")
                if len(asked) % 4 == 0:  # a burst on one panel: more than the storm threshold at once
                    body = {"resourceId": rng.choice(panels), "count": 12, "violationType": "alarm"}
                    httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10)
                time.sleep(3.0)
            assert killed == {"notify", "sync"}

            httpx.post(
                f"{sim.root_url}/_sim/faults", json={"errorRate": 0, "throttleRate": 0, "latencyMs": 0}
            )
            everything = sim_alarms(
                sim, 0, orgs
            )  # live alarms keep coming; these are the ones to account for
            since_baseline = set(sim_alarms(sim, baseline, orgs))
            wait_until(lambda: set(everything) <= cached_event_ids(stack.db_path), 90, "every alarm cached")
            wait_until(lambda: mentioned(slack, since_baseline) == since_baseline, 90, "every alarm posted")

            for name, text in asked.items():
                answers = slack.wait_for(lambda n=name: slack.responses(n), timeout=60)
                shown = str(answers[0].params.get("text") or "") + blocks_text(
                    answers[0].params.get("blocks")
                )
                assert shown.strip() and "Traceback" not in shown, (text, shown)
            for proc_name in ("sync", "notify"):
                assert stack.procs[proc_name].poll() is None, f"{proc_name} died: see {stack.logs}"

        cards = Counter(e for _, e in card_events(slack.calls_to("chat.postMessage")))
        assert sum(n - 1 for n in cards.values()) <= 1, [e for e, n in cards.items() if n > 1]
        assert len(since_baseline) >= 20  # the run produced enough alarms to mean something
        assert any(c.params.get("thread_ts") for c in slack.calls_to("chat.postMessage"))  # a storm happened
        assert "Traceback" not in stack.log_text()
    assert processes_with(stack.data_dir) == []
