"""Quiet hours (core/paging.py) read in the person's own zone, across midnight and a DST change."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from core.paging import PagePrefs
from core.priorities import Priority


def at(zone: str, *parts: int) -> int:
    return int(datetime(*parts, tzinfo=ZoneInfo(zone)).timestamp() * 1000)


NIGHT = PagePrefs("U1", quiet_from=time(22, 0), quiet_to=time(7, 0), zone="Europe/Berlin")


def test_quiet_hours_span_midnight_in_the_persons_zone() -> None:
    assert NIGHT.in_quiet_hours(at("Europe/Berlin", 2026, 11, 26, 23, 30))
    assert NIGHT.in_quiet_hours(at("Europe/Berlin", 2026, 11, 27, 6, 59))
    assert not NIGHT.in_quiet_hours(at("Europe/Berlin", 2026, 11, 27, 7, 0))
    assert not NIGHT.in_quiet_hours(at("Europe/Berlin", 2026, 11, 26, 21, 59))
    # 22:30 UTC is 23:30 in Berlin (quiet) but 17:30 in New York (not): the zone decides, not UTC.
    utc = at("UTC", 2026, 11, 26, 22, 30)
    assert NIGHT.in_quiet_hours(utc)
    assert not PagePrefs("U1", quiet_from=time(22), quiet_to=time(7), zone="America/New_York").in_quiet_hours(
        utc
    )
    # The night the clocks go back (2026-10-25 in Berlin): 02:30 happens twice, quiet both times.
    assert NIGHT.in_quiet_hours(at("UTC", 2026, 10, 25, 0, 30)) and NIGHT.in_quiet_hours(
        at("UTC", 2026, 10, 25, 1, 30)
    )


def test_only_p1_pages_in_quiet_hours_and_none_when_off() -> None:
    night = at("Europe/Berlin", 2026, 11, 26, 23, 30)
    assert NIGHT.allows(Priority.P1, night) and not NIGHT.allows(Priority.P2, night)
    assert NIGHT.allows(Priority.P4, at("Europe/Berlin", 2026, 11, 27, 12, 0))
    off = PagePrefs("U1", enabled=False, priorities=(Priority.P1,))
    assert not off.allows(Priority.P1, night) and not off.wants_new(Priority.P1)


@given(st.integers(0, 23), st.integers(0, 23), st.integers(0, 24 * 60 - 1))
def test_a_minute_is_quiet_exactly_when_it_falls_in_the_span(start: int, end: int, minute: int) -> None:
    prefs = PagePrefs("U1", quiet_from=time(start), quiet_to=time(end), zone="UTC")
    moment = at("UTC", 2026, 11, 26, minute // 60, minute % 60)
    span = (end - start) % 24 * 60
    assert prefs.in_quiet_hours(moment) == ((minute - start * 60) % (24 * 60) < span)


def test_with_no_zone_from_slack_quiet_hours_are_on_the_organizations_clock() -> None:
    """Slack gave no zone: the organization's of the alarm (it was UTC)."""
    nameless = PagePrefs("U1", quiet_from=time(22, 0), quiet_to=time(7, 0))
    late_in_istanbul = at("Europe/Istanbul", 2026, 11, 26, 23, 30)  # 20:30 UTC
    assert nameless.in_quiet_hours(late_in_istanbul, ZoneInfo("Europe/Istanbul"))
    assert not nameless.in_quiet_hours(late_in_istanbul, ZoneInfo("UTC"))
    assert not nameless.allows(Priority.P2, late_in_istanbul, ZoneInfo("Europe/Istanbul"))
    assert NIGHT.in_quiet_hours(at("Europe/Berlin", 2026, 11, 26, 23, 30), ZoneInfo("America/Los_Angeles"))
