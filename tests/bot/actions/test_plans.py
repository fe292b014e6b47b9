"""Action plans through the running bot with signed requests (issue 23, item 2): the default P1 plan's
checklist on a burglary card; a viewer's tick refused; a tick recorded once (a Slack retry changes nothing, a
second person is told who was first; one audit row), shown with who and when through the card's refresh, a
click naming another card than samops' record refused and audited;
Resolve refused naming the mandatory step left, then allowed once it is ticked; an admin's Resolve over
steps left asks why, refuses a technician who replays it, and records, audits and shows the override; a
storm card's Resolve all waits for every alarm's mandatory steps, and an admin's override covers them all."""

from __future__ import annotations

import json
import time
from pathlib import Path

from core import lifecycle
from core.cache import audit, plans
from core.cache.db import open_cache
from core.cache.writes import upsert_dicts, write_transaction
from core.lifecycle import State
from tests.bot.actions.test_lifecycle import CARD_TS, STORM_TS, click, resolve_view, seed, send, updates
from tests.support.bot import run_bot, submit
from tests.support.slack_standin import SlackStandIn

CONFIG = """
[roles]
admins = ["U_ADMIN"]
technicians = ["U_TECH", "U_OTHER"]
viewers = ["U_VIEW"]
"""
LEFT = "“Dispatch or stand down”"


def step(slack: SlackStandIn, index: int, user: str, name: str, event: str = "EV-1") -> dict:
    value = json.dumps({"e": event, "s": index})
    return click(slack, f"alarm_plan_step_{index}", value, user, name)


def said(slack: SlackStandIn, name: str, count: int = 1) -> list[str]:
    """The first `count` answers to the response URL `name`, once they are there."""
    replies = slack.wait_for(
        lambda: len(slack.responses(name)) >= count and slack.responses(name), timeout=30
    )
    return [str(r.params["text"]) for r in replies]


def elsewhere(ts: str) -> dict:
    return {
        "container": {"type": "message", "message_ts": ts, "channel_id": "C_ALARMS"},
        "message": {"ts": ts},
    }


def step_buttons(slack: SlackStandIn, ts: str = CARD_TS) -> list[str]:
    last = [c for c in slack.calls_to("chat.update") if c.params["ts"] == ts][-1]
    blocks = last.params["attachments"][0]["blocks"]
    return [b["accessory"]["action_id"] for b in blocks if b.get("accessory", {}).get("type") == "button"]


def seed_site(path: Path) -> None:
    """A camera of the Depot's site (its name holds the panel's), offline, and one of another site."""
    db = open_cache(path)
    with write_transaction(db):
        cameras = [{"resource_id": 9001, "org_id": 1001, "name": "Depot gate", "status": "offline"},
                   {"resource_id": 9002, "org_id": 1001, "name": "Harbour", "status": "online"}]  # fmt: skip
        upsert_dicts(db, "cameras", cameras, "resource_id")
    db.close()


def test_the_checklist_holds_resolve_until_its_mandatory_step_is_ticked(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-1"])  # a burglary, violationType alarm: P1, the default plan's
    seed_site(db_path)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        send(bot, step(slack, 2, "U_VIEW", "viewer"))
        assert "needs the technician role" in said(slack, "viewer")[0]

        views_before = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-1", "U_TECH", "early"))
        refusal = said(slack, "early")[0]
        assert "Not resolved yet" in refusal and LEFT in refusal and "1 mandatory step left" in refusal

        first = step(slack, 0, "U_TECH", "tick")
        send(bot, first)
        [card] = slack.wait_for(lambda: updates(slack), timeout=30)
        assert "Action plan: P1 alarm* · 1 of 3 steps, 1 mandatory left" in card
        assert "*1. Check the site's cameras* · done by <@U_TECH> at" in card
        assert "Depot gate (9001) (offline)" in card and "Harbour" not in card  # the site's camera
        assert "not read yet" in card  # the keyholders: no authorizations cached for the panel
        assert step_buttons(slack) == ["alarm_plan_step_1", "alarm_plan_step_2"]
        send(bot, first, retry=1)  # Slack's retry of the same click
        # A Done naming another card than samops' record of the alarm's (here its storm card): refused.
        send(bot, {**step(slack, 1, "U_TECH", "elsewhere"), **elsewhere(STORM_TS)})
        assert "does not match the card samops posted" in said(slack, "elsewhere")[0]
        send(bot, step(slack, 0, "U_OTHER", "late"))  # a second person on a card not redrawn yet
        assert "Already done by <@U_TECH>" in said(slack, "late")[0]

        send(bot, step(slack, 2, "U_OTHER", "mandatory"))
        slack.wait_for(lambda: len(updates(slack)) == 2, timeout=30)
        assert "2 of 3 steps, no mandatory step left" in updates(slack)[-1]
        assert "*3. Dispatch or stand down* (mandatory) · done by <@U_OTHER>" in updates(slack)[-1]

        send(bot, click(slack, "alarm_resolve", "EV-1", "U_TECH", "resolve"))
        view = resolve_view(slack, views_before)
        assert "override" not in json.dumps(view["blocks"])  # nothing is left to override
        submit(bot, view, {"disposition": "false_user_error", "note": "Cleaner; stood down."}, "U_TECH")
        slack.wait_for(lambda: len(updates(slack)) == 3, timeout=30)
        assert "Resolved* by <@U_TECH>" in updates(slack)[-1]
        assert step_buttons(slack) == []  # the checklist is closed, and still shown
        assert "2 of 3 steps" in updates(slack)[-1]
        time.sleep(0.5)  # the retry had its chance to do something
        assert slack.responses("tick") == [] and len(updates(slack)) == 3

    db = open_cache(db_path)
    ticks = plans.ticks(db, ["EV-1"])["EV-1"]
    assert {label: t.by_user for label, t in ticks.items()} == {  # not step 2
        "Check the site's cameras": "U_TECH",
        "Dispatch or stand down": "U_OTHER",
    }
    assert plans.override_of(db, "EV-1") is None
    rows = [(e.slack_user, e.command, e.outcome) for e in reversed(audit.recent(db))]
    assert rows == [
        ("U_VIEW", "plan tick EV-1 step 3", "denied"),
        ("U_TECH", "plan tick EV-1 step 1", "ok"),  # once, though Slack sent it twice
        ("U_TECH", "plan tick EV-1 step 2", "denied"),  # the click named another card
        ("U_OTHER", "plan tick EV-1 step 3", "ok"),
        ("U_TECH", "alarm resolve EV-1", "ok"),
    ]


def test_an_admin_resolves_over_steps_left_with_a_reason_audited_and_shown(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-1"])
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        send(bot, click(slack, "alarm_resolve", "EV-1", "U_ADMIN", "admin"))
        view = resolve_view(slack, 0)
        assert json.loads(view["private_metadata"])["ov"] is True
        assert "Why resolve with steps left" in json.dumps(view["blocks"])
        empty = submit(bot, view, {"disposition": "test", "note": "", "override": ""}, "U_ADMIN")
        assert "give the reason" in empty.json()["errors"]["override"]
        # A technician replaying the admin's form: not a form samops opened for them; audited, nothing done.
        submit(bot, view, {"disposition": "test", "note": "", "override": "not mine to skip"}, "U_TECH")
        assert "does not match the card" in said(slack, "admin")[0]
        # The admin's own form with its metadata stripped of the reason field: the steps are checked again.
        meta = {**json.loads(view["private_metadata"]), "ov": False}
        submit(
            bot,
            {**view, "private_metadata": json.dumps(meta)},
            {"disposition": "test", "note": "skip"},
            "U_ADMIN",
        )
        second = said(slack, "admin", 2)[1]
        assert "Not resolved" in second and LEFT in second
        submit(bot, view, {"disposition": "confirmed_intrusion", "note": "False alarm",
                          "override": "Police on site already; keyholder met them"},
               "U_ADMIN")  # fmt: skip
        [card] = slack.wait_for(lambda: updates(slack), timeout=30)
        assert "Resolved* by <@U_ADMIN>" in card
        assert f"Resolved with mandatory steps left* ({LEFT}): overridden by <@U_ADMIN> at" in card
        assert "Police on site already" in card

    db = open_cache(db_path)
    state = lifecycle.get(db, "EV-1")
    assert state is not None and state.state is State.RESOLVED and state.resolved_by == "U_ADMIN"
    found = plans.override_of(db, "EV-1")
    assert (
        found is not None and found.by_user == "U_ADMIN" and found.steps_left == ("Dispatch or stand down",)
    )
    rows = [(e.slack_user, e.command, e.outcome) for e in reversed(audit.recent(db))]
    # The override and the resolve are one act, committed together (issue 33): the override's row is
    # written inside the resolve's transaction, before the resolve's own row, which follows its outcome.
    assert rows == [
        ("U_TECH", "alarm resolve EV-1", "denied"),
        ("U_ADMIN", "alarm resolve EV-1", "denied"),
        ("U_ADMIN", "plan override EV-1", "ok"),
        ("U_ADMIN", "alarm resolve EV-1", "ok"),
    ]
    assert "Police on site already" in audit.recent(db)[1].summary
    assert "mandatory action-plan steps left" in audit.recent(db)[2].summary


def test_resolve_all_waits_for_every_alarm_and_an_admin_override_covers_them_all(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    storm = ["EV-S1", "EV-S2", "EV-S3"]
    seed(db_path, [], storm)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        send(bot, click(slack, "alarm_resolve_all", "777", "U_TECH", "tech", ts=STORM_TS))
        refusal = said(slack, "tech")[0]
        assert "3 alarms of this card have mandatory action-plan steps left" in refusal
        assert "`EV-S1`" in refusal and slack.opened_views() == []

        send(bot, click(slack, "alarm_resolve_all", "777", "U_ADMIN", "admin", ts=STORM_TS))
        view = resolve_view(slack, 0)
        submit(
            bot,
            view,
            {"disposition": "false_equipment", "note": "", "override": "Sensor fault; engineer booked"},
            "U_ADMIN",
        )
        slack.wait_for(lambda: updates(slack, STORM_TS), timeout=30)
        assert "0 open · 0 acknowledged · 3 resolved" in updates(slack, STORM_TS)[-1]

    db = open_cache(db_path)
    for event in storm:
        state = lifecycle.get(db, event)
        assert state is not None and state.state is State.RESOLVED
        found = plans.override_of(db, event)
        assert found is not None and found.reason == "Sensor fault; engineer booked"
    overrides = [e for e in audit.recent(db) if e.command.startswith("plan override")]
    assert len(overrides) == 1 and all(event in overrides[0].command for event in storm)
