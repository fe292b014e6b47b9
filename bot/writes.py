"""Running one write against the service: once only, audited, announced, with a plain answer either way.

Every write path of the bot (a one-line command, a modal's submission, a confirming button) goes through
`run_write`, so the guarantees live in one place:
- the Slack payload's dedupe key is claimed first (`claim_once`); a double click or a Slack retry finds it
  taken and runs nothing;
- no act without its record (docs/security.md): a write to the service has its audit row written with the
  claim, before it is sent (outcome "unknown"), and settled with the outcome after; an act on samops' own
  records (`local=True`, and `record_act` for the rest) commits in one transaction with its claim and its
  audit row, or not at all. Records locked past the wait raise `core.cache.BusyError` before anything is
  done: the surface answers "busy, try again" (bot/listener_errors.py);
- the outcome is in `audit_log` and, when `[audit] channel` is set, posted there;
- service failures become a sentence with a reference id that is also in the log, never a traceback;
- an answer that does not say what happened (not an Operation result) is never reported as done: the
  person is told the outcome is unknown and to check in the service before retrying, audited `unknown`.
Summaries and commands given to it must hold no secret; the audit layer masks known secret words again.
"""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.webhook import WebhookClient

from bot.listener_errors import log_failure
from bot.render.common import blocks_to_dicts, escape, section, typed
from bot.render.forms import write_answer
from bot.response_urls import seal_holds
from bot.roles import Role
from bot.slash.registry import Invocation
from core import cache, read
from core.errors import APIError, NotFoundError, OutcomeUnknownError, SamError, TransportError
from core.redact import mask_secret_words
from core.reference import is_reference, new_reference

if TYPE_CHECKING:
    from bot.context import AppContext
    from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

T = TypeVar("T")
SETTLE_TRIES = 3  # a service write's outcome is written again after a busy wait, this many times in all

ROLE_WORDS = {Role.VIEWER: "viewer", Role.TECHNICIAN: "technician", Role.ADMIN: "admin"}


@dataclass(frozen=True)
class WriteRequest:
    slack_user: str
    command: str  # e.g. "sensor rename 123" — no secrets
    summary: str  # what changes, in words — no secrets
    dedupe_key: str
    org_id: int | None = None
    reference: str = ""
    needs: Role = Role.TECHNICIAN  # checked again in `org_id` (roles from the service hold per organization)


@dataclass(frozen=True)
class WriteOutcome:
    ran: bool  # False: a duplicate of a write already claimed; nothing was sent
    ok: bool
    message: str  # for the person who asked
    reference: str
    result: Any = None
    unknown: bool = False  # sent and answered, but the answer does not say whether it was done


def dedupe_key(*parts: object) -> str:
    """A stable key from the parts of a Slack payload that identify one intent."""
    text = json.dumps([str(p) for p in parts], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def slash_key(inv: Invocation) -> str:
    """One slash command: Slack's trigger_id is unique per invocation and repeated on its retries."""
    return dedupe_key("slash", inv.trigger_id or inv.reference, inv.user_id, inv.text)


def role_denied(ctx: AppContext, slack_user: str, needed: Role, org_id: int | None = None) -> str | None:
    """None when `slack_user` holds `needed` (in organization `org_id`, when the write is about one); else the
    sentence to answer. Buttons and view submissions call this again on arrival: their payload may be
    replayed or forged by someone who only saw the message."""
    role = ctx.roles.role_of(slack_user, org_id)
    if role >= needed:
        return None
    if role == Role.NONE:
        return ctx.roles.refusal()
    where = f" in organization {org_id}" if org_id is not None else ""
    return f"Sorry, this needs the {ROLE_WORDS[needed]} role{where}; you are a {ROLE_WORDS[role]}{where}."


def role_denied_everywhere(ctx: AppContext, slack_user: str, needed: Role) -> str | None:
    """`role_denied` for a write that names no organization: it may land in any organization samops serves,
    so a role from the service counts only when the service gives it in all of them (bot/roles.py). Only
    that is checked here: a role too low anywhere is the caller's to refuse, as it always was (a local run's
    forms, a unit's write)."""
    if ctx.roles.role_of(slack_user) < needed:
        return None
    db = ctx.db()
    served = tuple(sorted({org for org, _ in read.organizations(db)} | set(read.panel_org_ids(db))))
    role = ctx.roles.explain_everywhere(slack_user, served).role
    if role >= needed:
        return None
    if role == Role.NONE:
        return ctx.roles.refusal()
    return (
        f"Sorry, this needs the {ROLE_WORDS[needed]} role in the organization it is about, and it names none"
        " (your role from the service does not hold in every organization samops serves): add `org:` and"
        " the organization's number to the command."
    )


def audit_denied(
    ctx: AppContext, slack_user: str, command: str, org_id: int | None = None, why: str = "role too low"
) -> str:
    """Record a refused write attempt (a forged or stale button, a submission by the wrong role); returns
    its reference. `why` is samops' own sentence, never text from the request."""
    reference = new_reference()
    log.warning("ref=%s denied %s for %s: %s", reference, command, slack_user, why)
    try:
        cache.record_audit(
            ctx.db(),
            slack_user=slack_user,
            command=command,
            org_id=org_id,
            outcome="denied",
            summary=f"refused: {why}",
            reference=reference,
        )
    except cache.BusyError:  # nothing was done, and the line above says who was refused
        log.warning("ref=%s the audit row of this refusal was not written: records busy", reference)
    return reference


def action_key(body: dict[str, Any], action: dict[str, Any]) -> str:
    """One click of a button: a Slack retry, or a replay of the captured request, repeats every part of it
    (action_ts, trigger_id); a real second click has its own. Reads a payload of any shape."""
    container = body.get("container")
    container = container if isinstance(container, dict) else {}
    user = body.get("user")
    user = user.get("id") if isinstance(user, dict) else None
    return dedupe_key(
        "action",
        action.get("action_id"),
        action.get("value"),
        action.get("action_ts"),
        body.get("trigger_id"),
        user,
        container.get("channel_id"),
        container.get("message_ts") or container.get("view_id"),
    )


def run_write(
    ctx: AppContext, request: WriteRequest, operation: Callable[[], Any], *, local: bool = False
) -> WriteOutcome:
    """Claim, run, audit, announce. `operation` calls the service and returns its result; with `local`, it
    changes samops' own records instead, in the transaction of its claim and audit row. Raises BusyError
    (nothing done, nothing sent) when the records stay locked."""
    reference = request.reference if is_reference(request.reference) else new_reference()
    db = ctx.db()
    # Checked here, in the write's own organization, whatever the caller checked: a role from the service
    # holds only where the service gives it (bot/roles.py); a write naming none, in all of them. Before the
    # claim, which is taken with the act's record: reading roles may ask the service, never under the lock.
    if request.org_id is None:
        denied = role_denied_everywhere(ctx, request.slack_user, request.needs)
    else:
        denied = role_denied(ctx, request.slack_user, request.needs, request.org_id)
    if denied:
        if cache.is_claimed(db, request.dedupe_key):
            return _duplicate(request, reference)
        why = "role not held there" if request.org_id is not None else "role not held in every organization"
        audit_denied(ctx, request.slack_user, request.command, request.org_id, why)
        return WriteOutcome(True, False, denied, reference)
    if local:
        return _run_local(ctx, db, request, reference, operation)
    # The claim and the row saying the request is on its way, together: from here the request may reach the
    # service, and whatever happens next the row is there (outcome "unknown" until settled).
    with cache.write_transaction(db):
        if not cache.claim_once(db, request.dedupe_key):
            row = None
        else:
            sent = f"{request.summary} — sent to the service; its outcome was not recorded (ref {reference})"
            row = _record(db, request, "unknown", sent, reference)
    if row is None:
        return _duplicate(request, reference)
    outcome, message, result = (
        "unknown",
        f"The outcome is unknown; check before trying again (ref {reference}).",
        None,
    )
    try:
        outcome, message, result = _call(operation, request, reference)
    finally:
        ok = outcome == "ok"
        _settle(db, row, outcome, request.summary if ok else f"{request.summary} — {message}", reference)
    _announce(ctx, request, outcome, reference)
    return WriteOutcome(True, ok, message, reference, result, unknown=outcome == "unknown")


def _duplicate(request: WriteRequest, reference: str) -> WriteOutcome:
    log.info(
        "ref=%s duplicate of an earlier %s by %s; not run again",
        reference,
        request.command,
        request.slack_user,
    )
    return WriteOutcome(False, True, "Already done (this request was received before).", reference)


def _run_local(
    ctx: AppContext,
    db: sqlite_utils.Database,
    request: WriteRequest,
    reference: str,
    operation: Callable[[], Any],
) -> WriteOutcome:
    """Claim, act and audit row in one transaction. An act that fails is rolled back to before it and its
    row says "failed": the claim and the row commit, the half-done act never does."""
    with cache.write_transaction(db):
        if not cache.claim_once(db, request.dedupe_key):
            return _duplicate(request, reference)
        with cache.savepoint(db) as undo:
            outcome, message, result = _call(operation, request, reference)
            if outcome != "ok":
                undo()
        ok = outcome == "ok"
        _record(db, request, outcome, request.summary if ok else f"{request.summary} — {message}", reference)
    _announce(ctx, request, outcome, reference)
    return WriteOutcome(True, ok, message, reference, result, unknown=outcome == "unknown")


def record_act(
    ctx: AppContext,
    act: Callable[[], T],
    request: Callable[[T], WriteRequest | None],
    *,
    claim: str | None = None,
    paced: str | None = None,
) -> tuple[bool, T | None]:
    """An act on samops' own records (a silence, a maintenance window, a lift, a tick) and its audit row, in
    one transaction: both commit or neither (docs/security.md). `act` runs under the write lock and returns
    what it did; `request(result)` says how to record it (None: nothing was done, no row). With `claim`, the
    Slack payload's dedupe key is claimed in the same transaction: (False, None) when it was taken before,
    nothing run. Then the audit channel's line (`paced` names a kind of write whose lines are bounded:
    ANNOUNCE_PER_MINUTE, the rest summed up in one line; every row is still written). Raises BusyError when
    the records stay locked: nothing was done."""
    db = ctx.db()
    reference = new_reference()
    with cache.write_transaction(db):
        if claim is not None and not cache.claim_once(db, claim):
            return False, None
        result = act()
        done = request(result)
        if done is not None:
            reference = done.reference if is_reference(done.reference) else reference
            _record(db, done, "ok", done.summary, reference)
    if done is not None:
        _announce_paced(ctx, done, reference, paced)
    return True, result


def _announce_paced(ctx: AppContext, request: WriteRequest, reference: str, paced: str | None) -> None:
    if paced is None:
        _announce(ctx, request, "ok", reference)
    elif (slot := _ANNOUNCE_PACE.admit(ctx, paced)) is not None:
        _announce(ctx, request, "ok", reference)
        slot[0] = time.monotonic()  # the minute counts from when the line was out, not from when it began


ANNOUNCE_PER_MINUTE = 10  # audit-channel lines a minute for a paced kind of write (maintenance windows)


class AnnouncePace:
    """At most `per_minute` audit-channel lines in any minute per kind of write; beyond it they are counted,
    and one line says how many a minute later (a timer), so a flood of writes is one line, not thousands.
    The audit rows are all written regardless."""

    def __init__(self, per_minute: int = ANNOUNCE_PER_MINUTE, minute_s: float = 60.0) -> None:
        self._per_minute = per_minute
        self._minute_s = minute_s
        self._lock = threading.Lock()
        self._posted: dict[str, collections.deque[list[float]]] = {}  # kind -> when its last lines went out
        self._held: dict[str, int] = {}  # kind -> lines not posted since the last summing up

    def admit(self, ctx: AppContext, kind: str) -> list[float] | None:
        """A slot for one line (the caller sets its time once the line is out), or None: held back."""
        now = time.monotonic()
        with self._lock:
            posted = self._posted.setdefault(kind, collections.deque())
            while posted and posted[0][0] <= now - self._minute_s:
                posted.popleft()
            held = self._held.get(kind, 0)
            if not held and len(posted) < self._per_minute:
                slot = [now]
                posted.append(slot)
                return slot
            self._held[kind] = held + 1
        if not held:  # the first held back: sum them up in a minute
            timer = threading.Timer(self._minute_s, self._sum_up, (ctx, kind))
            timer.daemon = True
            timer.start()
        return None

    def _sum_up(self, ctx: AppContext, kind: str) -> None:
        with self._lock:
            held = self._held.pop(kind, 0)
            self._posted.setdefault(kind, collections.deque()).append([time.monotonic()])
        channel = ctx.config.audit.channel
        if not held or not channel:
            return
        text = (
            f"➕ {held} more `{escape(kind)}` writes in the last minute, not posted one by one"
            f" (at most {self._per_minute} a minute): `/sam audit` lists them all."
        )
        try:
            ctx.web_client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])
        except (SlackApiError, SlackClientError, OSError) as err:
            log.warning("could not post the summary of %s %s writes to %s: %s", held, kind, channel, err)


_ANNOUNCE_PACE = AnnouncePace()


def _record(
    db: sqlite_utils.Database, request: WriteRequest, outcome: str, summary: str, reference: str
) -> int:
    """Append the write's audit row (in the caller's transaction); returns its id."""
    return cache.record_audit(
        db,
        slack_user=request.slack_user,
        command=request.command,
        org_id=request.org_id,
        outcome=outcome,
        summary=summary,
        reference=reference,
    )


def _settle(db: sqlite_utils.Database, row: int, outcome: str, summary: str, reference: str) -> None:
    """Write a service write's outcome into its row. The call is made, so the outcome is worth more waits
    than a new write; if the records stay locked, the row keeps saying "unknown" (true: the record does not
    know) and one WARNING line says so, with the outcome."""
    for attempt in range(SETTLE_TRIES):
        try:
            cache.settle_audit(db, row, outcome, summary)
            return
        except cache.BusyError:
            if attempt + 1 < SETTLE_TRIES:
                log.info("ref=%s records busy; writing the outcome again", reference)
    log.warning(
        "ref=%s records busy: the audit row keeps outcome unknown; the outcome was %s", reference, outcome
    )


def _call(operation: Callable[[], Any], request: WriteRequest, reference: str) -> tuple[str, str, Any]:
    """(audit outcome: ok, failed or unknown; the sentence for the person; the result)."""
    try:
        result = operation()
    except NotFoundError:
        log.info("ref=%s %s: not found", reference, request.command)
        return "failed", f"Not found: the service knows no such record (ref {reference}).", None
    except TransportError as err:
        log.warning("ref=%s %s: %s", reference, request.command, err)
        return "failed", f"The service did not answer in time; nothing was confirmed (ref {reference}).", None
    except APIError as err:
        log.warning("ref=%s %s: %s", reference, request.command, err)
        said = err.message or err.error or "no details"
        return (
            "failed",
            f"The service answered {err.status_code}: {said}; nothing was changed (ref {reference}).",
            None,
        )
    except OutcomeUnknownError as err:
        log.warning("ref=%s %s: %s", reference, request.command, err)
        return (
            "unknown",
            "The service answered, but not whether it was done: the outcome is unknown."
            f" Check in the service before retrying (ref {reference}).",
            None,
        )
    except SamError as err:
        log.warning("ref=%s %s: %s", reference, request.command, err)
        return "failed", f"The service call failed; nothing was confirmed (ref {reference}).", None
    except Exception as err:  # noqa: BLE001  # a bug of ours must still get an answer; the trace goes to the log
        log_failure(reference, request.command, err)
        return "failed", f"Something went wrong on our side (ref {reference}).", None
    failed = _failed_results(result)
    if failed:
        log.warning("ref=%s %s: service answered success=false: %s", reference, request.command, failed)
        return "failed", f"The service did not apply it: {failed} (ref {reference}).", result
    return "ok", "Done.", result


def _failed_results(result: Any) -> str:
    """Operation results with `success: false` (operation 4 answers a list of them)."""
    items = result if isinstance(result, list) else [result]
    messages = []
    for item in items:
        success = getattr(item, "success", None)
        if success is None and isinstance(item, dict):
            success = item.get("success")
        if success is False:
            message = getattr(item, "message", None) or (
                item.get("message") if isinstance(item, dict) else None
            )
            messages.append(str(message or "failed"))
    return "; ".join(messages)


_MARKS = {"ok": "✅", "failed": "❌", "unknown": "⚠️ outcome unknown:"}


def _announce(ctx: AppContext, request: WriteRequest, outcome: str, reference: str) -> None:
    channel = ctx.config.audit.channel
    if not channel:
        return
    mark = _MARKS[outcome]
    what = f"`{escape(request.command)}` — {typed(request.summary)}"  # a person's words in it
    text = mask_secret_words(f"{mark} <@{request.slack_user}> {what} (ref {reference})")
    try:
        ctx.web_client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])
    except (SlackApiError, SlackClientError, OSError) as err:
        # The audit row is the record; the channel is a courtesy. Say so in the log and carry on.
        log.warning("ref=%s could not post to audit channel %s: %s", reference, channel, err)


def answer_later(
    ctx: AppContext, meta: dict[str, Any], slack_user: str, text: str, blocks: list[Any] | None = None
) -> None:
    """Answer after a modal closed: through the originating command's response_url when we have it, else
    as an ephemeral message in its channel, else by direct message."""
    rendered = blocks_to_dicts(blocks or [])
    url = meta.get("response_url")
    if url and not seal_holds(meta):  # not the URL samops gave the modal: never posted to
        why = "its response_url is not the one samops gave it"
        audit_denied(ctx, slack_user, "answer after a form", why=why)
        url = None
    try:
        if url:
            response = WebhookClient(str(url), timeout=10).send(
                text=text, blocks=rendered or None, response_type="ephemeral", replace_original=False
            )
            if response.status_code == 200:
                return
            log.warning("response_url answered %s; falling back to chat", response.status_code)
        channel = meta.get("channel")
        if channel:
            ctx.web_client.chat_postEphemeral(
                channel=channel, user=slack_user, text=text, blocks=rendered or None
            )
        else:
            ctx.web_client.chat_postMessage(channel=slack_user, text=text, blocks=rendered or None)
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("could not answer %s after a modal: %s", slack_user, err)


def answer_outcome(
    ctx: AppContext,
    meta: dict[str, Any],
    slack_user: str,
    title: str,
    lines: list[str],
    outcome: WriteOutcome,
) -> None:
    """Answer a modal's write after it closed: the title, its lines, and the reference, marked ok or not."""
    blocks = write_answer(title, lines, outcome.reference, outcome.ok)
    answer_later(ctx, meta, slack_user, outcome_text(title, outcome), blocks)


def not_done_title(outcome: WriteOutcome, failed: str, attempted: str) -> str:
    """The title of a write that is not known done: `failed`, or "`attempted`: outcome unknown" when the
    service's answer did not say (it may well have been done)."""
    return f"{attempted}: outcome unknown" if outcome.unknown else failed


def outcome_text(title: str, outcome: WriteOutcome) -> str:
    """The fallback text of an answer: the title, and the reason when it failed."""
    text = title if outcome.ok or not outcome.ran else f"{title}. {outcome.message}"
    return escape(text)  # titles name service records and the message may quote the service
