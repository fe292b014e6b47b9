"""`/sam role <roleId>` (operation 16)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import parse_id
from bot.render.lists import role_blocks
from bot.slash.registry import Invocation, Reply, UsageError, subcommand


@subcommand(
    "role",
    usage="/sam role <roleId>",
    summary="the privilege groups of a role",
    examples=("/sam role 10012",),
)
def role(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) != 1:
        raise UsageError("give one role id")
    role_id = parse_id(inv.args[0], "roleId")
    groups = ctx.client.get_role_privilege_groups(role_id, org=inv.org_id)
    text, blocks = role_blocks(role_id, groups)
    return Reply(text=text, blocks=blocks)
