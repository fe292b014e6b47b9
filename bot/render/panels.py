"""A panel's live status (`/sam panel`): sensors by type, controllers with their latest values, activity."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from bot.render.common import (
    Rendered,
    cap_blocks,
    context,
    divider,
    escape,
    header,
    join_lines,
    or_dash,
    section,
    yes_no,
)
from core.alarms import is_alarm
from core.models import Activity, Controller, ControllerDataLogEntry, Partition, Sensor
from core.text import counted
from core.timefmt import age, local


@dataclass(frozen=True)
class PanelStatus:
    resource_id: int
    name: str | None
    model: str | None
    brand: str | None
    enabled: bool | None
    org_id: int | None
    sensors_by_type: dict[str, list[Sensor]]
    controllers: list[Controller]
    values: list[ControllerDataLogEntry]
    activities: list[Activity]  # newest first
    total_activities: int | None
    fetched_at: int  # epoch-ms, when the service answered
    # samops' own count of the panel's alarms resolved as false (core/read/false_alarms.py); None: not read
    false_alarms: FalseAlarmCount | None = None


@dataclass(frozen=True)
class FalseAlarmCount:
    count: int
    days: int
    threshold: int


def false_alarm_field(fa: FalseAlarmCount) -> str:
    """The panel's false alarms over the `[false_alarms]` days, flagged at its threshold."""
    flag = " :triangular_flag_on_post: at or over the threshold" if fa.count >= fa.threshold else ""
    return f"*False alarms ({fa.days} d)*\n{fa.count}{flag}"


def _partitions(parts: Sequence[Partition] | None) -> str:
    names = [f"{p.name or '?'} ({p.no})" if p.no is not None else (p.name or "?") for p in parts or []]
    return f" — partitions: {escape(', '.join(names))}" if names else ""


def sensor_line(sensor: Sensor) -> str:
    name = sensor.sensor_name or sensor.description or f"sensor {sensor.sensor_id}"
    label = f" · {escape(sensor.description)}" if sensor.description and sensor.description != name else ""
    io = "/".join(x for x in (sensor.io_type, sensor.io_direction) if x)
    return (
        f"• *{escape(name)}*{label} (`{sensor.id}`{', ' + io if io else ''}){_partitions(sensor.partitions)}"
    )


def latest_value(
    controller: Controller, values: Sequence[ControllerDataLogEntry]
) -> ControllerDataLogEntry | None:
    """The newest log entry of this controller: by resourceControllerId, else by the panel's order number."""
    by_id = [
        v
        for v in values
        if v.resource_controller_id is not None and v.resource_controller_id == controller.id
    ]
    candidates = by_id or [
        v
        for v in values
        if v.resource_controller_id is None and v.order_no is not None and v.order_no == controller.order_no
    ]
    return max(candidates, key=lambda v: v.last_update or 0, default=None)


def controller_line(controller: Controller, values: Sequence[ControllerDataLogEntry], now: int) -> str:
    name = controller.controller_name or controller.description or f"controller {controller.controller_id}"
    entry = latest_value(controller, values)
    value = (
        f" = `{escape(entry.value)}` ({age(entry.last_update, now)})"
        if entry and entry.value is not None
        else ""
    )
    return f"• *{escape(name)}* (`{controller.id}`){value}{_partitions(controller.partitions)}"


def activity_line(activity: Activity, zone: ZoneInfo) -> str:
    alarm = is_alarm(activity.event_type, activity.violation_type)
    what = activity.violation_name or activity.description or activity.event_type or "event"
    kind = activity.violation_type or activity.event_type or ""
    line = f"{local(activity.activity_time, zone)} · {escape(what)}" + (f" ({escape(kind)})" if kind else "")
    if activity.description and activity.description != what:
        line += f" — {escape(activity.description)}"
    return f":rotating_light: *{line}*" if alarm else f"• {line}"


def panel_blocks(status: PanelStatus, zone: ZoneInfo) -> Rendered:
    """Times in the panel's organization's zone (`zone`), named."""
    now = status.fetched_at
    title = status.name or f"Panel {status.resource_id}"
    fields = [
        f"*Panel id*\n`{status.resource_id}`",
        f"*Model*\n{or_dash(status.model)}",
        f"*Brand*\n{or_dash(status.brand)}",
        f"*Enabled*\n{yes_no(status.enabled)}",
    ]
    if status.org_id is not None:
        fields.append(f"*Organization*\n{status.org_id}")
    if status.false_alarms is not None:
        fields.append(false_alarm_field(status.false_alarms))
    blocks: list[Block] = [header(title), section(" ", fields=fields), divider()]
    sensor_count = sum(len(s) for s in status.sensors_by_type.values())
    blocks.append(section(f"*Sensors* ({sensor_count})" + ("" if sensor_count else "\n_none_")))
    for kind, sensors in sorted(status.sensors_by_type.items()):
        lines = [sensor_line(s) for s in sensors]
        blocks.append(section(f"_{escape(kind)}_ ({len(sensors)})\n" + join_lines(lines, limit=2900)))
    lines = [controller_line(c, status.values, now) for c in status.controllers]
    blocks.append(
        section(f"*Controllers* ({len(lines)})\n" + (join_lines(lines, limit=2900) if lines else "_none_"))
    )
    alarms = sum(1 for a in status.activities if is_alarm(a.event_type, a.violation_type))
    lines = [activity_line(a, zone) for a in status.activities]
    title_line = f"*Last {counted(len(lines), 'activity', 'activities')}*" + (
        f" — {counted(alarms, 'alarm')}" if alarms else ""
    )
    blocks.append(divider())
    blocks.append(section(title_line + "\n" + (join_lines(lines, limit=2900) if lines else "_no activity_")))
    newest_value = max((v.last_update or 0 for v in status.values), default=0) or None
    data_age = f"Live from the service at {local(now, zone)}."
    if newest_value:
        data_age += f" Latest controller value: {age(newest_value, now)}."
    blocks.append(context(data_age))
    text = (
        f"{escape(title)} (panel {status.resource_id}): model {escape(status.model or '–')}, "
        f"brand {escape(status.brand or '–')}, "
        f"enabled {yes_no(status.enabled)}; {counted(sensor_count, 'sensor')}, "
        f"{counted(len(status.controllers), 'controller')}, {counted(alarms, 'alarm')} in the last "
        f"{counted(len(status.activities), 'activity', 'activities')}. {data_age}"
    )
    return Rendered.of(text, cap_blocks(blocks))
