"""Block Kit rendering: Slack's limits, "and N more", text fallbacks, no secrets, windows in words."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import load_config
from bot.render.common import (
    MAX_BLOCKS,
    MAX_SECTION_TEXT,
    blocks_to_dicts,
    blocks_to_text,
    cap_blocks,
    join_lines,
    section,
)
from bot.render.lists import cameras_blocks, privileges_blocks, window_words
from bot.render.panels import PanelStatus, panel_blocks
from bot.render.users import user_blocks
from core.models import CameraSummary, Sensor, User, UserPrivileges

ROOT = Path(__file__).resolve().parents[1]


def check_limits(blocks: list) -> list[dict]:
    dicts = blocks_to_dicts(blocks)
    assert len(dicts) <= MAX_BLOCKS
    for block in dicts:
        if block["type"] == "section":
            assert len(block.get("text", {}).get("text", "")) <= MAX_SECTION_TEXT
            assert len(block.get("fields") or []) <= 10
        if block["type"] == "header":
            assert len(block["text"]["text"]) <= 150
    json.dumps(dicts)  # serializable as Slack needs
    return dicts


_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=400
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_line, max_size=300), st.integers(min_value=0, max_value=5000))
def test_join_lines_fits_and_counts_what_it_left_out(lines: list[str], extra: int) -> None:
    total = len(lines) + extra
    text = join_lines(lines, total=total)
    assert len(text) <= MAX_SECTION_TEXT
    out = text.split("\n") if lines or extra else []
    kept = out[:-1] if out and out[-1].startswith("… and ") and out[-1].endswith(" more") else out
    if len(kept) < total:
        assert out[-1] == f"… and {total - len(kept)} more"
    for shown, original in zip(kept, lines, strict=False):
        assert original.startswith(shown.removesuffix("…"))


def test_a_user_with_hundreds_of_panels_stays_within_limits() -> None:
    user = User.model_validate(
        {
            "userId": 1,
            "firstName": "Ana",
            "lastName": "Lima",
            "screenName": "ana",
            "emailAddress": "ana@example.com",
            "emailAddressVerified": True,
            "status": 0,
            "organizations": [{"name": f"Org {i}", "id": i} for i in range(40)],
            "roles": [{"roleId": i, "roleName": f"Role {i}"} for i in range(40)],
            "resources": [
                {"resourceId": 100000 + i, "resourceName": f"Panel number {i}" * 3} for i in range(600)
            ],
        }
    )
    text, blocks = user_blocks(user)
    dicts = check_limits(blocks)
    panels = next(b for b in dicts if "Authorized panels" in b.get("text", {}).get("text", ""))
    assert "*Authorized panels* (600)" in panels["text"]["text"]
    assert panels["text"]["text"].splitlines()[-1].startswith("… and ")
    assert text.startswith("Ana Lima")


def test_a_panel_with_many_sensor_types_is_capped_at_50_blocks() -> None:
    sensors = {
        f"type {t}": [Sensor(id=t * 100 + i, sensor_name=f"S{i}" * 20, partitions=[]) for i in range(30)]
        for t in range(70)
    }
    status = PanelStatus(1, "P", "M", "B", True, 1, sensors, [], [], [], 0, 0)
    text, blocks = panel_blocks(status)
    dicts = check_limits(blocks)
    assert len(dicts) == MAX_BLOCKS
    assert "more blocks not shown" in blocks_to_text(dicts)
    assert "2100 sensors" in text


def test_cap_blocks_keeps_short_messages_whole() -> None:
    blocks = [section(str(i)) for i in range(MAX_BLOCKS)]
    assert cap_blocks(blocks) == blocks


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
    text, blocks = cameras_blocks([(cam, ())], "")
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
    text, blocks = privileges_blocks(9, priv)
    check_limits(blocks)
    assert "Tue 08:00–18:00" in text
    assert "expires 2027-01-01 00:00 UTC" in text
    assert "1 of 2 privilege groups granted" in text


def test_example_config_and_manifest() -> None:
    example = ROOT / "samops.example.toml"
    config = load_config(example, required=True)
    assert config.roles.admins == () and config.audit.channel is None
    assert isinstance(tomllib.loads(example.read_text()), dict)
    manifest = (ROOT / "manifest.yml").read_text()
    for needle in (
        "command: /sam",
        "- commands",
        "- chat:write",
        "- usergroups:read",
        "- app_home_opened",
        "interactivity:",
        "is_enabled: true",
        "socket_mode_enabled:",
        "/slack/events",
    ):
        assert needle in manifest, needle
