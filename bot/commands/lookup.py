"""`/sam user <email | userId>`: who a service user is (operation 13 by e-mail, 12 by id)."""

from __future__ import annotations

from bot.commands.registry import Invocation, Reply, UsageError, subcommand
from bot.context import AppContext
from bot.inputs import parse_id
from bot.render.users import user_blocks


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
    text, blocks = user_blocks(user)
    return Reply(text=text, blocks=blocks)
