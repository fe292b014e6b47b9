"""`/sam cameras`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from bot.commands.cameras import matches
from core.client import SamClient
from tests.support.bot import BotProcess, no_secrets
from tests.support.processes import Simulator


def test_cameras_problems_first_and_filtered(bot: BotProcess, client: SamClient, sim: Simulator) -> None:
    cameras = client.list_cameras()
    result = bot.send_command("cameras")
    text = result.text
    assert f"{len(cameras)} cameras" in text
    lines = [line for line in text.splitlines() if line.startswith("*") and "(`" in line]
    assert len(lines) == len(cameras)
    flags = [":warning:" in line for line in lines]
    assert flags == sorted(flags, reverse=True)  # problems first
    assert any(flags)
    problems = bot.send_command("cameras problems")
    assert problems.text.count(":warning:") == sum(flags)
    assert ":white_check_mark:" not in problems.text
    one = cameras[0]
    assert f"`{one.resource_id}`" in bot.send_command(f"cameras {one.resource_name}").text
    no_secrets(result)


def test_one_camera_is_counted_as_one(bot: BotProcess, client: SamClient) -> None:
    cameras = client.list_cameras()
    one = next(c for c in cameras if sum(matches(d, (c.resource_name or "").lower()) for d in cameras) == 1)
    text = bot.send_command(f'cameras "{one.resource_name}"').text
    assert text.startswith(f"1 camera matching `{one.resource_name}`, "), text
