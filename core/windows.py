"""Time windows in an organization's time zone: weekly recurring ones (maintenance in the TOML), and the
words people type for a point in time (`now`, `HH:MM`, `YYYY-MM-DD HH:MM`, `+2h`).

Everything is epoch milliseconds in, epoch milliseconds out; the zone only decides what a wall-clock time
means. A weekly window starts on one of its days at `start` and runs until the next `end` — the same day, or
the next one when `end` is not after `start` (22:00–06:00 runs over midnight). Across a DST change a
window keeps its wall-clock times, so it is an hour shorter or longer that night; a wall-clock time that
does not exist that day (02:30 when clocks jump from 02:00 to 03:00) is read with the offset before the
jump, as Python's zoneinfo does (fold=0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core.clock import DAY_MS, HOUR_MS, MINUTE_MS

_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")  # date.weekday()
_CLOCK = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
_RELATIVE = re.compile(r"\+(\d{1,5})(m|min|h|d)", re.IGNORECASE)
_UNIT_MS = {"m": MINUTE_MS, "min": MINUTE_MS, "h": HOUR_MS, "d": DAY_MS}
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[ t]([01]?\d|2[0-3]):([0-5]\d)")


class WhenError(ValueError):
    """A time the person typed that samops cannot read; the message says what it accepts."""


def parse_clock(text: str) -> time:
    """`HH:MM` (24-hour) as a time of day."""
    match = _CLOCK.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a time of day like 07:00 or 22:30")
    return time(int(match.group(1)), int(match.group(2)))


def parse_day(text: str) -> int:
    """`mon` … `sun` (or the full English name) as date.weekday()."""
    word = text.strip().lower()
    for number, name in enumerate(_DAY_NAMES):
        if word in (name, name[:3]):
            return number
    raise ValueError(f"{text!r} is not a day (mon, tue, wed, thu, fri, sat, sun)")


def wall_ms(day: date, at: time, zone: ZoneInfo) -> int:
    """The instant the clocks in `zone` show `at` on `day`."""
    return int(datetime.combine(day, at, tzinfo=zone).timestamp() * 1000)


def local_date(ms: int, zone: ZoneInfo) -> date:
    return datetime.fromtimestamp(ms / 1000, zone).date()


@dataclass(frozen=True)
class Weekly:
    """A window repeating on `days` (date.weekday() numbers) from `start` to the next `end`, in `zone`."""

    days: frozenset[int]
    start: time
    end: time
    zone: ZoneInfo

    def occurrence(self, day: date) -> tuple[int, int] | None:
        """[start, end) in epoch-ms of the occurrence starting on local `day`, if the window runs that day."""
        if day.weekday() not in self.days:
            return None
        end_day = day if self.end > self.start else day + timedelta(days=1)
        return wall_ms(day, self.start, self.zone), wall_ms(end_day, self.end, self.zone)

    def covering(self, at: int) -> tuple[int, int] | None:
        """The occurrence that covers `at`, if any: one that started today or, over midnight, yesterday."""
        today = local_date(at, self.zone)
        for day in (today - timedelta(days=1), today):
            span = self.occurrence(day)
            if span is not None and span[0] <= at < span[1]:
                return span
        return None

    def covers(self, at: int) -> bool:
        return self.covering(at) is not None


def latest_at_or_before(times: tuple[time, ...], at: int, zone: ZoneInfo) -> int | None:
    """The latest instant at or before `at` whose wall-clock time in `zone` is one of `times` (looking back
    up to two days), e.g. the handover due now or most recently."""
    today = local_date(at, zone)
    candidates = [wall_ms(today - timedelta(days=back), t, zone) for back in range(3) for t in times]
    passed = [c for c in candidates if c <= at]
    return max(passed) if passed else None


def parse_when(words: str, now: int, zone: ZoneInfo, after: int | None = None) -> int:
    """A point in time from what a person typed, read in `zone`:
    `now`; `+2h`, `+30m`, `+1d` (after `after` when given — the window's start — else after now);
    `HH:MM`: the first such wall-clock time after `after` when given, else today's (tomorrow's once today's
    is more than a minute past); `YYYY-MM-DD HH:MM` (or with a `T`)."""
    text = " ".join(words.split()).lower()
    if text == "now":
        return now
    if match := _RELATIVE.fullmatch(text):
        base = after if after is not None else now
        return base + int(match.group(1)) * _UNIT_MS[match.group(2).lower()]
    if match := _DATE_TIME.fullmatch(text):
        try:
            day = date.fromisoformat(match.group(1))
        except ValueError:
            raise WhenError(f"`{words}` is not a date") from None
        return wall_ms(day, time(int(match.group(2)), int(match.group(3))), zone)
    if _CLOCK.fullmatch(text):
        at = parse_clock(text)
        base = after if after is not None else now - MINUTE_MS
        day = local_date(base, zone)
        for offset in range(3):
            candidate = wall_ms(day + timedelta(days=offset), at, zone)
            if candidate > base:
                return candidate
    raise WhenError(f"`{words}` is not a time: use now, HH:MM, YYYY-MM-DD HH:MM or +2h / +30m / +1d")
