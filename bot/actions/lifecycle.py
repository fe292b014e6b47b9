"""The lifecycle buttons of cards and their Resolve form: on alarm cards (and the App Home) Acknowledge,
"I'm on it", Resolve (a modal with a note); on storm cards "Acknowledge all" and "Resolve all"; on incident
cards Acknowledge, "I'm on it" and Resolve for every alarm of the incident (the same card-wide path: the
card's alarms are the incident's).

Each click re-checks the role (technicians and admins act; a viewer is refused, and the refusal audited),
finds the card from samops' own records (`bot/cards.py`; a click or form whose container, value or metadata
names another card is refused and audited, nothing changed), goes through `bot/writes.run_write` (its
payload claimed once: a Slack retry runs nothing; audited; announced in the audit channel), applies the
change with `core/lifecycle.py` (a double click changes nothing and says who was first), and re-renders the
card with `bot/cards.refresh_now` — the same card whether the click came from it or from the App Home.
Group actions also say in the card's thread which alarms. A click on the Home is answered on the Home, and
so is the Resolve form opened there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import StringConstraints
from slack_bolt import Ack, Respond
from slack_sdk.errors import SlackApiError, SlackClientError

from bot import cards
from bot.actions import plans as plan_gate
from bot.cards import Card, CardKind, Claim, card_at, card_of_alarm, claimed_card, disagreement, refresh_now
from bot.context import AppContext
from bot.forms.fields import FieldError, free_text
from bot.forms.submission import Submission, WriteModal, submitted
from bot.listener_errors import respond_privately
from bot.modals import modal_meta, open_modal
from bot.payloads import Id, ModalMeta, PayloadError, SlackId, part, read_event_id, read_id, slack_user
from bot.render import alarms as render
from bot.render.alarms import DISPOSITION, NOTE, RESOLVE_MODAL
from bot.render.common import Rendered
from bot.roles import Role
from bot.slash.registry import Invocation, Reply
from bot.writes import (
    WriteOutcome,
    WriteRequest,
    action_key,
    answer_later,
    audit_denied,
    dedupe_key,
    role_denied,
    run_write,
)
from core import cache, dispositions, keyholders, lifecycle, read
from core.cache import write_transaction
from core.clock import now_ms
from core.dispositions import Disposition, Dispositions
from core.lifecycle import MAX_NOTE, AlarmState, Change, Outcome, State
from core.reference import new_reference
from core.text import counted
from core.timefmt import local

if TYPE_CHECKING:
    from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

NEEDED = Role.TECHNICIAN  # acting on an alarm is a write: viewers watch
VERBS = {Change.ACKNOWLEDGED: "acknowledge", Change.ASSIGNED: "take", Change.RESOLVED: "resolve"}
DEFAULT_LIST = Dispositions()  # the documented defaults, when no list is configured
NOT_OURS = "This does not match the card samops posted for it; nothing was recorded (ref {ref})."

Answer = Callable[[str], None]


def _say(respond: Respond) -> Answer:
    return lambda text: respond_privately(respond, text)


def _refused(ctx: AppContext, user: str, command: str, answer: Answer) -> bool:
    """True (and the person told, the attempt audited) when `user` may not act on alarms."""
    denied = role_denied(ctx, user, NEEDED)
    if denied is None:
        return False
    audit_denied(ctx, user, command)
    answer(denied)
    return True


def _not_ours(ctx: AppContext, user: str, command: str, why: str, answer: Answer) -> None:
    """A click or form naming another card than samops' record: refused, audited, the card left alone."""
    answer(NOT_OURS.format(ref=audit_denied(ctx, user, command, why=why)))


# --- one alarm ---------------------------------------------------------------------------------------------


def change_alarm(
    ctx: AppContext,
    user: str,
    event_id: str,
    change: Change,
    key: str,
    note: str | None = None,
    reference: str = "",
    disposition: Disposition | None = None,
    with_changed: Callable[[list[str]], None] | None = None,
) -> tuple[WriteOutcome, Outcome | None]:
    """Apply `change` to one cached alarm, once per `key`, audited (resolving: as `disposition`).
    `with_changed` records more of the same act (an override's reason) in its transaction."""
    db = ctx.db()
    alarm = cache.get_alarm(db, event_id)
    assert alarm is not None
    verb = VERBS[change]
    summary = f"{verb} alarm {event_id}" + (f" with a note ({len(note)} characters)" if note else "")
    summary += audit_text(disposition)
    unchanged = _refusal(db, event_id, change, user)
    if unchanged:  # read before the write: the summary only; the write itself decides
        summary += f" (no change: {unchanged})"
    request = WriteRequest(user, f"alarm {verb} {event_id}", summary, key, alarm.org_id, reference)
    opened_at = alarm.activity_time

    def apply_one() -> Outcome:
        result = apply_change(db, event_id, change, user, now_ms(), opened_at, note, disposition)
        if with_changed is not None and result.changed:
            with_changed([event_id])
        return result

    # samops' own record: the change and its audit row in one transaction.
    outcome = run_write(ctx, request, apply_one, local=True)
    return outcome, outcome.result if isinstance(outcome.result, Outcome) else None


def apply_change(
    db: sqlite_utils.Database,
    event_id: str,
    change: Change,
    user: str,
    at: int,
    opened_at: int,
    note: str | None,
    disposition: Disposition | None,
) -> Outcome:
    """The lifecycle's change; a Resolve with a disposition keeps it with the resolution (one transaction)."""
    if change is Change.RESOLVED and disposition is not None:
        return dispositions.resolve(db, event_id, disposition, user, at, opened_at=opened_at, note=note)
    return lifecycle.apply(db, event_id, change, user, at, opened_at=opened_at, note=note)


def audit_text(disposition: Disposition | None) -> str:
    """What the audit row's summary says of the disposition: its code and label."""
    return f" as {disposition.code} ({disposition.label})" if disposition is not None else ""


def _refusal(db: sqlite_utils.Database, event_id: str, change: Change, user: str) -> str:
    """Why `change` would change nothing of the alarm now ("" when it would)."""
    before = lifecycle.get(db, event_id)
    return lifecycle.refusal(before, change, user) if before is not None else ""


def unchanged_text(state: AlarmState, reason: str, ctx: AppContext, user: str) -> str:
    """The answer to `user` alone: on their clock (their Slack zone, else the alarm's organization's)."""
    alarm = cache.get_alarm(ctx.db(), state.event_id)
    zone = ctx.reader_zones(user)(alarm.org_id if alarm is not None else None)
    if reason == "already acknowledged" and state.acknowledged_at is not None:
        when = local(state.acknowledged_at, zone, seconds=True)
        return f"Already acknowledged by <@{state.acknowledged_by}> at {when}."
    if reason == "already resolved" and state.resolved_at is not None:
        when = local(state.resolved_at, zone, seconds=True)
        return f"Already resolved by {render.person(state.resolved_by)} at {when}."
    if reason == "already yours":
        return "You already hold this alarm."
    return f"Nothing changed: the alarm is {reason}."


def _cached_event(ctx: AppContext, action: dict[str, Any], answer: Answer) -> str | None:
    try:
        event_id = read_event_id(action.get("value"))
    except PayloadError as err:
        answer(str(err))
        return None
    if cache.get_alarm(ctx.db(), event_id) is None:
        answer("This alarm is not in samops' cache (a full sync may have removed it); nothing was recorded.")
        return None
    return event_id


@dataclass(frozen=True)
class Target:
    """The alarm a click or form acts on, and its card as samops recorded it (None: never posted to Slack)."""

    event_id: str
    card: Card | None


def _clicked_alarm(
    ctx: AppContext, verb: str, body: dict[str, Any], action: dict[str, Any], answer: Answer
) -> tuple[str, Claim, Target] | None:
    """Who clicked `alarm <verb>` on which card, and the alarm it acts on; None once the person was answered
    (refused, not cached, another card)."""
    user = slack_user(body)
    command = f"alarm {verb} {str(action.get('value') or '')[:200]}"
    if _refused(ctx, user, command, answer):
        return None
    claim = cards.claimed(ctx.db(), body)
    target = _alarm_target(ctx, user, command, action, claim, answer)
    return None if target is None else (user, claim, target)


def _alarm_target(
    ctx: AppContext, user: str, command: str, action: dict[str, Any], claim: Claim, answer: Answer
) -> Target | None:
    """The clicked alarm and its card, or None once the person was answered (not cached, another card)."""
    event_id = _cached_event(ctx, action, answer)
    if event_id is None:
        return None
    card = card_of_alarm(ctx.db(), event_id)
    why = disagreement(claim, card) or cards.page_disagreement(claim, event_id)
    if why is not None:
        _not_ours(ctx, user, command, why, answer)
        return None
    return Target(event_id, card)


def _after_change(ctx: AppContext, result: Outcome, card: Card | None, home: bool, answer: Answer) -> None:
    """Re-render the alarm's card; say what happened where no card shows it (the Home, a card not edited),
    and tell whoever took an open alarm it still needs acknowledging (taking does not stop its escalation)."""
    edited = card is not None and refresh_now(ctx, card)
    if result.state.state is State.OPEN:
        updated = "; its card is updated" if edited else ""
        answer(
            f"You hold this alarm now{updated}. It is still open: *Acknowledge* it too, or it goes on "
            "escalating (and paging you)."
        )
    elif home or not edited:
        answer(
            f"Done: the alarm is {result.state.state.value}" + ("; its card is updated." if edited else ".")
        )


def _on_change(
    ctx: AppContext, change: Change, body: dict[str, Any], action: dict[str, Any], answer: Answer
) -> None:
    found = _clicked_alarm(ctx, VERBS[change], body, action, answer)
    if found is None:
        return
    user, claim, target = found
    outcome, result = change_alarm(ctx, user, target.event_id, change, action_key(body, action))
    if not outcome.ran:
        return  # a Slack retry of a click already handled: the first one answered
    if result is None:
        answer(outcome.message)
    elif not result.changed:
        answer(unchanged_text(result.state, result.reason, ctx, user))
    else:
        # A page's reader is answered: the card that changed is elsewhere.
        _after_change(ctx, result, target.card, claim.home or claim.page_of is not None, answer)


def on_ack(ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    ack()
    _on_change(ctx, Change.ACKNOWLEDGED, body, action, _say(respond))


def on_take(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    _on_change(ctx, Change.ASSIGNED, body, action, _say(respond))


# --- storm and incident cards: every alarm of the card -----------------------------------------------------


def card_alarms(db: sqlite_utils.Database, card: Card) -> list[tuple[str, int]]:
    """(event_id, time) of every alarm the card acts on: an incident card's are the incident's alarms
    (wherever each was posted), a storm card's those grouped into it."""
    if card.kind is CardKind.INCIDENT and card.incident_id is not None:
        return cache.incident_alarms(db, card.incident_id)
    if card.kind is CardKind.STORM:
        return read.card_alarms(db, card.channel, card.ts)
    return []


def _card_name(card: Card) -> str:
    if card.kind is CardKind.INCIDENT:
        return f"incident {card.incident_id} (card {card.ts} in {card.channel})"
    return f"storm card {card.ts} in {card.channel}"


def change_card(
    ctx: AppContext,
    user: str,
    card: Card,
    change: Change,
    key: str,
    note: str | None = None,
    reference: str = "",
    disposition: Disposition | None = None,
    with_changed: Callable[[list[str]], None] | None = None,
) -> tuple[WriteOutcome, list[tuple[str, int]]]:
    """Apply `change` to every alarm of the storm or incident card in one transaction, once per `key`,
    audited as one write; returns the write's outcome and the (event_id, time) of the alarms it changed."""
    db = ctx.db()
    alarms = card_alarms(db, card)
    verb = VERBS[change]
    # Counted before the write, for the summary only (as for one alarm): the write itself decides.
    changing = sum(1 for event_id, _ in alarms if not _refusal(db, event_id, change, user))
    summary = f"{verb} {changing} of the {counted(len(alarms), 'alarm')} of the {_card_name(card)}"
    if note:
        summary += f" with a note ({len(note)} characters)"
    summary += audit_text(disposition)
    if not changing:
        summary += " (no change)"
    # The card's panel names its organization: the role is checked there (a role from the service holds
    # only where the service gives it); a card with no known panel needs the role in every organization.
    org_id = read.panel_org(db, card.resource_id) if card.resource_id is not None else None
    request = WriteRequest(user, f"alarm {verb} all {card.ts}", summary, key, org_id, reference)

    def apply_all() -> list[tuple[str, int]]:
        at = now_ms()
        changed = []
        with write_transaction(db):  # joins run_write's, with the claim and the audit row
            for event_id, opened_at in alarms:
                result = apply_change(db, event_id, change, user, at, opened_at, note, disposition)
                if result.changed:
                    changed.append((event_id, opened_at))
            if with_changed is not None and changed:
                with_changed([e for e, _ in changed])
        return changed

    outcome = run_write(ctx, request, apply_all, local=True)
    return outcome, outcome.result if isinstance(outcome.result, list) else []


def after_card_change(
    ctx: AppContext,
    user: str,
    card: Card,
    change: Change,
    changed: list[tuple[str, int]],
    note: str | None = None,
    disposition: Disposition | None = None,
) -> None:
    """Say in the card's thread which alarms changed, and re-render the card to its new counts."""
    db = ctx.db()
    alarms = card_alarms(db, card)
    first = cache.get_alarm(db, alarms[0][0]) if alarms else None
    if first is None:
        return
    if changed:
        zone = ctx.config.notify.zone_for(first.org_id)
        message = render.group_handled(user, change, changed, zone, note, disposition and disposition.label)
        _say_in_thread(ctx, card, message)
    refresh_now(ctx, card)


def said_resolved(
    ctx: AppContext,
    card: Card | None,
    user: str,
    event_id: str,
    note: str | None,
    disposition: Disposition | None,
) -> None:
    """Say in the thread of the alarm's card that it was resolved, as what (a storm or incident card's
    thread lists it as one alarm of the card, as Resolve all does)."""
    alarm = cache.get_alarm(ctx.db(), event_id)
    if card is None or alarm is None:
        return
    label = disposition.label if disposition is not None else None
    if card.kind is CardKind.ALARM:
        message = render.alarm_resolved(user, label, note)
    else:
        zone = ctx.config.notify.zone_for(alarm.org_id)
        message = render.group_handled(
            user, Change.RESOLVED, [(event_id, alarm.activity_time)], zone, note, label
        )
    _say_in_thread(ctx, card, message)


def _say_in_thread(ctx: AppContext, card: Card, message: Rendered) -> None:
    """A reply in the card's thread; a Slack failure is a warning (the change itself is recorded)."""
    try:
        ctx.web_client.chat_postMessage(
            channel=card.channel,
            thread_ts=card.ts,
            text=message.text,
            blocks=message.blocks,
            unfurl_links=False,
        )
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("could not post in the card's thread: %s", err)


def group_card(ctx: AppContext, claim: Claim, value: object) -> tuple[Card | None, str | None]:
    """The storm or incident card a group click or form names, as samops recorded it, or why not."""
    if claim.malformed:
        return None, "the click's container is not one Slack sends"
    if claim.channel is None or claim.ts is None:
        return None, "the click names no card"
    card = card_at(ctx.db(), claim.channel, claim.ts)
    if card is None or card.kind is CardKind.ALARM:
        return None, "samops posted no storm or incident card there"
    try:
        panel = read_id(value, "This button")
    except PayloadError:
        return None, "the button names no panel"
    if panel != card.resource_id:
        return None, f"the card is of panel {card.resource_id}, not the one the button names"
    return card, None


def _group_target(
    ctx: AppContext, body: dict[str, Any], action: dict[str, Any], answer: Answer, command: str
) -> tuple[str, Card] | None:
    """The clicking user and the storm or incident card, or None once the user was answered."""
    user = slack_user(body)
    card, why = group_card(ctx, claimed_card(body), action.get("value"))
    # A refusal is audited with the card it was for, as the write would have been (change_card's command).
    if _refused(ctx, user, f"{command} {card.ts}" if card is not None else command, answer):
        return None
    if card is None:
        _not_ours(ctx, user, command, why or "", answer)
        return None
    if not card_alarms(ctx.db(), card):
        answer("This card holds no alarms samops knows of; nothing was recorded.")
        return None
    return user, card


# "Acknowledge all" and "I'm on it" of a whole card: what each is audited as, its answer when nothing changed.
WHOLE_CARD = {
    Change.ACKNOWLEDGED: (
        "alarm acknowledge all",
        "Every alarm of this card was already acknowledged or resolved.",
    ),
    Change.ASSIGNED: ("alarm take all", "You already hold every open alarm of this card."),
}


def _change_whole_card(
    ctx: AppContext, body: dict[str, Any], action: dict[str, Any], answer: Answer, change: Change
) -> None:
    """Acknowledge all / I'm on it on a storm or incident card: `change` on every alarm of the card."""
    command, none_changed = WHOLE_CARD[change]
    found = _group_target(ctx, body, action, answer, command)
    if found is None:
        return
    user, card = found
    outcome, changed = change_card(ctx, user, card, change, action_key(body, action))
    if not outcome.ran:
        return
    if not outcome.ok:
        answer(outcome.message)
        return
    if not changed:
        answer(none_changed)
    after_card_change(ctx, user, card, change, changed)


def on_ack_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    _change_whole_card(ctx, body, action, _say(respond), Change.ACKNOWLEDGED)


def on_take_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    """An incident card's "I'm on it": every alarm of the incident assigned to the clicker."""
    ack()
    _change_whole_card(ctx, body, action, _say(respond), Change.ASSIGNED)


# --- the Resolve form ------------------------------------------------------------------------------------


class ResolveMeta(ModalMeta):
    """The Resolve form's metadata: which alarm or card it resolves, as the click named it. samops' record
    of that alarm's card must agree with `channel` and `ts` when they are given (`resolve`)."""

    ts: SlackId | None = None  # the card's message
    e: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None  # one alarm
    all: bool = False  # every alarm of the storm or incident card
    r: Id | None = None  # the card's panel (every alarm of it)
    home: bool = False  # opened from the App Home: answered there
    ov: bool = False  # an admin's, with action-plan steps left: it asks why (bot/actions/plans.py)


@dataclass(frozen=True)
class ResolveForm:
    note: str | None
    override: str | None = None  # an admin's reason to resolve with mandatory steps left
    disposition: Disposition | None = None  # required by the form; None only for a form without the field


def _invocation(body: dict[str, Any], user: str, role: Role, claim: Claim) -> Invocation:
    trigger = body.get("trigger_id")
    url = body.get("response_url")
    return Invocation(
        user_id=user,
        channel_id=claim.channel or "",
        team_id=str(part(body, "team").get("id") or ""),
        text="",
        args=(),
        org_id=None,
        role=role,
        trigger_id=trigger if isinstance(trigger, str) else None,
        response_url=url if isinstance(url, str) else None,
        reference=new_reference(),
    )


def form_key(ref: str | None, user: str, meta: dict[str, Any]) -> str:
    """What samops records of a Resolve form it opened: its reference, who, and what it resolves."""
    target = [meta.get(k) for k in ("e", "channel", "ts", "r")] + [bool(meta.get(k)) for k in ("all", "home")]
    return dedupe_key("resolve form", ref, user, *target)


def _open_resolve(
    ctx: AppContext,
    body: dict[str, Any],
    answer: Answer,
    what: str,
    claim: Claim,
    hint: str | None = None,
    respond: Respond | None = None,
    **target: Any,
) -> None:
    """Open the Resolve form; `hint` is shown under its disposition menu (`Dispositions.suggestion`). In a
    local run (no Slack) the answer through `respond` carries the form, for `samops slash --click … --submit`
    to fill as Slack would."""
    user = slack_user(body)
    inv = _invocation(body, user, ctx.roles.role_of(user), claim)
    meta = modal_meta(inv, ts=claim.ts, **({"home": True} if claim.home else {}), **target)
    # The form's metadata comes back with its submission, where anyone holding the request may change it:
    # samops keeps its own record of the form (as long as a write's claim), and the submission must match.
    cache.claim_once(ctx.db(), form_key(inv.reference, user, meta))
    reply = open_modal(
        ctx,
        inv,
        "Resolve alarm",
        lambda: render.resolve_modal(meta, what, ctx.config.disposition_list().options(), hint),
        without_slack=lambda: Reply(text=f"Resolve {what}: say how it was closed, and add a note."),
    )
    if reply is not None and reply.form is not None and respond is not None:
        from bot.slash.router import answer as answer_reply  # the slash answer's shape, form included

        answer_reply(respond, reply)
    elif reply is not None:
        answer(reply.text)


def on_resolve(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    answer = _say(respond)
    found = _clicked_alarm(ctx, VERBS[Change.RESOLVED], body, action, answer)
    if found is None:
        return
    user, claim, target = found
    state = lifecycle.get(ctx.db(), target.event_id)
    if state is not None and state.state is lifecycle.State.RESOLVED:
        answer(unchanged_text(state, "already resolved", ctx, user))
        return
    if (plan := plan_gate.at_click(ctx, user, [target.event_id], answer)) is None:
        return
    hint = resolve_hint(ctx, target.event_id)
    what = f"alarm `{target.event_id}`"
    _open_resolve(ctx, body, answer, what, claim, hint, respond, e=target.event_id, **plan)


def resolve_hint(ctx: AppContext, event_id: str) -> str | None:
    """The Resolve form's suggestion from the alarm's keyholder line (core/keyholders.py): inside an
    authorized user's window, "Suggested: False alarm: user error — During the access window of …". A hint
    only: the menu is never preselected, and a configured list without that code suggests nothing."""
    db = ctx.db()
    alarm = cache.get_alarm(db, event_id)
    if alarm is None:
        return None
    found = keyholders.context_of(db, alarm, ctx.config.notify.zone_for(alarm.org_id))
    code = keyholders.suggested_disposition(found)
    return ctx.config.disposition_list().suggestion(code, found.text if found is not None else None)


def on_resolve_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    answer = _say(respond)
    found = _group_target(ctx, body, action, answer, "alarm resolve all")
    if found is None:
        return
    user, card = found
    count = len(card_alarms(ctx.db(), card))
    if (plan := plan_gate.at_click(ctx, user, [e for e, _ in card_alarms(ctx.db(), card)], answer)) is None:
        return
    what = "incident" if card.kind is CardKind.INCIDENT else "storm card"
    _open_resolve(
        ctx,
        body,
        answer,
        f"all {counted(count, 'alarm')} of this {what}",
        claimed_card(body),
        respond=respond,
        all=True,
        r=card.resource_id,
        **plan,
    )


def resolve_command(meta: ResolveMeta | None) -> str:
    """The audit log's command for a Resolve form: its alarm, or "all" and the card the form was opened on
    (as change_card names it), so a refused submission is audited with its card too."""
    if meta is None:
        return "alarm resolve ?"
    if meta.e is not None:
        return f"alarm resolve {meta.e}"
    return f"alarm resolve all {meta.ts}" if meta.ts else "alarm resolve all"


def read_disposition(view: dict[str, Any], listed: Dispositions) -> tuple[Disposition | None, str]:
    """The chosen disposition, looked up in the configured list (the submitted value is only a key), or
    the error to show under the field."""
    code = submitted(view).get(DISPOSITION)
    if code is None or code == "":
        return None, "choose how the alarm was closed"
    found = listed.get(code)
    return (found, "") if found is not None else (None, "that is not one of the dispositions; choose again")


def disposition_field(view: dict[str, Any]) -> str:
    """Where the disposition's error goes: under its menu, or, in a form opened before samops asked for one
    (Slack refuses an error naming a block the view does not hold), under the note."""
    blocks = view.get("blocks")
    listed = blocks if isinstance(blocks, list) else []
    has_menu = any(isinstance(b, dict) and b.get("block_id") == DISPOSITION for b in listed)
    return DISPOSITION if has_menu else NOTE


def read_note(
    meta: ResolveMeta, view: dict[str, Any], listed: Dispositions = DEFAULT_LIST
) -> tuple[ResolveForm | None, dict[str, str]]:
    """The note: optional free text, lines kept; control characters other than layout are refused. And
    the disposition, required, one of those `listed`."""
    if (meta.e is None) == (not meta.all) or (meta.all and (meta.channel is None or meta.ts is None)):
        return None, {NOTE: "this form lost its alarm; click Resolve on the card again"}
    disposition, problem = read_disposition(view, listed)
    errors: dict[str, str] = {}
    if problem and disposition_field(view) == NOTE:
        errors = {NOTE: "samops now asks how the alarm was closed: close this form and click Resolve again"}
    elif problem:
        errors = {DISPOSITION: problem}
    try:
        note = free_text(submitted(view).get(NOTE), NOTE).strip()
    except FieldError as err:
        return None, {**errors, NOTE: err.message}
    if len(note) > MAX_NOTE:
        return None, {**errors, NOTE: f"at most {MAX_NOTE} characters"}
    override, problem = plan_gate.read_override(meta.ov, view)
    if errors or problem:
        return None, {**errors, **problem}
    return ResolveForm(note or None, override, disposition), {}


def _form_answer(ctx: AppContext, sub: Submission[ResolveMeta, ResolveForm]) -> Answer:
    """Where the form's answers go: the Home it was opened from, else the card's channel or a DM."""
    home = ctx.home_note if sub.meta.home else None

    def answer(text: str) -> None:
        if home is not None:
            home(sub.slack_user, text)
        else:
            answer_later(ctx, sub.answer_to, sub.slack_user, text)

    return answer


def resolve(ctx: AppContext, sub: Submission[ResolveMeta, ResolveForm]) -> None:
    meta, note, user = sub.meta, sub.form.note, sub.slack_user
    answer = _form_answer(ctx, sub)
    claim = Claim(meta.channel, meta.ts, home=meta.home)
    command = RESOLVE.command(meta)
    if not cache.is_claimed(ctx.db(), form_key(meta.ref, user, meta.model_dump())):
        _not_ours(ctx, user, command, "the form is not one samops opened for this alarm or card", answer)
        return
    if meta.all:
        card, why = group_card(ctx, claim, str(meta.r) if meta.r is not None else None)
        if card is None:
            _not_ours(ctx, user, command, why or "", answer)
            return
        members = [e for e, _ in card_alarms(ctx.db(), card)]
        if not plan_gate.may_resolve(ctx, user, members, sub.form.override, command, answer):
            return
        disposition = sub.form.disposition
        ref = meta.ref or ""
        # An override of steps left is recorded in the resolve's own transaction (one act, one commit).
        override = partial(plan_gate.after_resolve, ctx, user, reason=sub.form.override)
        outcome, changed = change_card(
            ctx, user, card, Change.RESOLVED, sub.key, note, ref, disposition, with_changed=override
        )
        if outcome.ran and outcome.ok:
            after_card_change(ctx, user, card, Change.RESOLVED, changed, note, disposition)
            if not changed:
                answer("Every alarm of this card was already resolved.")
        elif outcome.ran:
            answer(outcome.message)
        return
    assert meta.e is not None
    if cache.get_alarm(ctx.db(), meta.e) is None:
        answer("This alarm is not in samops' cache any more; nothing was recorded.")
        return
    card = card_of_alarm(ctx.db(), meta.e)
    why = disagreement(claim, card)
    if why is not None:
        _not_ours(ctx, user, command, why, answer)
        return
    if not plan_gate.may_resolve(ctx, user, [meta.e], sub.form.override, command, answer):
        return
    disposition = sub.form.disposition
    ref = meta.ref or ""
    override = partial(plan_gate.after_resolve, ctx, user, reason=sub.form.override)  # in its transaction
    outcome, result = change_alarm(
        ctx, user, meta.e, Change.RESOLVED, sub.key, note, ref, disposition, with_changed=override
    )
    if not outcome.ran:
        return
    if result is None:
        answer(outcome.message)
    elif not result.changed:
        answer(unchanged_text(result.state, result.reason, ctx, user))
    else:
        if meta.home:
            _after_change(ctx, result, card, True, answer)
        elif card is None or not refresh_now(ctx, card):
            answer("Resolved.")
        said_resolved(ctx, card, user, meta.e, note, disposition)


RESOLVE: WriteModal[ResolveMeta, ResolveForm] = WriteModal(
    callback_id=RESOLVE_MODAL,
    first_field=NOTE,
    meta_type=ResolveMeta,
    lost="this form lost its alarm; click Resolve on the card again",
    read=read_note,
    command=resolve_command,
    write=resolve,
)


def resolve_form(listed: Dispositions) -> WriteModal[ResolveMeta, ResolveForm]:
    """The Resolve form as registered: its disposition checked against the configured list."""
    return replace(RESOLVE, read=partial(read_note, listed=listed))
