"""The Slack stand-in answers slack_sdk the way Slack does, so the bot's tests can trust it."""

from __future__ import annotations

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import SectionBlock

from tests.support.slack_standin import BOT_USER_ID, SlackStandIn


def test_records_web_api_calls_with_blocks_decoded() -> None:
    with SlackStandIn() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        assert client.auth_test()["user_id"] == BOT_USER_ID
        posted = client.chat_postMessage(channel="C1", text="fallback", blocks=[SectionBlock(text="*hi*")])
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
