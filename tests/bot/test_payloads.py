"""The one validating layer for what Slack hands back (`bot/payloads.py`): buttons, metadata, users."""

from __future__ import annotations

import json
from typing import Any

import pytest

# Importing a command module registers its subcommands with the router.
from bot.payloads import (
    AccessMeta,
    CameraMeta,
    ConfirmValue,
    DeleteUserValue,
    PayloadError,
    RevokeValue,
    SilenceValue,
    TaskMeta,
    read_event_id,
    read_id,
    read_json,
    slack_user,
)
from bot.render.access import delete_confirmation, revoke_confirmation


def _button_value(blocks: list[Any]) -> str:
    actions = next(b for b in blocks if b["type"] == "actions")
    return str(actions["elements"][0]["value"])


def test_confirm_values_made_by_the_confirmations_are_read_back() -> None:
    blocks = revoke_confirmation(2001, "Ana", 1001, "Warehouse", 7).blocks
    value = read_json(ConfirmValue, _button_value(blocks), "This button")
    assert isinstance(value, RevokeValue) and (value.user, value.panel, value.org) == (2001, 1001, 7)
    blocks = delete_confirmation(2001, None, None).blocks
    value = read_json(ConfirmValue, _button_value(blocks), "This button")
    assert isinstance(value, DeleteUserValue) and value.org is None


@pytest.mark.parametrize(
    "raw",
    [
        '{"op":"revoke","user":2001,"panel":1001,"org":18446744073709551616}',
        '{"op":"revoke","user":2001,"panel":99999999999999999999999}',
        '{"op":"delete_user","user":0}',
        '{"op":"delete_user","user":-3}',
        '{"op":"delete_user","user":"2001"}',
        '{"op":"delete_user","user":true}',
        '{"op":"delete_user","user":2001.0}',
        '{"op":"delete_user","user":null}',
        '{"op":"delete_user","user":2001,"org":"x"}',
        '{"op":"delete_user","user":2001,"who":"' + "x" * 600 + '"}',
        '{"op":"drop_table","user":2001}',
        '{"op":"revoke","user":2001}',
        "[1,2]",
        "null",
        "not json",
        "",
        "9" * 5000,
        None,
        42,
    ],
)
def test_a_tampered_confirm_value_is_a_payload_error(raw: object) -> None:
    with pytest.raises(PayloadError, match="not one samops made"):
        read_json(ConfirmValue, raw, "This button")


def test_silence_values_take_only_our_durations_and_int64_panels() -> None:
    assert read_json(SilenceValue, '{"r": 1001, "m": 120}', "b") == SilenceValue(r=1001, m=120)
    for raw in ('{"r": 1001, "m": 7}', '{"r": 18446744073709551616, "m": 30}', '{"r": null, "m": 30}',
                '{"r": "1001", "m": 30}', '{"m": 30}'):  # fmt: skip
        with pytest.raises(PayloadError):
            read_json(SilenceValue, raw, "b")


def test_bare_ids_and_event_ids() -> None:
    assert read_id("1001", "This card") == 1001
    for raw in ("", "0", "²", "99999999999999999999", "1001 ", None, 1001, "-1"):
        with pytest.raises(PayloadError):
            read_id(raw, "This card")
    assert read_event_id("ev-123") == "ev-123"
    for raw in ("", None, 5, "x" * 201, "a\nb", "\x00"):
        with pytest.raises(PayloadError):
            read_event_id(raw)


def test_modal_metadata_shapes() -> None:
    meta = {"channel": "C1", "response_url": "https://hooks.slack.com/x", "ref": "R-1"}
    access = read_json(AccessMeta, json.dumps({**meta, "user": 5, "org": 1001, "groups": [1, 2]}), "f")
    assert access.groups == [1, 2]
    assert read_json(TaskMeta, json.dumps({"task": 42, "org": None}), "f").task == 42
    assert read_json(CameraMeta, json.dumps({"org": 1001}), "f").org == 1001
    for shape, data in (
        (AccessMeta, {"user": 5, "org": 1001, "groups": []}),
        (AccessMeta, {"user": 5, "org": 1001, "groups": [1, "²"]}),
        (AccessMeta, {"user": 5, "org": 2**63, "groups": [1]}),
        (TaskMeta, {"task": 2**70}),
        (CameraMeta, {"org": 1001, "response_url": "file:///etc/passwd"}),
        (CameraMeta, {"org": 1001, "channel": ["C1"]}),
    ):
        with pytest.raises(PayloadError):
            read_json(shape, json.dumps(data), "f")


def test_slack_user_is_an_id_or_nobody() -> None:
    assert slack_user({"user": {"id": "U_ADMIN"}}) == "U_ADMIN"
    for body in ({}, {"user": None}, {"user": "U1"}, {"user": {"id": 5}}, {"user": {"id": "U1>|<!here"}}):
        assert slack_user(body) == ""
