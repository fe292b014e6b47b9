"""Access changes: the grant modal (operation 4), and the danger-style confirmations for revoking a panel
authorization (10) and deleting a user (11)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, ConfirmObject, PlainTextObject
from slack_sdk.models.views import View

from bot.render.common import Rendered, context, escape, section
from bot.render.forms import choice_input, date_input, modal, text_input, time_input
from core.access_windows import time_of_day
from core.clock import DAY_MS
from core.timefmt import UTC_TZ, hhmm

ACCESS_GRANT = "sam_access_grant"
CONFIRM_ACTION = "sam_confirm_write"  # the danger button; its value says which write
CANCEL_ACTION = "sam_confirm_cancel"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # dayOfWeek 1..7
MAX_BUTTON_VALUE = 2000


@dataclass(frozen=True)
class PrivilegeGroup:
    id: int
    name: str | None
    authorized: bool  # the user's current authority, False when unknown


@dataclass(frozen=True)
class PanelChoice:
    id: int
    name: str | None


def person(name: str | None, user_id: int) -> str:
    return f"{name} (user {user_id})" if name else f"user {user_id}"


def panel_label(name: str | None, panel_id: int) -> str:
    return f"{name} (panel {panel_id})" if name else f"panel {panel_id}"


def _ms_to_hhmm(ms: int | None, zone: ZoneInfo) -> str | None:
    """A window bound as the form's HH:MM, read as who-can reads it (an epoch-ms: its time of day in zone)."""
    if ms is None or ms < 0:
        return None
    of_day = time_of_day(ms, zone)
    return hhmm(of_day) if of_day < DAY_MS else None


def grant_modal(
    user_id: int,
    user_name: str | None,
    groups: Sequence[PrivilegeGroup],
    panels: Sequence[PanelChoice],
    meta: dict[str, Any],
    zone: ZoneInfo = UTC_TZ,
    current_days: Sequence[int] = (),
    current_window: tuple[int | None, int | None] = (None, None),
    current_panels: Sequence[int] = (),
) -> View:
    """Every privilege group is listed (operation 4 must send them all): ticked = authorized. Operation 4
    replaces the authorized panels, so the ones known to be authorized now are preselected. Dates and times
    are on the organization's clock (`zone`), as `/sam who-can` reads them."""
    blocks: list[Block] = [
        section(f"Set the privilege groups and panels of *{escape(person(user_name, user_id))}*."),
        context(
            "Every privilege group is sent to the service: a ticked group is authorized, an unticked one is "
            f"not. Dates and times are the organization's: {zone.key}."
        ),
        choice_input(
            "groups",
            "Privilege groups",
            [(str(g.id), g.name or f"Privilege group {g.id}") for g in groups],
            selected=[str(g.id) for g in groups if g.authorized],
        ),
    ]
    blocks.append(
        context(
            "Preselected: the panels the service says this user is authorized on now. The panels chosen "
            "here replace them."
            if current_panels
            else "The service does not tell samops which panels this user is authorized on now: the panels "
            "chosen here replace them all."
        )
    )
    if 0 < len(panels) <= 100:
        blocks.append(
            choice_input(
                "panels",
                "Panels to authorize",
                [(str(p.id), panel_label(p.name, p.id)) for p in panels],
                selected=[str(p) for p in current_panels],
                optional=False,
            )
        )
    else:
        blocks.append(
            text_input("panels", "Panels to authorize", hint="Panel ids, comma-separated: 1001,1002")
        )
    start, end = current_window
    blocks += [
        # Left empty, these are not sent (operation 4 makes them optional): the service keeps what it holds.
        date_input("validity_start", "Valid from", hint="Left empty, not sent: the current start stays."),
        date_input("expiry", "Expires after", hint="Left empty, not sent: the current expiry stays."),
        choice_input(
            "days",
            "Days of access",
            [(str(i + 1), day) for i, day in enumerate(DAYS)],
            selected=[str(d) for d in current_days],
            hint="Left empty, not sent: the current days and times stay.",
        ),
        time_input("window_start", "From (each chosen day)", initial=_ms_to_hhmm(start, zone)),
        time_input("window_end", "Until (each chosen day)", initial=_ms_to_hhmm(end, zone)),
    ]
    return modal(ACCESS_GRANT, "Grant access", blocks, meta, submit="Grant")


def grant_summary(user_id: int, groups: dict[int, bool], panels: Sequence[int], period_words: str) -> str:
    granted = [str(g) for g, on in sorted(groups.items()) if on]
    return (
        f"user {user_id}: groups authorized {','.join(granted) or 'none'} of {len(groups)}; "
        f"panels {','.join(str(p) for p in panels) or 'none'}; {period_words}"
    )


# -- confirmations ----------------------------------------------------------------------------------------


def confirm_message(question: str, change: str, button: str, value: dict[str, Any]) -> Rendered:
    """A message with a danger button behind Slack's own confirm dialog; the write runs only on its click.

    `change` (plain text) is exactly what will change, shown both in the message and in the dialog.
    """
    payload = json.dumps(value, separators=(",", ":"))
    if len(payload) > MAX_BUTTON_VALUE:
        raise ValueError("confirmation payload too long for a button value")
    dialog = ConfirmObject(
        title=question[:100],
        text=PlainTextObject(text=change[:300]),
        confirm=button[:30],
        deny="Cancel",
        style="danger",
    )
    blocks: list[Block] = [
        section(f"*{escape(question)}*\n{escape(change)}"),
        ActionsBlock(
            elements=[
                ButtonElement(
                    text=button, action_id=CONFIRM_ACTION, value=payload, style="danger", confirm=dialog
                ),
                ButtonElement(text="Cancel", action_id=CANCEL_ACTION, value="cancel"),
            ]
        ),
        context("Nothing changes until you confirm. Only admins can confirm."),
    ]
    return Rendered.of(escape(f"{question} {change}"), blocks)


def revoke_confirmation(
    user_id: int, user_name: str | None, panel_id: int, panel_name: str | None, org_id: int | None
) -> Rendered:
    who, where = person(user_name, user_id), panel_label(panel_name, panel_id)
    change = f"{who} will lose access to {where}."
    value = {"op": "revoke", "user": user_id, "panel": panel_id, "org": org_id, "who": who, "where": where}
    return confirm_message("Revoke panel access?", change, "Revoke access", value)


def delete_confirmation(user_id: int, user_name: str | None, org_id: int | None) -> Rendered:
    who = person(user_name, user_id)
    change = f"{who} will be deleted from the service. This cannot be undone."
    value = {"op": "delete_user", "user": user_id, "org": org_id, "who": who}
    return confirm_message("Delete this user?", change, "Delete user", value)
