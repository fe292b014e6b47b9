"""The task form: `/sam task update <taskId>` as one line of `key=value` pairs or as a modal (`UPDATE`, its
submission: field errors in the modal, else operation 5), checked into a `TaskUpdate`, turned into the
operation-5 body and sent.

The body holds the fields the person gave and those samops knows for certain (what it last sent for the task
and the service accepted), nothing else: the service cannot read a task back, and an empty list or a null in
place of a value nobody knows would wipe it. docs/spec-readings.md says how samops reads operation 5 as a
partial update (a field left out stays as the service holds it)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

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
from bot.render.tasks import TASK_FIELDS, TASK_UPDATE, kept_line, task_answer_lines, task_summary
from bot.slash.registry import UsageError
from bot.writes import WriteOutcome, WriteRequest, answer_later, not_done_title, outcome_text, run_write
from core.cache import load_task, save_task
from core.clock import now_ms
from core.windows import local_date

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


def task_update_errors(task_id: int, values: dict[str, str], zone: ZoneInfo | None = None) -> dict[str, str]:
    """Every field's error at once (a modal shows them all), empty when all is well; with `zone`, dates
    before today on its clock are errors too."""
    errors: dict[str, str] = {}
    for key, value in values.items():
        try:
            update = task_update_from(task_id, {key: value})
            if zone is not None:
                refuse_past_dates(update, zone)
        except FieldError as exc:
            errors[exc.field] = exc.message
    return errors


def refuse_past_dates(update: TaskUpdate, zone: ZoneInfo) -> None:
    """A task date before today, on the organization's clock (`zone`), is refused: a task scheduled in the
    past would never run. Today itself is allowed."""
    if not update.dates:
        return
    today = local_date(now_ms(), zone)
    past = [d for d in update.dates if date.fromisoformat(d) < today]
    if past:
        verb = "is" if len(past) == 1 else "are"
        raise FieldError(
            "dates",
            f"{', '.join(past)} {verb} in the past (today is {today} in {zone.key}); give today or later",
        )


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


# The one-line key → the operation-5 field it sets (channels and audience: inside notificationOptions).
_BODY_FIELD = {
    "name": "taskName",
    "type": "taskType",
    "dates": "taskDates",
    "selection": "selection",
    "resources": "resources",
    "users": "users",
}
_OPTION_FIELD = {"channels": "channels", "audience": "audience"}
# The operation-5 fields besides taskId (spec), the ones a known body may hold.
_TOP_FIELDS = frozenset(
    {"taskName", "taskType", "taskDates", "selection", "resources", "users", "combinedData", "userType"}
)
_OPTION_FIELDS = frozenset({"channels", "audience", "userId"})


def task_body(update: TaskUpdate, known: dict[str, Any] | None) -> dict[str, Any]:
    """The operation-5 body: the fields the person gave, over what samops knows for certain (`known`: the
    body it last sent for this task and the service accepted). A field neither holds is left out, never sent
    empty, null or defaulted: the service keeps what it holds for it."""
    base = dict(known or {})
    body: dict[str, Any] = {k: v for k, v in base.items() if k in _TOP_FIELDS and v is not None}
    raw_options = base.get("notificationOptions")
    known_options: dict[str, Any] = dict(raw_options) if isinstance(raw_options, dict) else {}
    options = {k: v for k, v in known_options.items() if k in _OPTION_FIELDS and v is not None}
    for key, value in update.changes().items():
        if key in _OPTION_FIELD:
            options[_OPTION_FIELD[key]] = value
        else:
            body[_BODY_FIELD[key]] = value
    if options:
        body["notificationOptions"] = options
    return {"taskId": update.task_id, **body}


# -- the modal ----------------------------------------------------------------------------------------------

LIST_FIELDS = ("channels", "audience", "resources", "users")


def task_values(view: dict[str, Any], prefilled: Iterable[str] = ()) -> dict[str, str]:
    """The modal's text fields that are sent. A field left empty is left out, so the service keeps its
    value; but a list field the form showed filled (`prefilled`) and the person emptied means "none"."""
    values = submitted(view)
    shown_filled = set(prefilled)
    out: dict[str, str] = {}
    for key in TASK_FIELDS:
        text = as_text(values.get(key)).strip()
        if text or (key in LIST_FIELDS and key in shown_filled):
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
        return title, write_answer(title, [*task_answer_lines(body), kept_line(body)], outcome.reference)
    title = not_done_title(outcome, f"Task {task_id} not updated", f"Updating task {task_id}")
    return title, write_answer(title, [escape(outcome.message)], outcome.reference, ok=False)


def read_task(meta: TaskMeta, view: dict[str, Any]) -> tuple[TaskUpdate | None, dict[str, str]]:
    values = task_values(view, meta.prefilled)
    errors = task_update_errors(meta.task, values, ZoneInfo(meta.tz))
    if not values:
        errors["name"] = "fill in at least one field to change: the empty ones are not sent"
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
