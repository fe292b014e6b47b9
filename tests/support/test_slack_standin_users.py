"""The Slack stand-in's `users.info`: as Slack answers it, `profile.email` only with `users:read.email`."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from tests.support.narrow import json_of
from tests.support.slack_standin import SlackStandIn, manifest_bot_scopes

USERS = {"U_ANA": "ana@example.com", "U_NOMAIL": None}


def test_users_info_gives_the_email_with_the_scope() -> None:
    with SlackStandIn(users=USERS) as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        user = json_of(client.users_info(user="U_ANA"))["user"]
        assert user["id"] == "U_ANA" and user["profile"]["email"] == "ana@example.com"
        assert "email" not in json_of(client.users_info(user="U_NOMAIL"))["user"]["profile"]
        with pytest.raises(SlackApiError) as err:
            client.users_info(user="U_STRANGER")
        assert err.value.response["error"] == "user_not_found"


def test_users_info_without_the_email_scope_or_without_users_read() -> None:
    no_email = manifest_bot_scopes() - {"users:read.email"}
    with SlackStandIn(users=USERS, scopes=no_email) as slack:
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        assert "email" not in json_of(client.users_info(user="U_ANA"))["user"]["profile"]
    with SlackStandIn(users=USERS, scopes=no_email - {"users:read"}) as slack:
        with pytest.raises(SlackApiError) as err:
            WebClient(token="xoxb-test", base_url=slack.api_url).users_info(user="U_ANA")
        assert (err.value.response["error"], err.value.response["needed"]) == ("missing_scope", "users:read")
