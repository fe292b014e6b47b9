"""`/sam whoami` over signed HTTP to the running bot (fixtures: conftest.py, config: U_TECH a technician,
everyone else the default viewer, no `[roles.from_service]`). Roles mapped from the service are in
tests/bot/test_roles_from_service.py."""

from __future__ import annotations

from tests.support.bot import BotProcess, usage


def test_whoami_says_the_role_and_why(bot: BotProcess) -> None:
    tech = bot.send_command("whoami", user="U_TECH")
    assert tech.ephemeral and "You are a technician: listed in `[roles] technicians`." in tech.text
    anyone = bot.send_command("whoami", user="U_SOMEONE").text
    assert "You are a viewer: the default role of people not listed (`[roles] default_role`)." in anyone
    assert "service" not in anyone  # no mapping configured: nothing is said of the service
    usage(bot.send_command("whoami please", user="U_TECH"), "/sam whoami")
