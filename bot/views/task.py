"""Submission of the task modal (`/sam task update <taskId>`): field errors in the modal, else operation 5."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.forms.submission import Submission, WriteModal
from bot.forms.task import (
    TaskUpdate,
    apply_task_update,
    task_answer,
    task_update_errors,
    task_update_from,
    task_values,
)
from bot.payloads import TaskMeta
from bot.render.tasks import TASK_UPDATE
from bot.writes import answer_later, outcome_text
from core.cache import load_task

if TYPE_CHECKING:
    from bot.context import AppContext


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
