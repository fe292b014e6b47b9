"""`/sam bills <subscriptionId> [YYYY-MM]`: bills of a subscription (operation 7)."""

from __future__ import annotations

import re

from bot.context import AppContext
from bot.forms.fields import parse_id
from bot.render.lists import bills_blocks
from bot.slash.registry import Invocation, Reply, UsageError, subcommand

_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


@subcommand(
    "bills",
    usage="/sam bills <subscriptionId> [YYYY-MM]",
    summary="bills of a subscription, optionally of one month",
    examples=("/sam bills 10012",),
)
def bills(inv: Invocation, ctx: AppContext) -> Reply:
    if not 1 <= len(inv.args) <= 2:
        raise UsageError("give a subscription id and optionally a month")
    subscription_id = parse_id(inv.args[0], "subscriptionId")
    month = inv.args[1] if len(inv.args) == 2 else None
    if month is not None and not _MONTH.fullmatch(month):
        raise UsageError(f"`{month[:20]}` is not a month: use YYYY-MM, e.g. 2026-10")
    org = ctx.client.resolve_org(inv.org_id)
    found = ctx.client.list_bills(subscription_id, organization_id=org, month_filter=month, org=org)
    message = bills_blocks(subscription_id, month, found)
    return Reply(text=message.text, blocks=message.blocks)
