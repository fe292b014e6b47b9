"""`/sam customer <phone>`: customers by phone number (operation 8); names stay masked."""

from __future__ import annotations

import re

from bot.context import AppContext
from bot.render.lists import customers_blocks
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand

_PHONE = re.compile(r"\+?[0-9][0-9 ()./-]{4,30}")


@subcommand(
    "customer",
    usage="/sam customer <phone>",
    summary="find customers by phone number (names masked)",
    role=Role.TECHNICIAN,  # personal data: not for every viewer (issue 11)
    examples=("/sam customer +905551112233",),
)
def customer(inv: Invocation, ctx: AppContext) -> Reply:
    phone = " ".join(inv.args).strip()
    if not phone:
        raise UsageError("give a phone number")
    if not _PHONE.fullmatch(phone):
        raise UsageError(
            f"`{phone[:40]}` is not a phone number: it needs 5 to 31 characters, digits with spaces or"
            " ( ) . / - between them, optionally after a leading +"
        )
    normalized = re.sub(r"[ ()./-]", "", phone)
    found = ctx.client.find_customers(phone_number=normalized, org=inv.org_id)
    message = customers_blocks(normalized, found)
    return Reply(text=message.text, blocks=message.blocks)
