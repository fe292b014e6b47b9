"""The Slack stand-in answers slack_sdk the way Slack does, so the bot's tests can trust it."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import SectionBlock

from tests.support.narrow import json_of
from tests.support.slack_standin import BOT_USER_ID, SlackStandIn, manifest_bot_scopes


def test_records_web_api_calls_with_blocks_decoded() -> None:
    with SlackStandIn() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        assert client.auth_test()["user_id"] == BOT_USER_ID
        posted = json_of(
            client.chat_postMessage(channel="C1", text="fallback", blocks=[SectionBlock(text="*hi*")])
        )
        client.chat_update(channel="C1", ts=posted["ts"], text="edited")
        [call] = slack.calls_to("chat.postMessage")
        assert call.params["channel"] == "C1"
        assert call.params["blocks"][0]["text"]["text"] == "*hi*"
        assert slack.calls_to("chat.update")[0].params["ts"] == posted["ts"]


def test_unknown_channel_and_throttling_answer_like_slack() -> None:
    with SlackStandIn(channels={"C_OK"}) as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        with pytest.raises(SlackApiError) as err:
            client.chat_postMessage(channel="C_NOPE", text="x")
        assert err.value.response["error"] == "channel_not_found"
        slack.throttle("chat.postMessage", times=1, retry_after=3)
        with pytest.raises(SlackApiError) as err:
            client.chat_postMessage(channel="C_OK", text="x")
        assert err.value.response.status_code == 429
        assert err.value.response.headers["Retry-After"] == "3"
        assert client.chat_postMessage(channel="C_OK", text="x")["ok"]


def test_response_url_records_messages() -> None:
    with SlackStandIn() as slack:
        httpx.post(slack.response_url("abc"), json={"text": "done", "response_type": "ephemeral"})
        [call] = slack.wait_for(lambda: slack.responses("abc"))
        assert call.params == {"text": "done", "response_type": "ephemeral"}


def test_a_token_without_the_methods_scope_is_refused_like_slack() -> None:
    with SlackStandIn(scopes={"commands", "chat:write"}) as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        assert client.chat_postMessage(channel="C1", text="x")["ok"]
        with pytest.raises(SlackApiError) as err:
            client.conversations_info(channel="G123")
        answer = err.value.response
        assert (answer["error"], answer["needed"]) == ("missing_scope", "groups:read")
        assert answer["provided"] == "chat:write,commands"
        with pytest.raises(SlackApiError) as err:
            client.usergroups_users_list(usergroup="S1")
        assert err.value.response["needed"] == "usergroups:read"


def test_by_default_the_token_has_the_manifests_scopes() -> None:
    with SlackStandIn() as slack:
        assert slack.scopes == manifest_bot_scopes()
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        assert json_of(client.conversations_info(channel="C1"))["channel"]["id"] == "C1"
        with pytest.raises(SlackApiError) as err:  # allowed (users:read), but nobody by that id
            client.users_info(user="U1")
        assert err.value.response["error"] == "user_not_found"


def test_tokens_of_the_wrong_kind_or_none_are_refused() -> None:
    with SlackStandIn() as slack:
        with pytest.raises(SlackApiError) as err:
            WebClient(base_url=slack.api_url).auth_test()
        assert err.value.response["error"] == "not_authed"
        with pytest.raises(SlackApiError) as err:
            WebClient(token="xapp-1-test", base_url=slack.api_url).chat_postMessage(channel="C1", text="x")
        assert err.value.response["error"] == "not_allowed_token_type"
        with pytest.raises(SlackApiError) as err:
            WebClient(token="xoxb-test", base_url=slack.api_url).apps_connections_open(app_token="xoxb-test")
        assert err.value.response["error"] == "not_allowed_token_type"
        opened = json_of(WebClient(base_url=slack.api_url).apps_connections_open(app_token="xapp-1-test"))
        assert opened["url"].startswith("ws://127.0.0.1:")


def test_trigger_ids_are_single_use_and_expire() -> None:
    view = {"type": "modal", "title": {"type": "plain_text", "text": "T"}, "blocks": []}
    with SlackStandIn() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        trigger = slack.trigger_id()
        assert client.views_open(trigger_id=trigger, view=view)["ok"]
        for used, error in ((trigger, "exchanged_trigger_id"), ("1.made-up", "invalid_trigger_id")):
            with pytest.raises(SlackApiError) as err:
                client.views_open(trigger_id=used, view=view)
            assert err.value.response["error"] == error
        slack.trigger_ttl = 0.05
        late = slack.trigger_id()
        time.sleep(0.1)
        with pytest.raises(SlackApiError) as err:
            client.views_open(trigger_id=late, view=view)
        assert err.value.response["error"] == "expired_trigger_id"


def test_views_keep_their_id_and_updates_need_the_current_hash() -> None:
    view = {"type": "modal", "title": {"type": "plain_text", "text": "Loading"}, "blocks": []}
    with SlackStandIn() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        opened = json_of(client.views_open(trigger_id=slack.trigger_id(), view=view))["view"]
        filled = {**view, "callback_id": "form"}
        updated = json_of(client.views_update(view_id=opened["id"], hash=opened["hash"], view=filled))["view"]
        assert updated["id"] == opened["id"] and updated["hash"] != opened["hash"]
        assert [v["callback_id"] for v in slack.opened_views()] == ["form"]
        with pytest.raises(SlackApiError) as err:
            client.views_update(view_id=opened["id"], hash=opened["hash"], view=view)
        assert err.value.response["error"] == "hash_conflict"
        with pytest.raises(SlackApiError) as err:
            client.views_update(view_id="V_NOPE", view=view)
        assert err.value.response["error"] == "not_found"


def test_socket_mode_says_hello_delivers_envelopes_and_records_acks() -> None:
    from websockets.sync.client import connect

    with SlackStandIn() as slack:
        url = json_of(WebClient(base_url=slack.api_url).apps_connections_open(app_token="xapp-1-test"))["url"]
        with connect(url) as socket:
            assert json.loads(socket.recv(timeout=5))["type"] == "hello"
            slack.socket_connected()
            envelope_id = slack.send_envelope("slash_commands", {"command": "/sam", "text": "help"})
            envelope = json.loads(socket.recv(timeout=5))
            assert envelope["envelope_id"] == envelope_id and envelope["type"] == "slash_commands"
            assert envelope["payload"]["text"] == "help" and envelope["accepts_response_payload"] is True
            socket.send(json.dumps({"envelope_id": envelope_id, "payload": {"text": "ok"}}))
            assert slack.socket_ack(envelope_id).payload == {"text": "ok"}
