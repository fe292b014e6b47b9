"""Submission of the task modal (`/sam task update <taskId>`): field errors in the modal, else operation 5."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App

from bot.commands.registry import Role
from bot.context import AppContext
from bot.inputs import TaskUpdate, as_text, task_update_errors, task_update_from
from bot.modals import submission_key, validating_ack
from bot.payloads import PayloadError, TaskMeta, read_json
from bot.payloads import slack_user as user_of
from bot.render.forms import metadata, submitted
from bot.render.tasks import TASK_FIELDS, TASK_UPDATE
from bot.writes import answer_later, audit_denied, outcome_text, role_denied

log = logging.getLogger(__name__)

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


def form_meta(view: dict[str, Any]) -> TaskMeta | None:
    try:
        return read_json(TaskMeta, view.get("private_metadata"), "This form")
    except PayloadError:
        return None


def check(view: dict[str, Any]) -> tuple[TaskUpdate | None, dict[str, str]]:
    meta = form_meta(view)
    if meta is None:
        return None, {"name": "this form lost its task id; run /sam task update again"}
    task_id = meta.task
    values = task_values(view)
    errors = task_update_errors(task_id, values)
    if errors:
        return None, errors
    return task_update_from(task_id, values), {}


def register(app: App, ctx: AppContext) -> None:
    def run_submission(body: dict[str, Any], view: dict[str, Any]) -> None:
        from bot.commands.task import apply_task_update, task_answer
        from core.cache.tasks import load_task

        user = user_of(body)
        meta = metadata(view)
        known_meta = form_meta(view)
        org = known_meta.org if known_meta else None
        if role_denied(ctx, user, Role.TECHNICIAN):
            audit_denied(ctx, user, f"task update {known_meta.task if known_meta else '?'}", org)
            return
        update, _ = check(view)
        if update is None:
            return  # the modal showed the errors; nothing to do
        known = load_task(ctx.db(), update.task_id)
        outcome, sent = apply_task_update(
            ctx,
            update,
            known.body if known else None,
            user,
            org,
            submission_key(view),
            (known_meta.ref or "") if known_meta else "",
        )
        if not outcome.ran:
            return  # a double submit: the first one answers
        title, blocks = task_answer(update.task_id, outcome, sent)
        answer_later(ctx, meta, user, outcome_text(title, outcome), blocks)

    app.view(TASK_UPDATE)(ack=validating_ack(ctx, "name", lambda view: check(view)[1]), lazy=[run_submission])
