"""Every listener is acked at once and does its work after the answer, through bolt's public parts only.

The app runs with bolt's `process_before_response` (bot/app.py): bolt runs each listener's ack function on
the thread that answers Slack and answers as soon as it returns, so a click's or a form's ack neither waits
for a thread of the listener pool nor for bolt's 10 ms poll, and no other thread touches the answer (bolt's
other path lets a listener that fails after its ack put a 500 in the answer for a moment: docs/acks.md). The
work is a *lazy* function, which bolt starts on the listener pool (`App(listener_executor=...)`) after the ack
function.

`acked_then(ctx, work)` registers `work` that way, as `after_ack` wraps it: it starts once the answers being
sent are out (`AcksInFlight.wait_clear`, bot/ack_first.py), and what it raises goes to the app's one error
handler (bot/error_handler.py), which bolt does not do for a lazy function (its runner logs "Failed to run an
internal function" and drops the exception).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any, Protocol

from slack_bolt import Ack, BoltRequest
from slack_bolt.kwargs_injection import build_required_kwargs

from bot.ack_first import AcksInFlight

log = logging.getLogger(__name__)


class Host(Protocol):
    """What the work after an ack needs of the app (`bot.context.AppContext` has both)."""

    acks: AcksInFlight
    on_failure: Callable[[Exception, BoltRequest], None] | None


def ack_at_once(ack: Ack) -> None:
    """The ack of a listener whose answer comes later (through response_url, a message or the Home)."""
    ack()


def acked_then(ctx: Host, work: Callable[..., None]) -> dict[str, Any]:
    """The `ack`/`lazy` arguments of a bolt listener that acks at once and then does `work`:
    `app.action(...)(**acked_then(ctx, work))`."""
    return {"ack": ack_at_once, "lazy": [after_ack(ctx, work)]}


def after_ack(ctx: Host, work: Callable[..., None]) -> Callable[[BoltRequest], None]:
    """`work` as a bolt lazy function: bolt passes it its arguments by name, as to any listener; it starts
    once the answers being sent are out, and its failure reaches the app's error handler."""
    names = [
        name
        for name, parameter in inspect.signature(work).parameters.items()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    ]

    def run(request: BoltRequest) -> None:
        ctx.acks.wait_clear()
        try:
            work(
                **build_required_kwargs(
                    logger=request.context.get("logger") or log,
                    required_arg_names=names,
                    request=request,
                    response=None,
                    this_func=work,
                )
            )
        except Exception as error:  # every listener's failure goes to the one handler
            if ctx.on_failure is None:
                log.exception("a listener failed after its ack")
            else:
                ctx.on_failure(error, request)

    # bolt names a lazy function by its __name__ (in its logs, and to pick one out of a listener's list)
    run.__name__ = run.__qualname__ = str(getattr(work, "__name__", "work"))
    return run
