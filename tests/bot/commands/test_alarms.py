"""`/sam alarms`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from core.client import SamClient
from tests.support.bot import BotProcess, usage
from tests.support.narrow import known


def test_alarms_from_the_cache(bot: BotProcess, client: SamClient, injected: list) -> None:
    panel = (known(client.session).resources or [])[0]
    recent = bot.send_command(f"alarms {panel.resource_id} 2h")
    assert f"on {panel.resource_name} (`{panel.resource_id}`) since" in recent.text
    assert recent.text.count(":rotating_light:") == 2
    assert "synced" in recent.text and "min ago" in recent.text
    everything = bot.send_command("alarms 8d")
    assert "Alarms since" in everything.text
    assert everything.text.count("·") >= 2
    by_name = bot.send_command(f'alarms "{panel.resource_name}" 30m org:{panel.org_id}')
    assert by_name.text.count(":rotating_light:") == 2
    assert bot.send_command("alarms 2026-01-01").responses


def test_alarms_bad_input(bot: BotProcess) -> None:
    usage(bot.send_command("alarms 2026-13-45"), "/sam alarms [panel] [since]")
    assert "Not found" in bot.send_command("alarms nowhere-at-all 2h").text
    usage(bot.send_command("alarms 2999-01-01"), "/sam alarms [panel] [since]")
