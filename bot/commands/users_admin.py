"""`/sam user delete <userId>` (operation 11): admins only, and only after Slack's danger-style confirm
dialog; the deletion itself runs in `bot/actions/confirm.py` when the button is clicked."""

from __future__ import annotations

from bot.commands.registry import Invocation, Reply, Role, UsageError, subcommand
from bot.context import AppContext
from bot.inputs import parse_id
from bot.lookups import find_user, full_name, org_of
from bot.render.access import delete_confirmation


@subcommand(
    "user",
    "delete",
    usage="/sam user delete <userId>",
    summary="delete a user (asks for confirmation)",
    role=Role.ADMIN,
    write=True,
    examples=("/sam user delete 2001",),
)
def delete_user(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) != 1:
        raise UsageError("give exactly one user id")
    user_id = parse_id(inv.args[0], "userId")
    org = org_of(ctx, inv.org_id)
    user = find_user(ctx, user_id, org)
    text, blocks = delete_confirmation(user_id, full_name(user), org)
    return Reply(text=text, blocks=blocks, audit_summary=f"confirmation asked: delete user {user_id}")
