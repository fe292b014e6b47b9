"""The buttons behind the danger-style confirm dialogs of `/sam access revoke` and `/sam user delete`.

The write runs here, on the confirming click, and only if the clicker is an admin *now* (the button's
payload can be replayed by anyone who saw the message). A double click or Slack retry runs it once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Respond

from bot.context import AppContext
from bot.listener_errors import respond_privately
from bot.payloads import ConfirmValue, DeleteUserValue, PayloadError, RevokeValue, part, read_json
from bot.payloads import slack_user as user_of
from bot.render.common import blocks_to_dicts, escape
from bot.render.forms import write_answer
from bot.roles import Role
from bot.writes import (
    WriteRequest,
    audit_denied,
    dedupe_key,
    not_done_title,
    outcome_text,
    role_denied,
    run_write,
)

log = logging.getLogger(__name__)


def parse_value(raw: object) -> RevokeValue | DeleteUserValue | None:
    """The button's value, if it is one of ours and well formed; None otherwise."""
    try:
        return read_json(ConfirmValue, raw, "This button")
    except PayloadError:
        return None


def click_key(body: dict[str, Any], action: dict[str, Any]) -> str:
    """One click on one message's button: a double click or a retry repeats the message ts and action."""
    message_ts = part(body, "container").get("message_ts") or part(body, "message").get("ts")
    where = message_ts or body.get("trigger_id")
    return dedupe_key("action", where, action.get("action_id"), action.get("value"))


def _write_for(
    ctx: AppContext, value: RevokeValue | DeleteUserValue
) -> tuple[str, str, str, Callable[[], Any]]:
    """(command, summary, done title, operation) for a confirmed button."""
    user, org = value.user, value.org
    who = value.who or f"user {user}"
    if isinstance(value, RevokeValue):
        panel = value.panel
        where = value.where or f"panel {panel}"
        return (
            f"access revoke {user} {panel}",
            f"revoked access of {who} to {where}",
            f"{who} no longer has access to {where}",
            lambda: ctx.client.delete_resource_user(resource_id=panel, user_id=user, org=org),
        )
    return (
        f"user delete {user}",
        f"deleted {who}",
        f"{who} deleted",
        lambda: ctx.client.delete_user(user, org=org),
    )


def run_confirmed(ctx: AppContext, body: dict[str, Any], respond: Respond) -> None:
    slack_user = user_of(body)
    actions = body.get("actions")
    action = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else {}
    value = parse_value(action.get("value"))
    if value is None:
        log.warning("ignored a confirm button with a malformed value from %s", slack_user)
        respond_privately(respond, "This button is not valid any more; run the command again.")
        return
    command, summary, done, operation = _write_for(ctx, value)
    if denied := role_denied(ctx, slack_user, Role.ADMIN, value.org):
        audit_denied(ctx, slack_user, command, value.org)
        respond(text=denied, replace_original=False)
        return
    request = WriteRequest(
        slack_user=slack_user,
        command=command,
        summary=summary,
        dedupe_key=click_key(body, action),
        org_id=value.org,
        needs=Role.ADMIN,
    )
    outcome = run_write(ctx, request, operation)
    if not outcome.ran:
        return  # the first click answers; a second one must not overwrite that answer
    title = done if outcome.ok else not_done_title(outcome, f"Not done: {summary}", summary)
    lines = [f"Confirmed by <@{escape(slack_user)}>."] if outcome.ok else [escape(outcome.message)]
    blocks = write_answer(title, lines, outcome.reference, outcome.ok)
    respond(text=outcome_text(title, outcome), blocks=blocks_to_dicts(blocks), replace_original=True)


def run_cancel(respond: Respond) -> None:
    respond(text="Cancelled; nothing changed.", replace_original=True)
