"""The lifecycle buttons through the running bot with signed requests: I'm on it, Acknowledge, Resolve with
a note (its modal submitted as Slack does), the storm card's Acknowledge all and Resolve all; each card edited
in place (the stand-in's chat.update), a Slack retry and a double click changing nothing, a viewer refused,
and every action in the audit log."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from core import lifecycle
from core.cache import audit, outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.lifecycle import State
from tests.support.bot import BotProcess, blocks_text, opened_view, run_bot, submit
from tests.support.slack_standin import TEAM_ID, SlackStandIn

# No action plan: the lifecycle alone (the default P1 plan would hold Resolve: see test_plans.py).
NO_PLANS = "action_plans = []\n"
ROLES = NO_PLANS + '[roles]\ntechnicians = ["U_TECH", "U_OTHER"]\nviewers = ["U_VIEW"]\n'
CARD_TS = "1700000000.000100"
STORM_TS = "1700000000.000200"
CLEANER = {"disposition": "false_user_error", "note": "Door left open by the cleaner.\nChecked on site."}


def seed(path: Path, events: list[str], storm: list[str] = ()) -> None:  # type: ignore[assignment]
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        rows = [(e, 777, 1001, now + i, f"Burglary alarm on Depot - Door {i}", "violation", "Burglary alarm",
                 "alarm", 2, 1, 1) for i, e in enumerate([*events, *storm])]  # fmt: skip
        upsert_activities(db, "activities", rows)
        if events:  # the first alarm's own card, as the notifier records it
            outbox.enqueue(db, [(events[0], "C_ALARMS", outbox.PENDING)])
            outbox.mark_delivered(db, [events[0]], outbox.POSTED, CARD_TS)
        # The storm card as the notifier leaves it: its alarms grouped under its ts.
        for event in storm:
            db.execute("INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                       " VALUES (?, 'C_ALARMS', 'grouped', ?, ?, 0)", [event, STORM_TS, now])  # fmt: skip
        db.execute("INSERT INTO notify_cards (ts, channel, resource_id, opened_at, updated_at, details_rowid)"
                   " VALUES (?, 'C_ALARMS', 777, ?, ?, 0)", [STORM_TS, now, now])  # fmt: skip
    lifecycle.open_alarms(db, [(e, now) for e in [*events, *storm]], now)


_clicks = iter(range(1, 1_000_000))


def click(slack: SlackStandIn, action_id: str, value: str, user: str, name: str, ts: str = CARD_TS) -> dict:
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID},
        "user": {"id": user, "name": user.lower()},
        "channel": {"id": "C_ALARMS"},
        "container": {"type": "message", "message_ts": ts, "channel_id": "C_ALARMS"},
        "message": {"ts": ts, "text": "alarm"},
        "response_url": slack.response_url(name),
        "trigger_id": slack.trigger_id(),
        "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                     "action_ts": f"1700000001.{next(_clicks):06d}"}],
    }  # fmt: skip


def send(bot: BotProcess, payload: dict[str, Any], retry: int | None = None) -> None:
    """Post the payload signed, as Slack does; `retry` adds Slack's retry headers (same body again)."""
    headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
    response = bot.post_signed(urlencode({"payload": json.dumps(payload)}).encode(), headers=headers)
    assert response.status_code == 200


def updates(slack: SlackStandIn, ts: str = CARD_TS) -> list[str]:
    """The text of every chat.update of the card at `ts`."""
    return [
        blocks_text(c.params["attachments"][0]["blocks"])
        for c in slack.calls_to("chat.update")
        if c.params["ts"] == ts
    ]


def buttons(slack: SlackStandIn, ts: str = CARD_TS) -> list[str]:
    last = [c for c in slack.calls_to("chat.update") if c.params["ts"] == ts][-1]
    blocks = last.params["attachments"][0]["blocks"]
    return [e.get("action_id", "") for b in blocks for e in b.get("elements", []) if e["type"] == "button"]


def answer(slack: SlackStandIn, name: str) -> str:
    [reply] = slack.wait_for(lambda: slack.responses(name), timeout=30)
    assert reply.params["response_type"] == "ephemeral"
    return str(reply.params["text"])


def resolve_view(slack: SlackStandIn, after: int) -> dict[str, Any]:
    return opened_view(slack, "alarm_resolve_modal", after=after)


def test_take_acknowledge_resolve_one_alarm(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-1"])
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        # A viewer may watch, not act: refused, nothing changed, the attempt audited.
        send(bot, click(slack, "alarm_ack", "EV-1", "U_VIEW", "viewer"))
        assert "needs the technician role" in answer(slack, "viewer")

        take = click(slack, "alarm_take", "EV-1", "U_TECH", "take")
        send(bot, take)
        [card] = slack.wait_for(lambda: updates(slack), timeout=30)
        # Taking assigns, nothing more: the alarm stays open (and escalating) until someone acknowledges it.
        assert "*Open*" in card and "held by <@U_TECH>" in card and "Acknowledged*" not in card
        assert buttons(slack)[:3] == ["alarm_ack", "alarm_take", "alarm_resolve"]
        # The taker is told it still needs acknowledging.
        assert "still open: *Acknowledge* it too" in answer(slack, "take")
        # Slack retries the same click: nothing runs again, nothing is answered.
        send(bot, take, retry=1)
        send(bot, click(slack, "alarm_ack", "EV-1", "U_TECH", "ack"))
        slack.wait_for(lambda: len(updates(slack)) == 2, timeout=30)
        card = updates(slack)[-1]
        assert "Acknowledged* by <@U_TECH>" in card and "held by <@U_TECH>" in card
        assert buttons(slack)[:2] == ["alarm_take", "alarm_resolve"]  # no Acknowledge any more
        # Someone else acknowledges it too (a double click on a stale card): told who was first.
        send(bot, click(slack, "alarm_ack", "EV-1", "U_OTHER", "late"))
        assert "Already acknowledged by <@U_TECH>" in answer(slack, "late")
        assert len(updates(slack)) == 2

        views_before = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve", "EV-1", "U_TECH", "resolve"))
        view = resolve_view(slack, views_before)
        assert json.loads(view["private_metadata"])["e"] == "EV-1"
        # A forged submission by a viewer is refused in the modal.
        refused = submit(bot, view, {"disposition": "test", "note": "not mine"}, "U_VIEW")
        assert refused.json()["errors"]["note"].startswith("Sorry")
        bad = submit(bot, view, {"disposition": "test", "note": "bell\x07"}, "U_TECH")
        assert "control characters" in bad.json()["errors"]["note"]
        submit(bot, view, CLEANER, "U_TECH")
        slack.wait_for(lambda: len(updates(slack)) == 3, timeout=30)
        submit(bot, view, CLEANER, "U_TECH")  # again
        resolved = updates(slack)[-1]
        assert "Resolved* by <@U_TECH>" in resolved and "Door left open by the cleaner." in resolved
        assert not {"alarm_ack", "alarm_take", "alarm_resolve"} & set(buttons(slack))
        assert "alarm_silence_30" in buttons(slack)  # the panel's buttons stay
        send(bot, click(slack, "alarm_ack", "EV-1", "U_OTHER", "after"))
        assert "Already resolved by <@U_TECH>" in answer(slack, "after")
        time.sleep(0.5)  # the retried click and the second submission had their chance to do something
        assert len(updates(slack)) == 3
        assert len(slack.responses("take")) == 1  # the retry was not even answered "already yours"

    db = open_cache(db_path)
    state = lifecycle.get(db, "EV-1")
    assert state is not None and state.state is State.RESOLVED
    assert state.note == "Door left open by the cleaner.\nChecked on site."
    assert (state.assignee, state.acknowledged_by, state.resolved_by) == ("U_TECH", "U_TECH", "U_TECH")
    assert [c[2] for c in lifecycle.changes(db, "EV-1")] == ["assigned", "acknowledged", "resolved"]
    rows = [(e.slack_user, e.command, e.outcome) for e in reversed(audit.recent(db))]
    assert rows == [
        ("U_VIEW", "alarm acknowledge EV-1", "denied"),
        ("U_TECH", "alarm take EV-1", "ok"),
        ("U_TECH", "alarm acknowledge EV-1", "ok"),
        ("U_OTHER", "alarm acknowledge EV-1", "ok"),  # audited, and its summary says it changed nothing
        ("U_VIEW", "alarm resolve EV-1", "denied"),
        ("U_TECH", "alarm resolve EV-1", "ok"),
        ("U_OTHER", "alarm acknowledge EV-1", "ok"),
    ]
    assert "no change: already acknowledged" in audit.recent(db)[3].summary


def test_storm_card_acknowledge_all_and_resolve_all(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    storm = ["EV-S1", "EV-S2", "EV-S3"]
    seed(db_path, [], storm)
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=ROLES) as bot:
        send(bot, click(slack, "alarm_ack_all", "777", "U_VIEW", "viewer", ts=STORM_TS))
        assert "needs the technician role" in answer(slack, "viewer")
        # One alarm was already taken by someone on its own.
        db = open_cache(db_path)
        lifecycle.apply(db, "EV-S2", lifecycle.Change.ACKNOWLEDGED, "U_OTHER", int(time.time() * 1000),
                        opened_at=0)  # fmt: skip

        send(bot, click(slack, "alarm_ack_all", "777", "U_TECH", "ackall", ts=STORM_TS))
        [card] = slack.wait_for(lambda: updates(slack, STORM_TS), timeout=30)
        assert "0 open · 3 acknowledged · 0 resolved" in card and "storm on Depot (777): 3 alarms" in card
        shown = buttons(slack, STORM_TS)
        assert "alarm_ack_all" not in shown and "alarm_resolve_all" in shown
        [thread] = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == STORM_TS]
        said = thread.params["text"] + blocks_text(thread.params["blocks"])
        assert "<@U_TECH> acknowledged 2 alarms of this card" in said
        assert "EV-S1" in said and "EV-S3" in said and "EV-S2" not in said

        views_before = len(slack.opened_views())
        send(bot, click(slack, "alarm_resolve_all", "777", "U_TECH", "resolveall", ts=STORM_TS))
        view = resolve_view(slack, views_before)
        submit(
            bot,
            view,
            {"disposition": "false_equipment", "note": "Storm from a faulty sensor; replaced."},
            "U_TECH",
        )
        slack.wait_for(lambda: len(updates(slack, STORM_TS)) == 2, timeout=30)
        assert "0 open · 0 acknowledged · 3 resolved" in updates(slack, STORM_TS)[-1]
        assert not {"alarm_ack_all", "alarm_resolve_all"} & set(buttons(slack, STORM_TS))
        threads = [c for c in slack.calls_to("chat.postMessage") if c.params.get("thread_ts") == STORM_TS]
        assert len(threads) == 2 and "resolved 3 alarms of this card" in threads[1].params["text"]
        assert "faulty sensor" in threads[1].params["text"]
        # A late "Acknowledge all" changes nothing, and its audit row says so.
        send(bot, click(slack, "alarm_ack_all", "777", "U_TECH", "ackagain", ts=STORM_TS))
        slack.wait_for(lambda: len(audit.recent(open_cache(db_path))) == 4, timeout=30)

    db = open_cache(db_path)
    for event in storm:
        state = lifecycle.get(db, event)
        assert state is not None and state.state is State.RESOLVED and state.resolved_by == "U_TECH"
        assert state.note == "Storm from a faulty sensor; replaced."
    assert lifecycle.get(db, "EV-S2").acknowledged_by == "U_OTHER"  # type: ignore[union-attr]
    commands = [(e.command, e.outcome) for e in reversed(audit.recent(db))]
    assert commands == [
        (f"alarm acknowledge all {STORM_TS}", "denied"),  # its card named, as the write would be
        (f"alarm acknowledge all {STORM_TS}", "ok"),
        (f"alarm resolve all {STORM_TS}", "ok"),
        (f"alarm acknowledge all {STORM_TS}", "ok"),
    ]
    summaries = [e.summary for e in reversed(audit.recent(db))]
    assert summaries[1].startswith("acknowledge 2 of the 3 alarms") and "no change" not in summaries[1]
    assert summaries[3].startswith("acknowledge 0 of the 3 alarms") and summaries[3].endswith("(no change)")
