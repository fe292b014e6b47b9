"""app_home_opened: publish a short home tab saying what samops is and how to start."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.models.views import View

from bot.context import AppContext
from bot.render.common import context, header, join_lines, section
from bot.slash.registry import visible_to

log = logging.getLogger(__name__)


def home_view(ctx: AppContext, user_id: str) -> View:
    role = ctx.roles.role_of(user_id)
    lines = [f"`{c.usage}` — {c.summary}" for c in visible_to(role)]
    blocks = [
        header("samops"),
        section("Look up users, panels, alarms and cameras of the Security and Asset Management Service."),
        section(join_lines(lines) if lines else "_no commands_"),
        context(f"Your role: {role.name.lower()}."),
    ]
    if url := ctx.config.dashboard.url:
        blocks.append(context(f"Dashboard: <{url}|open>"))
    return View(type="home", blocks=blocks)


def publish_home(ctx: AppContext, event: dict[str, Any], client: WebClient) -> None:
    if event.get("tab", "home") != "home":
        return
    user_id = str(event.get("user") or "")
    try:
        client.views_publish(user_id=user_id, view=home_view(ctx, user_id))
    except Exception:
        log.exception("could not publish the home tab for %s", user_id)
