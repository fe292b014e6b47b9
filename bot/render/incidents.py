"""The incident card: what happened on one site within the window (core/incidents.py), as a title naming
the kinds of evidence, a timeline in time order, the incident's state, and buttons that act on every alarm
of the incident (bot/actions/lifecycle.py's card-wide path)."""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, PlainTextObject

from bot.render.alarms import (
    ACK_ALL,
    RESOLVE_ALL,
    TAKE_ALL,
    Rendered,
    attachment,
    handling_line,
    panel_buttons,
)
from bot.render.common import MAX_SECTION_TEXT, cap_blocks, clip, context, escape, join_lines, section
from bot.render.dispositions import resolved_as_line
from core.incidents import ALARM, CAMERA_DISABLED, CAMERA_OFFLINE, SENSOR_ERROR, SUPERVISION, TAMPER, Evidence
from core.lifecycle import State, incident_state
from core.timefmt import clock, local
from core.views import IncidentView

ICONS = {
    ALARM: ":rotating_light:",
    TAMPER: ":hammer:",
    SUPERVISION: ":satellite_antenna:",
    SENSOR_ERROR: ":x:",
    CAMERA_OFFLINE: ":video_camera:",
    CAMERA_DISABLED: ":no_entry_sign:",
}
MAX_LINE = 300
EMOJI = {State.OPEN: ":rotating_light:", State.ACKNOWLEDGED: ":eyes:", State.RESOLVED: ":white_check_mark:"}


def title(view: IncidentView) -> str:
    return f"Incident on {view.panel_label}: {', '.join(view.kinds)}"


def timeline_lines(timeline: Sequence[Evidence], zone: ZoneInfo) -> list[str]:
    """One line per piece of evidence; an activity's line ends with its eventId, which operators quote to the
    service's support, so the text is clipped rather than the id."""
    lines = []
    for e in timeline:
        head = f"`{clock(e.time, zone)}` {ICONS.get(e.kind, '•')} *{escape(e.kind)}* — "
        tail = f" (`{escape(e.event_id)}`)" if e.event_id is not None else ""
        lines.append(head + clip(escape(e.text), max(MAX_LINE - len(head) - len(tail), 20)) + tail)
    return lines


def incident_card(view: IncidentView, zone: ZoneInfo, data_as_of: int | None, dashboard_url: str) -> Rendered:
    state = incident_state(view.handled)
    level = "gray" if state is State.RESOLVED else "red" if state is State.OPEN else "yellow"
    head = f"{EMOJI[state]} {title(view)}"
    first, last = view.timeline[0].time, view.timeline[-1].time
    as_of = local(data_as_of, zone, seconds=True) if data_as_of else "unknown"
    blocks: list[Block] = [
        section(f"*{escape(head)}*"),
        section(join_lines(timeline_lines(view.timeline, zone), MAX_SECTION_TEXT)),
        context(
            f"{len(view.timeline)} pieces of evidence from {local(first, zone, seconds=True)}"
            f" to {local(last, zone, seconds=True)}"
            f" · state: *{state.value}* · {handling_line(view.handled)} · data as of {as_of}"
        ),
    ]
    if view.holders:
        blocks.append(context(":raising_hand: held by " + ", ".join(f"<@{escape(u)}>" for u in view.holders)))
    if view.resolved_as:
        blocks.append(context(resolved_as_line(view.resolved_as)))
    value = str(view.resource_id)
    buttons: list[ButtonElement] = []
    if state is State.OPEN:
        buttons.append(
            ButtonElement(
                text=PlainTextObject(text="Acknowledge"), action_id=ACK_ALL, value=value, style="primary"
            )
        )
    if state is not State.RESOLVED:
        buttons += [
            ButtonElement(text=PlainTextObject(text="I'm on it"), action_id=TAKE_ALL, value=value),
            ButtonElement(text=PlainTextObject(text="Resolve"), action_id=RESOLVE_ALL, value=value),
        ]
    blocks.append(ActionsBlock(elements=buttons + panel_buttons(view.resource_id, dashboard_url)))
    return Rendered(text=clip(escape(head), 300), attachments=[attachment(level, cap_blocks(blocks))])
