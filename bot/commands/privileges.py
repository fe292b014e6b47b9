"""`/sam privileges <userId>` (operation 15) and `/sam role <roleId>` (operation 16)."""

from __future__ import annotations

from bot.commands.registry import Invocation, Reply, UsageError, subcommand
from bot.context import AppContext
from bot.inputs import parse_id
from bot.render.lists import privileges_blocks, role_blocks


@subcommand(
    "privileges",
    usage="/sam privileges <userId>",
    summary="a user's privilege groups and access windows",
    examples=("/sam privileges 20001",),
)
def privileges(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) != 1:
        raise UsageError("give one user id")
    user_id = parse_id(inv.args[0], "userId")
    result = ctx.client.get_user_privilege_groups(user_id, org=inv.org_id)
    text, blocks = privileges_blocks(user_id, result)
    return Reply(text=text, blocks=blocks)


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
