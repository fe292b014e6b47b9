"""Submission of the camera modal (operation 6). The security and NC codes are passed to the service and
dropped: they are in no log line, answer, audit row or exception text of ours."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from bot.commands.registry import Role
from bot.context import AppContext
from bot.inputs import CameraForm, camera_from_values
from bot.modals import submission_key, validating_ack
from bot.payloads import CameraMeta, PayloadError, read_json
from bot.payloads import slack_user as user_of
from bot.render.common import escape
from bot.render.forms import CAMERA_ADD, metadata, submitted
from bot.writes import WriteRequest, answer_outcome, audit_denied, not_done_title, role_denied, run_write


def form_meta(view: dict[str, Any]) -> CameraMeta | None:
    try:
        return read_json(CameraMeta, view.get("private_metadata"), "This form")
    except PayloadError:
        return None


def check(view: dict[str, Any]) -> tuple[CameraForm | None, dict[str, str]]:
    if form_meta(view) is None:
        return None, {"name": "this form lost its organization; run /sam camera add again"}
    return camera_from_values(submitted(view))


def register(app: App, ctx: AppContext) -> None:
    def run_submission(body: dict[str, Any], view: dict[str, Any]) -> None:
        slack_user = user_of(body)
        meta = metadata(view)
        known = form_meta(view)
        org = known.org if known else None
        if role_denied(ctx, slack_user, Role.TECHNICIAN):
            audit_denied(ctx, slack_user, "camera add", org)
            return
        form, _ = check(view)
        if form is None or known is None:
            return  # the ack showed the errors in the modal
        request = WriteRequest(
            slack_user=slack_user,
            command="camera add",
            summary=form.summary(),
            dedupe_key=submission_key(view),
            org_id=org,
            reference=known.ref or "",
        )
        outcome = run_write(
            ctx,
            request,
            lambda: ctx.client.add_camera(
                device_serial=form.serial,
                name=form.name,
                brand=form.brand,
                organization_id=org,
                security_code=form.security_code,
                nc_code=form.nc_code,
                subscription_id=form.subscription_id,
                org=org,
            ),
        )
        if not outcome.ran:
            return  # a double submit: the first one answers
        if outcome.ok:
            camera = outcome.result
            title = f"Camera {form.name} added"
            lines = [
                f"*Camera id:* {escape(getattr(camera, 'resource_id', None) or '–')}",
                f"*Brand:* {escape(form.brand)}  *Serial:* {escape(form.serial)}",
                f"*Status:* {escape(getattr(camera, 'status', None) or 'unknown')}",
            ]
        else:
            failed = f"Camera {form.name} not added"
            title = not_done_title(outcome, failed, f"Adding camera {form.name}")
            lines = [escape(outcome.message)]
        answer_outcome(ctx, meta, slack_user, title, lines, outcome)

    ack = validating_ack(ctx, "name", lambda view: check(view)[1])
    app.view(CAMERA_ADD)(ack=ack, lazy=[run_submission])
