"""The view submission of the cards' Resolve modal (`RESOLVE`, in `bot/actions/lifecycle.py`), through the
one submit path of the write modals (`bot/forms`); the write modals' own submissions are in their forms."""

from __future__ import annotations

from slack_bolt import App

from bot.actions import lifecycle
from bot.context import AppContext
from bot.forms import register_modal


def register(app: App, ctx: AppContext) -> None:
    register_modal(app, ctx, lifecycle.RESOLVE)
