"""`/sam task update <taskId>`: a modal prefilled with what samops last set (operation 5), or, with
`key=value` pairs after the id, the one-line form for power users."""

from __future__ import annotations

from datetime import tzinfo

from slack_sdk.models.views import View

from bot.context import AppContext
from bot.forms.task import TASK_USAGE, apply_task_update, parse_task_args, refuse_past_dates, task_answer
from bot.modals import modal_meta, open_modal
from bot.render.common import context, section
from bot.render.tasks import known_values, task_answer_lines, task_modal, task_summary
from bot.roles import Role
from bot.slash.registry import Invocation, Reply, subcommand
from bot.writes import outcome_text, slash_key
from core.cache import KnownTask, load_task
from core.timefmt import local


@subcommand(
    "task",
    "update",
    usage=TASK_USAGE,
    summary="edit a scheduled task (a form, or key=value on one line)",
    role=Role.TECHNICIAN,
    write=True,
    examples=(
        "/sam task update 100101",
        "/sam task update 100101 dates=2027-06-01,2027-06-02",
        "/sam task update 100101 type=2 channels=email,sms resources=100101,100102 users=7001,20001",
    ),
)
def update_task(inv: Invocation, ctx: AppContext) -> Reply | None:
    update = parse_task_args(inv.args)
    if not update.given:
        return open_modal(
            ctx,
            inv,
            f"Update task {update.task_id}",
            lambda: task_form(ctx, inv, update.task_id),
            without_slack=lambda: task_without_form(
                update.task_id, load_task(ctx.db(), update.task_id), ctx.reader_zones(inv.user_id)(inv.org_id)
            ),
        )
    refuse_past_dates(update, ctx.config.notify.zone_for(inv.org_id))
    known = load_task(ctx.db(), update.task_id)
    outcome, body = apply_task_update(
        ctx, update, known.body if known else None, inv.user_id, inv.org_id, slash_key(inv), inv.reference
    )
    title, blocks = task_answer(update.task_id, outcome, body)
    return Reply(
        text=outcome_text(title, outcome),
        blocks=blocks,
        audit_summary=task_summary(update.task_id, update.changes()),
    )


def task_form(ctx: AppContext, inv: Invocation, task_id: int) -> View:
    """The edit form, prefilled with what samops last set (the service cannot read a task back)."""
    known = load_task(ctx.db(), task_id)
    zone = ctx.config.notify.zone_for(inv.org_id)  # dates before today on the organization's clock: refused
    prefilled = tuple(known_values(known.body if known else None))
    return task_modal(
        task_id,
        modal_meta(inv, task=task_id, org=inv.org_id, tz=zone.key, prefilled=prefilled),
        known.body if known else None,
        known.updated_at if known else None,
        known.updated_by if known else None,
        ctx.reader_zones(inv.user_id)(inv.org_id),  # when samops last set it: on the reader's clock
    )


def task_without_form(task_id: int, known: KnownTask | None, zone: tzinfo) -> Reply:
    """What `/sam task update <id>` answers where no modal can open (`samops slash`): the known state and
    the one-line form, when samops last set it on the reader's clock (`zone`)."""
    usage = f"Forms need Slack; here, change fields with the one-line form: `{TASK_USAGE}`"
    if known is None:
        text = f"Nothing is known about task {task_id} yet (the service cannot read a task).\n{usage}"
        return Reply(text=text, blocks=[section(text)])
    lines = task_answer_lines(known.body)
    title = f"*Task {task_id}* — last set by samops {local(known.updated_at, zone)}"
    return Reply(
        text=f"Task {task_id}: " + "; ".join(lines),
        blocks=[section("\n".join([title, *lines])), context(usage)],
    )
