"""core.access_windows: validity start, expiration and day-of-week windows, over midnight and across the
week, in the organization's time zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from core.access_windows import (
    Access,
    DayWindow,
    Validity,
    access_at,
    local_words,
    validity_of,
)
from core.clock import HOUR_MS
from tests.support.narrow import known

BERLIN = ZoneInfo("Europe/Berlin")
UTC = ZoneInfo("UTC")
MON, TUE, WED, FRI, SAT, SUN = 1, 2, 3, 5, 6, 7


def at(text: str, zone: ZoneInfo = BERLIN) -> int:
    """Epoch-ms of a local wall-clock time ("2026-11-23 22:30" is a Monday)."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=zone).timestamp() * 1000)


def hours(start: float, end: float) -> tuple[int, int]:
    return int(start * HOUR_MS), int(end * HOUR_MS)


def windows(*days: tuple[int, float, float]) -> Validity:
    return Validity(windows=tuple(DayWindow(d, *hours(s, e)) for d, s, e in days))


def test_a_window_within_a_day_is_valid_inside_and_until_its_end() -> None:
    office = windows((MON, 8, 18))
    assert access_at(office, at("2026-11-23 09:15"), BERLIN) == Access(True, until=at("2026-11-23 18:00"))
    assert not access_at(office, at("2026-11-23 18:00"), BERLIN).allowed  # the end is not inside
    assert access_at(office, at("2026-11-23 08:00"), BERLIN).allowed  # the start is
    refused = access_at(office, at("2026-11-23 07:59"), BERLIN)
    assert refused == Access(False, next_from=at("2026-11-23 08:00"), reason="outside their hours")


def test_the_day_of_week_counts_from_monday() -> None:
    office = windows((TUE, 8, 18))
    assert not access_at(office, at("2026-11-23 09:00"), BERLIN).allowed  # a Monday
    assert access_at(office, at("2026-11-24 09:00"), BERLIN).allowed  # a Tuesday
    # Next Tuesday, seen from Wednesday: six days on.
    assert access_at(office, at("2026-11-25 09:00"), BERLIN).next_from == at("2026-12-01 08:00")
    sunday = windows((SUN, 0, 24))
    assert access_at(sunday, at("2026-11-29 12:00"), BERLIN).allowed


def test_a_window_over_midnight_belongs_to_the_day_it_starts_on() -> None:
    night = windows((FRI, 22, 6))  # Friday 22:00 to Saturday 06:00
    assert access_at(night, at("2026-11-27 23:00"), BERLIN) == Access(True, until=at("2026-11-28 06:00"))
    assert access_at(night, at("2026-11-28 05:59"), BERLIN).allowed  # Saturday morning, Friday's window
    assert not access_at(night, at("2026-11-28 06:00"), BERLIN).allowed
    assert not access_at(night, at("2026-11-28 23:00"), BERLIN).allowed  # Saturday night is not Friday's
    assert not access_at(night, at("2026-11-27 05:00"), BERLIN).allowed  # Thursday's night is not granted


def test_windows_that_touch_are_one_stretch_across_midnight_and_days() -> None:
    evening_and_morning = windows((MON, 20, 24), (TUE, 0, 8))
    assert access_at(evening_and_morning, at("2026-11-23 21:00"), BERLIN).until == at("2026-11-24 08:00")
    weekend = windows((SAT, 0, 24), (SUN, 0, 24))
    assert access_at(weekend, at("2026-11-28 10:00"), BERLIN).until == at("2026-11-30 00:00")
    always = windows(*((d, 0, 0) for d in range(1, 8)))  # end == start: the whole day, every day
    assert access_at(always, at("2026-11-25 03:00"), BERLIN) == Access(True, until=None)


def test_the_time_zone_decides_the_local_day_and_hour() -> None:
    office = windows((MON, 8, 18))
    # 07:30 UTC on Monday is 08:30 in Berlin: inside in Berlin, outside in UTC.
    moment = at("2026-11-23 07:30", UTC)
    assert access_at(office, moment, BERLIN).allowed
    assert not access_at(office, moment, UTC).allowed
    # 23:30 UTC on Sunday is already Monday 00:30 in Berlin.
    early = windows((MON, 0, 1))
    assert access_at(early, at("2026-11-22 23:30", UTC), BERLIN).allowed
    assert not access_at(early, at("2026-11-22 23:30", UTC), UTC).allowed


def test_a_window_given_as_an_epoch_ms_is_read_as_its_local_time_of_day() -> None:
    start, end = at("2025-01-06 08:00"), at("2025-01-06 18:00")  # any date: the time of day is what counts
    office = Validity(windows=(DayWindow(MON, start, end),))
    assert access_at(office, at("2026-11-23 17:00"), BERLIN).until == at("2026-11-23 18:00")


def test_validity_start_and_expiration_bound_every_window() -> None:
    office = Validity(
        start=at("2026-11-24 00:00"), expiration=at("2026-11-25 12:00"), windows=windows((TUE, 8, 18),
        (WED, 8, 18)).windows,
    )  # fmt: skip
    not_yet = access_at(office, at("2026-11-23 09:00"), BERLIN)
    assert not_yet == Access(False, next_from=at("2026-11-24 08:00"), reason="not yet valid")
    assert access_at(office, at("2026-11-24 09:00"), BERLIN).until == at("2026-11-24 18:00")
    assert access_at(office, at("2026-11-25 09:00"), BERLIN).until == at("2026-11-25 12:00")  # expires first
    assert access_at(office, at("2026-11-25 12:00"), BERLIN) == Access(False, reason="expired")
    # Outside its hours with nothing left before it expires: no next time.
    assert access_at(office, at("2026-11-25 07:00"), BERLIN).next_from == at("2026-11-25 08:00")
    late = Validity(expiration=at("2026-11-26 00:00"), windows=windows((TUE, 8, 18)).windows)
    assert access_at(late, at("2026-11-25 09:00"), BERLIN).next_from is None


def test_no_windows_means_any_hour_within_the_bounds_and_zero_means_no_bound() -> None:
    anytime = validity_of(0, 0, [])
    assert anytime == Validity()
    assert access_at(anytime, at("2026-11-23 03:00"), BERLIN) == Access(True, until=None)
    bounded = validity_of(0, at("2026-12-01 00:00"), [])
    assert access_at(bounded, at("2026-11-23 03:00"), BERLIN).until == at("2026-12-01 00:00")


def test_malformed_windows_grant_nothing() -> None:
    validity = validity_of(None, None, [(0, 0, HOUR_MS), (8, 0, HOUR_MS), (None, 0, 1), (MON, -5, 10)])
    assert validity.windows == () and validity.unusable_windows
    assert access_at(validity, at("2026-11-23 00:30"), BERLIN) == Access(False, reason="no usable hours")
    kept = validity_of(None, None, [(MON, *hours(8, 9)), (9, 0, 1)])
    assert kept.windows == (DayWindow(MON, *hours(8, 9)),)


def test_a_dst_change_keeps_wall_clock_hours() -> None:
    office = windows((SUN, 1, 5))  # 2026-03-29: Berlin's clocks go from 02:00 to 03:00
    result = access_at(office, at("2026-03-29 01:30"), BERLIN)
    assert result.allowed and result.until == at("2026-03-29 05:00")
    assert (known(result.until) - at("2026-03-29 01:30")) == int(2.5 * HOUR_MS)  # an hour less of wall time


def test_local_words() -> None:
    now = at("2026-11-23 10:00")
    assert local_words(at("2026-11-23 18:00"), BERLIN, now) == "18:00"
    assert local_words(at("2026-11-24 06:00"), BERLIN, now) == "Tue 06:00"
    assert local_words(at("2026-12-24 06:00"), BERLIN, now) == "2026-12-24 06:00"
