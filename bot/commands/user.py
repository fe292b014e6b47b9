"""`/sam user <email | userId>`: who a service user is (operation 13 by e-mail, 12 by id); and
`/sam user delete <userId>` (operation 11): admins only, and only after Slack's danger-style confirm dialog;
the deletion itself runs in `bot/actions/confirm.py` when the button is clicked."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import one_id, parse_id
from bot.lookups import find_user, org_of
from bot.render.access import delete_confirmation
from bot.render.users import full_name, user_blocks
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand


@subcommand(
    "user",
    usage="/sam user <email | userId>",
    summary="look up a user: name, e-mail, status, organizations, roles, panels",
    examples=("/sam user ana@example.com", "/sam user 20001"),
)
def user_lookup(inv: Invocation, ctx: AppContext) -> Reply:
    if len(inv.args) != 1:
        raise UsageError("give one e-mail address or one user id")
    (who,) = inv.args
    if "@" in who:
        if who.count("@") != 1 or who.startswith("@") or who.endswith("@"):
            raise UsageError(f"`{who}` is not an e-mail address")
        user = ctx.client.get_user_by_email(who, org=inv.org_id)
    else:
        user_id = parse_id(who, "userId")
        users = ctx.client.list_organization_users(user_id, org=inv.org_id)
        matches = [u for u in users if u.user_id == user_id]
        if not matches:
            return Reply(text=f"Not found: no user `{user_id}` in the organizations you can see.")
        user = matches[0]
    message = user_blocks(user)
    return Reply(text=message.text, blocks=message.blocks)


@subcommand(
    "user",
    "delete",
    usage="/sam user delete <userId>",
    summary="delete a user (asks for confirmation)",
    role=Role.ADMIN,
    write=True,
    examples=("/sam user delete 20002",),
)
def delete_user(inv: Invocation, ctx: AppContext) -> Reply:
    user_id = one_id(inv.args, "userId", "give exactly one user id")
    org = org_of(ctx, inv.org_id)
    user = find_user(ctx, user_id, org)
    message = delete_confirmation(user_id, full_name(user), org)
    return Reply(
        text=message.text, blocks=message.blocks, audit_summary=f"confirmation asked: delete user {user_id}"
    )
