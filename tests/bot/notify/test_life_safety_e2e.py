"""No alarm held out of sight (issue 33, item 2), through the real processes: a bot and `samops notify` on one
cache, the simulator's alarms injected through /_sim/activities, Slack's stand-in.

During `/sam maintenance` a fire alarm is posted, marked as during maintenance; a burglary alarm is held and
shown as held, with its reason, on the notifier's console, in core.read's rows for the Alarms page and the
Handling page, and in `/sam alarms`. A window planned with `hold-life-safety` holds the fire alarm too, as
visibly."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from core import read
from core.cache.db import open_cache, open_reader
from core.client import SamClient
from core.clock import HOUR_MS
from core.settings import Settings
from core.sync import run_sync
from core.timefmt import UTC_TZ
from dashboard import alarm_table
from tests.bot.notify.support import posts
from tests.bot.notify.test_notify_e2e import card_events, notify_env, run_notify, state, wait_until
from tests.support.bot import BotProcess, run_bot
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn

TECH = "U0TECH"
CONFIG = f"""[roles]
technicians = ["{TECH}"]
[notify]
default_channel = "C_ALL"
[notify.storm]
threshold = 1000
posts_per_second = 50
[notify.incidents]
enabled = false
"""


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0") as sim:
        yield sim


def inject(sim: Simulator, panel: int | None, name: str) -> str:
    body = {"resourceId": panel, "count": 1, "violationType": "alarm", "violationName": name}
    [made] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()
    return str(made["eventId"])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, sim: Simulator) -> Iterator[dict[str, Any]]:
    """Two panels of one organization in maintenance (the second holding life-safety alarms too), a fire
    and a burglary alarm on the first, a fire alarm on the second, and the notifier that saw them."""
    tmp = tmp_path_factory.mktemp("life-safety")
    db_path = tmp / "cache.db"
    with SamClient(Settings(base_url=sim.base_url)) as client:
        client.login()
        first, *rest = known(client.session).resources or []
        second = next(p for p in rest if p.org_id == first.org_id)
        db = open_cache(db_path)
        try:
            assert run_sync(db, client).ok
        finally:
            db.close()
    with SlackStandIn() as slack, run_bot(tmp, slack, simulator=sim, db_path=db_path, config=CONFIG) as bot:
        battery = bot.send_command(f"maintenance {first.resource_id} now +2h battery swap", user=TECH)
        drill = bot.send_command(
            f"maintenance {second.resource_id} now +2h fire system test hold-life-safety", user=TECH
        )
        env = notify_env(tmp, sim, slack, CONFIG)
        with run_notify(tmp, env, "--interval", "0.3"):
            wait_until(lambda: state(tmp, "summary") == "posted", 60, "the notifier's first start")
            fire = inject(sim, first.resource_id, "Fire alarm")
            burglary = inject(sim, first.resource_id, "Burglary alarm")
            drill_fire = inject(sim, second.resource_id, "Fire alarm")
            log = tmp / "notify.log"
            wait_until(lambda: fire in {e for _, e in card_events(slack.calls_to("chat.postMessage"))}, 60,
                       "the fire alarm's card")  # fmt: skip
            wait_until(
                lambda: log.read_text().count(": held: maintenance") >= 2, 30, "the held console lines"
            )
            time.sleep(1.0)  # a few more cycles: nothing else is posted
        yield {
            "bot": bot,
            "slack": slack,
            "battery": battery,
            "drill": drill,
            "first": first,
            "second": second,
            "fire": fire,
            "burglary": burglary,
            "drill_fire": drill_fire,
            "console": log.read_text(),
            "db_path": db_path,
        }


def test_the_confirmations_say_what_is_held_and_what_is_not(world: dict[str, Any]) -> None:
    battery, drill = world["battery"].text, world["drill"].text
    assert "Life-safety alarms (fire, panic/hold-up/duress, medical, gas/CO) are still posted" in battery
    assert "hold-life-safety" in battery  # how to hold them, for a fire-system test
    assert "life-safety ones (fire, panic/hold-up/duress, medical, gas/CO) too" in drill
    assert "life-safety alarms held too" in drill and "fire system test" in drill
    assert "hold-life-safety" not in drill.split("—", 1)[-1].split("·")[0]  # not kept in the reason


def test_a_fire_alarm_during_maintenance_is_posted_marked_and_a_burglary_is_held(
    world: dict[str, Any],
) -> None:
    slack = world["slack"]
    cards = card_events(slack.calls_to("chat.postMessage"))
    assert [e for _, e in cards] == [world["fire"]]  # the burglary and the drill's fire were held
    [card] = posts(slack, "C_ALL", world["fire"])
    first = world["first"]
    assert f"During maintenance of {first.resource_name} ({first.resource_id}) by <@{TECH}> until" in card
    assert "a test?" in card and "(during maintenance: a test?)" in card  # on the card and in its text
    console = world["console"]
    # One discovery line per cycle: the three may be found over two cycles ("2 new …", then "1 new …").
    found = [
        re.search(r"notify: (\d+) new alarms? \((\d+) held back, (\d+) to post\)", line)
        for line in console.splitlines()
    ]
    totals = [sum(int(m.group(i)) for m in found if m) for i in (1, 2, 3)]
    assert totals == [3, 2, 1], console
    held = [line for line in console.splitlines() if "notify: held" in line]
    assert any(
        f"({world['burglary']}): held: maintenance R-" in line and f"by @{TECH} until" in line
        for line in held
    ), console
    assert any(
        f"({world['drill_fire']}): held: maintenance R-" in line and "(life-safety held too)" in line
        for line in held
    ), console
    assert any("notify: posted Fire alarm on" in line and "a test?" in line for line in console.splitlines())


def test_held_alarms_are_shown_held_on_the_alarms_page_and_handling(world: dict[str, Any]) -> None:
    db = open_reader(world["db_path"])
    try:
        now = int(time.time() * 1000)
        rows = read.recent_alarms(db, read.AlarmFilter(since=now - HOUR_MS), 100)
        ids = [r.event_id for r in rows]
        held = read.held_reasons(db, ids)
        marked = read.marked_reasons(db, ids)
        states = read.standings(db, ids)
        back = read.held_alarms(db, now - HOUR_MS, now + HOUR_MS)
        opened = read.open_alarms(db, now)
    finally:
        db.close()
    assert set(held) == {world["burglary"], world["drill_fire"]}
    assert held[world["burglary"]].held_reason(UTC_TZ).startswith("held: maintenance R-")
    assert "life-safety held too" in held[world["drill_fire"]].held_reason(UTC_TZ)
    assert set(marked) == {world["fire"]}  # posted during maintenance: its State says so, as its card does
    table = alarm_table.alarms_html(rows, UTC_TZ, "UTC", states, held=held, marked=marked)
    assert table.count("held: maintenance R-") == 2
    first = world["first"]
    during = f"<td>open · during maintenance of {first.resource_name} ({first.resource_id}) by @{TECH} until "
    assert during in table and ": a test?</td>" in table and "UTC until" not in table  # the fire alarm: open
    assert {h.alarm.event_id for h in back} == {world["burglary"], world["drill_fire"]}  # Handling's list
    assert world["fire"] in {a.event_id for a in opened}  # posted, so open; the held ones are listed apart


def test_sam_alarms_shows_the_held_ones_with_why(world: dict[str, Any]) -> None:
    bot: BotProcess = world["bot"]
    first = world["first"]
    answer = bot.send_command(f"alarms {first.resource_id} 1h").text
    [burglary] = [line for line in answer.splitlines() if "Burglary alarm" in line]
    assert "held: maintenance R-" in burglary and f"by <@{TECH}> until" in burglary, answer
    [fire] = [line for line in answer.splitlines() if "Fire alarm" in line]
    assert "held" not in fire
    assert "1 alarm held back (not posted)" in answer
