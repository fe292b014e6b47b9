"""Who may use the bot: `[roles] viewers`, `default_role`, and the refusal that names the admins."""

from __future__ import annotations

from pathlib import Path

import pytest

# Importing a command module registers its subcommands with the router.
import bot.commands  # noqa: F401  # every /sam subcommand
from bot.roles import Role, refusal
from bot.slash.router import route
from core.config import ConfigError, parse_config
from tests.support.bot import local_context


def test_default_role_none_refuses_the_unlisted_and_names_the_admins(tmp_path: Path) -> None:
    roles = {"admins": ["U_ADMIN", "U_BOSS"], "viewers": ["U_VIEW"], "default_role": "none"}
    ctx = local_context(tmp_path, roles)
    assert ctx.roles.role_of("U_STRANGER") == Role.NONE
    assert ctx.roles.role_of("U_VIEW") == Role.VIEWER
    assert ctx.roles.role_of("U_ADMIN") == Role.ADMIN
    for text in ("help", "alarms", "customer +905551112233", "user delete 5", "nonsense"):
        reply = route(ctx, text=text, user_id="U_STRANGER")
        assert reply is not None
        assert "Sorry" in reply.text and "<@U_ADMIN>" in reply.text and "<@U_BOSS>" in reply.text
    assert "Sorry" not in (route(ctx, text="help", user_id="U_VIEW") or pytest.fail()).text
    # whoami stays open to them, so they can learn why (and the refusal says so).
    assert "/sam whoami" in (route(ctx, text="help", user_id="U_STRANGER") or pytest.fail()).text
    why = (route(ctx, text="whoami", user_id="U_STRANGER") or pytest.fail()).text
    assert "Sorry" not in why and "default" in why
    groups = parse_config({"roles": {"admins": ["S_LEADS"], "default_role": "none"}}).roles
    assert "<!subteam^S_LEADS>" in refusal(groups)
    assert "ask whoever runs samops" in refusal(parse_config({"roles": {"default_role": "none"}}).roles)


def test_default_role_viewer_keeps_everyone_a_viewer_and_customer_needs_a_technician(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {"technicians": ["U_TECH"]})
    assert ctx.roles.role_of("U_ANYONE") == Role.VIEWER
    reply = route(ctx, text="customer +905551112233", user_id="U_ANYONE")
    assert reply is not None and "needs the technician role" in reply.text


def test_roles_config_checks_its_values() -> None:
    for roles in ({"default_role": "admin"}, {"viewers": ["not an id"]}, {"viewer": ["U1"]}):
        with pytest.raises(ConfigError):
            parse_config({"roles": roles})
