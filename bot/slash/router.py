"""The `/sam` router: ack at once, then in a lazy listener parse, route, check the role, run, answer.

Every answer goes through `respond` (the command's response_url). Whatever a handler raises becomes a
plain sentence for the user — with a reference id that is also in the log — never a traceback: a failure
of the service is told as such (a WARNING), a failure of ours in the words and the ERROR line every listener
shares (`bot/listener_errors.py`), so that its audit outcome is recorded too. Anything else that escapes
goes to the app's one error handler (`bot/error_handler.py`), under the same reference.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_bolt import BoltContext, Respond

from bot.context import AppContext
from bot.listener_errors import REFERENCE, busy_text, failure_text, log_failure
from bot.render.common import blocks_to_dicts, escape, plain
from bot.roles import Role
from bot.slash.parse import parse_text
from bot.slash.registry import FORM_EVENT, WRITE_HOOKS, Invocation, Reply, Subcommand, UsageError, find
from core.cache import BusyError
from core.errors import (
    APIError,
    LoginRefusedError,
    NotFoundError,
    ResponseFormatError,
    SamError,
    TransportError,
)
from core.reference import new_reference

log = logging.getLogger(__name__)

COMMAND = "/sam"


def role_name(role: Role) -> str:
    return role.name.lower()


def _usage_reply(message: str, cmd: Subcommand | None) -> Reply:
    usage = f"\nUsage: `{cmd.usage}`" if cmd else "\nSee `/sam help` for what you can run."
    examples = "".join(f"\n• `{e}`" for e in (cmd.examples if cmd else ()))
    return Reply(text=f"{message}{usage}{examples}")


def _error_reply(err: Exception, inv: Invocation, cmd: Subcommand) -> tuple[Reply, str]:
    """The sentence for a failure, and the outcome recorded for it."""
    ref = inv.reference
    if isinstance(err, NotFoundError):
        what = " ".join(inv.args)
        subject = f"{cmd.path[0]} `{escape(what)}`" if what else f"`{' '.join(cmd.path)}`"
        return Reply(text=f"Not found: {subject} — the service knows no such record here."), "not found"
    if isinstance(err, TransportError):
        text = (
            f"The service did not answer in time or could not be reached; try again soon (reference `{ref}`)."
        )
        return Reply(text=text), "error"
    if isinstance(err, LoginRefusedError):  # no request was sent: samops waits before logging in again
        return Reply(
            text=f"samops cannot use the service now: {escape(str(err))} (reference `{ref}`)."
        ), "error"
    if isinstance(err, APIError):
        said = escape(err.message or err.error or "no details")
        return Reply(text=f"The service answered {err.status_code}: {said} (reference `{ref}`)."), "error"
    if isinstance(err, ResponseFormatError):
        return Reply(text=f"The service sent an answer samops could not read (reference `{ref}`)."), "error"
    if isinstance(err, SamError):
        return Reply(text=f"The service call failed (reference `{ref}`)."), "error"
    return Reply(text=failure_text(ref)), "error"


def route(
    ctx: AppContext,
    *,
    text: str,
    user_id: str,
    channel_id: str = "",
    team_id: str = "",
    trigger_id: str | None = None,
    response_url: str | None = None,
    reference: str | None = None,
) -> Reply | None:
    """Run one `/sam` text for one user and return what to answer (None: the handler answered itself)."""
    reference = reference or new_reference()
    started = time.monotonic()
    parsed = parse_text(text)
    words = parsed.words or ("help",)
    found = find(words)
    role = ctx.roles.role_of(user_id)
    if found is None:
        log.info("%s %s: unknown subcommand %r", reference, user_id, words[0][:40])
        if role == Role.NONE:  # not even which commands exist
            return Reply(text=ctx.roles.refusal())
        return _usage_reply(f"I don't know `/sam {escape(words[0][:40])}`.", None)
    cmd, args = found
    org_id = parsed.org_id if parsed.org_id is not None else ctx.config.channel_org(channel_id)
    inv = Invocation(
        user_id=user_id,
        channel_id=channel_id,
        team_id=team_id,
        text=text,
        args=args,
        org_id=org_id,
        role=role,
        trigger_id=trigger_id,
        response_url=response_url,
        reference=reference,
    )
    reply, outcome = _run(ctx, cmd, inv, parsed.error)
    log.info(
        "%s %s (%s) /sam %s: %s in %.0f ms",
        reference,
        user_id,
        role_name(role),
        " ".join(cmd.path),
        outcome,
        (time.monotonic() - started) * 1000,
    )
    if cmd.write:
        summary = (reply.audit_summary or plain(reply.text)) if reply else "answered in a modal"
        _notify_write_hooks(ctx, inv, cmd, outcome, summary)
    return reply


def _run(
    ctx: AppContext, cmd: Subcommand, inv: Invocation, parse_error: str | None
) -> tuple[Reply | None, str]:
    if inv.role == Role.NONE and cmd.role > Role.NONE:  # whoami stays open: it says why
        return Reply(text=ctx.roles.refusal()), "denied"
    if inv.role < cmd.role:
        text = (
            f"`/sam {' '.join(cmd.path)}` needs the {role_name(cmd.role)} role; "
            f"you are a {role_name(inv.role)}. "
            "See `/sam help` for what you can run."
        )
        return Reply(text=text), "denied"
    if parse_error:
        return _usage_reply(escape(parse_error), cmd), "usage"
    try:
        return cmd.handler(inv, ctx), "ok"
    except UsageError as err:
        return _usage_reply(escape(str(err)), cmd), "usage"  # it may quote what was typed
    except SamError as err:
        reply, outcome = _error_reply(err, inv, cmd)
        if isinstance(err, NotFoundError):
            # A lookup that found nothing is a mistyped id or address, not a failure: INFO, and never what
            # was searched (the path holds it: an e-mail address is personal data).
            log.info("%s /sam %s: the service found no such record", inv.reference, " ".join(cmd.path))
        else:
            log.warning("%s /sam %s failed: %s", inv.reference, " ".join(cmd.path), err)
        return reply, outcome
    except BusyError:  # records locked past the wait: nothing was done (the write hook audits it, briefly)
        return Reply(text=busy_text(inv.reference)), "busy"
    except Exception as err:  # noqa: BLE001  # a bug of ours: logged at ERROR, answered, its outcome audited
        log_failure(inv.reference, f"/sam {' '.join(cmd.path)}", err)
        return _error_reply(err, inv, cmd)


def _notify_write_hooks(
    ctx: AppContext, inv: Invocation, cmd: Subcommand, outcome: str, summary: str
) -> None:
    for hook in list(WRITE_HOOKS):
        try:
            hook(ctx, inv, cmd, outcome, summary)
        except Exception:
            log.exception("%s: write hook %r failed", inv.reference, hook)


def answer(respond: Respond, reply: Reply) -> None:
    """Post a Reply through response_url."""
    kwargs: dict[str, Any] = {
        "text": reply.text,
        "response_type": "in_channel" if reply.in_channel else "ephemeral",
        "replace_original": False,
    }
    if reply.blocks:
        kwargs["blocks"] = blocks_to_dicts(reply.blocks)
    if reply.form is not None:  # Slack-shaped message metadata: `samops slash` reads the form from it
        kwargs["metadata"] = {"event_type": FORM_EVENT, "event_payload": {"view": reply.form.to_dict()}}
    respond(**kwargs)


def run_sam(ctx: AppContext, body: dict[str, Any], respond: Respond, context: BoltContext) -> None:
    """The lazy listener of `/sam`: route the text, answer through response_url. What escapes goes to the
    app's error handler under this command's reference."""
    reference = context[REFERENCE] = new_reference()
    reply = route(
        ctx,
        text=str(body.get("text") or ""),
        user_id=str(body.get("user_id") or ""),
        channel_id=str(body.get("channel_id") or ""),
        team_id=str(body.get("team_id") or ""),
        trigger_id=body.get("trigger_id"),
        response_url=body.get("response_url"),
        reference=reference,
    )
    if reply is not None:
        answer(respond, reply)
