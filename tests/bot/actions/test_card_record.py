"""samops' own record decides which card a click or a form acts on (issue 26), through the running bot with
signed requests: an Acknowledge naming another card (an incident card), a container of the wrong shape, a
group button on the wrong card or naming another panel, a Resolve form whose metadata names another card —
each refused with a short answer and audited, every card unchanged, nothing at ERROR; a form's forged `ref`
is never posted nor stored; a Lift whose container is a list is answered like any click."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from core import lifecycle
from core.cache import audit, incidents, outbox, quiet
from core.cache.db import open_cache
from core.cache.writes import write_transaction
from core.incidents import ALARM, TAMPER, Evidence
from core.lifecycle import State
from tests.bot.actions.test_lifecycle import (
    CARD_TS,
    NO_PLANS,
    STORM_TS,
    answer,
    click,
    resolve_view,
    seed,
    send,
    updates,
)
from tests.support.bot import blocks_text, run_bot, submit
from tests.support.slack_standin import SlackStandIn

CONFIG = NO_PLANS + '[roles]\ntechnicians = ["U_TECH"]\n[audit]\nchannel = "C_AUDIT"\n'
B_TS = "1700000000.000300"  # EV-B's own card
INCIDENT_TS = "1700000000.000400"
NOT_OURS = "does not match the card samops posted"


def seed_cards(path: Path) -> int:
    """EV-1 on its card at CARD_TS, EV-B on its own, the storm card of EV-S1, and an incident card (its
    alarm EV-I1 and a tamper on panel 777); returns the incident's id."""
    seed(path, ["EV-1", "EV-B", "EV-I1"], ["EV-S1"])
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        outbox.enqueue(db, [("EV-B", "C_ALARMS", outbox.PENDING), ("EV-I1", "C_ALARMS", outbox.PENDING)])
        outbox.mark_delivered(db, ["EV-B"], outbox.POSTED, B_TS)
        outbox.mark_delivered(db, ["EV-I1"], outbox.GROUPED, INCIDENT_TS)
        evidence = [Evidence(ALARM, now, 777, 1001, "EV-I1", "Burglary"),
                    Evidence(TAMPER, now + 1, 777, 1001, "ERR-1", "Tamper")]  # fmt: skip
        [incident] = incidents.record(db, evidence, 30 * 60_000, now, alarms=["EV-I1"])
        assert incidents.set_card(db, incident, "C_ALARMS", INCIDENT_TS)
    db.close()
    return incident


def audit_posts(slack: SlackStandIn) -> list[str]:
    """What was posted to the audit channel, text and blocks."""
    return [str(c.params.get("text")) + blocks_text(c.params.get("blocks"))
            for c in slack.calls_to("chat.postMessage") if c.params.get("channel") == "C_AUDIT"]  # fmt: skip


def test_clicks_and_forms_naming_another_card_are_refused_and_audited(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed_cards(db_path)
    db = open_cache(db_path)
    with write_transaction(db):
        silence = quiet.silence_panel(
            db, 777, int(time.time() * 1000) + 3_600_000, "U_TECH", int(time.time() * 1000)
        )
    db.close()
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        # Acknowledge of EV-B sent as if from the incident card: it would have replaced that card.
        send(bot, click(slack, "alarm_ack", "EV-B", "U_TECH", "forged", ts=INCIDENT_TS))
        assert NOT_OURS in answer(slack, "forged")
        # A container that is a list, not an object: acked, answered, refused.
        listy = click(slack, "alarm_ack", "EV-1", "U_TECH", "listy")
        listy["container"] = [listy["container"]]
        send(bot, listy)
        assert NOT_OURS in answer(slack, "listy")
        # A card-wide button sent from an alarm's own card, and one naming another panel than the card's.
        send(bot, click(slack, "alarm_ack_all", "777", "U_TECH", "allonone", ts=CARD_TS))
        assert NOT_OURS in answer(slack, "allonone")
        send(bot, click(slack, "alarm_take_all", "778", "U_TECH", "otherpanel", ts=INCIDENT_TS))
        assert NOT_OURS in answer(slack, "otherpanel")

        # A Resolve form of EV-1 whose metadata names the storm card: refused after the modal closed.
        opened = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-1", "U_TECH", "resolve"))
        view = resolve_view(slack, opened)
        meta = json.loads(view["private_metadata"])
        assert (meta["e"], meta["ts"], meta["channel"]) == ("EV-1", CARD_TS, "C_ALARMS")
        forged = {**view, "private_metadata": json.dumps({**meta, "ts": STORM_TS})}
        assert (
            submit(bot, forged, {"disposition": "test", "note": "not this card"}, "U_TECH").status_code == 200
        )
        assert NOT_OURS in answer(slack, "resolve")

        # The form with a `ref` that is no reference id: not the form samops opened, refused, the ref
        # neither posted nor stored.
        raw = {**view, "private_metadata": json.dumps({**meta, "ref": "<!channel> R-ABCDEF"})}
        submit(bot, raw, {"disposition": "test", "note": "Checked."}, "U_TECH")
        again = slack.wait_for(lambda: slack.responses("resolve")[1:], timeout=30)
        assert NOT_OURS in str(again[0].params["text"])
        # The form as samops opened it: resolved.
        submit(bot, view, {"disposition": "test", "note": "Checked."}, "U_TECH")
        [card] = slack.wait_for(lambda: updates(slack, CARD_TS), timeout=30)
        assert "Resolved* by <@U_TECH>" in card

        said = slack.wait_for(
            lambda: [t for t in audit_posts(slack) if "alarm resolve EV-1` — resolve" in t], timeout=30
        )
        assert "✅" in said[0] and not [t for t in audit_posts(slack) if "<!channel>" in t]
        # Lift of a silence, its container a list: acked and answered like any click.
        lift = click(slack, "quiet_lift", str(silence), "U_TECH", "lift")
        lift["container"] = [lift["container"]]
        send(bot, lift)
        [lifted] = slack.wait_for(lambda: slack.responses("lift"), timeout=30)
        assert "lifted by <@U_TECH>" in str(lifted.params["text"])
        time.sleep(0.5)  # the refused ones had their chance to edit something
        edited = {c.params["ts"] for c in slack.calls_to("chat.update")}
        assert edited == {CARD_TS}  # the incident card, the storm card and EV-B's card untouched
        output = bot.output()

    assert "Traceback" not in output and not re.search(r" (ERROR|CRITICAL) ", output)
    db = open_cache(db_path)
    for event in ("EV-B", "EV-I1", "EV-S1"):
        state = lifecycle.get(db, event)
        assert state is not None and state.state is State.OPEN, event
    rows = [(e.command, e.outcome, e.summary, e.reference) for e in reversed(audit.recent(db))]
    refused = [r for r in rows if r[1] == "denied"]
    assert [r[0] for r in refused] == [
        "alarm acknowledge EV-B",
        "alarm acknowledge EV-1",
        "alarm acknowledge all",
        "alarm take all",
        "alarm resolve EV-1",
        "alarm resolve EV-1",
    ]
    assert all(r[2].startswith("refused: ") and "role" not in r[2] for r in refused)
    [done] = [r for r in rows if r[1] == "ok" and r[0].startswith("alarm")]
    assert done[0] == "alarm resolve EV-1" and re.fullmatch(r"R-[0-9A-F]{6}", done[3])
    assert all("<!channel>" not in r[3] for r in rows)
