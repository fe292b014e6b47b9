"""The Events API listeners: the App Home (`home.py`, kept up to date by `refresh.py`)."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext

from bot.context import AppContext
from bot.events.home import HomeAnswer, HomeTabs
from bot.lazy import acked_then
from bot.payloads import is_user_id, slack_user
from bot.render.alarms import ACK, RESOLVE, TAKE

LIFECYCLE = frozenset({ACK, TAKE, RESOLVE})


def register(app: App, ctx: AppContext, home: HomeTabs) -> None:
    def app_home_opened(event: dict[str, Any]) -> None:
        # The id is checked: a malformed one never reaches users.info or views.publish.
        if event.get("tab", "home") == "home" and is_user_id(event.get("user")):
            home.opened(event["user"])

    def home_clicks(
        body: dict[str, Any], context: BoltContext, next: Any
    ) -> None:  # bolt passes `next` by name
        """A click on the Home has no response_url: its answer goes to the top of the Home. A lifecycle
        click anywhere makes the clicker's Home look for the change promptly."""
        if body.get("type") == "block_actions":
            # Read without trusting the shape: a signed request may carry a list where Slack sends an object.
            user = slack_user(body)  # "" for a malformed id: no Home is answered or poked
            view = body.get("view")
            if user and isinstance(view, dict) and view.get("type") == "home" and not context.response_url:
                context["respond"] = HomeAnswer(home, user)
            actions = body.get("actions")
            clicked = (
                [a.get("action_id") for a in actions if isinstance(a, dict)]
                if isinstance(actions, list)
                else []
            )
            if user and LIFECYCLE.intersection(a for a in clicked if isinstance(a, str)):
                home.poke(user)
        next()

    app.use(home_clicks)
    app.event("app_home_opened")(**acked_then(ctx, app_home_opened))  # drawing the Home: after the ack
