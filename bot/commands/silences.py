"""`/sam silences`: the silences in force (of the channel's organization, or `org:<id>`), each with Lift."""

from __future__ import annotations

from bot.context import AppContext
from bot.forms.fields import no_words_but_org
from bot.render import quiet as render
from bot.slash.registry import Invocation, Reply, subcommand
from core.clock import now_ms
from core.read import SILENCE, windows_in_force


@subcommand(
    "silences",
    usage="/sam silences",
    summary="the panel silences in force, each with a Lift button (technicians lift)",
    examples=("/sam silences", "/sam silences org:1001"),
)
def silences(inv: Invocation, ctx: AppContext) -> Reply:
    no_words_but_org(inv.args, "silences")
    return windows_reply(inv, ctx, SILENCE, "Silences in force", "No silence is in force.")


def windows_reply(
    inv: Invocation, ctx: AppContext, kind: str, title: str, empty: str, upcoming: bool = False
) -> Reply:
    """The `kind` windows in force (and planned, with `upcoming`), on the reader's clock: the
    list `/sam silences` and `/sam maintenance` answer with."""
    now = now_ms()
    windows = [w for w in windows_in_force(ctx.db(), now, inv.org_id, upcoming=upcoming) if w.kind == kind]
    zone_for = ctx.reader_zones(inv.user_id)  # an answer to one person: on their clock
    message = render.windows_list(windows, lambda w: zone_for(w.organization), now, title, empty)
    return Reply(text=message.text, blocks=message.blocks)
