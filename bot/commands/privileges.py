"""`/sam privileges <userId>` (operation 15)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import one_id
from bot.render.lists import privileges_blocks
from bot.slash.registry import Invocation, Reply, subcommand


@subcommand(
    "privileges",
    usage="/sam privileges <userId>",
    summary="a user's privilege groups and access windows",
    examples=("/sam privileges 20001",),
)
def privileges(inv: Invocation, ctx: AppContext) -> Reply:
    user_id = one_id(inv.args, "userId", "give one user id")
    result = ctx.client.get_user_privilege_groups(user_id, org=inv.org_id)
    message = privileges_blocks(user_id, result, ctx.config.notify.zone_for(inv.org_id))
    return Reply(text=message.text, blocks=message.blocks)
