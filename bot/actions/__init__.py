"""The buttons: alarm cards' (`alarms.py`; the lifecycle's in `lifecycle.py`, with the Resolve form they
open; "Who can?" in `who_can.py`), the Lift of silences and maintenance windows (`quiet.py`) and the
confirm dialogs of destructive commands (`confirm.py`)."""

from __future__ import annotations

import re

from slack_bolt import App

from bot.actions import alarms, confirm, lifecycle, plans, quiet, who_can
from bot.context import AppContext, with_context
from bot.forms import register_modal
from bot.render import alarms as cards
from bot.render import plans as plan_cards
from bot.render import quiet as quiet_cards
from bot.render.access import CANCEL_ACTION, CONFIRM_ACTION
from bot.render.who_can import WHO_CAN_ACTION


def register(app: App, ctx: AppContext) -> None:
    app.action(cards.ACK)(with_context(lifecycle.on_ack, ctx))
    app.action(cards.TAKE)(with_context(lifecycle.on_take, ctx))
    app.action(cards.RESOLVE)(with_context(lifecycle.on_resolve, ctx))
    app.action(cards.ACK_ALL)(with_context(lifecycle.on_ack_all, ctx))
    app.action(cards.RESOLVE_ALL)(with_context(lifecycle.on_resolve_all, ctx))
    app.action(cards.TAKE_ALL)(with_context(lifecycle.on_take_all, ctx))
    app.action(re.compile(rf"^{plan_cards.STEP_PREFIX}\d+$"))(with_context(plans.on_step, ctx))
    app.action(cards.PANEL_STATUS)(with_context(alarms.on_panel_status, ctx))
    app.action(re.compile(rf"^{cards.SILENCE_PREFIX}\d+$"))(with_context(alarms.on_silence, ctx))
    app.action(cards.DASHBOARD)(alarms.on_dashboard)
    app.action(quiet_cards.LIFT)(with_context(quiet.on_lift, ctx))
    app.action(WHO_CAN_ACTION)(with_context(who_can.on_who_can, ctx))
    app.action(CONFIRM_ACTION)(ack=confirm.ack_click, lazy=[with_context(confirm.run_confirmed, ctx)])
    app.action(CANCEL_ACTION)(ack=confirm.ack_click, lazy=[confirm.run_cancel])
    # The Resolve form the lifecycle buttons open, with the configured dispositions.
    register_modal(app, ctx, lifecycle.resolve_form(ctx.config.disposition_list()))
