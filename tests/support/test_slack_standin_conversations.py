"""The stand-in's `users.conversations` answers as Slack does (types and their scopes, cursor pagination,
errors), and the App Home's `Memberships` reads every page of it over real HTTP, keeps the answer, and
turns a missing scope or a failure into "not known" with a reason, never an exception."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.events.channels import Memberships
from tests.support.narrow import json_of
from tests.support.slack_standin import SlackStandIn, manifest_bot_scopes

PUBLIC = [f"C{i:05d}" for i in range(450)]
MEMBERS = {"U_BUSY": [*PUBLIC, "G_SHARED", "G_NOT_OURS"], "U_NONE": []}


def client(slack: SlackStandIn) -> WebClient:
    return WebClient(token="xoxb-test", base_url=slack.api_url)


def test_types_pages_and_errors_as_slack_answers_them() -> None:
    with SlackStandIn(channels={"G_SHARED", *PUBLIC}, memberships=MEMBERS) as slack:
        web = client(slack)
        # default types: public channels only
        first = json_of(web.users_conversations(user="U_BUSY", limit=200))
        assert len(first["channels"]) == 200 and first["response_metadata"]["next_cursor"]
        seen: list[str] = []
        cursor = None
        while True:
            page = json_of(web.users_conversations(user="U_BUSY", types="public_channel,private_channel",
                                                   limit=200, cursor=cursor))  # fmt: skip
            seen += [c["id"] for c in page["channels"]]
            cursor = page["response_metadata"]["next_cursor"]
            if not cursor:
                break
        # Private channels are listed only where the bot is too.
        assert seen == [*PUBLIC, "G_SHARED"]
        refusals: tuple[tuple[dict[str, Any], str], ...] = (
            ({"user": "U_STRANGER"}, "user_not_found"),
            ({"user": "U_BUSY", "types": "public_channel,shared"}, "invalid_types"),
            ({"user": "U_BUSY", "limit": 1000}, "invalid_limit"),
            ({"user": "U_BUSY", "cursor": "not a cursor!"}, "invalid_cursor"),
        )
        for kwargs, error in refusals:
            with pytest.raises(SlackApiError) as refused:
                web.users_conversations(**kwargs)
            assert refused.value.response["error"] == error
    without_groups = manifest_bot_scopes() - {"groups:read"}
    with SlackStandIn(scopes=without_groups, memberships=MEMBERS) as slack:
        with pytest.raises(SlackApiError) as refused:
            client(slack).users_conversations(user="U_BUSY", types="public_channel,private_channel")
        assert (refused.value.response["error"], refused.value.response["needed"]) == (
            "missing_scope",
            "groups:read",
        )


def test_memberships_read_every_page_once_and_fail_softly(caplog: pytest.LogCaptureFixture) -> None:
    with SlackStandIn(channels={"G_SHARED", *PUBLIC}, memberships=MEMBERS) as slack:
        memberships = Memberships(client(slack), ttl=300)
        found = memberships.of("U_BUSY")
        assert found.ids == frozenset([*PUBLIC, "G_SHARED"])
        assert len(slack.calls_to("users.conversations")) == 3  # 451 channels, 200 a page
        assert memberships.of("U_BUSY") == found  # kept: Slack is not asked again
        assert len(slack.calls_to("users.conversations")) == 3
        assert memberships.of("U_NONE").ids == frozenset()

        slack.throttle("users.conversations", times=1, retry_after=7)
        throttled = Memberships(client(slack), ttl=300).of("U_BUSY")
        assert throttled.ids is None and "slow down" in throttled.why

    with SlackStandIn(scopes={"chat:write"}, memberships=MEMBERS) as slack, caplog.at_level(logging.WARNING):
        memberships = Memberships(client(slack), ttl=0)
        for user in ("U_BUSY", "U_NONE"):
            missing = memberships.of(user)
            assert missing.ids is None and "channels:read" in missing.why
        assert len([r for r in caplog.records if "missing_scope" in r.getMessage()]) == 1  # said once
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
