"""Opening a write command's modal from a slash command."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.views import View

from bot.payloads import slack_user
from bot.render.common import context, escape, section
from bot.response_urls import sealed
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, UsageError
from bot.writes import role_denied
from core.errors import APIError, LoginRefusedError, NotFoundError, SamError, TransportError

if TYPE_CHECKING:
    from bot.context import AppContext

log = logging.getLogger(__name__)


def modal_meta(inv: Invocation, **extra: Any) -> dict[str, Any]:
    """What a view submission needs to know about the command that opened it (kept in private_metadata)."""
    return {
        "channel": inv.channel_id or None,
        **sealed(inv.response_url),  # used after the modal closes only if the seal holds
        "ref": inv.reference,
        **extra,
    }


LOADING = "sam_loading"  # the callback_id of the placeholder; it has no submit button, so nothing arrives


def notice_view(title: str, text: str, reference: str) -> View:
    """A modal that only says something (why the form cannot be shown); Close is its one button."""
    return View(
        type="modal",
        callback_id=LOADING,
        title=title[:24],
        close="Close",
        blocks=[section(text[:2900]), context(f"reference `{reference}`")],
    )


def loading_view(title: str, reference: str) -> View:
    return notice_view(title, ":hourglass_flowing_sand: Loading from the service…", reference)


def failure_text(err: Exception) -> str:
    """Why the form could not be filled, for the modal (the router answers the same failure in full)."""
    if isinstance(err, UsageError):
        return escape(str(err))
    if isinstance(err, NotFoundError):
        return "Not found: the service knows no such record here."
    if isinstance(err, TransportError):
        return "The service did not answer in time or could not be reached; try again soon."
    if isinstance(err, LoginRefusedError):  # no request was sent: samops waits before logging in again
        return f"samops cannot use the service now: {escape(str(err))}"
    if isinstance(err, APIError):
        return f"The service answered {err.status_code}: {escape(err.message or err.error or 'no details')}"
    if isinstance(err, SamError):
        return "The service call failed."
    return "Something went wrong on samops' side."


def open_modal(
    ctx: AppContext,
    inv: Invocation,
    title: str,
    build: Callable[[], View | Reply],
    without_slack: Callable[[], Reply] | None = None,
) -> Reply | None:
    """Open a modal for the caller at once with a loading view (a trigger_id lives 3 s, the service may
    take longer), then fill it with `build()`'s form by views.update. None when the modal is the answer,
    else a Reply saying why not (`without_slack()` where there is no Slack to open it: a local run or no
    trigger_id).

    `build` may return a Reply instead of a form (nothing to edit): its text is shown in the modal. If it
    raises, the modal shows why and the exception goes on to the router, which answers and audits it."""
    if ctx.local_mode or not inv.trigger_id:
        if without_slack is not None:
            reply = without_slack()
        else:
            reply = Reply(text="This command opens a form, which needs Slack; run it from Slack.")
        return local_form(inv, reply, build) if ctx.local_mode else reply
    try:
        opened = ctx.web_client.views_open(trigger_id=inv.trigger_id, view=loading_view(title, inv.reference))
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("%s views.open failed: %s", inv.reference, err)
        return Reply(
            text=f"Slack would not open the form; try the command again (reference `{inv.reference}`)."
        )
    shown = opened.get("view") or {}
    try:
        built = build()
    except Exception as err:
        _fill(ctx, inv, shown, notice_view(title, failure_text(err), inv.reference))
        raise
    if isinstance(built, Reply):
        _fill(ctx, inv, shown, notice_view(title, built.text, inv.reference))
        return None
    if _fill(ctx, inv, shown, built):
        return None
    return Reply(text=f"Slack would not show the form; try the command again (reference `{inv.reference}`).")


def local_form(inv: Invocation, reply: Reply, build: Callable[[], View | Reply]) -> Reply:
    """A local run (`samops slash`, no Slack): `reply`, plus the form itself for `samops slash --submit`
    to fill and submit as Slack would, and a line naming its fields."""
    built = build()
    if isinstance(built, Reply):
        return built  # nothing to edit: its text is the answer
    fields = form_fields(built)
    how = (
        f"`samops slash` can fill this form and submit it: add `--submit field=value …` "
        f"(fields: {', '.join(fields) or 'none'})"
    )
    return replace(
        reply,
        text=f"{reply.text}\n{how}",
        blocks=[*reply.blocks, context(how)] if reply.blocks else [],
        form=built,
    )


def form_fields(view: View) -> list[str]:
    """The names a form's fields are submitted under (each input block's id), required ones marked `*`."""
    names = []
    for block in view.to_dict().get("blocks") or []:
        if block.get("type") == "input" and block.get("block_id"):
            names.append(str(block["block_id"]) + ("" if block.get("optional") else "*"))
    return names


def _fill(ctx: AppContext, inv: Invocation, shown: Mapping[str, Any], view: View) -> bool:
    """Replace the loading view; the hash makes Slack refuse if the view changed meanwhile."""
    try:
        ctx.web_client.views_update(view_id=shown.get("id"), hash=shown.get("hash"), view=view)
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("%s views.update failed: %s", inv.reference, err)
        return False
    return True


def validating_ack(
    ctx: AppContext, first_field: str, errors_of: Callable[[dict[str, Any]], Mapping[str, str]]
) -> Callable[..., None]:
    """The ack of a write modal's submission: a caller below technician, or the fields `errors_of` finds
    wrong, are answered inside the modal (Slack shows each error under its field); otherwise plain ack, and
    the lazy listener does the write."""

    def ack_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        if denied := role_denied(ctx, slack_user(body), Role.TECHNICIAN):
            ack(response_action="errors", errors={first_field: denied})
        elif errors := errors_of(view):
            ack(response_action="errors", errors=dict(errors))
        else:
            ack()

    return ack_submission
