"""Reading a write modal's submission, and the one path every write modal's submission takes.

A submission is checked twice: in the ack (`bot/modals.validating_ack`: errors shown under their fields, the
modal stays open) and again here, in the lazy listener, which re-checks the caller's role (a submission
may be replayed), audits a refusal, and hands a checked form to the modal's write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from bot.payloads import ModalMeta, PayloadError, read_json
from bot.payloads import slack_user as user_of
from bot.render.common import escape
from bot.render.forms import MAX_PAYLOAD_VALUE, VALUE
from bot.roles import Role
from bot.writes import (
    WriteOutcome,
    WriteRequest,
    answer_outcome,
    audit_denied,
    dedupe_key,
    not_done_title,
    role_denied,
)

if TYPE_CHECKING:
    from bot.context import AppContext

M = TypeVar("M", bound=ModalMeta)
F = TypeVar("F")


def submitted(view: dict[str, Any]) -> dict[str, Any]:
    """`{field: value}` from a view submission: text as str (None if empty), a date "YYYY-MM-DD", a time
    "HH:MM", a multiple choice as a list of option values. A payload of the wrong shape reads as empty
    fields (and values of the wrong type are passed on as they are, for the field's parser to name)."""
    values: dict[str, Any] = {}
    for field, actions in _mapping(_mapping(view.get("state")).get("values")).items():
        element = _mapping(_mapping(actions).get(VALUE))
        kind = element.get("type")
        if kind == "plain_text_input":
            values[field] = element.get("value")
        elif kind == "datepicker":
            values[field] = element.get("selected_date")
        elif kind == "timepicker":
            values[field] = element.get("selected_time")
        elif kind in {"static_select", "radio_buttons"}:
            values[field] = _mapping(element.get("selected_option")).get("value")
        elif kind in {"checkboxes", "multi_static_select"}:
            options = element.get("selected_options")
            options = options if isinstance(options, list) else []
            values[field] = [_mapping(o).get("value") for o in options]
        else:
            values[field] = element.get("value")
    return values


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def metadata(view: dict[str, Any]) -> dict[str, Any]:
    """The private_metadata as a plain dict, for passing on (read its ids through `bot/payloads.py`)."""
    raw = view.get("private_metadata")
    if not isinstance(raw, str) or len(raw) > MAX_PAYLOAD_VALUE:
        return {}
    try:
        data = json.loads(raw or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def submission_key(view: dict[str, Any]) -> str:
    """One submission: the view's id, hash and metadata, and what was typed (a double click repeats them)."""
    state = json.dumps(submitted(view), sort_keys=True, default=str)
    return dedupe_key("view", view.get("id"), view.get("hash"), view.get("private_metadata"), state)


def read_meta(shape: type[M], view: dict[str, Any]) -> M | None:
    """The modal's private_metadata read as `shape`, or None when it is not one samops made."""
    try:
        return read_json(shape, view.get("private_metadata"), "This form")
    except PayloadError:
        return None


@dataclass(frozen=True)
class Submission(Generic[M, F]):
    """A checked submission by someone allowed to make it."""

    slack_user: str
    answer_to: dict[str, Any]  # the metadata as a plain dict: where to answer (`bot/writes.answer_later`)
    meta: M
    form: F
    key: str  # the dedupe key of this submission

    def write_request(self, command: str, summary: str, org_id: int | None) -> WriteRequest:
        """The write this submission asks for, deduplicated by the submission and under its reference."""
        return WriteRequest(
            slack_user=self.slack_user,
            command=command,
            summary=summary,
            dedupe_key=self.key,
            org_id=org_id,
            reference=self.meta.ref or "",
        )


@dataclass(frozen=True)
class WriteModal(Generic[M, F]):
    """A write modal: how its submission is checked, named in the audit, and written."""

    callback_id: str
    first_field: str  # where a refusal, or a form that lost its metadata, is shown
    meta_type: type[M]
    lost: str  # the error when the metadata is not ours any more
    read: Callable[[M, dict[str, Any]], tuple[F | None, dict[str, str]]]  # (form, {}) or (None, errors)
    command: Callable[[M | None], str]  # the audit log's command for this submission
    write: Callable[[AppContext, Submission[M, F]], None]  # run the write and answer

    def check(self, view: dict[str, Any]) -> tuple[F | None, dict[str, str]]:
        meta = read_meta(self.meta_type, view)
        if meta is None:
            return None, {self.first_field: self.lost}
        return self.read(meta, view)

    def errors(self, view: dict[str, Any]) -> dict[str, str]:
        return self.check(view)[1]


def submit(ctx: AppContext, modal: WriteModal[M, F], body: dict[str, Any], view: dict[str, Any]) -> None:
    """The lazy listener of every write modal: re-check the role (audit a refusal) and the form, write."""
    slack_user = user_of(body)
    meta = read_meta(modal.meta_type, view)
    if role_denied(ctx, slack_user, Role.TECHNICIAN):
        audit_denied(ctx, slack_user, modal.command(meta), getattr(meta, "org", None))
        return
    form, _ = modal.check(view)
    if form is None or meta is None:
        return  # the ack showed the errors in the modal
    modal.write(ctx, Submission(slack_user, metadata(view), meta, form, submission_key(view)))


def answer_write(
    ctx: AppContext,
    sub: Submission[Any, Any],
    outcome: WriteOutcome,
    done: Callable[[], tuple[str, list[str]]],
    failed: str,
    attempted: str,
) -> None:
    """Answer a modal's write after it closed: `done()`'s title and lines, else `failed` (or "`attempted`:
    outcome unknown") and why. A double submit gets nothing: the first one answers."""
    if not outcome.ran:
        return
    if outcome.ok:
        title, lines = done()
    else:
        title, lines = not_done_title(outcome, failed, attempted), [escape(outcome.message)]
    answer_outcome(ctx, sub.answer_to, sub.slack_user, title, lines, outcome)
