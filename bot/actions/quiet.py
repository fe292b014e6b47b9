"""The Lift / End now button of silences and maintenance windows (on the card posted when one is made, and
in `/sam silences` and `/sam maintenance`): technicians and admins, checked again on every click; a double
click finds the window lifted and changes nothing, a Slack retry or a replayed click is claimed once and
does nothing; every lift is audited."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, Respond

from bot.context import AppContext
from bot.listener_errors import respond_privately
from bot.payloads import PayloadError, part, read_id, slack_user
from bot.render import quiet as render
from bot.roles import Role
from bot.writes import WriteRequest, action_key, audit_denied, record_act, role_denied
from core import cache, read
from core.clock import now_ms
from core.read import QuietWindow
from core.timefmt import local


def on_lift(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    user = slack_user(body)
    db = ctx.db()
    try:
        window_id = read_id(action.get("value"), "This button")
    except PayloadError as err:
        text = str(err)
        if denied := role_denied(ctx, user, Role.TECHNICIAN):
            audit_denied(ctx, user, f"quiet lift {str(action.get('value'))[:20]}")
            text = denied
        respond_privately(respond, text)
        return
    found = read.quiet_window(db, window_id)
    org_id = found.organization if found is not None else None
    # In the window's organization: a role from the service holds only where the service gives it.
    if denied := role_denied(ctx, user, Role.TECHNICIAN, org_id):
        audit_denied(ctx, user, f"quiet lift {window_id}", org_id)
        respond_privately(respond, denied)
        return
    at = now_ms()

    def recorded(lift: tuple[QuietWindow, bool] | None) -> WriteRequest | None:
        if lift is None or not lift[1]:
            return None
        window = lift[0]
        # The same command words as a refused lift's, so one filter finds both.
        summary = f"lifted the {window.kind} of {window.scope()}"
        return WriteRequest(user, f"quiet lift {window.id}", summary, "", window.organization)

    # Once per click: a Slack retry or a replay finds it claimed and changes nothing (the first answered).
    # The claim, the lift and its audit row commit together (record_act).
    ran, result = record_act(
        ctx, lambda: cache.lift_window(db, window_id, user, at), recorded, claim=action_key(body, action)
    )
    if not ran:
        return
    if result is None:
        text = "That silence or window is no longer in samops' cache; nothing was lifted."
        respond_privately(respond, text)
        return
    window, lifted = result
    zone = ctx.config.notify.zone_for(window.organization)  # the card, which the channel reads
    if not lifted:
        mine = ctx.reader_zones(user)(window.organization)  # an answer to this person alone: their clock
        if window.lifted_at is not None:
            when = local(window.lifted_at, mine, seconds=True)
            text = f"Already lifted by <@{window.lifted_by}> at {when}."
        else:
            text = f"It already ended at {local(window.end, mine, seconds=True)}."
        respond_privately(respond, text)
        return
    card = render.lifted_card(window, zone)
    if part(body, "container").get("is_ephemeral"):
        # A list only its reader sees: tell the channel, as lifting changes what everyone gets.
        respond(text=card.text, blocks=card.blocks, response_type="in_channel", replace_original=False)
    else:
        respond(text=card.text, blocks=card.blocks, replace_original=True)
