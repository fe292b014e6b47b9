"""core.keyholders: the keyholder line judged at the alarm's own time, in the organization's zone, from the
authorizations a real cache holds (written as core.panel_access writes them): inside a window, outside every
window, across midnight, on another day of the week, in a zone other than UTC, and the panels whose
authorizations were never read, could not be read, or list nobody."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.access_windows import DayWindow, Validity
from core.alarms import Alarm
from core.cache.db import open_cache
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.transactions import write_transaction
from core.clock import HOUR_MS
from core.keyholders import (
    USER_ERROR,
    Verdict,
    context_of,
    contexts,
    suggested_disposition,
    window_text,
)
from core.panel_access import validity_to_json
from core.sqlite_lib import sqlite_utils

ISTANBUL = ZoneInfo("Europe/Istanbul")  # UTC+3 all year
TOKYO = ZoneInfo("Asia/Tokyo")
UTC = ZoneInfo("UTC")
MON, TUE, WED, THU, FRI, SAT, SUN = range(1, 8)
PANEL, ORG = 100101, 1001


def at(text: str, zone: ZoneInfo = ISTANBUL) -> int:
    """Epoch-ms of a local wall-clock time ("2026-11-27 22:30" is a Friday)."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=zone).timestamp() * 1000)


def weekly(*days: tuple[int, float, float]) -> Validity:
    return Validity(windows=tuple(DayWindow(d, int(s * HOUR_MS), int(e * HOUR_MS)) for d, s, e in days))


def office(days: range | tuple[int, ...] = range(MON, SAT)) -> Validity:
    return weekly(*((d, 8, 18) for d in days))


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    cache = open_cache(tmp_path / "cache.db")
    yield cache
    cache.conn.close()


def authorize(db: sqlite_utils.Database, *users: tuple[str, Validity | None], panel: int = PANEL) -> None:
    """The panel's users as operations 2 and 15 would have given them, recorded read now."""
    rows = [
        {
            "resource_id": panel,
            "user_id": 7000 + i,
            "org_id": ORG,
            "name": name,
            "groups": json.dumps(["Arm / disarm"]),
            "validity": json.dumps(validity_to_json(validity)) if validity else None,
            "fetched_at": 1,
        }
        for i, (name, validity) in enumerate(users)
    ]
    with write_transaction(db):
        replace_panel_access(db, ORG, [panel], rows)
        record_reads(db, ORG, [panel], 1)


def alarm(when: int, panel: int | None = PANEL, event_id: str | None = None) -> Alarm:
    return Alarm(event_id or f"e{when}", panel, ORG, when, None, "violation", "Burglary", "alarm", None)


def line(db: sqlite_utils.Database, when: int, zone: ZoneInfo = ISTANBUL) -> str:
    found = context_of(db, alarm(when), zone)
    assert found is not None
    return found.text


def test_inside_an_office_window_names_the_keyholder_and_suggests_user_error(
    db: sqlite_utils.Database,
) -> None:
    authorize(db, ("Ana Yılmaz", office()))
    found = context_of(db, alarm(at("2026-11-25 10:00")), ISTANBUL)  # a Wednesday
    assert found is not None and found.verdict is Verdict.INSIDE
    assert found.text == "During the access window of Ana Yılmaz (Mon–Fri 08:00–18:00): possibly a user error"
    assert suggested_disposition(found) == USER_ERROR == "false_user_error"


def test_outside_every_window_suggests_nothing(db: sqlite_utils.Database) -> None:
    authorize(db, ("Ana Yılmaz", office()), ("Bora Kaya", weekly((SAT, 9, 13))))
    found = context_of(db, alarm(at("2026-11-25 20:00")), ISTANBUL)
    assert found is not None and found.text == "Outside every authorized user's window"
    assert suggested_disposition(found) is None


def test_across_midnight_a_friday_night_window_covers_saturday_2am(db: sqlite_utils.Database) -> None:
    authorize(db, ("Cem Demir", weekly((FRI, 22, 6))))
    assert line(db, at("2026-11-28 02:00")) == (  # Saturday 02:00
        "During the access window of Cem Demir (Fri 22:00–06:00): possibly a user error"
    )
    assert line(db, at("2026-11-27 21:59")) == "Outside every authorized user's window"  # Friday, before
    assert line(db, at("2026-11-28 06:00")) == "Outside every authorized user's window"  # Saturday, after
    assert line(db, at("2026-11-29 02:00")) == "Outside every authorized user's window"  # Sunday 02:00


def test_another_day_of_the_week_is_outside(db: sqlite_utils.Database) -> None:
    authorize(db, ("Deniz Ak", office((TUE,))))
    assert line(db, at("2026-11-24 10:00")).startswith("During the access window of Deniz Ak (Tue 08:00")
    assert (
        line(db, at("2026-11-25 10:00")) == "Outside every authorized user's window"
    )  # Wednesday, same hour


def test_the_window_is_read_in_the_organizations_zone_not_utc(db: sqlite_utils.Database) -> None:
    authorize(db, ("Emi Sato", office()))
    monday_9_in_tokyo = at("2026-11-23 09:00", TOKYO)  # Monday 00:00 UTC
    assert line(db, monday_9_in_tokyo, TOKYO).startswith("During the access window of Emi Sato")
    assert line(db, monday_9_in_tokyo, UTC) == "Outside every authorized user's window"


def test_several_keyholders_are_named_and_bounded(db: sqlite_utils.Database) -> None:
    names = ["Ana", "Bora", "Cem", "Deniz", "Ece"]
    authorize(db, *((n, office()) for n in names), ("Fikret", weekly((SUN, 8, 9))))
    text = line(db, at("2026-11-25 10:00"))
    assert text == (
        "During the access windows of Ana (Mon–Fri 08:00–18:00), Bora (Mon–Fri 08:00–18:00), "
        "Cem (Mon–Fri 08:00–18:00) and 2 others: possibly a user error"
    )
    assert "Fikret" not in text


def test_a_user_with_no_windows_is_inside_at_any_hour(db: sqlite_utils.Database) -> None:
    authorize(db, ("Gül", Validity()))
    assert (
        line(db, at("2026-11-29 03:00"))
        == "During the access window of Gül (any time): possibly a user error"
    )


def test_never_read_failed_and_nobody_say_so_and_suggest_nothing(db: sqlite_utils.Database) -> None:
    when = at("2026-11-25 10:00")
    unread = context_of(db, alarm(when), ISTANBUL)
    assert unread is not None and unread.text == "Authorizations not read yet"
    assert suggested_disposition(unread) is None
    with write_transaction(db):
        record_reads(db, ORG, [PANEL], 5, error="the service did not answer")
    assert line(db, when) == "Authorizations could not be read: the service did not answer"
    authorize(db)  # read: the service lists nobody on the panel
    assert line(db, when) == "No authorized users on this panel"
    assert context_of(db, alarm(when, panel=None), ISTANBUL) is None


def test_a_failure_after_a_read_keeps_the_data_and_says_the_read_failed(db: sqlite_utils.Database) -> None:
    authorize(db, ("Ana Yılmaz", office()))
    with write_transaction(db):
        record_reads(db, ORG, [PANEL], 9, error="HTTP 503")
    assert line(db, at("2026-11-25 20:00")) == (
        "Outside every authorized user's window (from an earlier read; the latest failed: HTTP 503)"
    )


def test_many_alarms_are_judged_each_at_its_own_time(db: sqlite_utils.Database) -> None:
    authorize(db, ("Ana Yılmaz", office()))
    authorize(db, ("Bora Kaya", weekly((FRI, 22, 6))), panel=PANEL + 1)
    inside, outside = alarm(at("2026-11-25 10:00")), alarm(at("2026-11-25 20:00"))
    night = alarm(at("2026-11-28 02:00"), PANEL + 1, "night")
    found = contexts(db, [inside, outside, night], lambda _org: ISTANBUL)
    assert [found[a.event_id].verdict for a in (inside, outside, night)] == [
        Verdict.INSIDE,
        Verdict.OUTSIDE,
        Verdict.INSIDE,
    ]


def test_a_communication_lost_alarm_has_no_keyholder_line(db: sqlite_utils.Database) -> None:
    authorize(db, ("Ana Yılmaz", office()))
    lost = alarm(at("2026-11-25 10:00"), event_id=f"silent:{PANEL}:1")  # samops' own: the panel said nothing
    assert context_of(db, lost, ISTANBUL) is None
    assert context_of(db, alarm(at("2026-11-25 10:00")), ISTANBUL) is not None  # a service alarm has one


def test_window_text_groups_days_sharing_hours() -> None:
    validity = weekly(*((d, 8, 18) for d in (MON, TUE, WED, FRI)), (SAT, 9, 13), (SUN, 9, 13), (THU, 0, 0))
    assert (
        window_text(validity, ISTANBUL) == "Mon–Wed, Fri 08:00–18:00, Thu 00:00–24:00, Sat, Sun 09:00–13:00"
    )


def test_users_read_before_reads_were_recorded_are_judged(db: sqlite_utils.Database) -> None:
    """A cache upgraded to version 14 holds `/sam who-can`'s earlier reads with no read recorded."""
    authorize(db, ("Ana Yılmaz", office()))
    db.conn.execute("DELETE FROM panel_access_reads")
    assert line(db, at("2026-11-25 10:00")).startswith("During the access window of Ana Yılmaz")
