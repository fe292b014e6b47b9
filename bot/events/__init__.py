"""The Events API listeners: the home tab (`home.py`)."""

from __future__ import annotations

from slack_bolt import App

from bot.context import AppContext, with_context
from bot.events import home


def register(app: App, ctx: AppContext) -> None:
    app.event("app_home_opened")(with_context(home.publish_home, ctx))
