"""Opening a write command's modal from a slash command."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.views import View

from bot.commands.registry import Invocation, Reply, Role

if TYPE_CHECKING:
    from bot.context import AppContext

log = logging.getLogger(__name__)


def modal_meta(inv: Invocation, **extra: Any) -> dict[str, Any]:
    """What a view submission needs to know about the command that opened it (kept in private_metadata)."""
    return {
        "channel": inv.channel_id or None,
        "response_url": inv.response_url,
        "ref": inv.reference,
        **extra,
    }


def open_modal(
    ctx: AppContext, inv: Invocation, view: View, without_slack: Reply | None = None
) -> Reply | None:
    """Open `view` for the caller; None when it opened (the modal is the answer), else a Reply saying why
    (`without_slack` when there is no Slack to open it: a local run or no trigger_id)."""
    if ctx.local_mode or not inv.trigger_id:
        return without_slack or Reply(text="This command opens a form, which needs Slack; run it from Slack.")
    try:
        ctx.web_client.views_open(trigger_id=inv.trigger_id, view=view)
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("%s views.open failed: %s", inv.reference, err)
        return Reply(
            text=f"Slack would not open the form; try the command again (reference `{inv.reference}`)."
        )
    return None


def submission_key(view: dict[str, Any]) -> str:
    """One submission: the view's id, hash and metadata, and what was typed (a double click repeats them)."""
    from bot.render.forms import submitted
    from bot.writes import dedupe_key

    state = json.dumps(submitted(view), sort_keys=True, default=str)
    return dedupe_key("view", view.get("id"), view.get("hash"), view.get("private_metadata"), state)


def validating_ack(
    ctx: AppContext, first_field: str, errors_of: Callable[[dict[str, Any]], Mapping[str, str]]
) -> Callable[..., None]:
    """The ack of a write modal's submission: a caller below technician, or the fields `errors_of` finds
    wrong, are answered inside the modal (Slack shows each error under its field); otherwise plain ack, and
    the lazy listener does the write."""
    from bot.writes import role_denied

    def ack_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        if denied := role_denied(ctx, body["user"]["id"], Role.TECHNICIAN):
            ack(response_action="errors", errors={first_field: denied})
        elif errors := errors_of(view):
            ack(response_action="errors", errors=dict(errors))
        else:
            ack()

    return ack_submission
