"""`/sam help`: the role sentence under the list of commands, for each role that may use the bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.commands.help import show_help
from bot.roles import Role
from bot.slash.registry import Invocation
from tests.support.bot import blocks_text, check_limits, local_context


@pytest.mark.parametrize(
    ("role", "sentence"),
    [
        (Role.ADMIN, "You are an admin."),
        (Role.TECHNICIAN, "You are a technician."),
        (Role.VIEWER, "You are a viewer."),
    ],
)
def test_help_names_the_role_with_the_right_article(tmp_path: Path, role: Role, sentence: str) -> None:
    ctx = local_context(tmp_path, {"admins": ["U1"]})
    inv = Invocation(
        user_id="U1", channel_id="C1", team_id="T1", text="help", args=(), org_id=None, role=role
    )
    reply = show_help(inv, ctx)
    assert reply is not None
    text = blocks_text(check_limits(list(reply.blocks)))
    assert sentence in text, text
