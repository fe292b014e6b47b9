"""The camera form (`/sam camera add`, operation 6) and its submission (`ADD`). The security and NC codes
are kept out of every repr and summary, and passed to the service and dropped: they are in no log line,
answer, audit row or exception text of ours."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.forms.fields import as_text, collect, parse_id, parse_name
from bot.forms.submission import Submission, WriteModal, answer_write, submitted
from bot.payloads import CameraMeta
from bot.render.common import escape
from bot.render.forms import CAMERA_ADD
from bot.writes import run_write

if TYPE_CHECKING:
    from bot.context import AppContext


@dataclass(frozen=True)
class CameraForm:
    name: str
    brand: str
    serial: str
    subscription_id: int | None
    security_code: str = field(repr=False)
    nc_code: str | None = field(repr=False)

    def summary(self) -> str:
        """For the audit log and answers: the codes are never part of it."""
        sub = f", subscription {self.subscription_id}" if self.subscription_id else ""
        return f"camera {self.name!r} ({self.brand}, serial {self.serial}{sub})"


_SERIAL = re.compile(r"[A-Za-z0-9._-]{1,64}")


def camera_from_values(values: dict[str, Any]) -> tuple[CameraForm | None, dict[str, str]]:
    errors: dict[str, str] = {}

    name = collect(errors, "name", lambda: parse_name(values.get("name"), "name"))
    brand = collect(errors, "brand", lambda: parse_name(values.get("brand"), "brand"))
    serial = as_text(values.get("serial")).strip()
    if not _SERIAL.fullmatch(serial):
        errors["serial"] = "letters, digits, dot, dash or underscore (up to 64)"
    security = as_text(values.get("security_code")).strip()
    if not security:
        errors["security_code"] = "must not be empty"
    nc_code = as_text(values.get("nc_code")).strip() or None
    sub_text = as_text(values.get("subscription")).strip()
    subscription = collect(
        errors, "subscription", lambda: parse_id(sub_text, "subscription") if sub_text else None
    )
    if errors or name is None or brand is None:  # `collect` gave None only where it recorded an error
        return None, errors
    return CameraForm(name, brand, serial, subscription, security, nc_code), {}


# -- the submission ------------------------------------------------------------------------------------------


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
