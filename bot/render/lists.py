"""The list answers of `/sam`: alarms, cameras, privileges, role privilege groups, customers, bills."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from bot.render.common import Rendered, cap_blocks, context, escape, header, join_lines, section
from bot.render.quiet import slack_words
from core.access_windows import time_of_day as ms_of_day
from core.alarms import kind_of
from core.models import Bill, CameraSummary, Customer, RolePrivilegeGroup, UserPrivileges
from core.read import AlarmRow, QuietWindow, TableFreshness
from core.text import counted
from core.timefmt import UTC_TZ, hhmm, local

# dayOfWeek 1..7 of a privilege period: 1 is Monday (ISO 8601), as samops reads the spec.
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
ZoneFor = Callable[[int | None], ZoneInfo]  # an organization's zone (NotifyConfig.zone_for)


# --- alarms ------------------------------------------------------------------------------------------


def alarm_line(a: AlarmRow, zone: ZoneInfo = UTC_TZ, held: QuietWindow | None = None) -> str:
    """One alarm; `held`: the silence or maintenance window that held it back (never posted), said with its
    reason."""
    kind = kind_of(a.violation_type)
    icon = kind.icon if kind else "•"
    panel = f"{escape(a.panel_name)} (`{a.resource_id}`)" if a.panel_name else f"panel `{a.resource_id}`"
    what = escape(a.violation_name or a.description or a.event_type or "alarm")
    kind = f" ({escape(a.violation_type)})" if a.violation_type else ""
    line = f"{icon} {local(a.activity_time, zone)} · *{what}*{kind} · {panel}"
    # The reason's end on the line's clock, unnamed: the line names its zone once already.
    why = f" · :no_bell: _{slack_words(held.held_reason(zone, named=False), held)}_" if held else ""
    return line + why


def alarms_blocks(
    alarms: Sequence[AlarmRow],
    scope: str,
    total: int,
    fresh: TableFreshness | None,
    now: int,
    zone_for: ZoneFor,
    org_id: int | None = None,
    held: Mapping[str, QuietWindow] | None = None,
) -> Rendered:
    """Each alarm in its organization's zone, those a silence or maintenance window held back (`held`, by
    event id) with the reason; the freshness in the zone of `org_id` (the one asked about)."""
    held = held or {}
    by_type: dict[str, int] = {}
    for a in alarms:
        by_type[a.violation_type or "other"] = by_type.get(a.violation_type or "other", 0) + 1
    counts = ", ".join(f"{n} {escape(t)}" for t, n in sorted(by_type.items(), key=lambda kv: -kv[1]))
    title = f"{counted(total, 'alarm')} {scope}" + (f" — {counts}" if counts and total == len(alarms) else "")
    lines = [alarm_line(a, zone_for(a.org_id), held.get(a.event_id)) for a in alarms]
    note = freshness_note(fresh, now, zone_for(org_id))
    if shown_held := sum(1 for a in alarms if a.event_id in held):
        note = f"{counted(shown_held, 'alarm')} held back (not posted) by a silence or maintenance. {note}"
    blocks: list[Block] = [
        header(f"Alarms {scope}"),
        section(join_lines(lines, total=total) if lines else "_No alarms in this period._"),
        context(note),
    ]
    return Rendered.of(f"{title}. {note}", cap_blocks(blocks))


def freshness_note(fresh: TableFreshness | None, now: int, zone: ZoneInfo = UTC_TZ) -> str:
    if fresh is None or fresh.last_success is None:
        return "From the local cache, which has not been synced yet (`samops sync`)."
    minutes = max(0, (now - fresh.last_success) // 60_000)
    note = f"From the local cache, synced {minutes} min ago ({local(fresh.last_success, zone)})."
    if fresh.last_error and (fresh.last_error_at or 0) > fresh.last_success:
        note += f" Last sync failed: {escape(fresh.last_error[:200])}."
    return note


# --- cameras -----------------------------------------------------------------------------------------


def camera_line(cam: CameraSummary, problems: Sequence[str]) -> str:
    name = escape(cam.name or cam.resource_name or f"camera {cam.resource_id}")
    model = " ".join(x for x in (cam.brand, cam.device_model or cam.model_name) if x)
    where = f" · org {cam.organization_id or cam.org_id}" if (cam.organization_id or cam.org_id) else ""
    if problems:
        state = ":warning: " + escape(", ".join(problems))
    elif cam.status:
        state = ":white_check_mark: ok"
    else:  # operation 17 promises no status: say what is known
        state = ":white_check_mark: enabled" if cam.enabled else "status not reported"
    return f"*{name}* (`{cam.resource_id}`) {escape(model)}{where} — {state}"


def cameras_blocks(cameras: Sequence[tuple[CameraSummary, tuple[str, ...]]], filter_text: str) -> Rendered:
    with_problems = sum(1 for _, p in cameras if p)
    scope = f" matching `{escape(filter_text)}`" if filter_text else ""
    summary = f"{counted(len(cameras), 'camera')}{scope}, {with_problems} with problems"
    lines = [camera_line(c, p) for c, p in cameras]
    blocks: list[Block] = [
        header("Cameras"),
        section(summary + "\n" + (join_lines(lines, limit=2800) if lines else "_none_")),
        context("Live from the service; cameras with problems first." + _status_note(cameras)),
    ]
    return Rendered.of(summary + ".", cap_blocks(blocks))


def _status_note(cameras: Sequence[tuple[CameraSummary, tuple[str, ...]]]) -> str:
    if not cameras or any(c.status or c.bind_status or c.sd_card_status for c, _ in cameras):
        return ""
    return " Camera status, binding and SD card are not reported by the service; shown: enabled or not."


# --- privileges and roles ----------------------------------------------------------------------------


def time_of_day(ms: int | None, zone: ZoneInfo = UTC_TZ) -> str:
    """A window bound as HH:MM on the organization's clock, read as who-can reads it (milliseconds after
    midnight, or an epoch-ms's time of day in `zone`: `core.access_windows.time_of_day`)."""
    if ms is None:
        return "?"
    return hhmm(ms_of_day(ms, zone))


def weekday(day: int | None) -> str:
    return WEEKDAYS[day - 1] if day is not None and 1 <= day <= 7 else f"day {day}"


def window_words(day: int | None, start: int | None, end: int | None, zone: ZoneInfo = UTC_TZ) -> str:
    """ "Mon 08:00–18:00" """
    return f"{weekday(day)} {time_of_day(start, zone)}–{time_of_day(end, zone)}"


def date_words(epoch_ms: int | None, none: str, zone: ZoneInfo = UTC_TZ) -> str:
    return local(epoch_ms, zone) if epoch_ms else none


def privileges_blocks(
    user_id: int, priv: UserPrivileges, zone: ZoneInfo, names: Mapping[int, str] | None = None
) -> Rendered:
    """The windows and dates on the organization's clock (`zone`), named, as `/sam who-can` reads them; each
    privilege group by its name from `names` (by group id) when the service gives one."""
    validity = priv.user_privilege_validity
    days = (
        sorted(validity.accessible_days or [], key=lambda d: (d.day_of_week or 0, d.start or 0))
        if validity
        else []
    )
    windows = [window_words(d.day_of_week, d.start, d.end, zone) for d in days]
    starts = date_words(validity.validity_start if validity else None, "the start", zone)
    expires = date_words(validity.expiration if validity else None, "never", zone)
    groups = sorted(priv.user_privilege_groups or [], key=lambda g: g.privilege_group_id or 0)
    group_lines = [
        f"{'✅' if g.authority else '⛔'} {group_label(g.privilege_group_id, names)}"
        + (f" (scope {g.scope_pk})" if g.scope_pk is not None else "")
        for g in groups
    ]
    granted = sum(1 for g in groups if g.authority)
    blocks: list[Block] = [
        header(f"Privileges of user {user_id}"),
        section(
            " ",
            fields=[
                f"*Valid from*\n{starts}",
                f"*Expires*\n{expires}",
                f"*Groups granted*\n{granted} of {len(groups)}",
            ],
        ),
        section(
            f"*Access windows* ({zone.key})\n"
            + (join_lines(windows, limit=2900) if windows else "_any time_")
        ),
        section("*Privilege groups*\n" + (join_lines(group_lines, limit=2900) if group_lines else "_none_")),
    ]
    text = (
        f"User {user_id}: access {', '.join(windows) or 'any time'} ({zone.key}); valid from {starts}, "
        f"expires {expires}; "
        f"{granted} of {len(groups)} privilege groups granted."
    )
    return Rendered.of(text, cap_blocks(blocks))


def group_label(group_id: int | None, names: Mapping[int, str] | None) -> str:
    """A privilege group as people know it: its name and id, or its id alone when the service names none."""
    name = (names or {}).get(group_id or -1)
    return f"*{escape(name)}* (`{group_id}`)" if name else f"privilege group `{group_id}`"


def role_blocks(
    role_id: int, groups: Sequence[RolePrivilegeGroup], names: Mapping[int, str] | None = None
) -> Rendered:
    ordered = sorted(groups, key=lambda g: g.privilege_group_id or 0)
    lines = [
        f"{'✅' if g.default_authority else '⛔'} {group_label(g.privilege_group_id, names)}"
        f" — {'granted' if g.default_authority else 'not granted'} by default"
        for g in ordered
    ]
    granted = sum(1 for g in ordered if g.default_authority)
    blocks: list[Block] = [
        header(f"Role {role_id}"),
        section(
            f"{len(ordered)} privilege groups, {granted} granted by default\n"
            + (join_lines(lines) if lines else "_none_")
        ),
    ]
    text = f"Role {role_id}: {len(ordered)} privilege groups, {granted} granted by default."
    return Rendered.of(text, cap_blocks(blocks))


# --- customers and bills -----------------------------------------------------------------------------


def customer_line(c: Customer) -> str:
    # The service masks names; they are shown exactly as received, never completed from elsewhere.
    places = []
    for medium in c.contact_medium or []:
        ch = medium.characteristic
        if ch is None:
            continue
        where = ", ".join(x for x in (ch.city, ch.country) if x)
        places.append(" ".join(x for x in (ch.phone_number, f"({where})" if where else None) if x))
    party = c.engaged_party
    party_text = (
        f" · party {escape(party.name or party.id or '')}" if party and (party.name or party.id) else ""
    )
    return f"*{escape(c.name or 'unnamed')}* (`{escape(c.id or '?')}`){party_text}" + (
        f" — {escape('; '.join(places))}" if places else ""
    )


def customers_blocks(phone: str, customers: Sequence[Customer]) -> Rendered:
    lines = [customer_line(c) for c in customers]
    summary = f"{counted(len(customers), 'customer')} with phone {escape(phone)}"
    blocks: list[Block] = [
        header("Customers"),
        section(summary + "\n" + (join_lines(lines, limit=2800) if lines else "_none_")),
        context("Names are masked by the service."),
    ]
    return Rendered.of(summary + ".", cap_blocks(blocks))


def _date(value: datetime | str | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):  # a date the service formats its own way is shown as it came (core.models)
        return escape(value)
    return value.strftime("%Y-%m-%d")


def bill_line(b: Bill) -> str:
    amount = b.amount_due
    money = f"{amount.value:,.2f} {amount.unit or ''}".strip() if amount and amount.value is not None else "–"
    paid = f", paid {_date(b.payment_date)}" if b.payment_date else ""
    return (
        f"*{escape(b.bill_no or b.id or '?')}* · {_date(b.bill_date)} · {escape(money)} · "
        f"{escape(b.state or 'unknown')} · due {_date(b.payment_due_date)}{paid}"
    )


def bills_blocks(subscription_id: int, month: str | None, bills: Sequence[Bill]) -> Rendered:
    ordered = sorted(bills, key=lambda b: b.bill_date or datetime.min.replace(tzinfo=UTC), reverse=True)
    scope = f" for {month}" if month else ""
    lines = [bill_line(b) for b in ordered]
    summary = f"{counted(len(bills), 'bill')} of subscription {subscription_id}{scope}"
    blocks: list[Block] = [
        header(f"Bills — subscription {subscription_id}"),
        section(summary + "\n" + (join_lines(lines, limit=2800) if lines else "_none_")),
    ]
    return Rendered.of(summary + ".", cap_blocks(blocks))
