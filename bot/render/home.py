"""The App Home tab (a `home` view): the person's role, a note on what they last did here, their alarms with
the card's lifecycle buttons, what is assigned to them, the silences and maintenance in force, and how fresh
the data is.

Within Slack's limits for a Home view: at most 100 blocks, section text within 3000 characters (the
helpers of `bot/render/common.py` clip). Times are absolute, never "5 min ago", so an unchanged cache
renders the same view and the refresher publishes nothing (it compares `view_hash`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block
from slack_sdk.models.views import View

from bot.render.alarms import dashboard_link, lifecycle_buttons, panel_label, sensor_or_zone
from bot.render.common import clip, context, divider, escape, header, join_lines, section, typed
from bot.render.keyholders import keyholder_line
from core.alarms import LEVELS, Alarm, level_of
from core.keyholders import KeyholderContext
from core.lifecycle import State
from core.read import MAINTENANCE, HomeAlarm, HomeData
from core.timefmt import local, zone_name

# The zone each organization's times are shown in to the Home's reader (`AppContext.reader_zones`: their own
# Slack zone, else the organization's, [notify.timezones]); None: no organization of its own.
ZoneFor = Callable[[int | None], ZoneInfo]
MAX_HOME_BLOCKS = 100  # Slack's limit for a Home view
_CHANNEL_ID = re.compile(r"[CG][A-Z0-9_]{1,63}")
MAX_QUIET_LINES = 10


def home_view(
    data: HomeData,
    role_line: str,
    zone_for: ZoneFor,
    dashboard_url: str,
    why_scope: str = "",
    note: str | None = None,
    can_act: bool = True,
    keyholders: Mapping[str, KeyholderContext] | None = None,
    windows_zone_for: ZoneFor | None = None,
) -> View:
    """The Home of `data.user`. `role_line` says their role and why (`RoleAnswer.sentence`); `why_scope`
    says how their alarms were chosen; `note` answers their last click here; `can_act` (technicians and
    admins) adds the card's lifecycle buttons to each alarm (the listeners check the role again);
    `keyholders` is each alarm's keyholder line by event id (core/keyholders.py), as on its card, its
    access windows on the clock `windows_zone_for` gives (the organization's, which the service's windows
    are read in), named where it is not the reader's."""
    lines = _Keyholders(keyholders or {}, windows_zone_for or zone_for)
    blocks: list[Block] = [header("samops"), context(role_line)]
    if note:
        blocks.append(section(f":information_source: {escape(clip(note, 1000))}"))
    blocks += _freshness(data, zone_for(None))
    blocks += _alarms_blocks(
        "Assigned to you",
        data.assigned,
        data.assigned_total,
        zone_for,
        dashboard_url,
        "Nothing is assigned to you.",
        can_act,
        lines,
    )
    blocks += _incidents_blocks(data, zone_for)
    title = "Open and acknowledged alarms" + (" where you work" if data.scope.known else "")
    blocks += _alarms_blocks(
        title, data.alarms, data.alarms_total, zone_for, dashboard_url, "No open alarms.", can_act, lines
    )
    if why_scope:
        blocks.append(context(escape(why_scope)))
    blocks += _quiet(data, zone_for)
    blocks.append(context(f"<{dashboard_link(dashboard_url, None)}|Every alarm in the dashboard>"))
    return View(type="home", blocks=_capped(blocks))


def view_hash(view: View) -> str:
    """What the person would see, as a digest: equal views, equal hashes."""
    return hashlib.sha256(json.dumps(view.to_dict(), sort_keys=True).encode()).hexdigest()


def _freshness(data: HomeData, zone: ZoneInfo) -> list[Block]:
    fresh = data.fresh
    as_of = local(fresh.as_of, zone, missing="never synced")
    if fresh.failing:
        names = ", ".join(t.table for t in fresh.failing)
        return [section(f":red_circle: *Sync failing* ({escape(names)}) — data as of {as_of}")]
    if fresh.stale:
        return [section(f":red_circle: *Stale* — data as of {as_of}; the sync has not succeeded since.")]
    return [context(f":large_green_circle: Live — data as of {as_of}")]


def _alarms_blocks(
    title: str,
    alarms: Sequence[HomeAlarm],
    total: int,
    zone_for: ZoneFor,
    dashboard_url: str,
    empty: str,
    can_act: bool,
    keyholders: _Keyholders,
) -> list[Block]:
    blocks: list[Block] = [divider(), section(f"*{escape(title)}* ({total})")]
    if not alarms:
        return [*blocks, context(empty)]
    for item in alarms:
        blocks.append(
            section(_alarm_line(item, zone_for(item.alarm.org_id), keyholders.line(item.alarm, zone_for)))
        )
        buttons = lifecycle_buttons(item.alarm.event_id, item.state) if can_act else []
        if buttons:
            blocks.append(ActionsBlock(elements=buttons))
    if total > len(alarms):
        link = dashboard_link(dashboard_url, None)
        blocks.append(context(f"… and {total - len(alarms)} more: <{link}|open the dashboard>"))
    return blocks


def _incidents_blocks(data: HomeData, zone_for: ZoneFor) -> list[Block]:
    """Site incidents, a line each; they are acted on from their card (its buttons act on the whole
    incident), and their alarms are in the list below with their own buttons."""
    if not data.incidents:
        return []
    lines = []
    for incident in data.incidents:
        zone = zone_for(incident.org_id)
        panel = escape(clip(f"{incident.panel_name or 'panel'} ({incident.resource_id})", 200))
        kinds = escape(", ".join(incident.kinds))
        where = f" · {_channel(incident.channel)}" if incident.channel else ""
        lines.append(
            f":rotating_light: *Incident on {panel}*: {kinds} · {local(incident.first_time, zone)} – "
            f"{local(incident.last_time, zone)} · *{incident.state}*{where}"
        )
    return [divider(), section(f"*Site incidents* ({len(data.incidents)})"), section(join_lines(lines))]


class _Keyholders:
    """Each alarm's keyholder line, its windows' zone named where the reader's clock is another."""

    def __init__(self, found: Mapping[str, KeyholderContext], windows_zone_for: ZoneFor) -> None:
        self.found = found
        self.windows_zone_for = windows_zone_for

    def line(self, alarm: Alarm, zone_for: ZoneFor) -> str | None:
        found = self.found.get(alarm.event_id)
        if found is None:
            return None
        line = keyholder_line(found)
        windows = zone_name(self.windows_zone_for(alarm.org_id))
        if found.inside and windows != zone_name(zone_for(alarm.org_id)):
            line += f" (windows on {windows}'s clock)"
        return line


def _alarm_line(item: HomeAlarm, zone: ZoneInfo, keyholders: str | None = None) -> str:
    alarm = item.alarm
    level = LEVELS[level_of(alarm.violation_type, alarm.event_type).name]
    # Each part clipped on its own, so a long name never pushes the state and the buttons' context out.
    name = clip(alarm.violation_name or alarm.event_type or "Alarm", 150)
    where = sensor_or_zone(alarm)
    head = f"{level.emoji} *{escape(name)}* on {escape(clip(panel_label(alarm), 200))}" + (
        f" — {escape(clip(where, 200))}" if where else ""
    )
    parts = [local(alarm.activity_time, zone), _channel(item.channel)]
    state = item.state
    if item.priority is not None:
        parts.append(f"*{item.priority.label}*")
    if state is None or state.state is State.OPEN:
        parts.append("*open*" + (" · :alarm_clock: *overdue*" if item.overdue else ""))
    else:
        parts.append(f"acknowledged by <@{escape(state.acknowledged_by or '?')}>")
    if state is not None and state.holder:
        parts.append(f"held by <@{escape(state.holder)}>")
    parts.append(f"`{escape(alarm.event_id)}`")
    tail = f"\n{keyholders}" if keyholders is not None else ""
    return clip(f"{head}\n{' · '.join(parts)}", 2900 - len(tail)) + tail


def _channel(channel: str) -> str:
    """A Slack channel as a link; the notifier's console (no Slack configured then) as its name."""
    return f"<#{channel}>" if _CHANNEL_ID.fullmatch(channel) else escape(channel)


def _quiet(data: HomeData, zone_for: ZoneFor) -> list[Block]:
    blocks: list[Block] = [divider(), section(f"*Silences and maintenance in force* ({len(data.quiet)})")]
    if not data.quiet:
        return [*blocks, context("None: every alarm reaches its channel.")]
    lines = []
    for window in data.quiet[:MAX_QUIET_LINES]:
        kind = ":wrench: Maintenance" if window.kind == MAINTENANCE else ":no_bell: Silence"
        by = f" by <@{escape(window.created_by)}>" if window.created_by else ""
        reason = f" — {typed(clip(window.reason, 200))}" if window.reason else ""
        until = local(window.end, zone_for(window.organization))
        lines.append(f"{kind} of {escape(window.scope())} until {until}{by}{reason}")
    return [*blocks, section(join_lines(lines, total=len(data.quiet)))]


def _capped(blocks: list[Block]) -> list[Block]:
    """Within Slack's 100 blocks: cut the end, saying so (the lists above are already capped, so this is a
    guard, not the plan)."""
    if len(blocks) <= MAX_HOME_BLOCKS:
        return blocks
    return [*blocks[: MAX_HOME_BLOCKS - 1], context("… more in the dashboard")]
