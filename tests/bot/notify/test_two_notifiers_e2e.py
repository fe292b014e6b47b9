"""Two notifiers on one cache (issue 33): two real `samops notify` processes polling the spec-exact
simulator, the second started beside the first on purpose (`--beside`, as a standby will be), Slack slow to
answer (the stand-in's delay), alarms arriving while both run and while one restarts. Every card, every
escalation level and every page (DM) is in the stand-in's record exactly once. A third notifier started
without `--beside` is refused with one line naming the first."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from pathlib import Path

from tests.bot.notify.test_notify_e2e import demo_panels, notify_env, run_notify, state, wait_until
from tests.bot.notify.test_paging_e2e import dms, inject
from tests.support.processes import run_simulator, samops_cmd, stop
from tests.support.slack_standin import SlackStandIn

CONFIG = """
action_plans = []
[notify]
default_channel = "C_ALL"
[notify.storm]
posts_per_second = 50
threshold = 1000  # every alarm its own card: counted one by one
[notify.incidents]
enabled = false
[notify.escalation.P1]
escalate_after = [0.1, 0.2]  # minutes: 6 s, 12 s
escalate_to = [["S0FIRE"], ["U0LEAD", "C0OPS"]]
"""
LEVEL = re.compile(r"Escalation level (\d+)")


def cards(slack: SlackStandIn) -> Counter[str]:
    """How many times each alarm's card was posted to the channel (its event id read from its buttons)."""
    posted: Counter[str] = Counter()
    for call in slack.calls_to("chat.postMessage"):
        if call.params.get("channel") != "C_ALL" or call.params.get("thread_ts"):
            continue
        posted.update(
            {
                str(e["value"])
                for a in call.params.get("attachments") or []
                for b in a.get("blocks") or []
                for e in b.get("elements") or []
                if e.get("action_id") == "alarm_ack"
            }
        )
    return posted


def levels(slack: SlackStandIn) -> Counter[tuple[str, int]]:
    """How many times each (card thread, escalation level) was posted."""
    out: Counter[tuple[str, int]] = Counter()
    for call in slack.calls_to("chat.postMessage"):
        found = LEVEL.search(str(call.params.get("text") or ""))
        if call.params.get("thread_ts") and found:
            out[(str(call.params["thread_ts"]), int(found.group(1)))] += 1
    return out


def summaries(slack: SlackStandIn) -> int:
    return sum(
        "samops notify is now watching" in str(c.params.get("text") or "")
        for c in slack.calls_to("chat.postMessage")
    )


def test_two_notifiers_on_one_cache_post_every_card_level_and_page_once(tmp_path: Path) -> None:
    with (
        run_simulator("--alarm-rate", "0") as sim,
        SlackStandIn(usergroups={"S0FIRE": ["U0ANNA", "U0BEN"]}, delay=0.25) as slack,
    ):
        env = notify_env(tmp_path, sim, slack, CONFIG)
        panels = demo_panels(sim)
        with run_notify(tmp_path, env, "--interval", "0.3") as first:
            wait_until(lambda: state(tmp_path, "baseline"), 60, "the first start")
            # A second notifier by hand, without saying so: refused, naming the first.
            third = subprocess.run(
                samops_cmd("notify", "--source", "service"),
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert third.returncode == 3, third.stderr
            [line] = third.stderr.strip().splitlines()
            assert (
                f"samops already runs on this data folder ({tmp_path}): `samops notify`, pid {first.pid}"
                in line
            )
            assert "port" not in line.split(":", 1)[1]  # no other port suggested: that would be a second copy

            with run_notify(tmp_path, env, "--interval", "0.3", "--beside"):
                time.sleep(1.5)  # both have polled once: the panels are known
                alarms = [inject(sim.root_url, panels[i % len(panels)]) for i in range(4)]
                time.sleep(1.0)
                alarms += [inject(sim.root_url, panels[i % len(panels)]) for i in range(4, 6)]
                wait_until(lambda: set(alarms) <= set(cards(slack)), 60, "the first cards")
                # The first is restarted (stopped, then started again: the folder's lock is free), the second
                # running on: alarms arrive during the restart.
                stop(first)
                alarms += [inject(sim.root_url, panels[i % len(panels)]) for i in range(6, 8)]
                with run_notify(tmp_path, env, "--interval", "0.3"):
                    alarms += [inject(sim.root_url, panels[i % len(panels)]) for i in range(8, 10)]
                    wait_until(lambda: set(alarms) <= set(cards(slack)), 60, "every card")
                    # Every card's two levels (6 s and 12 s after its alarm) and their pages.
                    wait_until(lambda: len(levels(slack)) >= 2 * len(alarms), 90, "every escalation level")
                    want = {(user, a) for a in alarms for user in ("U0ANNA", "U0BEN", "U0LEAD")}
                    wait_until(lambda: want <= set(dms(slack)), 90, "every page")
                    time.sleep(3)  # more cycles of both: nothing more is posted

    posted = cards(slack)
    assert posted == Counter(dict.fromkeys(alarms, 1)), json.dumps(posted)
    by_level = levels(slack)
    assert set(by_level.values()) == {1}, json.dumps([[*k, v] for k, v in by_level.items() if v > 1])
    assert len(by_level) == 2 * len(alarms)
    pages = Counter(dms(slack))
    assert pages == Counter(dict.fromkeys(want, 1)), json.dumps([[*k, v] for k, v in pages.items()])
    assert summaries(slack) == 1
