"""`/sam user`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from core.client import SamClient
from tests.support.bot import BotProcess, no_secrets, usage
from tests.support.narrow import known


def test_user_by_email_shows_the_whole_record(bot: BotProcess, client: SamClient) -> None:
    me = known(client.session)
    user = client.get_user_by_email(known(me.email_address))
    result = bot.send_command(f"user {me.email_address}")
    text = result.text
    assert f"{user.first_name} {user.last_name}" in text
    assert f"*Screen name*\n{user.screen_name}" in text
    assert "(verified)" in text if user.email_address_verified else "(not verified)" in text
    assert "active" in text
    for org in user.organizations or []:
        assert f"{org.name} ({org.id})" in text
    for role in user.roles or []:
        assert str(role.role_id) in text
    assert f"*Authorized panels* ({len(user.resources or [])})" in text
    for panel in (user.resources or [])[:3]:
        assert f"`{panel.resource_id}`" in text
    assert len(result.blocks) <= 50
    assert result.answer["text"].startswith(f"{user.first_name}")
    no_secrets(result)
    assert known(known(client.session).token).get_secret_value() not in str(result.responses)


def test_user_by_id_and_by_slack_mailto(bot: BotProcess, client: SamClient) -> None:
    me = known(client.session)
    by_id = bot.send_command(f"user {me.user_id}")
    assert known(me.screen_name) in by_id.text
    assert "look the user up by e-mail" in by_id.text  # operation 12 carries no panels
    mailto = bot.send_command(f"user <mailto:{me.email_address}|{me.email_address}>")
    assert "*Authorized panels*" in mailto.text


def test_user_bad_input_and_unknown(bot: BotProcess) -> None:
    usage(bot.send_command("user"), "/sam user <email | userId>")
    usage(bot.send_command("user a b"), "/sam user <email | userId>")
    assert "userId: expected a number" in bot.send_command("user bob").text
    assert "not an e-mail address" in bot.send_command("user @@").text
    missing = bot.send_command("user nobody-at-all@example.invalid")
    assert "Not found" in missing.text
    assert "Not found" in bot.send_command("user 424242").text


def test_a_lookup_that_finds_nothing_is_logged_at_info_without_the_address(bot: BotProcess) -> None:
    """A mistyped address is no failure of samops, and an address is personal data (issue 37): the bot's
    log line says the service found nothing, at INFO, and never what was searched."""
    address = "no-such-person-4711@example.com"
    result = bot.send_command(f"user {address}")
    assert "Not found" in result.text
    logged = bot.output()
    assert "the service found no such record" in logged
    assert "no-such-person-4711" not in logged
    line = next(line for line in logged.splitlines() if "the service found no such record" in line)
    assert "WARNING" not in line
