"""The task form: `/sam task update <taskId>` as one line of `key=value` pairs or as a modal (`UPDATE`, its
submission: field errors in the modal, else operation 5), checked into a `TaskUpdate`, turned into the
operation-5 body (the last known state with the changes on top) and sent."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.forms.fields import (
    WORD,
    FieldError,
    as_text,
    parse_dates,
    parse_id,
    parse_id_list,
    parse_name,
    parse_word_list,
    shown,
)
from bot.forms.submission import Submission, WriteModal, submitted
from bot.payloads import TaskMeta
from bot.render.common import escape
from bot.render.forms import write_answer
from bot.render.tasks import TASK_FIELDS, TASK_UPDATE, task_answer_lines, task_summary
from bot.slash.registry import UsageError
from bot.writes import WriteOutcome, WriteRequest, answer_later, not_done_title, outcome_text, run_write
from core.cache import load_task, save_task
from core.clock import now_ms

if TYPE_CHECKING:
    from bot.context import AppContext

TASK_USAGE = (
    '/sam task update <taskId> [name="..."] [type=N] [dates=YYYY-MM-DD,...] [channels=a,b] '
    "[audience=a,b] [selection=WORD] [resources=ID,...] [users=ID,...]"
)
TASK_KEYS = ("name", "type", "dates", "channels", "audience", "selection", "resources", "users")
# The one-line key of each TaskUpdate attribute is the attribute's name, but for these.
_ATTRIBUTE = {"type": "task_type"}


@dataclass(frozen=True)
class TaskUpdate:
    """What a person asked to change in a task; None = keep what is known."""

    task_id: int
    name: str | None = None
    task_type: int | None = None
    dates: list[str] | None = None
    channels: list[str] | None = None
    audience: list[str] | None = None
    selection: str | None = None
    resources: list[int] | None = None
    users: list[int] | None = None
    given: tuple[str, ...] = field(default=())  # the keys that were typed, in order

    def changes(self) -> dict[str, Any]:
        """The given fields, by their one-line key."""
        return {key: getattr(self, _ATTRIBUTE.get(key, key)) for key in self.given}


def parse_task_args(args: Sequence[str]) -> TaskUpdate:
    """`["42", "name=Night patrol", "dates=2026-12-01"]` → TaskUpdate. Raises FieldError / UsageError."""
    if not args:
        raise FieldError("taskId", "give the task id")
    task_id = parse_id(args[0], "taskId")
    values: dict[str, str] = {}
    for word in _rejoin(args[1:]):
        key, sep, value = word.partition("=")
        key = key.strip().lower()
        if not sep:
            raise UsageError(f"expected key=value, got {shown(word)}")
        if key not in TASK_KEYS:
            raise UsageError(f"unknown field {shown(key)}; fields: {', '.join(TASK_KEYS)}")
        if key in values:
            raise FieldError(key, "given twice")
        values[key] = value.strip().strip('"').strip("'") if value.strip()[:1] in "\"'" else value.strip()
    return task_update_from(task_id, values)


def task_update_from(task_id: int, values: dict[str, str]) -> TaskUpdate:
    """Validate raw field values (one-line keys → text); used by the one-line form and the modal alike."""
    parsers = {
        "name": lambda v: parse_name(v, "name"),
        "type": lambda v: _parse_type(v),
        "dates": lambda v: parse_dates(v, "dates"),
        "channels": lambda v: parse_word_list(v, "channels"),
        "audience": lambda v: parse_word_list(v, "audience"),
        "selection": lambda v: _parse_selection(v),
        "resources": lambda v: parse_id_list(v, "resources"),
        "users": lambda v: parse_id_list(v, "users"),
    }
    parsed = {_ATTRIBUTE.get(key, key): parsers[key](value) for key, value in values.items()}
    return TaskUpdate(task_id=task_id, given=tuple(values), **parsed)


def task_update_errors(task_id: int, values: dict[str, str]) -> dict[str, str]:
    """Every field's error at once (a modal shows them all), empty when all is well."""
    errors: dict[str, str] = {}
    for key, value in values.items():
        try:
            task_update_from(task_id, {key: value})
        except FieldError as exc:
            errors[exc.field] = exc.message
    return errors


def _parse_type(value: str) -> int:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise FieldError("type", f"expected a task type number, got {shown(text)}")
    return int(text)


def _parse_selection(value: str) -> str:
    text = value.strip()
    if not WORD.fullmatch(text):
        raise FieldError("selection", f"expected one word, got {shown(text)}")
    return text


def _rejoin(words: Iterable[str]) -> list[str]:
    """Glue `name="Night` `patrol"` back together when the router split on spaces without honouring quotes,
    and `name=Night` `patrol` (a value's continuation words that hold no `=`)."""
    out: list[str] = []
    for word in words:
        if out and "=" not in word:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out


def task_body(
    update: TaskUpdate, known: dict[str, Any] | None, org_user_id: int | None = None
) -> dict[str, Any]:
    """The operation-5 body: the last known state of the task with the requested changes on top.

    Fields the service requires but nobody knows yet are sent empty rather than invented.
    """
    base: dict[str, Any] = dict(known or {})
    options = dict(base.get("notificationOptions") or {})
    if update.channels is not None:
        options["channels"] = update.channels
    if update.audience is not None:
        options["audience"] = update.audience
    options.setdefault("channels", [])
    options.setdefault("audience", [])
    if org_user_id is not None:
        options.setdefault("userId", org_user_id)
    body: dict[str, Any] = {
        "taskId": update.task_id,
        "taskName": update.name if update.name is not None else base.get("taskName"),
        "taskType": update.task_type if update.task_type is not None else base.get("taskType"),
        "taskDates": update.dates if update.dates is not None else base.get("taskDates", []),
        "notificationOptions": options,
        "selection": update.selection if update.selection is not None else base.get("selection"),
        "resources": update.resources if update.resources is not None else base.get("resources", []),
        "users": update.users if update.users is not None else base.get("users", []),
        "combinedData": base.get("combinedData", []),
    }
    if base.get("userType") is not None:
        body["userType"] = base["userType"]
    return {k: v for k, v in body.items() if v is not None}


# -- the modal ----------------------------------------------------------------------------------------------

LIST_FIELDS = ("channels", "audience", "resources", "users")


def task_values(view: dict[str, Any]) -> dict[str, str]:
    """The modal's text fields. An emptied list field means "none"; an empty type, selection or dates field
    is left out, so the last known value stays."""
    values = submitted(view)
    out: dict[str, str] = {}
    for key in TASK_FIELDS:
        text = as_text(values.get(key)).strip()
        if text or key in LIST_FIELDS or key == "name":
            out[key] = text
    return out


def apply_task_update(
    ctx: AppContext,
    update: TaskUpdate,
    known: dict | None,
    slack_user: str,
    org_id: int | None,
    key: str,
    reference: str = "",
) -> tuple[WriteOutcome, dict]:
    """Send the known state with the changes on top; remember it when the service accepted it."""
    body = task_body(update, known)
    request = WriteRequest(
        slack_user=slack_user,
        command=f"task update {update.task_id}",
        summary=task_summary(update.task_id, update.changes()),
        dedupe_key=key,
        org_id=org_id,
        reference=reference,
    )

    def send() -> object:
        # `body` is already the spec's operation-5 body: sent as it is, not taken apart into arguments.
        return ctx.client.call("update_schedule_task", body=body, org=org_id)

    outcome = run_write(ctx, request, send)
    if outcome.ran and outcome.ok:
        save_task(ctx.db(), update.task_id, body, org_id=org_id, at=now_ms(), by=slack_user)
    return outcome, body


def task_answer(task_id: int, outcome: WriteOutcome, body: dict) -> tuple[str, list]:
    if not outcome.ran:
        return outcome.message, write_answer(outcome.message, [], outcome.reference)
    if outcome.ok:
        title = f"Task {task_id} updated"
        return title, write_answer(title, task_answer_lines(body), outcome.reference)
    title = not_done_title(outcome, f"Task {task_id} not updated", f"Updating task {task_id}")
    return title, write_answer(title, [escape(outcome.message)], outcome.reference, ok=False)


def read_task(meta: TaskMeta, view: dict[str, Any]) -> tuple[TaskUpdate | None, dict[str, str]]:
    values = task_values(view)
    errors = task_update_errors(meta.task, values)
    if errors:
        return None, errors
    return task_update_from(meta.task, values), {}


def update_task(ctx: AppContext, sub: Submission[TaskMeta, TaskUpdate]) -> None:
    update = sub.form
    known = load_task(ctx.db(), update.task_id)
    outcome, sent = apply_task_update(
        ctx, update, known.body if known else None, sub.slack_user, sub.meta.org, sub.key, sub.meta.ref or ""
    )
    if not outcome.ran:
        return  # a double submit: the first one answers
    title, blocks = task_answer(update.task_id, outcome, sent)
    answer_later(ctx, sub.answer_to, sub.slack_user, outcome_text(title, outcome), blocks)


UPDATE: WriteModal[TaskMeta, TaskUpdate] = WriteModal(
    callback_id=TASK_UPDATE,
    first_field="name",
    meta_type=TaskMeta,
    lost="this form lost its task id; run /sam task update again",
    read=read_task,
    command=lambda meta: f"task update {meta.task if meta else '?'}",
    write=update_task,
)
