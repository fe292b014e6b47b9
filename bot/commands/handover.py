"""`/sam handover`: the shift handover digest on demand, for the shift running now (ephemeral)."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import known_org, no_words_but_org
from bot.notify.handover import shift_start
from bot.render import quiet as render
from bot.slash.registry import Invocation, Reply, subcommand
from core.clock import now_ms
from core.config import ChannelNotify
from core.read import handover, panel_org_ids


@subcommand(
    "handover",
    usage="/sam handover [org:<id>]",
    summary="the shift so far: alarms, who holds what, noisy panels, cameras offline, silences",
    examples=("/sam handover", "/sam handover org:1001"),
)
def handover_now(inv: Invocation, ctx: AppContext) -> Reply:
    no_words_but_org(inv.args, "handover")
    db = ctx.db()
    known_org(inv.org_id, panel_org_ids(db))
    config = ctx.config.notify
    settings = config.per_channel.get(inv.channel_id) or ChannelNotify()
    org_id = inv.org_id if inv.org_id is not None else settings.org
    settings = settings.model_copy(update={"org": org_id})
    now = now_ms()
    # The shift began at this channel's last handover time; a channel without any: the last 24 hours.
    digest = handover(db, shift_start(settings, config, now), now, org_id, ctx.config.priority_book())
    zone_for = ctx.reader_zones(inv.user_id)  # an answer to one person: on their clock
    message = render.handover_digest(digest, zone_for(org_id), now, zone_for)
    return Reply(text=message.text, blocks=message.blocks)
