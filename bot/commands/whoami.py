"""`/sam whoami`: your samops role, and why (a static `[roles]` list, a service role mapped by
`[roles.from_service]`, or the default)."""

from __future__ import annotations

from bot.context import AppContext
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError, subcommand


@subcommand(
    "whoami",
    usage="/sam whoami",
    summary="your samops role, and why you have it",
    role=Role.NONE,  # open to everyone, those refused everything else included: it tells them why
    examples=("/sam whoami",),
)
def whoami(inv: Invocation, ctx: AppContext) -> Reply:
    if inv.args:
        raise UsageError("`whoami` takes no words after it")
    return Reply(text=ctx.roles.explain(inv.user_id).sentence())
