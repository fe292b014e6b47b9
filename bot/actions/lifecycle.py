"""The lifecycle buttons of alarm cards: Acknowledge, "I'm on it", Resolve (a modal with a note), on storm
cards "Acknowledge all" and "Resolve all", and on incident cards Acknowledge, "I'm on it" and Resolve for
every alarm of the incident (the same card-wide path: the card's alarms are the incident's).

Each click re-checks the role (technicians and admins act; a viewer is refused, and the refusal audited),
goes through `bot/writes.run_write` (its payload claimed once: a Slack retry runs nothing; audited; announced
in the audit channel), applies the change with `core/lifecycle.py` (a double click changes nothing and says
who was first), and edits the card in place. Group actions also say in the card's thread which alarms.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_bolt import Ack, Respond
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.context import AppContext
from bot.modals import modal_meta, open_modal
from bot.notify.incidents import incident_view
from bot.payloads import PayloadError, read_event_id, slack_user
from bot.render import alarms as render
from bot.render.incidents import incident_card
from bot.roles import Role
from bot.slash.registry import Invocation, Reply
from bot.writes import WriteOutcome, WriteRequest, audit_denied, dedupe_key, role_denied, run_write
from core import lifecycle, read
from core.cache import incidents, outbox
from core.cache.transactions import write_transaction
from core.clock import now_ms
from core.lifecycle import AlarmState, Change, Outcome
from core.read import handling
from core.reference import new_reference
from core.text import counted
from core.timefmt import local

if TYPE_CHECKING:
    from core.sqlite_lib import sqlite_utils

log = logging.getLogger(__name__)

NEEDED = Role.TECHNICIAN  # acting on an alarm is a write: viewers watch
VERBS = {Change.ACKNOWLEDGED: "acknowledge", Change.ASSIGNED: "take", Change.RESOLVED: "resolve"}


@dataclass(frozen=True)
class Card:
    """Where the clicked card is: its channel and message ts (None for a click outside a message)."""

    channel: str | None
    ts: str | None


def card_of(body: dict[str, Any]) -> Card:
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    ts = (body.get("container") or {}).get("message_ts") or (body.get("message") or {}).get("ts")
    ok = isinstance(channel, str) and isinstance(ts, str) and len(channel) <= 64 and len(ts) <= 64
    return Card(channel, ts) if ok else Card(None, None)


def action_key(body: dict[str, Any], action: dict[str, Any]) -> str:
    """One click: Slack repeats the payload (action_ts included) on a retry; a second click has its own."""
    card = card_of(body)
    return dedupe_key("action", action.get("action_id"), action.get("value"), action.get("action_ts"),
                      slack_user(body), card.channel, card.ts)  # fmt: skip


def _say(respond: Respond, text: str) -> None:
    respond(text=text, response_type="ephemeral", replace_original=False)


def _refused(ctx: AppContext, user: str, command: str, respond: Respond) -> bool:
    """True (and the person told, the attempt audited) when `user` may not act on alarms."""
    denied = role_denied(ctx, user, NEEDED)
    if denied is None:
        return False
    audit_denied(ctx, user, command)
    _say(respond, denied)
    return True


# --- one alarm ---------------------------------------------------------------------------------------------


def change_alarm(
    ctx: AppContext, user: str, event_id: str, change: Change, key: str, note: str | None = None,
    reference: str = "",
) -> tuple[WriteOutcome, Outcome | None]:  # fmt: skip
    """Apply `change` to one cached alarm, once per `key`, audited."""
    db = ctx.db()
    alarm = outbox.get_alarm(db, event_id)
    assert alarm is not None
    verb = VERBS[change]
    summary = f"{verb} alarm {event_id}" + (f" with a note ({len(note)} characters)" if note else "")
    unchanged = _refusal(db, event_id, change, user)
    if unchanged:  # read before the write: the summary only; the write itself decides
        summary += f" (no change: {unchanged})"
    request = WriteRequest(user, f"alarm {verb} {event_id}", summary, key, alarm.org_id, reference)
    opened_at = alarm.activity_time
    outcome = run_write(
        ctx,
        request,
        lambda: lifecycle.apply(db, event_id, change, user, now_ms(), opened_at=opened_at, note=note),
    )
    return outcome, outcome.result if isinstance(outcome.result, Outcome) else None


def _refusal(db: sqlite_utils.Database, event_id: str, change: Change, user: str) -> str:
    """Why `change` would change nothing of the alarm now ("" when it would)."""
    before = lifecycle.get(db, event_id)
    return lifecycle.refusal(before, change, user) if before is not None else ""


def unchanged_text(state: AlarmState, reason: str, ctx: AppContext) -> str:
    alarm = outbox.get_alarm(ctx.db(), state.event_id)  # its organization's zone, as on its card
    zone = ctx.config.notify.zone_for(alarm.org_id if alarm is not None else None)
    if reason == "already acknowledged" and state.acknowledged_at is not None:
        when = local(state.acknowledged_at, zone, seconds=True)
        return f"Already acknowledged by <@{state.acknowledged_by}> at {when}."
    if reason == "already resolved" and state.resolved_at is not None:
        when = local(state.resolved_at, zone, seconds=True)
        return f"Already resolved by <@{state.resolved_by}> at {when}."
    if reason == "already yours":
        return "You already hold this alarm."
    return f"Nothing changed: the alarm is {reason}."


def update_alarm_card(ctx: AppContext, event_id: str, card: Card) -> bool:
    """Edit the alarm's card in place to show its state; False when it could not be."""
    db = ctx.db()
    alarm = outbox.get_alarm(db, event_id)
    if alarm is None or card.channel is None or card.ts is None:
        return False
    config, url = ctx.config.notify, ctx.dashboard_url
    rendered = render.alarm_card(alarm, config.zone_for(alarm.org_id), _data_as_of(db), url,
                                 state=lifecycle.get(db, event_id))  # fmt: skip
    return _update(ctx, card, rendered)


def _update(ctx: AppContext, card: Card, rendered: render.Rendered) -> bool:
    if card.channel is None or card.ts is None:
        return False
    try:
        ctx.web_client.chat_update(channel=card.channel, ts=card.ts, text=rendered.text,
                                   attachments=rendered.attachments, blocks=rendered.blocks)  # fmt: skip
    except (SlackApiError, SlackClientError, OSError) as err:
        log.warning("could not update the alarm card: %s", err)
        return False
    return True


def _data_as_of(db: sqlite_utils.Database) -> int | None:
    return next((r.last_success for r in read.freshness(db) if r.table == "activities"), None)


def _cached_event(ctx: AppContext, action: dict[str, Any], respond: Respond) -> str | None:
    try:
        event_id = read_event_id(action.get("value"))
    except PayloadError as err:
        _say(respond, str(err))
        return None
    if outbox.get_alarm(ctx.db(), event_id) is None:
        _say(
            respond,
            "This alarm is not in samops' cache (a full sync may have removed it); nothing was recorded.",
        )
        return None
    return event_id


def _on_change(
    ctx: AppContext, change: Change, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    user = slack_user(body)
    value = str(action.get("value") or "")[:200]
    if _refused(ctx, user, f"alarm {VERBS[change]} {value}", respond):
        return
    event_id = _cached_event(ctx, action, respond)
    if event_id is None:
        return
    outcome, result = change_alarm(ctx, user, event_id, change, action_key(body, action))
    if not outcome.ran:
        return  # a Slack retry of a click already handled: the first one answered
    if result is None:
        _say(respond, outcome.message)
        return
    if not result.changed:
        _say(respond, unchanged_text(result.state, result.reason, ctx))
        return
    if not update_alarm_card(ctx, event_id, card_of(body)):
        _say(respond, f"Done: the alarm is {result.state.state.value}.")


def on_ack(ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    ack()
    _on_change(ctx, Change.ACKNOWLEDGED, body, action, respond)


def on_take(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    _on_change(ctx, Change.ASSIGNED, body, action, respond)


# --- the resolve modal ----------------------------------------------------------------------------------


def _invocation(body: dict[str, Any], user: str, role: Role) -> Invocation:
    card = card_of(body)
    trigger = body.get("trigger_id")
    url = body.get("response_url")
    return Invocation(
        user_id=user,
        channel_id=card.channel or "",
        team_id=str((body.get("team") or {}).get("id") or ""),
        text="",
        args=(),
        org_id=None,
        role=role,
        trigger_id=trigger if isinstance(trigger, str) else None,
        response_url=url if isinstance(url, str) else None,
        reference=new_reference(),
    )


def _open_resolve(ctx: AppContext, body: dict[str, Any], respond: Respond, what: str, **target: Any) -> None:
    user = slack_user(body)
    inv = _invocation(body, user, ctx.roles.role_of(user))
    meta = modal_meta(inv, ts=card_of(body).ts, **target)
    reply = open_modal(
        ctx,
        inv,
        "Resolve alarm",
        lambda: render.resolve_modal(meta, what),
        without_slack=lambda: Reply(text="Resolving opens a form, which needs Slack; use the card in Slack."),
    )
    if reply is not None:
        _say(respond, reply.text)


def on_resolve(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    user = slack_user(body)
    if _refused(ctx, user, f"alarm resolve {str(action.get('value') or '')[:200]}", respond):
        return
    event_id = _cached_event(ctx, action, respond)
    if event_id is None:
        return
    state = lifecycle.get(ctx.db(), event_id)
    if state is not None and state.state is lifecycle.State.RESOLVED:
        _say(respond, unchanged_text(state, "already resolved", ctx))
        return
    _open_resolve(ctx, body, respond, f"alarm `{event_id}`", e=event_id)


# --- storm and incident cards: every alarm of the card -----------------------------------------------------


def card_alarms(db: sqlite_utils.Database, card: Card) -> list[tuple[str, int]]:
    """(event_id, time) of every alarm the card acts on: an incident card's are the incident's alarms
    (wherever each was posted), a storm card's those grouped into it."""
    if card.channel is None or card.ts is None:
        return []
    incident = incidents.by_card(db, card.channel, card.ts)
    if incident is not None:
        return incidents.alarms(db, incident.id)
    return handling.card_alarms(db, card.channel, card.ts)


def _card_name(db: sqlite_utils.Database, card: Card) -> str:
    incident = incidents.by_card(db, card.channel or "", card.ts or "")
    if incident is not None:
        return f"incident {incident.id} (card {card.ts} in {card.channel})"
    return f"storm card {card.ts} in {card.channel}"


def change_card(
    ctx: AppContext, user: str, card: Card, change: Change, key: str, note: str | None = None,
    reference: str = "",
) -> tuple[WriteOutcome, list[tuple[str, int]]]:  # fmt: skip
    """Apply `change` to every alarm of the storm card in one transaction, once per `key`, audited as one
    write; returns the write's outcome and the (event_id, time) of the alarms it changed."""
    db = ctx.db()
    assert card.channel is not None and card.ts is not None
    alarms = card_alarms(db, card)
    verb = VERBS[change]
    # Counted before the write, for the summary only (as for one alarm): the write itself decides.
    changing = sum(1 for event_id, _ in alarms if not _refusal(db, event_id, change, user))
    summary = f"{verb} {changing} of the {counted(len(alarms), 'alarm')} of the {_card_name(db, card)}"
    if note:
        summary += f" with a note ({len(note)} characters)"
    if not changing:
        summary += " (no change)"
    request = WriteRequest(user, f"alarm {verb} all {card.ts}", summary, key, None, reference)

    def apply_all() -> list[tuple[str, int]]:
        at = now_ms()
        changed = []
        with write_transaction(db):
            for event_id, opened_at in alarms:
                result = lifecycle.apply(db, event_id, change, user, at, opened_at=opened_at, note=note)
                if result.changed:
                    changed.append((event_id, opened_at))
        return changed

    outcome = run_write(ctx, request, apply_all)
    return outcome, outcome.result if isinstance(outcome.result, list) else []


def after_card_change(ctx: AppContext, user: str, card: Card, change: Change, changed: list[tuple[str, int]],
                      note: str | None = None) -> None:  # fmt: skip
    """Say in the card's thread which alarms changed, and edit the card to its new counts."""
    db = ctx.db()
    assert card.channel is not None and card.ts is not None
    alarms = card_alarms(db, card)
    first = outbox.get_alarm(db, alarms[0][0]) if alarms else None
    if first is None:
        return
    config, url = ctx.config.notify, ctx.dashboard_url
    zone = config.zone_for(first.org_id)
    if changed:
        message = render.group_handled(user, change, changed, zone, note)
        try:
            ctx.web_client.chat_postMessage(channel=card.channel, thread_ts=card.ts, text=message.text,
                                            blocks=message.blocks, unfurl_links=False)  # fmt: skip
        except (SlackApiError, SlackClientError, OSError) as err:
            log.warning("could not post in the card's thread: %s", err)
    incident = incidents.by_card(db, card.channel, card.ts)
    if incident is not None:
        _update(ctx, card, incident_card(incident_view(db, incident), zone, _data_as_of(db), url))
        return
    counts = outbox.card_counts(db, card.ts)
    handled = handling.card_states(db, card.channel, card.ts)
    _update(ctx, card, render.storm_card(first, counts, zone, _data_as_of(db), url, handled))


def _storm_card(
    ctx: AppContext, body: dict[str, Any], respond: Respond, command: str
) -> tuple[str, Card] | None:
    """The clicking user and the storm card, or None once the user is refused or the card holds no alarms."""
    user = slack_user(body)
    if _refused(ctx, user, command, respond):
        return None
    card = card_of(body)
    if card.channel is None or card.ts is None or not card_alarms(ctx.db(), card):
        _say(respond, "This card holds no alarms samops knows of; nothing was recorded.")
        return None
    return user, card


def _change_whole_card(
    ctx: AppContext, body: dict[str, Any], action: dict[str, Any], respond: Respond, change: Change,
    command: str, none_changed: str,
) -> None:  # fmt: skip
    """Acknowledge all / I'm on it on a storm or incident card: `change` on every alarm of the card."""
    found = _storm_card(ctx, body, respond, command)
    if found is None:
        return
    user, card = found
    outcome, changed = change_card(ctx, user, card, change, action_key(body, action))
    if not outcome.ran:
        return
    if not outcome.ok:
        _say(respond, outcome.message)
        return
    if not changed:
        _say(respond, none_changed)
    after_card_change(ctx, user, card, change, changed)


def on_ack_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    _change_whole_card(ctx, body, action, respond, Change.ACKNOWLEDGED, "alarm acknowledge all",
                       "Every alarm of this card was already acknowledged or resolved.")  # fmt: skip


def on_resolve_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    ack()
    found = _storm_card(ctx, body, respond, "alarm resolve all")
    if found is None:
        return
    _, card = found
    db = ctx.db()
    count = len(card_alarms(db, card))
    what = "incident" if incidents.by_card(db, card.channel or "", card.ts or "") else "storm card"
    _open_resolve(ctx, body, respond, f"all {counted(count, 'alarm')} of this {what}", all=True)


def on_take_all(
    ctx: AppContext, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond
) -> None:
    """An incident card's "I'm on it": every alarm of the incident assigned to the clicker."""
    ack()
    _change_whole_card(ctx, body, action, respond, Change.ASSIGNED, "alarm take all",
                       "You already hold every open alarm of this card.")  # fmt: skip
