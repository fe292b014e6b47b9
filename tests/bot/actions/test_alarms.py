"""The alarm card's buttons through the running bot (signed block_actions payloads): Acknowledge (by a
technician: viewers may not act on alarms) edits the card once and records who and when, even on a double
click; Silence records the panel; Panel status answers ephemerally."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from core import lifecycle
from core.cache import audit, outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.reference import is_reference
from tests.support.bot import BotProcess, blocks_text, run_bot
from tests.support.slack_standin import SlackStandIn

EVENT = "EV-777-000001"


def seed(path: Path) -> None:
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        upsert_activities(db, "activities", [(EVENT, 777, 1001, now, "Burglary alarm on Depot - Back door",
                                              "violation", "Burglary alarm", "alarm", 2, 1, 1)])  # fmt: skip
        # Its card, as the notifier records it: the buttons act on the card samops posted.
        outbox.enqueue(db, [(EVENT, "C_ALARMS", outbox.PENDING)])
        outbox.mark_delivered(db, [EVENT], outbox.POSTED, "1700000000.000100")


def click(action_id: str, value: str, user: str, response: str) -> dict:
    return {
        "user": {"id": user, "name": user.lower()},
        "channel": {"id": "C_ALARMS"},
        "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C_ALARMS"},
        "message": {"ts": "1700000000.000100", "text": "alarm"},
        "response_url": response,
        "trigger_id": f"trigger-{response}",
        "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button"}],
    }


def answered(bot: BotProcess, slack: SlackStandIn, tag: str, action_id: str, value: str, user: str) -> Any:
    """`user` clicks the button; the one answer posted to the click's response URL (named `tag`)."""
    bot.send_action(click(action_id, value, user, slack.response_url(tag)))
    [answer] = slack.wait_for(lambda: slack.responses(tag), timeout=30)
    return answer


def test_acknowledge_twice_silence_and_panel_status(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path)
    roles = '[roles]\ntechnicians = ["U_BOB", "U_CAROL"]\n'
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=roles) as bot:
        first = bot.send_action(click("alarm_ack", EVENT, "U_CAROL", slack.response_url("ack1")))
        assert first.status_code == 200
        [update] = slack.wait_for(lambda: slack.calls_to("chat.update"), timeout=30)
        assert update.params["ts"] == "1700000000.000100" and update.params["channel"] == "C_ALARMS"
        text = blocks_text(update.params["attachments"][0]["blocks"])
        assert "Acknowledged* by <@U_CAROL>" in text and "Depot (777)" in text
        # The double click, by someone else: nothing changes, and they are told who was first.
        answer = answered(bot, slack, "ack2", "alarm_ack", EVENT, "U_BOB")
        assert "Already acknowledged by <@U_CAROL>" in answer.params["text"]
        assert len(slack.calls_to("chat.update")) == 1

        denied = answered(
            bot, slack, "denied", "alarm_silence_30", json.dumps({"r": 777, "m": 30}), "U_ALICE"
        )
        assert "technician role" in denied.params["text"]
        silenced = answered(
            bot, slack, "silence", "alarm_silence_120", json.dumps({"r": 777, "m": 120}), "U_BOB"
        )
        assert "silenced" in silenced.params["text"]

        status = answered(bot, slack, "status", "alarm_panel_status", "777", "U_BOB")
        assert status.params["response_type"] == "ephemeral" and "Depot" in status.params["text"]
        assert "silenced until" in status.params["text"]

    db = open_cache(db_path)
    state = lifecycle.get(db, EVENT)
    assert state is not None and state.acknowledged_by == "U_CAROL"
    until = outbox.silence_until(db, 777) or 0
    assert 115 * 60_000 < until - int(time.time() * 1000) <= 120 * 60_000
    # The viewer's refused click is audited too (issue 26), then the technician's silence.
    denied, entry = reversed([e for e in audit.recent(db) if e.command.startswith("alarm silence")])
    assert (denied.slack_user, denied.command, denied.outcome) == (
        "U_ALICE",
        "alarm silence 777 30m",
        "denied",
    )
    assert (entry.slack_user, entry.command, entry.outcome) == ("U_BOB", "alarm silence 777 120m", "ok")
    assert is_reference(entry.reference) and is_reference(denied.reference)  # R-XXXXXX, like every row


def test_acknowledge_and_silence_refuse_what_the_cache_does_not_hold(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path)
    roles = '[roles]\ntechnicians = ["U_BOB"]\n'
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=roles) as bot:
        answer = answered(bot, slack, "ack", "alarm_ack", "EV-NOT-CACHED", "U_BOB")
        assert "not in samops' cache" in answer.params["text"]
        far = json.dumps({"r": 4242424242, "m": 30})
        refused = answered(bot, slack, "silence", "alarm_silence_30", far, "U_BOB")
        assert "not in samops' cache" in refused.params["text"]
        assert slack.calls_to("chat.update") == []
    db = open_cache(db_path)
    assert lifecycle.get(db, "EV-NOT-CACHED") is None
    assert outbox.silence_until(db, 4242424242) is None
    assert [e for e in audit.recent(db) if e.command.startswith("alarm silence")] == []


def test_a_retried_or_replayed_silence_click_changes_nothing(tmp_path: Path) -> None:
    """Issue 26: a Slack retry (the same signed payload again) made two silences, two audit rows and two
    cards; a captured 30-minute click replayed after a 24-hour one shortened the silence."""
    db_path = tmp_path / "cache.db"
    seed(db_path)
    roles = '[roles]\ntechnicians = ["U_BOB"]\n[audit]\nchannel = "C_AUDIT"\n'
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=roles) as bot:

        def silence_click(minutes: int, tag: str, at: str) -> dict:
            payload = click(f"alarm_silence_{minutes}", json.dumps({"r": 777, "m": minutes}), "U_BOB",
                            slack.response_url(tag))  # fmt: skip
            payload["actions"][0]["action_ts"] = at
            return payload

        short = silence_click(30, "short", "1700000001.000001")
        assert bot.send_action(short).status_code == 200
        slack.wait_for(lambda: slack.responses("short"), timeout=30)
        long = silence_click(24 * 60, "long", "1700000002.000002")
        assert bot.send_action(long).status_code == 200
        slack.wait_for(lambda: slack.responses("long"), timeout=30)
        for _ in range(2):  # Slack's retries, or an attacker's replays, of both clicks
            assert bot.send_action(long).status_code == 200
            assert bot.send_action(short).status_code == 200
        time.sleep(2)
        assert len(slack.responses("short")) == len(slack.responses("long")) == 1  # one card each
        audit_posts = [c for c in slack.calls_to("chat.postMessage") if c.params["channel"] == "C_AUDIT"]
        assert len(audit_posts) == 2
    db = open_cache(db_path)
    until = outbox.silence_until(db, 777) or 0
    assert until - int(time.time() * 1000) > 23 * 60 * 60_000  # the 24 hours hold
    assert [e.command for e in audit.recent(db) if e.command.startswith("alarm silence")] == [
        "alarm silence 777 1440m",
        "alarm silence 777 30m",
    ]
    assert db.execute("SELECT count(*) FROM quiet_windows").fetchone()[0] == 1
