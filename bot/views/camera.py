"""Submission of the camera modal (operation 6). The security and NC codes are passed to the service and
dropped: they are in no log line, answer, audit row or exception text of ours."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.forms.camera import CameraForm, camera_from_values
from bot.forms.submission import Submission, WriteModal, answer_write, submitted
from bot.payloads import CameraMeta
from bot.render.common import escape
from bot.render.forms import CAMERA_ADD
from bot.writes import run_write

if TYPE_CHECKING:
    from bot.context import AppContext


def add_camera(ctx: AppContext, sub: Submission[CameraMeta, CameraForm]) -> None:
    org, form = sub.meta.org, sub.form
    request = sub.write_request("camera add", form.summary(), org)
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

    def done() -> tuple[str, list[str]]:
        camera = outcome.result
        return f"Camera {form.name} added", [
            f"*Camera id:* {escape(getattr(camera, 'resource_id', None) or '–')}",
            f"*Brand:* {escape(form.brand)}  *Serial:* {escape(form.serial)}",
            f"*Status:* {escape(getattr(camera, 'status', None) or 'unknown')}",
        ]

    answer_write(ctx, sub, outcome, done, f"Camera {form.name} not added", f"Adding camera {form.name}")


ADD: WriteModal[CameraMeta, CameraForm] = WriteModal(
    callback_id=CAMERA_ADD,
    first_field="name",
    meta_type=CameraMeta,
    lost="this form lost its organization; run /sam camera add again",
    read=lambda meta, view: camera_from_values(submitted(view)),
    command=lambda meta: "camera add",
    write=add_camera,
)
