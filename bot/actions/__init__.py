"""The buttons: alarm cards' (`alarms.py`; the lifecycle's in `lifecycle.py`, with the Resolve form they
open; "Who can?" in `who_can.py`), the Lift of silences and maintenance windows (`quiet.py`) and the
confirm dialogs of destructive commands (`confirm.py`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from slack_bolt import App

from bot.actions import alarms, confirm, lifecycle, plans, quiet, who_can
from bot.context import AppContext, with_context
from bot.forms import register_modal
from bot.lazy import ack_at_once, acked_then
from bot.render import alarms as cards
from bot.render import plans as plan_cards
from bot.render import quiet as quiet_cards
from bot.render.access import CANCEL_ACTION, CONFIRM_ACTION
from bot.render.who_can import WHO_CAN_ACTION


def register(app: App, ctx: AppContext) -> None:
    def on(action_id: str | re.Pattern[str], work: Callable[..., None]) -> None:
        app.action(action_id)(
            **acked_then(ctx, with_context(work, ctx))
        )  # acked, then the work (bot/lazy.py)

    on(cards.ACK, lifecycle.on_ack)
    on(cards.TAKE, lifecycle.on_take)
    on(cards.RESOLVE, lifecycle.on_resolve)
    on(cards.ACK_ALL, lifecycle.on_ack_all)
    on(cards.RESOLVE_ALL, lifecycle.on_resolve_all)
    on(cards.TAKE_ALL, lifecycle.on_take_all)
    on(re.compile(rf"^{plan_cards.STEP_PREFIX}\d+$"), plans.on_step)
    on(cards.PANEL_STATUS, alarms.on_panel_status)
    on(re.compile(rf"^{cards.SILENCE_PREFIX}\d+$"), alarms.on_silence)
    app.action(cards.DASHBOARD)(ack_at_once)  # a link button: Slack opens the URL, the app only acknowledges
    on(quiet_cards.LIFT, quiet.on_lift)
    on(WHO_CAN_ACTION, who_can.on_who_can)
    on(CONFIRM_ACTION, confirm.run_confirmed)
    app.action(CANCEL_ACTION)(**acked_then(ctx, confirm.run_cancel))
    # The Resolve form the lifecycle buttons open, with the configured dispositions.
    register_modal(app, ctx, lifecycle.resolve_form(ctx.config.disposition_list()))
