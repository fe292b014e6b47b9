"""The list renderers: cameras without secrets, privilege windows in words."""

from __future__ import annotations

import json
from zoneinfo import ZoneInfo

from bot.render.common import (
    blocks_to_dicts,
)
from bot.render.lists import cameras_blocks, privileges_blocks, window_words
from core.models import CameraSummary, UserPrivileges
from tests.support.bot import check_limits


def test_camera_secrets_never_rendered() -> None:
    cam = CameraSummary.model_validate(
        {
            "resourceId": 5,
            "name": "Gate",
            "status": "online",
            "securityCode": "SEC-123456",
            "ncCode": "NC-98765",
        }
    )
    message = cameras_blocks([(cam, ())], "")
    text, blocks = message.text, message.blocks
    rendered = text + json.dumps(blocks_to_dicts(blocks))
    assert "SEC-123456" not in rendered and "NC-98765" not in rendered
    assert "Gate" in rendered


def test_privilege_windows_in_words() -> None:
    assert window_words(1, 8 * 3_600_000, 18 * 3_600_000) == "Mon 08:00–18:00"
    assert window_words(7, 0, 23 * 3_600_000 + 30 * 60_000) == "Sun 00:00–23:30"
    # epoch-ms of a real day: the time of day (UTC) is what counts
    assert (
        window_words(3, 1_795_000_000_000 - 1_795_000_000_000 % 86_400_000 + 9 * 3_600_000, None)
        == "Wed 09:00–?"
    )
    priv = UserPrivileges.model_validate(
        {
            "userId": 9,
            "userPrivilegeValidity": {
                "accessibleDays": [{"dayOfWeek": 2, "start": 28_800_000, "end": 64_800_000}],
                "expiration": 1_798_761_600_000,
            },
            "userPrivilegeGroups": [
                {"privilegeGroupId": 1, "authority": True},
                {"privilegeGroupId": 2, "authority": False},
            ],
        }
    )
    message = privileges_blocks(9, priv, ZoneInfo("UTC"))
    text, blocks = message.text, message.blocks
    check_limits(blocks)
    assert "Tue 08:00–18:00" in text
    assert "expires 2027-01-01 00:00 UTC" in text
    assert "1 of 2 privilege groups granted" in text
