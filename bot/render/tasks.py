"""The scheduled-task modal and the answer after an update (operation 5)."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.render.common import context, escape, section
from bot.render.forms import modal, text_input
from core.timefmt import local

TASK_UPDATE = "sam_task_update"

# Modal field → (label, hint); the field names are the one-line form's keys.
TASK_FIELDS: dict[str, tuple[str, str]] = {
    "name": ("Task name", "Left empty, the service keeps the task's name."),
    "type": ("Task type", "A number, e.g. 1."),
    "dates": ("Dates", "YYYY-MM-DD, comma-separated, today or later: 2027-06-01,2027-06-02"),
    "channels": ("Notification channels", "Comma-separated, e.g. email,sms,push"),
    "audience": ("Notification audience", "Comma-separated, e.g. admins,technicians"),
    "selection": ("Selection", "One word, e.g. resources"),
    "resources": ("Panels (resource ids)", "Comma-separated ids: 1001,1002"),
    "users": ("Users (user ids)", "Comma-separated ids: 3,4"),
}


def known_values(body: dict[str, Any] | None) -> dict[str, str]:
    """The last known operation-5 body as the modal's text values."""
    if not body:
        return {}
    options = body.get("notificationOptions") or {}

    def joined(items: Any) -> str:
        return ",".join(str(i) for i in items or [])

    values = {
        "name": body.get("taskName"),
        "type": body.get("taskType"),
        "dates": joined(body.get("taskDates")),
        "channels": joined(options.get("channels")),
        "audience": joined(options.get("audience")),
        "selection": body.get("selection"),
        "resources": joined(body.get("resources")),
        "users": joined(body.get("users")),
    }
    return {k: str(v) for k, v in values.items() if v not in (None, "")}


def task_modal(
    task_id: int,
    meta: dict[str, Any],
    known: dict[str, Any] | None,
    known_at: int | None = None,
    known_by: str | None = None,
    zone: tzinfo | None = None,
) -> View:
    """The edit form, prefilled with the last state samops sent for this task, if any; when that was is
    shown in `zone`, the reader's (`AppContext.reader_zones`; UTC when None)."""
    values = known_values(known)
    if known:
        by = escape(known_by or "?")
        note = f"Prefilled with the last update samops made ({local(known_at, zone)}, by <@{by}>)."

    else:
        note = (
            "Nothing is known about this task yet: the service has no way to read a task, and samops has not "
            "updated it before."
        )
    sent = (
        "Only the fields shown filled are sent: a field left empty is not sent, and the service keeps "
        "what it holds for it (and for the notification user, combined data and user type, which this "
        "form does not show). Emptying a list that was filled sends it empty."
    )
    blocks: list[Block] = [section(f"*Task {task_id}*"), context(note), context(sent)]
    for field, (label, hint) in TASK_FIELDS.items():
        blocks.append(
            text_input(
                field,
                label,
                initial=values.get(field),
                hint=hint,
                optional=True,
                max_length=200 if field == "name" else 2000,
            )
        )
    return modal(TASK_UPDATE, f"Update task {task_id}", blocks, meta)


def task_summary(task_id: int, changes: dict[str, Any]) -> str:
    """One line for the audit log and the answer: what was set (task fields hold no secrets)."""
    parts = []
    for key, value in changes.items():
        shown = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{key}={shown}")
    return f"task {task_id}: " + ("; ".join(parts) if parts else "no change")


def task_answer_lines(body: dict[str, Any]) -> list[str]:
    options = body.get("notificationOptions") or {}
    rows = [
        ("Name", body.get("taskName")),
        ("Type", body.get("taskType")),
        ("Dates", ", ".join(body.get("taskDates") or [])),
        ("Channels", ", ".join(options.get("channels") or [])),
        ("Audience", ", ".join(options.get("audience") or [])),
        ("Selection", body.get("selection")),
        ("Panels", ", ".join(str(r) for r in body.get("resources") or [])),
        ("Users", ", ".join(str(u) for u in body.get("users") or [])),
    ]
    return [f"*{label}:* {escape(value)}" for label, value in rows if value not in (None, "")]


# Every operation-5 field besides taskId, as the answer names it: (where it is in the body, its name).
_SENDABLE = (
    (("taskName",), "name"),
    (("taskType",), "type"),
    (("taskDates",), "dates"),
    (("notificationOptions", "channels"), "channels"),
    (("notificationOptions", "audience"), "audience"),
    (("notificationOptions", "userId"), "notification user"),
    (("selection",), "selection"),
    (("resources",), "panels"),
    (("users",), "users"),
    (("combinedData",), "combined data"),
    (("userType",), "user type"),
)


def not_sent(body: dict[str, Any]) -> list[str]:
    """The operation-5 fields `body` leaves out, which the service keeps as it holds them."""
    out = []
    for path, name in _SENDABLE:
        holder: Any = body
        for part in path[:-1]:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or path[-1] not in holder:
            out.append(name)
    return out


def kept_line(body: dict[str, Any]) -> str:
    """What the answer says about the fields not sent: the service keeps them (samops does not know them)."""
    left = not_sent(body)
    if not left:
        return "_Every field was sent._"
    return f"_Sent only the fields above; not sent, so the service keeps them as they are:_ {', '.join(left)}"
