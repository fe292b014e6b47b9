"""One answer to each question (issue 22, item 8), through the running bot with signed requests: who holds
an alarm is the same on its card, in `/sam handover`, on the Handling page's read, the App Home's read and the
Alarms page's state column (core.lifecycle's rule: the assignee; acknowledging alone holds nothing); the
handover's figures say what each counts and its median time to acknowledge shows seconds under a minute;
a disabled camera is "disabled" in the digest and on the Overview's count, never "offline"."""

from __future__ import annotations

import re
import time
from pathlib import Path

from core import lifecycle, read
from core.cache import audit
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.lifecycle import State
from core.read import HomeScope
from core.reference import is_reference
from tests.bot.actions.test_lifecycle import ROLES, STORM_TS, answer, click, resolve_view, send, updates
from tests.bot.actions.test_lifecycle import seed as seed_lifecycle
from tests.support.bot import run_bot, submit
from tests.support.slack_standin import SlackStandIn

CARD_TS = "1700000000.000100"


def seed(path: Path) -> None:
    """Two alarms of this shift on panel 777: EV-1 posted on its card (so it has a lifecycle), EV-0 never
    posted (it came before the notifier started, say); a disabled camera with no status (spec-exact)."""
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        rows = [(e, 777, 1001, now - 15_000 - i, f"Burglary alarm on Depot - Door {i}", "violation",
                 "Burglary alarm", "alarm", 2, 1, 1) for i, e in enumerate(["EV-1", "EV-0"])]  # fmt: skip
        upsert_activities(db, "activities", rows)
        db.execute("INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                   " VALUES ('EV-1', 'C_ALARMS', 'posted', ?, ?, 0)", [CARD_TS, now])  # fmt: skip
        cameras = [
            {"resource_id": 901, "org_id": 1001, "name": "Yard cam", "raw": '{"enabled": false}'},
            {"resource_id": 902, "org_id": 1001, "name": "Gate cam", "raw": '{"enabled": true}'},
        ]
        upsert_dicts(db, "cameras", cameras, "resource_id")
    lifecycle.open_alarms(db, [("EV-1", now - 15_000)], now)


def test_who_holds_an_alarm_and_the_handover_figures_are_one_answer(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        # Acknowledged only: seen, held by nobody, wherever it is asked.
        send(bot, click(slack, "alarm_ack", "EV-1", "U_TECH", "ack"))
        [card] = slack.wait_for(lambda: updates(slack), timeout=30)
        assert "Acknowledged* by <@U_TECH>" in card and "held by" not in card
        digest = bot.send_command("handover", user="U_TECH").text
        assert "acknowledged by <@U_TECH>, nobody holds it" in digest
        db = open_cache(db_path)
        [open_alarm] = read.open_alarms(db, int(time.time() * 1000))
        assert (open_alarm.event_id, open_alarm.holder) == ("EV-1", None)  # the Handling page's table
        assert read.standings(db, ["EV-1", "EV-0"]) == {"EV-1": read.Standing(State.ACKNOWLEDGED, None)}
        home = read.home_data(db, "U_TECH", HomeScope(), int(time.time() * 1000))
        assert home.assigned_total == 0

        # The handover's figures say what each counts; 15-odd seconds to acknowledge read as seconds.
        median = re.search(r"\*Median time to acknowledge\*\n(\d+) s\b", digest)
        assert median is not None and 0 < int(median.group(1)) < 60, digest
        assert "*Alarms received*\n2" in digest and "1 of them posted with buttons" in digest
        assert "Still open or acknowledged: 1" in digest
        # A disabled camera is disabled, not offline (the service reports no camera status here).
        assert (
            "Cameras offline: 0" in digest and "Cameras disabled: 1" in digest and "Yard cam (901)" in digest
        )

        # I'm on it: now U_OTHER holds it, on the card, in the digest, in the reads.
        send(bot, click(slack, "alarm_take", "EV-1", "U_OTHER", "take"))
        slack.wait_for(lambda: len(updates(slack)) == 2, timeout=30)
        assert "held by <@U_OTHER>" in updates(slack)[-1]
        digest = bot.send_command("handover", user="U_TECH").text
        assert "acknowledged by <@U_TECH>, held by <@U_OTHER>" in digest
        [open_alarm] = read.open_alarms(db, int(time.time() * 1000))
        assert open_alarm.holder == "U_OTHER"
        assert read.standings(db, ["EV-1"]) == {"EV-1": read.Standing(State.ACKNOWLEDGED, "U_OTHER")}
        assert read.home_data(db, "U_OTHER", HomeScope(), int(time.time() * 1000)).assigned_total == 1

    kpis = read.kpis(db, int(time.time() * 1000))
    assert (kpis.cameras_offline, kpis.cameras_disabled) == (None, 1)  # no status reported: not "0 offline"


def test_every_refused_card_action_is_audited_with_its_card(tmp_path: Path) -> None:
    """A viewer's "Acknowledge all" and "Resolve all", and a Resolve-all form a viewer submits (one a
    technician opened), are refused; each audit row names the card, as the write would have, with an R-."""
    db_path = tmp_path / "cache.db"
    seed_lifecycle(db_path, [], ["EV-S1", "EV-S2"])
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        send(bot, click(slack, "alarm_ack_all", "777", "U_VIEW", "ackall", ts=STORM_TS))
        assert "needs the technician role" in answer(slack, "ackall")
        send(bot, click(slack, "alarm_resolve_all", "777", "U_VIEW", "resolveall", ts=STORM_TS))
        assert "needs the technician role" in answer(slack, "resolveall")
        views = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve_all", "777", "U_TECH", "opened", ts=STORM_TS))
        view = resolve_view(slack, views)
        assert (
            submit(bot, view, {"disposition": "test", "note": "not mine to close"}, "U_VIEW").status_code
            == 200
        )
        db = open_cache(db_path)
        slack.wait_for(lambda: len(audit.recent(db)) == 3, timeout=30)
    rows = [(e.slack_user, e.command, e.outcome) for e in reversed(audit.recent(db))]
    assert rows == [
        ("U_VIEW", f"alarm acknowledge all {STORM_TS}", "denied"),
        ("U_VIEW", f"alarm resolve all {STORM_TS}", "denied"),
        ("U_VIEW", f"alarm resolve all {STORM_TS}", "denied"),
    ]
    assert all(is_reference(e.reference) for e in audit.recent(db))
    assert [s.state for s in lifecycle.states(db, ["EV-S1", "EV-S2"]).values()] == [State.OPEN] * 2
