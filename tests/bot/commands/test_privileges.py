"""`/sam privileges`, over signed HTTP to the running bot (fixtures: conftest.py)."""

from __future__ import annotations

from core.client import SamClient
from tests.support.bot import BotProcess, usage
from tests.support.narrow import known


def test_privileges_in_words(bot: BotProcess, client: SamClient) -> None:
    uid = known(known(client.session).user_id)
    priv = client.get_user_privilege_groups(uid)
    text = bot.send_command(f"privileges {uid}").text
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    for window in known(priv.user_privilege_validity).accessible_days or []:
        assert f"{days[known(window.day_of_week) - 1]} 08:00–18:00" in text
    granted = sum(1 for g in priv.user_privilege_groups or [] if g.authority)
    assert f"{granted} of {len(priv.user_privilege_groups or [])}" in text
    # The demo user's validity has no start (0): said once, in words (issue 22: "valid from from the start").
    assert not known(priv.user_privilege_validity).validity_start
    assert "valid from the start" in text and "from from" not in text
    usage(bot.send_command("privileges"), "/sam privileges <userId>")
    assert "Not found" in bot.send_command("privileges 1").text
