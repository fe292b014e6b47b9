"""`/sam at-risk [org:<id>]`: the service at risk, per organization, from the cache (docs/at_risk.md)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import known_org, no_words_but_org
from bot.render.at_risk import at_risk_message
from bot.slash.registry import Invocation, Reply, subcommand
from core.clock import now_ms
from core.config import ChannelNotify
from core.read import at_risk_of, panel_org_ids


@subcommand(
    "at-risk",
    usage="/sam at-risk [org:<id>]",
    summary="authorizations expiring, overdue bills, silent and noisy panels, cameras down",
    examples=("/sam at-risk", "/sam at-risk org:1001"),
)
def at_risk(inv: Invocation, ctx: AppContext) -> Reply:
    no_words_but_org(inv.args, "at-risk")
    config = ctx.config.notify
    channel = config.per_channel.get(inv.channel_id) or ChannelNotify()
    org = inv.org_id if inv.org_id is not None else channel.org
    db = ctx.db()
    known = sorted(panel_org_ids(db))
    known_org(inv.org_id, known)
    orgs = [org] if org is not None else known
    now = now_ms()
    message = at_risk_message([at_risk_of(db, o, now) for o in orgs], ctx.reader_zones(inv.user_id), now)
    return Reply(text=message.text, blocks=message.blocks)
