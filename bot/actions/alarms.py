"""The buttons of alarm cards besides the lifecycle's (`lifecycle.py`): Panel status (an ephemeral summary),
Silence panel 30 min / 2 h / 24 h (technicians and admins; a quiet window, core/cache/quiet.py: the notifier
records but does not post the panel's alarms until then; its card can lift it early)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, Respond

from bot.cards import CardKind, card_at, claimed
from bot.context import AppContext
from bot.listener_errors import respond_privately
from bot.payloads import PayloadError, SilenceValue, read_id, read_json, slack_user
from bot.person_zones import ZoneFor
from bot.render import quiet as quiet_render
from bot.render.common import escape
from bot.roles import Role
from bot.writes import WriteRequest, action_key, audit_denied, record_act, role_denied
from core import cache, read
from core.cache import write_transaction
from core.clock import now_ms
from core.read import QuietWindow
from core.reference import new_reference
from core.sqlite_lib import sqlite_utils
from core.text import counted
from core.timefmt import local

log = logging.getLogger(__name__)


def silence(
    db: sqlite_utils.Database,
    resource_id: int,
    minutes: int,
    user: str,
    at: int,
    reference: str | None = None,
) -> QuietWindow:
    """Silence the panel (a quiet window: core/cache/quiet.py); returns the silence. `reference`: the R-… of
    its audit row, which the reason of every alarm it holds names."""
    with write_transaction(db):
        window_id = cache.silence_panel(db, resource_id, at + minutes * 60_000, user, at, reference)
        found = read.quiet_window(db, window_id)
    assert found is not None
    return found


def panel_summary(db: sqlite_utils.Database, resource_id: int, zone_for: ZoneFor) -> str:
    detail = read.panel_detail(db, resource_id, activities=5)
    if detail is None:
        return f"Panel {resource_id} is not in the cache (yet)."
    zone = zone_for(detail.panel.org_id)
    sensors = sum(len(group) for group in detail.sensors_by_type.values())
    enabled = {True: "enabled", False: "disabled"}.get(detail.panel.enabled, "state unknown")  # type: ignore[arg-type]  # None (not reported) is a key .get may miss
    model = escape(detail.panel.model or "model unknown")
    lines = [
        f"*{escape(detail.panel.name or 'Panel')}* ({resource_id}) · {model} · {enabled}",
        f"{counted(sensors, 'sensor')}, {counted(len(detail.controllers), 'controller')}",
    ]
    until = cache.silence_until(db, resource_id)
    if until and until > now_ms():
        lines.append(f":no_bell: silenced until {local(until, zone, seconds=True)}")
    if detail.last_activities:
        lines.append("*Last activity*")
        lines += [
            f"• {local(a.activity_time, zone, seconds=True)} {escape(a.violation_name or a.event_type or '')}"
            f" — {escape(a.description or '')}"
            for a in detail.last_activities
        ]
    as_of = local(detail.data_as_of, zone, seconds=True) if detail.data_as_of else "unknown"
    lines.append(f"_data as of {as_of}_")
    return "\n".join(lines)


def viewed_panel(
    ctx: AppContext, body: dict[str, Any], action: dict[str, Any], respond: Respond, unnamed: str | None
) -> int | None:
    """The panel id a read-only button carries, or None once the clicker (without a role) is refused or told
    that the button names no panel: `unnamed`, or when None, `read_id`'s own words."""
    if ctx.roles.role_of(slack_user(body)) == Role.NONE:
        respond_privately(respond, ctx.roles.refusal())
        return None
    try:
        return read_id(action.get("value"), "This button")
    except PayloadError as err:
        respond_privately(respond, unnamed or str(err))
        return None


def on_panel_status(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    resource_id = viewed_panel(ctx, body, action, respond, "This card names no panel.")
    if resource_id is None:
        return
    text = panel_summary(ctx.db(), resource_id, ctx.reader_zones(slack_user(body)))  # for this person alone
    respond_privately(respond, text)


def on_silence(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    try:
        value = read_json(SilenceValue, action.get("value"), "This button")
    except PayloadError:
        respond_privately(respond, "This button is not valid.")
        return
    resource_id, minutes = value.r, value.m
    user = slack_user(body)
    db = ctx.db()
    command = f"alarm silence {resource_id} {minutes}m"
    detail = read.panel_detail(db, resource_id, activities=0)
    org_id = detail.panel.org_id if detail is not None else None
    # Silencing hides alarms from everyone: the same role as the other writes, in the panel's organization.
    if denied := role_denied(ctx, user, Role.TECHNICIAN, org_id):
        audit_denied(ctx, user, command, org_id)
        respond_privately(respond, denied)
        return
    if detail is None:
        text = f"Panel {resource_id} is not in samops' cache; nothing was silenced."
        respond_privately(respond, text)
        return
    if why := _not_the_cards_panel(db, body, resource_id):
        reference = audit_denied(ctx, user, command, org_id, why)
        respond_privately(
            respond, f"This does not match the card samops posted; nothing was silenced (ref {reference})."
        )
        return
    config = ctx.config.notify
    at = now_ms()
    shown_until = local(at + minutes * 60_000, config.zone_for(detail.panel.org_id), seconds=True)
    summary = f"silenced panel {resource_id} until {shown_until}"
    # Once per click: a Slack retry, or a captured click replayed (a 30-minute one after a 24-hour one would
    # shorten the silence), finds the click claimed and changes nothing; the first one answered. The claim,
    # the silence and its audit row commit together (record_act); the row's R- reference is made first, as
    # the silence names it in the reason of each alarm it holds ("held: silence R-…").
    reference = new_reference()
    ran, window = record_act(
        ctx,
        lambda: silence(db, resource_id, minutes, user, at, reference),
        lambda _: WriteRequest(user, command, summary, "", org_id, reference),
        claim=action_key(body, action),
    )
    if not ran or window is None:
        log.info("silence click of %s on panel %s received again; not run again", user, resource_id)
        return
    # The card has a Lift button (bot/actions/quiet.py) to end the silence early.
    card = quiet_render.window_card(window, config.zone_for(window.organization), at)
    respond(text=card.text, blocks=card.blocks, response_type="in_channel", replace_original=False)


def _not_the_cards_panel(db: sqlite_utils.Database, body: dict[str, Any], resource_id: int) -> str | None:
    """Why a Silence click disagrees with samops' record of the card it came from (the card is about another
    panel, is no card of samops, or the container has the wrong shape); None when it agrees. A click that
    names no message claims no card: the role check in the panel's organization is what holds then."""
    claim = claimed(db, body)
    if claim.malformed:
        return "the click's container is not one Slack sends"
    if claim.page_of is not None:  # a page (a DM): its alarm's panel, by samops' record of the page
        paged = cache.get_alarm(db, claim.page_of)
        panel = paged.resource_id if paged is not None else None
        return None if panel == resource_id else f"the page is about panel {panel}, not {resource_id}"
    if claim.channel is None or claim.ts is None:
        return None
    card = card_at(db, claim.channel, claim.ts)
    if card is None:
        return f"no card of samops is at {claim.ts} in {claim.channel}"
    if card.kind is CardKind.ALARM and card.event_id is not None:
        alarm = cache.get_alarm(db, card.event_id)
        panel = alarm.resource_id if alarm is not None else None
    else:
        panel = card.resource_id
    if panel != resource_id:
        return f"the card {card.ts} in {card.channel} is about panel {panel}, not {resource_id}"
    return None
