"""Submission of the Resolve modal (an alarm card's Resolve, a storm card's Resolve all): the note checked in
the ack, the role re-checked and the alarms resolved in the lazy listener (`bot/forms/submission.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import StringConstraints

from bot.actions.lifecycle import (
    Card,
    after_card_change,
    change_alarm,
    change_card,
    unchanged_text,
    update_alarm_card,
)
from bot.forms.fields import FieldError, free_text
from bot.forms.submission import Submission, WriteModal, submitted
from bot.payloads import ModalMeta, SlackId
from bot.render.alarms import NOTE, RESOLVE_MODAL
from bot.writes import answer_later
from core import cache
from core.lifecycle import MAX_NOTE, Change

if TYPE_CHECKING:
    from bot.context import AppContext


class ResolveMeta(ModalMeta):
    ts: SlackId | None = None  # the card's message
    e: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None  # one alarm
    all: bool = False  # every alarm of the storm card


@dataclass(frozen=True)
class ResolveForm:
    note: str | None


def read_note(meta: ResolveMeta, view: dict[str, Any]) -> tuple[ResolveForm | None, dict[str, str]]:
    """The note: optional free text, lines kept; control characters other than layout are refused."""
    if (meta.e is None) == (not meta.all) or (meta.all and (meta.channel is None or meta.ts is None)):
        return None, {NOTE: "this form lost its alarm; click Resolve on the card again"}
    try:
        note = free_text(submitted(view).get(NOTE), NOTE).strip()
    except FieldError as err:
        return None, {NOTE: err.message}
    if len(note) > MAX_NOTE:
        return None, {NOTE: f"at most {MAX_NOTE} characters"}
    return ResolveForm(note or None), {}


def resolve(ctx: AppContext, sub: Submission[ResolveMeta, ResolveForm]) -> None:
    meta, note, user = sub.meta, sub.form.note, sub.slack_user
    card = Card(meta.channel, meta.ts)
    reference = meta.ref or ""
    if meta.all:
        outcome, changed = change_card(ctx, user, card, Change.RESOLVED, sub.key, note, reference)
        if outcome.ran and outcome.ok:
            after_card_change(ctx, user, card, Change.RESOLVED, changed, note)
            if not changed:
                answer_later(ctx, sub.answer_to, user, "Every alarm of this card was already resolved.")
        elif outcome.ran:
            answer_later(ctx, sub.answer_to, user, outcome.message)
        return
    assert meta.e is not None
    if cache.get_alarm(ctx.db(), meta.e) is None:
        answer_later(
            ctx, sub.answer_to, user, "This alarm is not in samops' cache any more; nothing was recorded."
        )
        return
    outcome, result = change_alarm(ctx, user, meta.e, Change.RESOLVED, sub.key, note, reference)
    if not outcome.ran:
        return
    if result is None:
        answer_later(ctx, sub.answer_to, user, outcome.message)
    elif not result.changed:
        answer_later(ctx, sub.answer_to, user, unchanged_text(result.state, result.reason, ctx))
    elif not update_alarm_card(ctx, meta.e, card):
        answer_later(ctx, sub.answer_to, user, "Resolved.")


RESOLVE: WriteModal[ResolveMeta, ResolveForm] = WriteModal(
    callback_id=RESOLVE_MODAL,
    first_field=NOTE,
    meta_type=ResolveMeta,
    lost="this form lost its alarm; click Resolve on the card again",
    read=read_note,
    command=lambda meta: f"alarm resolve {(meta.e or 'all') if meta else '?'}",
    write=resolve,
)
