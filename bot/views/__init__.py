"""The view submission of the Resolve modal (`resolve.py`), through the one submit path of the write modals
(`bot/forms/submission.py`); the write modals' own submissions are in their forms (`bot/forms`)."""

from __future__ import annotations

from slack_bolt import App

from bot.context import AppContext
from bot.forms import register_modal
from bot.views import resolve


def register(app: App, ctx: AppContext) -> None:
    register_modal(app, ctx, resolve.RESOLVE)
