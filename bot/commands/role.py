"""`/sam role <roleId>` (operation 16)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import one_id
from bot.lookups import group_names
from bot.render.lists import role_blocks
from bot.slash.registry import Invocation, Reply, subcommand


@subcommand(
    "role",
    usage="/sam role <roleId>",
    summary="the privilege groups of a role",
    examples=("/sam role 10012",),
)
def role(inv: Invocation, ctx: AppContext) -> Reply:
    role_id = one_id(inv.args, "roleId", "give one role id")
    groups = ctx.client.get_role_privilege_groups(role_id, org=inv.org_id)
    message = role_blocks(role_id, groups, group_names(ctx, inv.org_id))
    return Reply(text=message.text, blocks=message.blocks)
