"""The access-grant form (`/sam access grant`): privilege groups, panels, validity dates and weekly windows,
checked into a `Grant` (an operation-4 request short of the user and organization ids); and its submission
(`GRANT`): field errors in the modal, else operation 4 with every privilege group listed (ticked =
authorized), as the spec requires."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.forms.fields import (
    FieldError,
    collect,
    day_end_ms,
    day_start_ms,
    parse_choices,
    parse_date,
    parse_day_of_week,
    parse_id,
    parse_id_list,
    parse_time,
)
from bot.forms.submission import Submission, WriteModal, answer_write, submitted
from bot.payloads import AccessMeta
from bot.render.access import ACCESS_GRANT, grant_summary
from bot.render.common import escape
from bot.writes import run_write
from core.timefmt import UTC_TZ, hhmm

if TYPE_CHECKING:
    from bot.context import AppContext


@dataclass(frozen=True)
class Grant:
    """A checked operation-4 request, short of the user and organization ids."""

    groups: dict[int, bool]  # every privilege group → authorized
    panels: list[int]
    validity_start: int | None = None  # epoch-ms
    expiration: int | None = None  # epoch-ms
    period: list[dict[str, int]] = field(default_factory=list)  # {dayOfWeek, start, end}
    # The organization's zone the form was shown in: its dates are days and its windows hours on that clock,
    # as who-can reads them (core/access_windows.py).
    zone: ZoneInfo = UTC_TZ

    def period_words(self) -> str:
        dates = []
        if self.validity_start is not None:
            dates.append(f"from {datetime.fromtimestamp(self.validity_start / 1000, self.zone):%Y-%m-%d}")
        if self.expiration is not None:
            dates.append(f"until {datetime.fromtimestamp(self.expiration / 1000, self.zone):%Y-%m-%d}")
        if self.period:
            first = self.period[0]
            days = ",".join(str(p["dayOfWeek"]) for p in self.period)
            dates.append(f"days {days} {hhmm(first['start'])}-{hhmm(first['end'])}")
        return f"{', '.join(dates)} ({self.zone.key})" if dates else "no time limits"


def grant_from_values(
    values: dict[str, Any], group_ids: Sequence[int], zone: ZoneInfo = UTC_TZ
) -> tuple[Grant | None, dict[str, str]]:
    """Check the grant modal's values; (Grant, {}) when valid, else (None, {field: error}) for every bad
    field at once. Nothing is sent unless all of it is right. Dates are days in `zone`, the organization's."""
    errors: dict[str, str] = {}

    chosen = set(collect(errors, "groups", lambda: _chosen_ids(values.get("groups"), "groups")) or [])
    if chosen - set(group_ids):
        errors["groups"] = "unknown privilege group"
    groups = {gid: gid in chosen for gid in group_ids}
    panels = collect(errors, "panels", lambda: _panel_ids(values.get("panels"))) or []
    start_day = collect(
        errors, "validity_start", lambda: _optional_date(values.get("validity_start"), "validity_start")
    )
    expiry_day = collect(errors, "expiry", lambda: _optional_date(values.get("expiry"), "expiry"))
    if start_day and expiry_day and expiry_day < start_day:
        errors["expiry"] = "must not be before the start date"
    days = (
        collect(
            errors,
            "days",
            lambda: [parse_day_of_week(d, "days") for d in parse_choices(values.get("days"), "days")],
        )
        or []
    )
    start = collect(
        errors, "window_start", lambda: _optional_time(values.get("window_start"), "window_start")
    )
    end = collect(errors, "window_end", lambda: _optional_time(values.get("window_end"), "window_end"))
    if days and "window_start" not in errors and "window_end" not in errors:
        if start is None:
            errors["window_start"] = "give the start time (HH:MM) of the chosen days"
        if end is None:
            errors["window_end"] = "give the end time (HH:MM) of the chosen days"
        if start is not None and end is not None and end <= start:
            errors["window_end"] = "must be later than the start time"
    elif not days and (start is not None or end is not None):
        errors["days"] = "choose the days these times apply to"
    if errors:
        return None, errors
    period = [{"dayOfWeek": d, "start": start, "end": end} for d in sorted(set(days))] if days else []
    return (
        Grant(
            groups=groups,
            panels=panels,
            validity_start=day_start_ms(start_day, zone) if start_day else None,
            expiration=day_end_ms(expiry_day, zone) if expiry_day else None,
            period=period,
            zone=zone,
        ),
        {},
    )


def _chosen_ids(value: object, field_name: str) -> list[int]:
    return list(dict.fromkeys(parse_id(v, field_name) for v in parse_choices(value, field_name)))


def _panel_ids(value: object) -> list[int]:
    """Panels: chosen in a multi-select, or typed as `1001,1002` where there are too many to list."""
    panels = parse_id_list(value, "panels") if isinstance(value, str) else _chosen_ids(value, "panels")
    if not panels:
        raise FieldError("panels", "give at least one id")
    return panels


def _optional_date(value: object, field_name: str) -> date | None:
    return parse_date(value, field_name) if value else None


def _optional_time(value: object, field_name: str) -> int | None:
    return parse_time(value, field_name) if value else None


# -- the submission ------------------------------------------------------------------------------------------


def grant_access(ctx: AppContext, sub: Submission[AccessMeta, Grant]) -> None:
    user_id, org, grant = sub.meta.user, sub.meta.org, sub.form
    request = sub.write_request(
        f"access grant {user_id}",
        grant_summary(user_id, grant.groups, grant.panels, grant.period_words()),
        org,
    )
    outcome = run_write(
        ctx,
        request,
        lambda: ctx.client.set_user_privileges(
            user_id=user_id,
            authorized_resource_ids=grant.panels,
            privilege_groups=[
                {"privilegeGroupId": gid, "authorized": on} for gid, on in sorted(grant.groups.items())
            ],
            organization_id=org,
            expiration_time=grant.expiration,
            period=grant.period or None,
            validity_start=grant.validity_start,
            org=org,
        ),
    )

    def done() -> tuple[str, list[str]]:
        granted = [str(g) for g, on in sorted(grant.groups.items()) if on]
        return f"Access of user {user_id} updated", [
            f"*Privilege groups authorized:* {', '.join(granted) or 'none'} (of {len(grant.groups)})",
            f"*Panels:* {', '.join(str(p) for p in grant.panels)}",
            f"*When:* {escape(grant.period_words())}",
        ]

    failed = f"Access of user {user_id} not changed"
    answer_write(ctx, sub, outcome, done, failed, f"Changing the access of user {user_id}")


GRANT: WriteModal[AccessMeta, Grant] = WriteModal(
    callback_id=ACCESS_GRANT,
    first_field="groups",
    meta_type=AccessMeta,
    lost="this form lost its user; run /sam access grant again",
    read=lambda meta, view: grant_from_values(submitted(view), meta.groups, ZoneInfo(meta.tz)),
    command=lambda meta: f"access grant {meta.user if meta else None}",
    write=grant_access,
)
