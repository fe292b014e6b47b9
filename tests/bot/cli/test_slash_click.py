"""`samops slash --click`: a newcomer without Slack takes an alarm from its console card to resolved (issue 37
item 2). A real simulator, the real notifier printing its card on the console (no SLACK_BOT_TOKEN), a real
local bot, and `samops slash` as a process pressing the printed card's numbered buttons as Slack would: the
bot's own handlers, roles and audit decide. The records are read through core.read, and so are the False
alarms page's figures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import httpx
import pytest

from bot.cli.click import button_of, click_payload
from bot.render.alarms import ACK
from bot.render.common import Rendered
from core import dispositions, lifecycle, read
from core.cache import get_alarm, open_cache
from core.clock import now_ms
from core.config import SamopsConfig
from core.lifecycle import State
from tests.support.bot import BotProcess, run_bot
from tests.support.processes import ROOT, Simulator, run_simulator, samops_cmd
from tests.support.slack_standin import SlackStandIn

TECH, VIEWER = "U_TECH", "U_VIEWER"
UTC = ZoneInfo("UTC")
# No [[action_plans]]: samops' default plan, whose last step is mandatory, is on every P1 alarm.
CONFIG = f'[roles]\ntechnicians = ["{TECH}"]\n'


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", "4", "--history-days", "1", seed=7) as simulator:
        yield simulator


@pytest.fixture
def bot(tmp_path: Path, sim: Simulator, slack: SlackStandIn) -> Iterator[BotProcess]:
    with run_bot(tmp_path, slack, simulator=sim, config=CONFIG, token=None) as local:
        yield local


def env_of(bot: BotProcess, sim: Simulator) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAM_", "SAMOPS_"))}
    return env | {
        "PYTHONPATH": str(ROOT),
        "SAM_BASE_URL": sim.base_url,
        "SAMOPS_DB": str(bot.db_path),
        "SAMOPS_CONFIG": str(bot.data_dir.parent / "samops.toml"),
        "SAMOPS_DATA_DIR": str(bot.data_dir),
    }


def notify_once(bot: BotProcess, sim: Simulator) -> str:
    done = subprocess.run(samops_cmd("notify", "--source", "service", "--once"), cwd=ROOT,
                          env=env_of(bot, sim), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def slash(bot: BotProcess, sim: Simulator, *args: str, user: str = TECH) -> subprocess.CompletedProcess[str]:
    env = env_of(bot, sim) | {"SLACK_SIGNING_SECRET": bot.signing_secret}
    cmd = samops_cmd("slash", *args, "--as", user, "--url", bot.url, "--timeout", "30")
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def new_alarm(sim: Simulator) -> str:
    held = httpx.get(f"{sim.root_url}/_sim/activities", params={"since": 0}, timeout=10).json()
    rid = held[0]["resourceId"]  # a panel of the demo's (the simulator's history is all the demo user's)
    [alarm] = httpx.post(f"{sim.root_url}/_sim/activities",
                         json={"resourceId": rid, "count": 1, "violationType": "alarm"}).json()  # fmt: skip
    return str(alarm["eventId"])


def printed_card(stdout: str, event_id: str) -> tuple[str, str]:
    """The card printed for the alarm (its text) and its reference."""
    for card in stdout.split("--- #"):
        if event_id in card and (found := re.search(r"— card (c\d+): samops slash --click", card)):
            return card, found.group(1)
    raise AssertionError(f"no numbered card for {event_id} in:\n{stdout}")


def number_of(card: str, label: str) -> str:
    found = re.search(rf"(\d+) \[{re.escape(label)}\]", card)
    assert found, f"no numbered [{label}] in:\n{card}"
    return found.group(1)


def test_an_alarm_is_taken_from_its_console_card_to_resolved(bot: BotProcess, sim: Simulator) -> None:
    notify_once(bot, sim)  # the baseline: what happened before is summarized, not carded
    event_id = new_alarm(sim)
    card, ref = printed_card(notify_once(bot, sim), event_id)
    for label in ("Acknowledge", "I'm on it", "Resolve", "Done: step 3"):
        number_of(card, label)

    listed = slash(bot, sim, "--cards")
    assert listed.returncode == 0 and ref in listed.stdout and "[Acknowledge]" in listed.stdout, listed

    # A card or button the console does not show: a clear answer naming what it does show, nothing sent.
    no_card = slash(bot, sim, "--click", "c999", "1")
    assert no_card.returncode == 2 and "no card 'c999'" in no_card.stderr, no_card
    no_button = slash(bot, sim, "--click", ref, "99")
    assert no_button.returncode == 2 and "1 Acknowledge" in no_button.stderr, no_button
    assert "Traceback" not in no_card.stderr + no_button.stderr

    # A viewer's click is refused by the bot's role check, and changes nothing.
    refused = slash(bot, sim, "--click", ref, number_of(card, "Acknowledge"), user=VIEWER)
    assert "needs the technician role" in refused.stdout, refused
    db = open_cache(bot.db_path)
    before = lifecycle.get(db, event_id)
    assert before is not None and before.state is State.OPEN
    denied = db.execute("SELECT outcome, command FROM audit_log WHERE slack_user = ?", [VIEWER]).fetchall()
    assert denied == [("denied", f"alarm acknowledge {event_id}")], denied

    acked = slash(bot, sim, "--click", ref, number_of(card, "Acknowledge"))
    assert acked.returncode == 0, acked
    assert "acknowledged" in acked.stdout
    assert "[Acknowledge]" not in acked.stdout.split(f"card {ref} now")[1]  # the card as it is now
    taken = slash(bot, sim, "--click", ref, "I'm on it")  # by its label
    assert taken.returncode == 0 and "Done: the alarm is acknowledged" in taken.stdout, taken
    state = lifecycle.get(db, event_id)
    assert state is not None and state.state is State.ACKNOWLEDGED and state.holder == TECH

    # Resolve waits for the checklist's mandatory step.
    early = slash(bot, sim, "--click", ref, "Resolve")
    assert "Dispatch or stand down" in early.stdout, early
    for step in ("Done: step 1", "Done: step 2", "Done: step 3"):
        ticked = slash(bot, sim, "--click", ref, step)
        assert ticked.returncode == 0 and "is ticked" in ticked.stdout, ticked
    alarm = get_alarm(db, event_id)
    assert alarm is not None
    checklist = read.plan_checklist(db, SamopsConfig().plan_book(), alarm, now_ms(), UTC, with_data=False)
    assert checklist is not None and not checklist.mandatory_left  # every step ticked, by the technician
    assert [s.tick.by_user if s.tick else None for s in checklist.steps] == [TECH, TECH, TECH]

    resolved = slash(bot, sim, "--click", ref, "Resolve", "--submit", "disposition=false_user_error",
                     "note=The cleaner's code")  # fmt: skip
    assert resolved.returncode == 0 and "Resolved." in resolved.stdout, resolved
    state = lifecycle.get(db, event_id)
    assert state is not None and state.state is State.RESOLVED and state.resolved_by == TECH
    closed = dispositions.resolved_as(db, event_id)
    assert closed is not None and closed.code == "false_user_error"
    # What the False alarms page shows counts it.
    [panel] = [g for g in read.false_alarm_rates(db, read.Grouping.PANEL, now_ms())]
    assert panel.period(7).false_alarms == 1 and panel.period(7).resolved == 1
    assert ref not in slash(bot, sim, "--cards").stdout  # resolved: no longer open
    # The card's other buttons go through their own handlers too: a silence of its panel.
    silenced = slash(bot, sim, "--click", ref, "Silence 30 min")
    assert silenced.returncode == 0, silenced
    assert db.execute("SELECT count(*) FROM quiet_windows").fetchone()[0] == 1

    audited = db.execute("SELECT command FROM audit_log WHERE slack_user = ?", [TECH]).fetchall()
    audit = [r[0] for r in audited]
    assert any(c.startswith("alarm acknowledge") for c in audit) and any("resolve" in c for c in audit)


def test_a_replayed_click_changes_nothing(bot: BotProcess, sim: Simulator) -> None:
    notify_once(bot, sim)
    event_id = new_alarm(sim)
    _, ref = printed_card(notify_once(bot, sim), event_id)
    db = open_cache(bot.db_path)
    card = read.console_card(db, ref)
    assert card is not None
    label = {"type": "plain_text", "text": "Acknowledge"}
    button = {"type": "button", "action_id": ACK, "value": event_id, "text": label}
    message = Rendered("card", blocks=[{"type": "actions", "block_id": "b1", "elements": [button]}])
    payload = click_payload(card, message, button_of(message, "1"), TECH, "T_SAMOPS", "http://127.0.0.1:9/r")
    body = urlencode({"payload": json.dumps(payload)}).encode()
    assert bot.post_signed(body).status_code == 200
    deadline = time.monotonic() + 30
    while (first := lifecycle.get(db, event_id)) is None or first.state is State.OPEN:
        assert time.monotonic() < deadline, "the click was not recorded"
        time.sleep(0.1)
    assert bot.post_signed(body).status_code == 200  # the very same request again
    time.sleep(2)
    assert lifecycle.get(db, event_id) == first
    changes = db.execute("SELECT count(*) FROM alarm_changes WHERE event_id = ? AND change = 'acknowledged'",
                         [event_id]).fetchone()[0]  # fmt: skip
    audited = db.execute("SELECT count(*) FROM audit_log WHERE slack_user = ? AND command LIKE ?",
                         [TECH, f"alarm acknowledge {event_id}%"]).fetchone()[0]  # fmt: skip
    assert (changes, audited) == (1, 1)
