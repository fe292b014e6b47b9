"""`/sam privileges <userId>` (operation 15)."""

from __future__ import annotations

from collections import Counter

from bot.context import AppContext
from bot.forms.fields import one_id
from bot.lookups import group_names
from bot.render.lists import privileges_blocks
from bot.slash.registry import Invocation, Reply, subcommand
from core.models import UserPrivileges


@subcommand(
    "privileges",
    usage="/sam privileges <userId>",
    summary="a user's privilege groups and access windows",
    examples=("/sam privileges 20001",),
)
def privileges(inv: Invocation, ctx: AppContext) -> Reply:
    user_id = one_id(inv.args, "userId", "give one user id")
    result = ctx.client.get_user_privilege_groups(user_id, org=inv.org_id)
    zone = ctx.config.notify.zone_for(windows_org(inv.org_id, result))
    message = privileges_blocks(user_id, result, zone, group_names(ctx, inv.org_id))
    return Reply(text=message.text, blocks=message.blocks)


def windows_org(asked: int | None, priv: UserPrivileges) -> int | None:
    """The organization whose clock the windows are read on, as who-can reads them: the one asked about,
    else the one the user's privilege groups are scoped to (`scopePk`; the most of them when they name
    several, the lowest id on a tie), else none (the default zone, still named)."""
    if asked is not None:
        return asked
    scopes = Counter(g.scope_pk for g in priv.user_privilege_groups or [] if g.scope_pk is not None)
    if not scopes:
        return None
    return min(scopes, key=lambda org: (-scopes[org], org))
