"""`/sam panel`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

import re

from core.client import SamClient
from tests.support.bot import BotProcess, no_secrets, usage
from tests.support.narrow import known


def test_panel_by_id_is_live_and_highlights_alarms(
    bot: BotProcess, client: SamClient, injected: list
) -> None:
    panel = (known(client.session).resources or [])[0]
    rid = known(panel.resource_id)
    sensors = client.list_panel_sensors(rid, org=panel.org_id)
    controllers = client.list_panel_controllers(rid, org=panel.org_id)
    result = bot.send_command(f"panel {rid}")
    text = result.text
    assert known(panel.resource_name) in text
    assert f"*Model*\n{panel.model_name}" in text
    assert f"*Brand*\n{panel.brand_name}" in text
    assert "*Enabled*\n" + ("yes" if panel.enabled else "no") in text
    for sensor in sensors.sensors or []:
        assert f"`{sensor.id}`" in text
    assert f"_{sensors.type}_" in text
    assert "partitions:" in text
    assert f"*Controllers* ({len(controllers)})" in text
    for controller in controllers:
        assert f"`{controller.id}`" in text
    assert re.search(r"\*Last 10 activities\* — \d+ alarms", text)
    assert text.count(":rotating_light:") >= 2  # the two injected alarms are among the last 10
    assert "Live from the service at" in text
    assert len(result.blocks) <= 50
    assert all(
        len(b.get("text", {}).get("text", "")) <= 3000 for b in result.blocks if b["type"] == "section"
    )
    no_secrets(result)


def test_panel_by_name_uses_the_cache_and_the_panels_org(bot: BotProcess, client: SamClient) -> None:
    panels = known(client.session).resources or []
    names = [p.resource_name for p in panels]
    unique = [p for p in panels if names.count(p.resource_name) == 1 and p.org_id != panels[0].org_id]
    other_org = unique[0]
    result = bot.send_command(f'panel "{known(other_org.resource_name).upper()}"')
    assert f"*Panel id*\n`{other_org.resource_id}`" in result.text
    assert f"*Organization*\n{other_org.org_id}" in result.text
    # the same name in two organizations: the answer asks, and `org:` decides
    twins = [p for p in panels if names.count(p.resource_name) > 1]
    if twins:
        name = twins[0].resource_name
        asked = bot.send_command(f'panel "{name}"')
        assert f"panels match `{name}`" in asked.text
        chosen = bot.send_command(f'panel "{name}" org:{twins[0].org_id}')
        assert f"*Panel id*\n`{twins[0].resource_id}`" in chosen.text


def test_panel_ambiguous_unknown_and_bad(bot: BotProcess, client: SamClient) -> None:
    word = "Branch"
    matching = [
        p for p in known(client.session).resources or [] if word.lower() in (p.resource_name or "").lower()
    ]
    assert len(matching) > 1
    several = bot.send_command(f"panel {word}")
    assert f"{len(matching)} panels match `{word}`" in several.text
    assert "Not found: no panel named like `zzz-nothing`" in bot.send_command("panel zzz-nothing").text
    assert "Not found: panel `98765`" in bot.send_command("panel 98765").text
    usage(bot.send_command("panel"), "/sam panel <resourceId | name>")
