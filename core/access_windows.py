"""Whether a user's authorization is valid at a moment, and until when: validity start, expiration and the
day-of-week windows of the service's privilege records (operations 4 and 15), in the organization's zone.

How samops reads the windows (the spec gives only `dayOfWeek` 1-7 and `start`/`end` typed epoch-ms):
- `dayOfWeek` 1 is Monday, 7 is Sunday (ISO 8601), as everywhere else in samops;
- `start`/`end` from 0 to 24 h are milliseconds after local midnight (what the service's own records and
  samops' forms hold); a larger value is an epoch-ms whose local time of day is meant;
- a window whose end is not after its start runs past midnight into the next day (Fri 22:00–06:00 ends on
  Saturday at 06:00); one whose end equals its start lasts the whole 24 hours;
- windows that touch or overlap are one stretch: Mon 20:00–24:00 and Tue 00:00–08:00 is valid until Tuesday
  08:00;
- no windows at all: valid at any hour between the validity start and the expiration; a `validityStart` or
  `expiration` of 0 (or absent) sets no bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.clock import DAY_MS
from core.timefmt import INVALID

# How far ahead a stretch is followed: a week of windows repeats, so a stretch longer than this never ends.
HORIZON_DAYS = 8


@dataclass(frozen=True)
class DayWindow:
    day_of_week: int  # 1 Monday .. 7 Sunday
    start: int  # see the module's docstring
    end: int


@dataclass(frozen=True)
class Validity:
    """An authorization's bounds: None (or 0 from the service) sets none; no windows means any hour."""

    start: int | None = None
    expiration: int | None = None
    windows: tuple[DayWindow, ...] = ()
    # The service listed windows, none of them usable: no hour is granted (an empty list grants every hour).
    unusable_windows: bool = False


@dataclass(frozen=True)
class Access:
    """The answer at one moment. `until`: when the current stretch ends (None: no end in sight);
    `next_from`: when a refused user may next operate (None: never, or not within a week)."""

    allowed: bool
    until: int | None = None
    next_from: int | None = None
    reason: str = ""  # why not: "not yet valid", "expired", "outside their hours"


def validity_of(
    start: int | None, expiration: int | None, windows: Iterable[tuple[Any, Any, Any]]
) -> Validity:
    """A Validity from the service's fields; windows with a day or bound missing or out of range grant
    nothing, so they are left out rather than guessed."""
    given = list(windows)
    kept = tuple(
        DayWindow(int(day), int(s), int(e))
        for day, s, e in given
        if isinstance(day, int) and 1 <= day <= 7 and isinstance(s, int) and isinstance(e, int)
        if s >= 0 and e >= 0
    )
    return Validity(start or None, expiration or None, kept, unusable_windows=bool(given) and not kept)


def access_at(validity: Validity, at: int, zone: ZoneInfo) -> Access:
    """Whether `validity` lets its user operate at `at` (epoch-ms), its windows read in `zone`."""
    if validity.start is not None and at < validity.start:
        return Access(False, next_from=_next_start(validity, validity.start, zone), reason="not yet valid")
    if validity.expiration is not None and at >= validity.expiration:
        return Access(False, reason="expired")
    if validity.unusable_windows:
        return Access(False, reason="no usable hours")
    if not validity.windows:
        return Access(True, until=validity.expiration)
    stretches = _stretches(validity.windows, at, zone)
    for begin, end, open_ended in stretches:
        if begin <= at < end:
            until = None if open_ended else end
            return Access(True, until=_earliest(until, validity.expiration))
    later = [begin for begin, _, _ in stretches if begin > at]
    upcoming = min(later) if later else None
    if upcoming is not None and validity.expiration is not None and upcoming >= validity.expiration:
        upcoming = None
    return Access(False, next_from=upcoming, reason="outside their hours")


def _next_start(validity: Validity, start: int, zone: ZoneInfo) -> int | None:
    """When a not-yet-valid authorization first lets its user in."""
    opens = access_at(
        Validity(None, validity.expiration, validity.windows, validity.unusable_windows), start, zone
    )
    return start if opens.allowed else opens.next_from


def _earliest(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _stretches(windows: tuple[DayWindow, ...], at: int, zone: ZoneInfo) -> list[tuple[int, int, bool]]:
    """The windows as epoch-ms intervals from the day before `at` to HORIZON_DAYS after, merged where they
    touch; the flag says a stretch reaches the horizon (it never ends)."""
    today = datetime.fromtimestamp(at / 1000, zone).date()
    intervals: list[tuple[int, int]] = []
    for offset in range(-1, HORIZON_DAYS):
        day = today + timedelta(days=offset)
        for w in windows:
            if w.day_of_week != day.isoweekday():
                continue
            start, end = time_of_day(w.start, zone), time_of_day(w.end, zone)
            if end <= start:
                end += DAY_MS  # past midnight (or, equal, the whole day)
            intervals.append((_local(day, start, zone), _local(day, end, zone)))
    horizon = _local(today + timedelta(days=HORIZON_DAYS - 1), 0, zone)
    merged: list[list[int]] = []
    for begin, end in sorted(intervals):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    return [(begin, end, end >= horizon) for begin, end in merged]


def time_of_day(value: int, zone: ZoneInfo) -> int:
    """A window bound as milliseconds after local midnight (see the module's docstring)."""
    if value <= DAY_MS:
        return value
    local = datetime.fromtimestamp(value / 1000, zone)
    return ((local.hour * 60 + local.minute) * 60 + local.second) * 1000


def _local(day: date, ms_of_day: int, zone: ZoneInfo) -> int:
    """Epoch-ms of `ms_of_day` after midnight of `day` on the wall clock of `zone` (a time a DST change
    skips is read as if the clock had not changed, as zoneinfo does)."""
    wall = datetime(day.year, day.month, day.day) + timedelta(milliseconds=ms_of_day)
    return int(wall.replace(tzinfo=zone).timestamp() * 1000)


def local_words(epoch_ms: int, zone: ZoneInfo, now: int) -> str:
    """A moment for a person, in `zone`: "18:00" today, "Tue 06:00" within a week, else a full date."""
    try:
        moment = datetime.fromtimestamp(epoch_ms / 1000, zone)
        today = datetime.fromtimestamp(now / 1000, zone).date()
    except (OverflowError, OSError, ValueError):
        return INVALID
    if moment.date() == today:
        return moment.strftime("%H:%M")
    if 0 < (moment.date() - today).days < 7:
        return moment.strftime("%a %H:%M")
    return moment.strftime("%Y-%m-%d %H:%M")
