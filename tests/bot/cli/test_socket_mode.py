"""Socket Mode end to end: `samops bot` started with SLACK_APP_TOKEN opens a connection through the
stand-in's `apps.connections.open`, gets `hello` on its websocket, and answers what arrives over it: a
slash command (ack over the socket, the answer on response_url) and an alarm card's Acknowledge click (ack
over the socket, the card edited with chat.update).
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cache import outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from tests.support.bot import BOT_TOKEN, START_TIMEOUT_S, blocks_text
from tests.support.processes import ROOT, samops_cmd, samops_free_env, stop
from tests.support.slack_standin import APP_ID, TEAM_ID, SlackStandIn

APP_TOKEN = "xapp-1-samops-socket-test"
EVENT = "EV-888-000001"
CARD_TS = "1700000000.000200"


def seed(path: Path) -> None:
    db = open_cache(path)
    now = int(time.time() * 1000)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 888, "org_id": 1001, "name": "Harbour"}], "resource_id")
        upsert_activities(db, "activities", [(EVENT, 888, 1001, now, "Burglary alarm on Harbour - Gate",
                                              "violation", "Burglary alarm", "alarm", 2, 1, 1)])  # fmt: skip
        outbox.enqueue(db, [(EVENT, "C_ALARMS", outbox.PENDING)])  # its card, as the notifier records it
        outbox.mark_delivered(db, [EVENT], outbox.POSTED, CARD_TS)


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, slack: SlackStandIn) -> Iterator[subprocess.Popen[bytes]]:
    data = tmp_path_factory.mktemp("socket")
    seed(data / "cache.db")
    (data / "samops.toml").write_text('[roles]\ntechnicians = ["U_SOCKET"]\n')  # acting on alarms is theirs
    env = samops_free_env()
    env.update(
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET="unused-in-socket-mode",
        SLACK_API_URL=slack.api_url,
        SAMOPS_DATA_DIR=str(data),
        SAMOPS_DB=str(data / "cache.db"),
        SAMOPS_CONFIG=str(data / "samops.toml"),
        SAM_BASE_URL="http://127.0.0.1:9/api",  # no service: these commands need none
        SAM_MAX_RETRIES="0",
    )
    with (data / "bot.log").open("wb") as log:
        proc = subprocess.Popen(samops_cmd("bot", "--log-level", "DEBUG"), cwd=ROOT, env=env, stdout=log,
                                stderr=log)  # fmt: skip
        try:
            slack.socket_connected(timeout=START_TIMEOUT_S)
            yield proc
        finally:
            stop(proc)


def test_the_connection_is_opened_with_the_app_token(
    bot: subprocess.Popen[bytes], slack: SlackStandIn
) -> None:
    [call, *_] = slack.calls_to("apps.connections.open")
    assert call.headers["Authorization"] == f"Bearer {APP_TOKEN}"


def test_a_slash_command_over_the_socket_is_acked_and_answered(
    bot: subprocess.Popen[bytes], slack: SlackStandIn
) -> None:
    command = {
        "token": "legacy-verification-token",
        "team_id": TEAM_ID,
        "team_domain": "samops",
        "channel_id": "C_SOCKET",
        "channel_name": "socket",
        "user_id": "U_SOCKET",
        "user_name": "u_socket",
        "command": "/sam",
        "text": "help",
        "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": slack.response_url("socket-cmd"),
        "trigger_id": slack.trigger_id(),
    }
    envelope_id = slack.send_envelope("slash_commands", command)
    ack = slack.socket_ack(envelope_id, timeout=30)
    assert ack.envelope_id == envelope_id
    [answer] = slack.wait_for(lambda: slack.responses("socket-cmd"), timeout=30)
    assert "/sam" in answer.params["text"] + blocks_text(answer.params.get("blocks"))


def test_an_acknowledge_click_over_the_socket_edits_the_card(
    bot: subprocess.Popen[bytes], slack: SlackStandIn
) -> None:
    click = {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "samops"},
        "user": {"id": "U_SOCKET", "name": "u_socket", "team_id": TEAM_ID},
        "api_app_id": APP_ID,
        "token": "legacy-verification-token",
        "trigger_id": slack.trigger_id(),
        "channel": {"id": "C_ALARMS", "name": "alarms"},
        "container": {"type": "message", "message_ts": CARD_TS, "channel_id": "C_ALARMS"},
        "message": {"ts": CARD_TS, "text": "alarm"},
        "response_url": slack.response_url("socket-click"),
        "actions": [{"action_id": "alarm_ack", "block_id": "b", "value": EVENT, "type": "button"}],
    }
    envelope_id = slack.send_envelope("interactive", click, accepts_response_payload=False)
    assert slack.socket_ack(envelope_id, timeout=30).envelope_id == envelope_id
    [update] = slack.wait_for(lambda: slack.calls_to("chat.update"), timeout=30)
    assert (update.params["channel"], update.params["ts"]) == ("C_ALARMS", CARD_TS)
    text = update.params["text"] + blocks_text(update.params.get("attachments"))
    assert "Acknowledged* by <@U_SOCKET>" in text


def test_sigterm_closes_the_connection_and_exits_0(bot: subprocess.Popen[bytes]) -> None:
    bot.send_signal(signal.SIGTERM)
    assert bot.wait(timeout=30) == 0
