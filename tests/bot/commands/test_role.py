"""`/sam role`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from core.client import SamClient
from tests.support.bot import BotProcess, usage
from tests.support.narrow import known


def test_role_privilege_groups(bot: BotProcess, client: SamClient) -> None:
    role = (known(client.session).roles or [])[0]
    groups = client.get_role_privilege_groups(known(role.role_id))
    text = bot.send_command(f"role {role.role_id}").text
    assert f"{len(groups)} privilege groups" in text
    usage(bot.send_command("role one"), "/sam role <roleId>")
    assert "Not found" in bot.send_command("role 1").text
