"""Alarm messages: the alarm card, the grouped storm card, its thread details, and the notifier's notices.

Cards carry their blocks inside one attachment so that Slack draws the severity colour (the spec's red,
yellow and gray) as a bar beside them; the fallback text starts with a coloured emoji for notifications.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.render import plans as plan_render
from bot.render import quiet as quiet_render
from bot.render.common import MAX_BLOCKS, Rendered, clip, context, escape, or_dash, section, sections, typed
from bot.render.dispositions import resolved_as_line
from bot.render.forms import VALUE, modal
from bot.render.keyholders import keyholder_line
from bot.render.plans import override_blocks
from bot.render.who_can import who_can_button
from core.alarms import LEVELS, Alarm, level_of
from core.lifecycle import MAX_NOTE, SAMOPS, AlarmState, Change, State
from core.priorities import Priority, sla_text
from core.text import counted
from core.timefmt import age, local
from core.views import AlarmView, StormView

ACK = "alarm_ack"
TAKE = "alarm_take"  # "I'm on it": assigns the alarm to the clicker
RESOLVE = "alarm_resolve"  # opens the resolve modal
ACK_ALL = "alarm_ack_all"  # storm cards: every alarm of the card
RESOLVE_ALL = "alarm_resolve_all"
TAKE_ALL = "alarm_take_all"  # incident cards: "I'm on it" for every alarm of the incident
RESOLVE_MODAL = "alarm_resolve_modal"  # the view's callback_id
NOTE = "note"  # the resolve modal's field
DISPOSITION = "disposition"  # the resolve modal's required choice (core/dispositions.py)
PANEL_STATUS = "alarm_panel_status"
SILENCE_PREFIX = "alarm_silence_"
SILENCE_MINUTES = {30: "30 min", 120: "2 h", 1440: "24 h"}
DASHBOARD = "alarm_dashboard"


def severity(violation_type: str | None, event_type: str | None = None) -> str:
    """The card level's name (core.alarms): red, yellow or gray."""
    return level_of(violation_type, event_type).name


def sensor_or_zone(alarm: Alarm) -> str | None:
    """The simulator and the service describe an alarm as "<name> on <panel> - <sensor>"."""
    description = alarm.description or ""
    return description.rsplit(" - ", 1)[1] if " - " in description else None


def panel_label(alarm: Alarm) -> str:
    name = alarm.panel_name or "panel"
    return f"{name} ({alarm.resource_id})" if alarm.resource_id is not None else name


def dashboard_link(dashboard_url: str, resource_id: int | None) -> str:
    base = dashboard_url.rstrip("/")
    return f"{base}/alarms?panel={resource_id}" if resource_id is not None else f"{base}/alarms"


def panel_buttons(resource_id: int | None, dashboard_url: str) -> list[ButtonElement]:
    value = str(resource_id if resource_id is not None else "")
    buttons = [ButtonElement(text=PlainTextObject(text="Panel status"), action_id=PANEL_STATUS, value=value)]
    if resource_id is not None:
        buttons.append(who_can_button(resource_id))
    buttons += [
        ButtonElement(
            text=PlainTextObject(text=f"Silence {label}"),
            action_id=f"{SILENCE_PREFIX}{minutes}",
            value=json.dumps({"r": resource_id, "m": minutes}),
        )
        for minutes, label in SILENCE_MINUTES.items()
    ]
    buttons.append(
        ButtonElement(
            text=PlainTextObject(text="Open dashboard"),
            action_id=DASHBOARD,
            url=dashboard_link(dashboard_url, resource_id),
        )
    )
    return buttons


def attachment(colour: str, blocks: Sequence[Block]) -> dict[str, Any]:
    return {"color": LEVELS[colour].card_colour, "blocks": [b.to_dict() for b in blocks], "fallback": ""}


def lifecycle_buttons(event_id: str, state: AlarmState | None) -> list[ButtonElement]:
    """What may still happen to the alarm: Acknowledge while open, I'm on it and Resolve until resolved."""
    current = state.state if state else State.OPEN
    buttons: list[ButtonElement] = []
    if current is State.OPEN:
        buttons.append(
            ButtonElement(
                text=PlainTextObject(text="Acknowledge"), action_id=ACK, value=event_id, style="primary"
            )
        )
    if current is not State.RESOLVED:
        buttons.append(ButtonElement(text=PlainTextObject(text="I'm on it"), action_id=TAKE, value=event_id))
        buttons.append(ButtonElement(text=PlainTextObject(text="Resolve"), action_id=RESOLVE, value=event_id))
    return buttons


def person(user: str | None) -> str:
    """Who changed an alarm, as a card or an answer names them: a Slack mention, or samops for its own
    changes (a silent panel's alarm resolved when it reports again), which no Slack user is."""
    return SAMOPS if user == SAMOPS else f"<@{escape(user or '?')}>"


def state_line(state: AlarmState, zone: ZoneInfo, resolved_as: str | None = None) -> str:
    """The card's line saying where the alarm stands and who holds it (and, resolved, as what)."""
    if state.state is State.RESOLVED and state.resolved_at is not None:
        when = local(state.resolved_at, zone, seconds=True)
        line = f":heavy_check_mark: *Resolved* by {person(state.resolved_by)} at {when}"
        line += as_disposition(resolved_as)
        return line + (f" — {typed(clip(state.note, 500))}" if state.note else "")  # their words
    parts = []
    if state.state is State.ACKNOWLEDGED and state.acknowledged_at is not None:
        parts.append(
            f":white_check_mark: *Acknowledged* by <@{escape(state.acknowledged_by or '?')}> at "
            f"{local(state.acknowledged_at, zone, seconds=True)}"
        )
    else:
        parts.append(":rotating_light: *Open*")
    if state.holder:
        parts.append(f":raising_hand: held by <@{escape(state.holder)}>")
    return " · ".join(parts)


def as_disposition(label: str | None) -> str:
    """ " as *False alarm: user error*" after "Resolved", or nothing for an alarm resolved without one."""
    return f" as *{escape(label)}*" if label else ""


@dataclass(frozen=True)
class Urgency:
    """What the card says of the alarm's priority (core/priorities.py): which, its acknowledgement SLA in
    minutes (None: none), whether it is still open past it, and whether it came late (its SLA counted from
    its arrival: core.priorities.Priorities.due_at)."""

    priority: Priority
    sla_minutes: float | None
    overdue: bool = False
    late: bool = False


def priority_field(urgency: Urgency) -> str:
    sla = urgency.sla_minutes
    within = f" · ack within {sla_text(sla)}" if sla is not None else ""
    return f"*Priority*\n{urgency.priority.label}{within}"


def overdue_line(urgency: Urgency) -> str:
    return (
        f":alarm_clock: *Overdue*: {urgency.priority.label} alarms are to be acknowledged within "
        f"{sla_text(urgency.sla_minutes)}{' of reaching samops' if urgency.late else ''}, and nobody has yet"
    )


def late_line(alarm: Alarm, late_ms: int, zone: ZoneInfo) -> str:
    """What a late alarm's card says: it happened a while before it reached samops (docs/history.md)."""
    seen = alarm.activity_time + late_ms
    return (
        f":hourglass: *Late:* happened {age(alarm.activity_time, seen)}, reported now"
        f" (reached samops at {local(seen, zone, seconds=True)})"
    )


def alarm_card(view: AlarmView) -> Rendered:
    """An alarm's card, from its view (core/views.py) alone. A life-safety alarm posted during maintenance
    (core/life_safety.py) says so under the title, and in the notification's text."""
    alarm, zone, state = view.alarm, view.zone, view.state
    priority, late = view.priority, view.late_ms is not None
    urgency = Urgency(priority, view.sla_minutes, view.overdue, late) if priority is not None else None
    window = view.during
    during = quiet_render.slack_words(window.during(zone), window) if window is not None else None
    checklist = (
        plan_render.checklist_blocks(alarm.event_id, view.checklist, zone, view.resolved)
        if view.checklist is not None
        else []
    )
    late_ms, keyholders, resolved_as = view.late_ms, view.keyholders, view.resolved_as
    data_as_of, dashboard_url = view.data_as_of, view.dashboard_url
    level = severity(alarm.violation_type, alarm.event_type)
    name = alarm.violation_name or alarm.event_type or "Alarm"
    title = f"{LEVELS[level].emoji} {name} on {panel_label(alarm)}"
    fields = [
        f"*Panel*\n{escape(panel_label(alarm))}",
        f"*Sensor / zone*\n{or_dash(sensor_or_zone(alarm))}",
        f"*Time*\n{local(alarm.activity_time, zone, seconds=True)}",
        f"*Kind*\n{or_dash(alarm.violation_type or alarm.event_type)}",
    ]
    if urgency is not None:
        fields.append(priority_field(urgency))
    blocks: list[Block] = [section(f"*{escape(title)}*\n{escape(alarm.description or '')}", fields)]
    if during is not None:
        blocks.append(context(f":construction: *{during[0].upper()}{during[1:]}*"))
    if late_ms is not None:
        blocks.append(context(late_line(alarm, late_ms, zone)))
    if keyholders is not None:
        blocks.append(context(keyholder_line(keyholders)))
    as_of = local(data_as_of, zone, seconds=True) if data_as_of else "unknown"
    blocks.append(context(f"Event `{escape(alarm.event_id)}` · data as of {as_of}"))
    if urgency is not None and urgency.overdue:
        blocks.append(context(overdue_line(urgency)))
    if state is not None and (state.state is not State.OPEN or state.holder):
        blocks.append(context(state_line(state, zone, resolved_as)))
    buttons = lifecycle_buttons(alarm.event_id, state) + panel_buttons(alarm.resource_id, dashboard_url)
    blocks.append(ActionsBlock(elements=buttons))
    blocks += checklist  # the action plan (bot/render/plans.py), below the buttons everyone knows
    text = escape(title) + (" (during maintenance: a test?)" if during is not None else "")
    return Rendered(text=clip(text, 300), attachments=[attachment(level, blocks)])


def storm_card(view: StormView) -> Rendered:
    """One card per panel in a storm, from its view (core/views.py): how many alarms, first and last time,
    kinds; details in its thread; what its resolved alarms were resolved as (label -> how many)."""
    alarm, counts, zone, handled, resolved_as = (
        view.alarm,
        view.counts,
        view.zone,
        view.handled,
        view.resolved_as,
    )
    data_as_of, dashboard_url = view.data_as_of, view.dashboard_url
    level = severity(alarm.violation_type, alarm.event_type)
    title = f"{LEVELS[level].emoji} Alarm storm on {panel_label(alarm)}: {counted(counts.count, 'alarm')}"
    fields = [
        f"*Panel*\n{escape(panel_label(alarm))}",
        f"*Alarms*\n{counts.count}",
        f"*First*\n{local(counts.first_time, zone, seconds=True)}",
        f"*Last*\n{local(counts.last_time, zone, seconds=True)}",
        f"*Kinds*\n{escape(', '.join(counts.kinds)) or '–'}",
    ]
    as_of = local(data_as_of, zone, seconds=True) if data_as_of else "unknown"
    blocks: list[Block] = [
        section(f"*{escape(title)}*", fields),
        context(
            f"Grouped to keep the channel readable; every alarm is listed in the thread · data as of {as_of}"
        ),
    ]
    handled = handled or {State.OPEN: counts.count}
    if handled.get(State.ACKNOWLEDGED) or handled.get(State.RESOLVED):
        blocks.append(context(handling_line(handled)))
    if resolved_as:
        blocks.append(context(resolved_as_line(resolved_as)))
    group_buttons: list[ButtonElement] = []
    value = str(alarm.resource_id if alarm.resource_id is not None else "")
    if handled.get(State.OPEN):
        group_buttons.append(
            ButtonElement(
                text=PlainTextObject(text="Acknowledge all"), action_id=ACK_ALL, value=value, style="primary"
            )
        )
    if handled.get(State.OPEN) or handled.get(State.ACKNOWLEDGED):
        group_buttons.append(
            ButtonElement(text=PlainTextObject(text="Resolve all"), action_id=RESOLVE_ALL, value=value)
        )
    blocks.append(ActionsBlock(elements=group_buttons + panel_buttons(alarm.resource_id, dashboard_url)))
    return Rendered(text=clip(escape(title), 300), attachments=[attachment(level, blocks)])


# The most storm_details lines one reply holds whole: lines of at most 500 characters, five to a section,
# within MAX_BLOCKS sections. More would be cut off, and with them their event ids.
DETAIL_LINE = 500
DETAILS_FIT = MAX_BLOCKS * 5


def storm_details(alarms: Sequence[Alarm], zone: ZoneInfo) -> Rendered:
    """A thread reply listing alarms (at most DETAILS_FIT), one line each, in the sections they need."""
    lines = []
    for a in alarms:
        # The event id ends the line whole (operators quote it to the service's support): the text before
        # it is what a long description clips.
        tail = f" (`{escape(a.event_id)}`)"
        text = (
            f"`{local(a.activity_time, zone, seconds=True)}` "
            f"{escape(a.violation_name or a.event_type or 'alarm')} — {escape(a.description or '')}"
        )
        lines.append(clip(text, max(DETAIL_LINE - len(tail), 40)) + tail)
    blocks = sections(lines)[:MAX_BLOCKS]
    return Rendered(text=counted(len(alarms), "alarm"), blocks=[b.to_dict() for b in blocks])


def handling_line(handled: dict[State, int]) -> str:
    return " · ".join(f"{handled.get(state, 0)} {state.value}" for state in State)


_DONE = {Change.ACKNOWLEDGED: "acknowledged", Change.RESOLVED: "resolved", Change.ASSIGNED: "took"}


def group_handled(
    user: str,
    change: Change,
    alarms: Sequence[tuple[str, int]],
    zone: ZoneInfo,
    note: str | None = None,
    resolved_as: str | None = None,
) -> Rendered:
    """The storm thread's record of "Acknowledge all" / "Resolve all": who, which alarms, and as what."""
    head = (
        f"<@{escape(user)}> {_DONE[change]} {len(alarms)} alarm{'s' if len(alarms) != 1 else ''} of this card"
    ) + as_disposition(resolved_as)
    if note:
        head += f" — {typed(clip(note, 500))}"
    lines = [f"`{local(at, zone, seconds=True)}` `{escape(event_id)}`" for event_id, at in alarms]
    blocks: list[Block] = [section(head), *sections(lines)]
    if len(blocks) > MAX_BLOCKS:
        blocks = [*blocks[: MAX_BLOCKS - 1], context("… and more; every alarm is in the dashboard")]
    return Rendered(text=head, blocks=[b.to_dict() for b in blocks])


def alarm_resolved(user: str, resolved_as: str | None, note: str | None) -> Rendered:
    """An alarm card's thread record of its Resolve: who, as what, and the note."""
    text = f"<@{escape(user)}> resolved this alarm" + as_disposition(resolved_as)
    if note:
        text += f" — {typed(clip(note, 500))}"  # their words
    return Rendered(text=text, blocks=[section(text).to_dict()])


def escalation(level: int, targets: Sequence[str], minutes: float, alarm: Alarm, count: int = 1) -> Rendered:
    """An escalation post in a card's thread; `targets` are mentions (<!subteam^ID>, <@U…>, <#C…>)."""
    whom = " ".join(targets)
    what = "this alarm" if count == 1 else f"{count} alarms of this card"
    text = (
        f":rotating_light: Escalation level {level}: {whom} — {what} on {escape(panel_label(alarm))} "
        f"{'has' if count == 1 else 'have'} been open for over {minutes:g} min; nobody has acknowledged "
        f"{'it' if count == 1 else 'them'}."
    )
    return Rendered(text=text, blocks=[section(text).to_dict()])


def page_lead(level: int, why: str, alarm: Alarm, count: int = 1) -> str:
    """The first line of a page (a direct message, bot/notify/paging.py): why this person gets it, and, for a
    card of several alarms, that the page carries the most urgent (its buttons act on that one)."""
    what = "An alarm" if count == 1 else f"{count} alarms of one card"
    where = escape(panel_label(alarm))
    which = " This page carries the most urgent; the card in the channel has them all." if count > 1 else ""
    if level == 0:
        return f":pager: {what} on {where} (a priority you asked to be paged for, `/sam notify-me`).{which}"
    if why != "taken":
        reason = "you are one of its escalation targets"
    elif count == 1:
        reason = "you took it, and nobody has acknowledged it: *Acknowledge* stops the escalation"
    else:
        reason = "you took an alarm of its card"
    still = f"{what.lower()} on {where} still open"
    return f":rotating_light: Escalation level {level}: {still}; {reason}.{which}"


def disposition_block(options: Sequence[tuple[str, str]], hint: str | None = None) -> InputBlock:
    """The Resolve modal's required disposition: a menu of (code, label), none chosen, whatever the hint
    suggests (a suggestion is the operator's to take, never samops' to make)."""
    element = StaticSelectElement(
        action_id=VALUE,
        placeholder="How was it closed?",
        options=[Option(value=code, text=PlainTextObject(text=label[:75])) for code, label in options][:100],
    )
    return InputBlock(
        block_id=DISPOSITION, label="Disposition", element=element, hint=clip(hint, 2000) if hint else None
    )


def resolve_modal(
    metadata: dict[str, Any],
    what: str,
    options: Sequence[tuple[str, str]] = (),
    hint: str | None = None,
) -> View:
    """The Resolve modal: the disposition (`options`, (code, label) pairs; `hint` a suggestion shown under
    it), and an optional note, kept with the alarm and shown on its card."""
    blocks: list[Block] = [
        section(f"Resolve {escape(what)}."),
        *([disposition_block(options, hint)] if options else []),
        InputBlock(
            block_id=NOTE,
            label="Note",
            optional=True,
            element=PlainTextInputElement(
                action_id=VALUE, multiline=True, max_length=MAX_NOTE, placeholder="What was it, what was done"
            ),
        ),
    ]
    blocks += override_blocks(metadata)  # an admin's reason to resolve with action-plan steps left
    return modal(RESOLVE_MODAL, "Resolve alarm", blocks, metadata, submit="Resolve")


def notice(text: str) -> Rendered:
    return Rendered(text=text, blocks=[section(escape(text)).to_dict()])


def first_start_summary(alarms: Sequence[Alarm], hours: float, zone: ZoneInfo) -> Rendered:
    """Posted once, on the very first start: what happened before, summarized instead of replayed."""
    if not alarms:
        text = f"samops notify is now watching for alarms (none in the last {hours:g} h before it started)."
        return notice(text)
    by_panel: dict[str, int] = {}
    for a in alarms:
        by_panel[panel_label(a)] = by_panel.get(panel_label(a), 0) + 1
    top = sorted(by_panel.items(), key=lambda kv: (-kv[1], kv[0]))
    head = (
        f"samops notify is now watching for alarms. Before it started, {counted(len(alarms), 'alarm')} on "
        f"{counted(len(by_panel), 'panel')} in the last {hours:g} h"
        f" (from {local(alarms[0].activity_time, zone, seconds=True)}); "
        "they are not replayed one by one."
    )
    lines = [f"• {escape(name)}: {count}" for name, count in top[:20]]
    if len(top) > 20:
        lines.append(f"… and {len(top) - 20} more panels")
    return Rendered(text=head, blocks=[section(escape(head)).to_dict(), section("\n".join(lines)).to_dict()])
