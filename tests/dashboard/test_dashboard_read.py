"""The read functions behind the dashboard's full export, time zone and sparklines, over real cache files
seeded through the writes the sync uses; and the time formatting they are shown with."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core import read, timefmt
from core.cache import writes
from core.cache.db import open_cache, open_reader
from core.clock import DAY_MS, HOUR_MS
from dashboard import filters
from tests.support.seed_cache import ORGS, Seeded, seed_cache

FIELDS = {name: i for i, name in enumerate(writes.ACTIVITY_FIELDS)}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return seed_cache(tmp_path_factory.mktemp("read") / "cache.db", int(time.time() * 1000), activities=900)


def everything(path: Path, flt: read.AlarmFilter, chunk: int = 1000) -> list[list[read.AlarmRow]]:
    db = open_reader(path)
    try:
        return list(read.iter_alarms(db, flt, chunk))
    finally:
        db.conn.close()


FILTERS = [
    read.AlarmFilter(),
    read.AlarmFilter(org_id=ORGS[1][0]),
    read.AlarmFilter(resource_id=5003, violation_type="alarm"),
    read.AlarmFilter(text="gate"),
    read.AlarmFilter(text="no such words anywhere"),
]


@pytest.mark.parametrize("flt", FILTERS, ids=["all", "org", "panel+type", "text", "nothing"])
def test_iter_alarms_gives_every_match_in_the_tables_order(seeded: Seeded, flt: read.AlarmFilter) -> None:
    db = open_reader(seeded.path)
    total = read.count_alarms(db, flt)
    listed = read.recent_alarms(db, flt, limit=10_000)
    db.conn.close()
    chunks = everything(seeded.path, flt, chunk=64)
    assert all(0 < len(c) <= 64 for c in chunks)
    rows = [row for chunk in chunks for row in chunk]
    assert rows == listed and len(rows) == total
    if flt == read.AlarmFilter():
        assert total > 500  # more than the page's table shows: the point of the export


def test_iter_alarms_matches_the_alarm_rule_row_by_row(seeded: Seeded) -> None:
    since = seeded.now - DAY_MS
    rows = [r for c in everything(seeded.path, read.AlarmFilter(since=since)) for r in c]
    expected = {
        a[FIELDS["event_id"]]
        for a in seeded.activities
        if a[FIELDS["activity_time"]] >= since
        and (a[FIELDS["event_type"]] == "violation" or a[FIELDS["violation_type"]] is not None)
    }
    assert {r.event_id for r in rows} == expected
    times = [r.activity_time for r in rows]
    assert times == sorted(times, reverse=True)


def test_iter_alarms_is_one_snapshot_while_the_sync_writes(tmp_path: Path) -> None:
    seeded = seed_cache(tmp_path / "cache.db", int(time.time() * 1000), activities=300)
    reader = open_reader(seeded.path)
    chunks = read.iter_alarms(reader, read.AlarmFilter(), chunk=10)
    first = next(chunks)
    writer = open_cache(seeded.path)
    newest = writes.activity_row(
        {"eventId": "EV-LATE", "activityTime": seeded.now + 1, "eventType": "violation"}, 5001, ORGS[0][0]
    )
    with writes.write_transaction(writer):
        writes.upsert_activities(writer, "activities", [newest])
    writer.conn.close()
    rest = [r for c in chunks for r in c]
    assert "EV-LATE" not in {r.event_id for r in [*first, *rest]}
    assert len(first) + len(rest) == read.count_alarms(open_reader(seeded.path), read.AlarmFilter()) - 1
    reader.conn.close()


def test_iter_alarms_stops_cleanly_when_the_reader_stops_early(seeded: Seeded) -> None:
    db = open_reader(seeded.path)
    chunks = read.iter_alarms(db, read.AlarmFilter(), chunk=5)
    assert len(next(chunks)) == 5
    chunks.close()  # a download abandoned half-way: the cursor is closed, the connection still usable
    assert read.count_alarms(db, read.AlarmFilter()) > 0
    db.conn.close()


def users(path: Path, zones: list[tuple[str | None, int]]) -> None:
    db = open_cache(path)
    rows = [
        writes.user_row({"userId": 900 + n, "timeZoneId": zone} if zone else {"userId": 900 + n}, org_id)
        for n, (zone, org_id) in enumerate(zones)
    ]
    with writes.write_transaction(db):
        db.execute("DELETE FROM users")
        writes.upsert_dicts(db, "users", rows, "user_id")
    db.conn.close()


def zone_of(path: Path, org_id: int | None = None) -> str | None:
    db = open_reader(path)
    try:
        return read.organization_time_zone(db, org_id)
    finally:
        db.conn.close()


def test_organization_time_zone_is_its_users_most_common_valid_zone(tmp_path: Path) -> None:
    path = seed_cache(tmp_path / "cache.db", int(time.time() * 1000), activities=0).path
    acme, harbor = ORGS[0][0], ORGS[1][0]
    assert zone_of(path) is None  # no users cached: the page falls back to UTC
    users(
        path,
        [
            ("Europe/Istanbul", acme),
            ("Europe/Istanbul", acme),
            ("Asia/Kolkata", acme),
            ("Not/AZone", acme),
            ("Not/AZone", acme),
            ("Not/AZone", acme),
            (None, acme),
            ("America/New_York", harbor),
            ("Asia/Kolkata", harbor),
        ],
    )
    assert zone_of(path, acme) == "Europe/Istanbul"  # the invalid name is more common, and skipped
    assert zone_of(path, harbor) == "America/New_York"  # a tie goes to the alphabetically first
    assert zone_of(path) == "Asia/Kolkata"  # two each with Istanbul over both organizations: the tie rule
    assert zone_of(path, 4242) is None


def test_kpi_hours_count_each_hour_as_the_tiles_count_the_day(seeded: Seeded) -> None:
    now = seeded.now
    db = open_reader(seeded.path)
    hours = read.kpi_hours(db, now)
    kpis = read.kpis(db, now)
    db.conn.close()
    assert len(hours.panels_with_alarms) == len(hours.sensors_with_errors) == 24
    day = [a for a in seeded.activities if now - DAY_MS <= a[FIELDS["activity_time"]] < now]

    def hour(a: tuple) -> int:
        return (a[FIELDS["activity_time"]] - (now - DAY_MS)) // HOUR_MS

    panels = [set() for _ in range(24)]
    errors = [set() for _ in range(24)]
    for a in day:
        if a[FIELDS["event_type"]] == "violation" or a[FIELDS["violation_type"]] is not None:
            panels[hour(a)].add(a[FIELDS["resource_id"]])
        if a[FIELDS["event_type"]] == "error":
            errors[hour(a)].add((a[FIELDS["resource_id"]], a[FIELDS["violation_name"]]))
    assert hours.panels_with_alarms == [len(s) for s in panels]
    assert hours.sensors_with_errors == [len(s) for s in errors]
    assert max(hours.panels_with_alarms) <= kpis.panels_with_alarms_24h == len(set().union(*panels))
    assert any(hours.sensors_with_errors)


# --- times in a zone ---------------------------------------------------------------------------------------

SUMMER = 1_782_993_600_000  # 2026-07-02 12:00 UTC
WINTER = 1_795_176_000_000  # 2026-11-20 12:00 UTC


def test_local_and_iso_follow_the_zone_and_its_daylight_saving() -> None:
    ny = timefmt.zone("America/New_York")
    assert timefmt.local(SUMMER, ny) == "2026-07-02 08:00 America/New_York"
    assert timefmt.local(WINTER, ny) == "2026-11-20 07:00 America/New_York"
    assert (
        timefmt.local(WINTER, timefmt.zone("Asia/Kolkata"), seconds=True)
        == "2026-11-20 17:30:00 Asia/Kolkata"
    )
    assert timefmt.local(WINTER) == "2026-11-20 12:00 UTC"
    assert timefmt.iso(SUMMER, ny) == "2026-07-02T08:00:00-04:00"
    assert timefmt.iso(WINTER, timefmt.zone("Asia/Kolkata")) == "2026-11-20T17:30:00+05:30"
    assert timefmt.local(None, ny, missing="—") == "—" and timefmt.iso(None) == ""
    assert timefmt.local(10**20, ny) == timefmt.INVALID and timefmt.iso(10**20, ny) == ""


def test_wall_ms_is_the_local_clock_read_as_utc() -> None:
    kolkata = ZoneInfo("Asia/Kolkata")
    assert timefmt.wall_ms(WINTER, kolkata) - WINTER == 5 * HOUR_MS + 30 * 60_000
    assert timefmt.wall_ms(SUMMER, ZoneInfo("America/New_York")) - SUMMER == -4 * HOUR_MS
    assert timefmt.wall_ms(WINTER, None) == WINTER


@pytest.mark.parametrize(
    "raw", ["Mars/Olympus", " ", "../../etc/passwd", "utc", "europe/istanbul", "UTC\x00", "A" * 300]
)
def test_only_known_zone_names_pass(raw: str) -> None:
    assert timefmt.zone(raw) is None
    with pytest.raises(ValueError, match="not a known time zone"):
        filters.zone_name(raw)


def test_zone_names_are_the_tz_database_utc_first() -> None:
    names = timefmt.zone_names()
    assert names[0] == "UTC" and "Europe/Istanbul" in names and "Asia/Kolkata" in names
    assert len(names) == len(set(names)) > 300
    assert filters.zone_name(" Europe/Istanbul ") == ("Europe/Istanbul", None)


def test_a_cache_without_users_still_answers(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    seed_cache(path, int(time.time() * 1000), activities=0)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE users SET raw = 'not json'")  # a record written by something else
    assert zone_of(path) is None
