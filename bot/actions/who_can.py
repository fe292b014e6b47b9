"""The "Who can?" button of alarm and incident cards (`bot.render.who_can.who_can_button`): the same answer
as `/sam who-can <panel> now`, shown only to the person who clicked."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, Respond

from bot.actions.alarms import viewed_panel
from bot.commands.who_can import Moment, answer_who_can
from bot.context import AppContext
from bot.listener_errors import respond_privately
from bot.render.common import blocks_to_dicts
from bot.slash.panels_lookup import PanelRef, resolve_panels
from core.errors import SamError
from core.reference import new_reference

log = logging.getLogger(__name__)


def on_who_can(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    resource_id = viewed_panel(ctx, body, action, respond, None)
    if resource_id is None:
        return
    refs = resolve_panels(ctx, str(resource_id), None)
    ref = next((r for r in refs if r.resource_id == resource_id), PanelRef(resource_id, None, None))
    try:
        reply = answer_who_can(ctx, ref, ref.org_id, Moment())
    except SamError as err:
        reference = new_reference()
        log.warning("%s who-can button of panel %s: %s", reference, resource_id, err)
        text = f"The service could not say who may operate panel {resource_id} (reference `{reference}`)."
        respond_privately(respond, text)
        return
    respond_privately(respond, reply.text, blocks_to_dicts(reply.blocks))
