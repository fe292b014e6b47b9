"""core/windows.py: weekly windows (over midnight, in a time zone, across DST) and typed times."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import HOUR_MS, MINUTE_MS
from core.windows import Weekly, WhenError, latest_at_or_before, parse_clock, parse_day, parse_when

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
UTC = ZoneInfo("UTC")


def at(text: str, zone: ZoneInfo) -> int:
    """Epoch-ms of a wall-clock time `YYYY-MM-DD HH:MM` in `zone`."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=zone).timestamp() * 1000)


WEEKEND_NIGHTS = Weekly(frozenset({5, 6}), time(22, 0), time(6, 0), BERLIN)  # starts Sat and Sun 22:00


@pytest.mark.parametrize(
    ("when", "covered"),
    [
        ("2026-11-28 21:59", False),  # Saturday, just before
        ("2026-11-28 22:00", True),  # Saturday night starts
        ("2026-11-29 03:00", True),  # over midnight, into Sunday
        ("2026-11-29 05:59", True),
        ("2026-11-29 06:00", False),  # the end is not inside
        ("2026-11-29 23:30", True),  # Sunday night
        ("2026-11-30 05:00", True),  # Monday early: Sunday's occurrence
        ("2026-11-30 23:00", False),  # Monday night: not a listed day
        ("2026-11-28 01:00", False),  # Saturday early: Friday's night is not listed
    ],
)
def test_a_weekly_window_over_midnight(when: str, covered: bool) -> None:
    assert WEEKEND_NIGHTS.covers(at(when, BERLIN)) is covered


def test_the_zone_decides_what_the_wall_clock_means() -> None:
    # 22:00 in Berlin is 21:00 UTC in winter; the same instant is 16:00 in New York.
    start = at("2026-11-28 22:00", BERLIN)
    assert start == at("2026-11-28 21:00", UTC) == at("2026-11-28 16:00", NEW_YORK)
    assert WEEKEND_NIGHTS.covering(start) == (start, at("2026-11-29 06:00", BERLIN))
    in_new_york = Weekly(frozenset({5, 6}), time(22, 0), time(6, 0), NEW_YORK)
    assert not in_new_york.covers(start)  # it is only 16:00 there
    assert in_new_york.covers(at("2026-11-28 22:30", NEW_YORK))


def test_a_night_across_the_dst_change_keeps_its_wall_clock_times() -> None:
    # Europe/Berlin goes from CEST to CET on 2026-10-25 at 03:00: that night is an hour longer.
    night = Weekly(frozenset({5}), time(22, 0), time(6, 0), BERLIN)  # Saturday 2026-10-24
    start, end = night.occurrence(datetime(2026, 10, 24).date()) or (0, 0)
    assert end - start == 9 * HOUR_MS
    assert night.covers(at("2026-10-25 05:59", BERLIN)) and not night.covers(at("2026-10-25 06:00", BERLIN))
    # And spring forward (2026-03-29 02:00 → 03:00): an hour shorter.
    spring = Weekly(frozenset({5}), time(22, 0), time(6, 0), BERLIN)
    start, end = spring.occurrence(datetime(2026, 3, 28).date()) or (0, 0)
    assert end - start == 7 * HOUR_MS


@settings(deadline=None)  # a loaded machine must not fail it: no test depends on speed
@given(st.integers(min_value=at("2026-01-01 00:00", UTC), max_value=at("2027-01-01 00:00", UTC)))
def test_covers_agrees_with_the_local_clock(instant: int) -> None:
    local = datetime.fromtimestamp(instant / 1000, BERLIN)
    minutes = local.hour * 60 + local.minute
    started_today = local.weekday() in {5, 6} and minutes >= 22 * 60
    started_yesterday = (local.weekday() - 1) % 7 in {5, 6} and minutes < 6 * 60
    assert WEEKEND_NIGHTS.covers(instant) is (started_today or started_yesterday)


def test_parse_clock_and_day() -> None:
    assert parse_clock("7:05") == time(7, 5) and parse_clock("23:59") == time(23, 59)
    assert parse_day("Sat") == 5 and parse_day("sunday") == 6
    for bad in ("24:00", "7", "07:60", "noon"):
        with pytest.raises(ValueError):
            parse_clock(bad)
    with pytest.raises(ValueError):
        parse_day("xyz")


def test_parse_when_reads_what_people_type_in_the_zone() -> None:
    now = at("2026-11-23 10:30", BERLIN)
    assert parse_when("now", now, BERLIN) == now
    assert parse_when("+2h", now, BERLIN) == now + 2 * HOUR_MS
    assert parse_when("+30m", now, BERLIN, after=now + HOUR_MS) == now + 90 * MINUTE_MS
    assert parse_when("22:00", now, BERLIN) == at("2026-11-23 22:00", BERLIN)
    assert parse_when("09:00", now, BERLIN) == at("2026-11-24 09:00", BERLIN)  # today's has passed
    start = at("2026-11-23 22:00", BERLIN)
    assert parse_when("06:00", now, BERLIN, after=start) == at("2026-11-24 06:00", BERLIN)  # over midnight
    assert parse_when("2026-12-01 08:15", now, BERLIN) == at("2026-12-01 08:15", BERLIN)
    assert parse_when("2026-12-01T08:15", now, NEW_YORK) == at("2026-12-01 08:15", NEW_YORK)
    for bad in ("tomorrow", "25:00", "2026-13-01 08:00", "+2y", "", "2026-02-30 10:00"):
        with pytest.raises(WhenError, match="is not"):
            parse_when(bad, now, BERLIN)


def test_latest_handover_time() -> None:
    times = (time(7, 0), time(19, 0))
    assert latest_at_or_before(times, at("2026-11-23 06:59", BERLIN), BERLIN) == at(
        "2026-11-22 19:00", BERLIN
    )
    assert latest_at_or_before(times, at("2026-11-23 07:00", BERLIN), BERLIN) == at(
        "2026-11-23 07:00", BERLIN
    )
    assert latest_at_or_before(times, at("2026-11-23 18:00", BERLIN), BERLIN) == at(
        "2026-11-23 07:00", BERLIN
    )
