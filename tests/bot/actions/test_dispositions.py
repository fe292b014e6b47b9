"""Dispositions through the running bot with signed requests: the Resolve form offers the configured list
and refuses a submission without one, or with a code not in the list (the error under the field, nothing
written); a chosen one is kept with the resolution and shown on the card and in the audit log; a storm card's
Resolve all (and an incident card's) closes every alarm of it with the one disposition, which the card and
its thread message name."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

from core import dispositions, lifecycle
from core.cache import audit
from core.cache.db import open_cache
from core.lifecycle import State
from tests.bot.actions.test_card_keyholders import CONFIG as KEYHOLDERS
from tests.bot.actions.test_card_keyholders import ISTANBUL, authorize
from tests.bot.actions.test_card_record import INCIDENT_TS, seed_cards
from tests.bot.actions.test_lifecycle import (
    CARD_TS,
    NO_PLANS,
    ROLES,
    STORM_TS,
    blocks_text,
    buttons,
    click,
    resolve_view,
    seed,
    send,
    updates,
)
from tests.support.bot import run_bot, submit
from tests.support.slack_standin import SlackStandIn

KEYHOLDER_CONFIG = NO_PLANS + KEYHOLDERS  # no checklist holding Resolve back
# A company's own list, replacing the defaults: "test" (a default code) is not in it.
OWN_LIST = """
[[dispositions]]
code = "false_pet"
label = "False alarm: a pet"
class = "false"

[[dispositions]]
code = "confirmed_intrusion"
label = "Confirmed: break-in"
class = "confirmed"
"""


def menu(view: dict) -> list[tuple[str, str]]:
    [block] = [b for b in view["blocks"] if b.get("block_id") == "disposition"]
    element = block["element"]
    assert element["type"] == "static_select" and "initial_option" not in element  # never preselected
    assert not block.get("optional")
    return [(o["value"], o["text"]["text"]) for o in element["options"]]


def test_a_disposition_is_required_checked_against_the_list_and_shown(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-1"])
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES + OWN_LIST) as bot:
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-1", "U_TECH", "resolve"))
        view = resolve_view(slack, opened)
        assert menu(view) == [
            ("false_pet", "False alarm: a pet"),
            ("confirmed_intrusion", "Confirmed: break-in"),
        ]

        # Without one: the error is under the field, the modal stays open, nothing is written.
        missing = submit(bot, view, {"disposition": None, "note": "Checked."}, "U_TECH")
        assert missing.json()["response_action"] == "errors"
        assert "choose how the alarm was closed" in missing.json()["errors"]["disposition"]
        # A value the menu does not hold (a default code not in this list, or a forged one): refused.
        for forged in ("test", "false_pet'; DROP TABLE alarm_state; --", ""):
            refused = submit(bot, view, {"disposition": forged, "note": "Checked."}, "U_TECH")
            assert "disposition" in refused.json()["errors"]
        # A form opened before samops asked for a disposition: told under the note (the block it has).
        older = {**view, "blocks": [b for b in view["blocks"] if b.get("block_id") != "disposition"]}
        stale = submit(bot, older, {"note": "Checked."}, "U_TECH").json()["errors"]
        assert list(stale) == ["note"] and "click Resolve again" in stale["note"]
        time.sleep(0.5)  # a lazy listener that wrongly wrote would have done so by now
        db = open_cache(db_path)
        state = lifecycle.get(db, "EV-1")
        assert state is not None and state.state is State.OPEN
        assert dispositions.resolved_as(db, "EV-1") is None
        assert audit.recent(db) == [] and updates(slack) == []

        done = submit(bot, view, {"disposition": "false_pet", "note": "The dog again."}, "U_TECH")
        assert done.status_code == 200 and done.text in ("", "{}")
        [card] = slack.wait_for(lambda: updates(slack), timeout=30)
        assert "Resolved* by <@U_TECH>" in card and "as *False alarm: a pet*" in card
        assert "The dog again." in card  # the note stays
        [thread] = slack.wait_for(
            lambda: [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == CARD_TS],
            timeout=30,
        )
        assert (
            thread.params["text"] == "<@U_TECH> resolved this alarm as *False alarm: a pet* — The dog again."
        )
        assert "alarm_resolve" not in buttons(slack)

    db = open_cache(db_path)
    kept = dispositions.resolved_as(db, "EV-1")
    assert kept is not None
    assert (kept.code, kept.label, kept.klass, kept.by_user) == (
        "false_pet",
        "False alarm: a pet",
        "false",
        "U_TECH",
    )
    state = lifecycle.get(db, "EV-1")
    assert state is not None and state.state is State.RESOLVED and state.resolved_at == kept.at
    [row] = audit.recent(db)
    assert (row.command, row.outcome) == ("alarm resolve EV-1", "ok")
    assert "as false_pet (False alarm: a pet)" in row.summary


def test_resolve_all_on_a_storm_card_gives_every_alarm_the_one_disposition(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    storm = ["EV-S1", "EV-S2", "EV-S3"]
    seed(db_path, [], storm)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve_all", "777", "U_TECH", "resolveall", ts=STORM_TS))
        view = resolve_view(slack, opened)
        offered = menu(view)  # the documented defaults
        assert [code for code, _ in offered] == [d.code for d in dispositions.DEFAULTS]
        assert ("false_user_error", "False alarm: user error") in offered and len(offered) == 10
        assert "disposition" in submit(bot, view, {"note": "all of them"}, "U_TECH").json()["errors"]

        submit(bot, view, {"disposition": "false_equipment", "note": "Faulty sensor."}, "U_TECH")
        slack.wait_for(lambda: updates(slack, STORM_TS), timeout=30)
        card = updates(slack, STORM_TS)[-1]
        assert "0 open · 0 acknowledged · 3 resolved" in card
        assert "Resolved as *False alarm: equipment fault* (3)" in card
        [thread] = slack.wait_for(
            lambda: [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == STORM_TS],
            timeout=30,
        )
        said = thread.params["text"] + blocks_text(thread.params["blocks"])
        assert "resolved 3 alarms of this card as *False alarm: equipment fault*" in said

    db = open_cache(db_path)
    kept = [dispositions.resolved_as(db, e) for e in storm]
    assert {(k.code, k.klass) for k in kept if k is not None} == {("false_equipment", "false")}
    assert all(k is not None for k in kept)
    [row] = audit.recent(db)
    assert row.command == f"alarm resolve all {STORM_TS}"
    assert "as false_equipment (False alarm: equipment fault)" in row.summary


def test_resolve_all_on_an_incident_card_gives_its_alarms_the_one_disposition(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed_cards(db_path)  # the incident card at INCIDENT_TS holds alarm EV-I1 (and a tamper) of panel 777
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve_all", "777", "U_TECH", "incident", ts=INCIDENT_TS))
        view = resolve_view(slack, opened)
        submit(bot, view, {"disposition": "confirmed_intrusion", "note": "Police on site."}, "U_TECH")
        [card] = slack.wait_for(lambda: updates(slack, INCIDENT_TS), timeout=30)
        assert "Resolved as *Confirmed: intrusion* (1)" in card
        [thread] = slack.wait_for(
            lambda: [
                c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == INCIDENT_TS
            ],
            timeout=30,
        )
        assert (
            "resolved 1 alarm of this card as *Confirmed: intrusion* — Police on site."
            in thread.params["text"]
        )
    kept = dispositions.resolved_as(open_cache(db_path), "EV-I1")
    assert kept is not None and (kept.code, kept.klass) == ("confirmed_intrusion", "confirmed")


def test_the_keyholder_line_suggests_a_disposition_as_a_hint_only(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-KEY-1"])  # a burglary on panel 777, now
    authorize(db_path, datetime.now(ISTANBUL).isoweekday())  # Ana may operate it all of today
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=KEYHOLDER_CONFIG) as bot:
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-KEY-1", "U_TECH", "resolve"))
        [block] = [b for b in resolve_view(slack, opened)["blocks"] if b.get("block_id") == "disposition"]
        assert "initial_option" not in block["element"]  # never preselected
        assert block["hint"]["text"].startswith(
            "Suggested: False alarm: user error — During the access window of Ana Yılmaz"
        )
    outside = tmp_path / "outside"
    outside.mkdir()
    db_path = outside / "cache.db"
    seed(db_path, ["EV-KEY-1"])
    authorize(db_path, (datetime.now(ISTANBUL) + timedelta(days=2)).isoweekday())
    with SlackStandIn() as slack, run_bot(outside, slack, db_path=db_path, config=KEYHOLDER_CONFIG) as bot:
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-KEY-1", "U_TECH", "resolve"))
        [block] = [b for b in resolve_view(slack, opened)["blocks"] if b.get("block_id") == "disposition"]
        assert "hint" not in block  # outside every window: nothing to suggest
