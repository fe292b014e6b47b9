"""The one error path of the app: whatever escapes a listener — a `/sam` command, a button, a view
submission, an event, the App Home, a middleware — ends in `on_listener_error` (bolt's `app.error`).

It logs one ERROR line with a fresh reference id (the traceback under it) and tells the person the same id
where Slack lets us:
- a command or a button: through the request's response_url, an ephemeral answer below it;
- a click on the App Home (no response_url): at the top of their Home (the `respond` bot/events sets), or
  when the Home cannot be drawn (the cache it reads is what failed), a Home of that one sentence;
- a view submission (the modal is closed by then): where the modal's form answers, the originating
  command's response_url, else an ephemeral message in its channel, else a direct message;
- an App Home event: on their Home, in the same way.
An answer that could not be delivered to a response_url is a WARNING (bot/listener_errors.py says why).

bolt sends the exceptions of ack functions and middleware to `app.error`, but not those of lazy functions
(its lazy runner logs "Failed to run an internal function" and drops them: bolt issue #635): `install` hands
the handler to `ctx.on_failure`, which samops' lazy functions call (bot/lazy.py `after_ack`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_sdk.errors import SlackClientError
from slack_sdk.models.views import View

from bot.context import AppContext
from bot.events.home import HomeAnswer, HomeTabs
from bot.forms.submission import metadata
from bot.listener_errors import (
    REFERENCE,
    busy_text,
    failure_text,
    is_answer_failure,
    log_failure,
    record_busy,
    respond_privately,
)
from bot.render.common import header, section
from bot.writes import answer_later
from core.cache import BusyError
from core.reference import new_reference

log = logging.getLogger("samops.bot")


def install(app: App, ctx: AppContext, home: HomeTabs) -> None:
    """Route every listener's failure, lazy ones included, to one handler."""
    handler = error_handler(ctx, home)
    app.error(handler)

    def on_lazy_failure(error: Exception, request: BoltRequest) -> None:
        context = request.context
        handler(error=error, body=request.body, context=context, respond=context.respond, response=None)

    ctx.on_failure = on_lazy_failure


def error_handler(ctx: AppContext, home: HomeTabs) -> Callable[..., BoltResponse | None]:
    def on_listener_error(  # bolt passes these by name
        error: Exception,
        body: dict[str, Any],
        context: BoltContext,
        respond: Any,
        response: BoltResponse | None,
    ) -> BoltResponse | None:
        reference = str(context.get(REFERENCE) or new_reference())
        what = described(body)
        if isinstance(error, BusyError):  # records locked past the wait: nothing was done; not a bug
            user = str(_dict(body.get("user")).get("id") or body.get("user_id") or "")
            try:
                record_busy(ctx.db(), slack_user=user, command=what, org_id=None, reference=reference)
                tell(ctx, home, body, context, respond, reference, busy_text(reference))
            except Exception as err:  # noqa: BLE001  # a busy refusal is never an ERROR: one WARNING line
                log.warning("%s: %s refused, records busy; not told: %s", reference, what, type(err).__name__)
        elif is_answer_failure(error):
            log.warning(
                "%s: could not answer %s through the request's response_url: %s",
                reference,
                what,
                type(error).__name__,
            )
        else:
            log_failure(reference, what, error)
            try:
                tell(ctx, home, body, context, respond, reference)
            except (SlackClientError, OSError, ValueError) as err:
                log.warning("%s: could not tell the person about it: %s", reference, type(err).__name__)
            except Exception:  # the failure is logged above; telling about it must not hide it
                log.warning("%s: could not tell the person about it", reference, exc_info=True)
        # A failure before the ack (response is bolt's answer to Slack, None for a lazy listener): the
        # person has been told with a reference, so Slack gets a plain ack rather than bolt's 500, which it
        # would show as a second, bare error and, for an event, retry.
        return None if response is None else BoltResponse(status=200, body="")

    return on_listener_error


def described(body: dict[str, Any]) -> str:
    """What failed, for the log: the command, the button's action_id, the form's callback_id, the event."""
    kind = str(body.get("type") or "")
    if body.get("command"):
        return f"{str(body['command'])[:40]} command"
    if kind == "block_actions":
        actions = body.get("actions")
        first = _dict(actions[0]) if isinstance(actions, list) and actions else {}
        return f"button {str(first.get('action_id') or '?')[:80]}"
    if kind == "view_submission":
        return f"form {str(_dict(body.get('view')).get('callback_id') or '?')[:80]}"
    if kind == "event_callback":
        return f"event {str(_dict(body.get('event')).get('type') or '?')[:40]}"
    return f"request {kind[:40] or '?'}"


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def tell(
    ctx: AppContext,
    home: HomeTabs,
    body: dict[str, Any],
    context: BoltContext,
    respond: Any,
    reference: str,
    text: str | None = None,
) -> None:
    """Give the person the reference where Slack lets us (see the module's docstring): `text`, by default
    that samops failed them."""
    text = text if text is not None else failure_text(reference)
    kind = body.get("type")
    if kind == "view_submission":
        user = str(_dict(body.get("user")).get("id") or "")
        answer_later(ctx, metadata(_dict(body.get("view"))), user, text)
    elif kind == "event_callback":
        event = _dict(body.get("event"))
        if event.get("type") == "app_home_opened" and isinstance(event.get("user"), str):
            tell_on_home(ctx, home, event["user"], text)
    elif isinstance(respond, HomeAnswer):
        tell_on_home(ctx, home, str(_dict(body.get("user")).get("id") or ""), text)
    elif context.response_url:
        respond_privately(respond, text)
    elif user := str(_dict(body.get("user")).get("id") or body.get("user_id") or ""):
        ctx.web_client.chat_postMessage(channel=user, text=text)


def tell_on_home(ctx: AppContext, home: HomeTabs, user: str, text: str) -> None:
    """`text` at the top of the person's Home; if the Home cannot be drawn, a Home of `text` alone (the next
    refresh that can draw it replaces it)."""
    try:
        HomeAnswer(home, user)(text)
    except Exception as err:  # noqa: BLE001  # most likely the failure just logged, so one line for it here
        why = type(err).__name__
        log.warning("the Home of %s could not be drawn (%s): it shows the failure alone", user, why)
        alone = View(type="home", blocks=[header("samops"), section(text)])
        ctx.web_client.views_publish(user_id=user, view=alone)
