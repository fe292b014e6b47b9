"""The camera form (`/sam camera add`, operation 6). The security and NC codes are kept out of every repr
and summary: they go to the service and nowhere else."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.forms.fields import as_text, collect, parse_id, parse_name


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
