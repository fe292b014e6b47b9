"""The read API over a real cache file seeded through the same writes the sync uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import read
from core.cache.db import open_cache
from core.cache.writes import (
    activity_row,
    camera_row,
    controller_row,
    controller_value_row,
    panel_row,
    sensor_rows,
    upsert_activities,
    upsert_dicts,
    write_transaction,
)
from core.sqlite_lib import sqlite_utils

HOUR = 3_600_000
# Monday 2026-11-16 00:00 UTC
MONDAY = 1_794_787_200_000
NOW = MONDAY + 2 * 24 * HOUR  # Wednesday 00:00


def activity(event_id: str, time: int, rid: int, **fields: object) -> dict[str, object]:
    return {"eventId": event_id, "activityTime": time, "resourceId": rid, **fields}


@pytest.fixture()
def db(tmp_path: Path) -> sqlite_utils.Database:
    db = open_cache(tmp_path / "cache.db")
    upsert_dicts(db, "organizations", [{"id": 2, "name": "Beta"}, {"id": 1, "name": "Alpha"}], "id")
    panels = [
        {"resourceId": 10, "orgId": 1, "resourceName": "North Gate", "modelName": "X1", "enabled": True},
        {"resourceId": 11, "orgId": 1, "resourceName": "Warehouse", "enabled": False},
        {"resourceId": 20, "orgId": 2, "resourceName": "Depot 100%_off"},
    ]
    upsert_dicts(db, "panels", [panel_row(p) for p in panels], "resource_id")
    group = {
        "type": "zone",
        "sensors": [
            {
                "id": 1,
                "sensorId": 1,
                "orderNo": 2,
                "sensorName": "Door",
                "partitions": [{"name": "Main", "no": 1}],
            },
            {"id": 2, "sensorId": 2, "orderNo": 1, "sensorName": "Window", "ioType": "Digital"},
        ],
    }
    upsert_dicts(db, "sensors", sensor_rows(group, 10), "id")
    controllers = [
        {"id": 100, "controllerId": 1, "orderNo": 1, "controllerName": "Siren"},
        {"id": 101, "controllerId": 2, "orderNo": 2, "controllerName": "Light"},
        {"id": 102, "controllerId": 3, "orderNo": 3, "controllerName": "Lock"},
    ]
    upsert_dicts(db, "controllers", [controller_row(c, 10) for c in controllers], "id")
    values = [
        {"resourceControllerId": 100, "resourceId": 10, "orderNo": 1, "value": "on", "lastUpdate": 5},
        {"resourceControllerId": 999, "resourceId": 10, "orderNo": 2, "value": 42, "lastUpdate": 6},
    ]
    upsert_dicts(
        db, "controller_values", [controller_value_row(v, None) for v in values], "resource_controller_id"
    )
    cameras = [
        {
            "resourceId": 30,
            "orgId": 1,
            "name": "Lobby",
            "status": "online",
            "sdCardStatus": "normal",
            "ability": "ptz, ir",
        },
        {"resourceId": 31, "orgId": 1, "name": "Annex", "status": "offline"},
        {"resourceId": 32, "orgId": 2, "name": "Basement", "status": "online", "sdCardStatus": "error"},
    ]
    upsert_dicts(db, "cameras", [camera_row(c, None) for c in cameras], "resource_id")
    acts = [
        activity(
            "a1", MONDAY + 1 * HOUR, 10, eventType="violation", violationType="alarm", description="Door open"
        ),
        activity(
            "a2",
            MONDAY + 1 * HOUR + 5,
            10,
            eventType="violation",
            violationType="alarm",
            violationName="Zone",
        ),
        activity(
            "a3",
            MONDAY + 3 * HOUR,
            20,
            eventType="violation",
            violationType="warning",
            description="Low battery",
        ),
        activity("a4", MONDAY + 25 * HOUR, 11, eventType="event", description="Armed"),
        activity("a5", NOW - HOUR, 10, eventType="error", violationType="error", violationName="Tamper"),
        activity("a6", NOW - 2 * HOUR, 10, eventType="error", violationType="error", violationName="Tamper"),
        activity("a7", NOW - 30 * 60_000, 20, eventType="violation", violationType="alarm"),
    ]
    org_of = {10: 1, 11: 1, 20: 2}
    with write_transaction(db):
        upsert_activities(db, "activities", (activity_row(a, None, org_of[a["resourceId"]]) for a in acts))  # type: ignore[index]
    return db


def ids(rows: list[read.AlarmRow]) -> list[str]:
    return [r.event_id for r in rows]


def test_organizations_by_name(db: sqlite_utils.Database) -> None:
    assert read.organizations(db) == [(1, "Alpha"), (2, "Beta")]


def test_recent_alarms_newest_first_with_panel_names(db: sqlite_utils.Database) -> None:
    rows = read.recent_alarms(db, read.AlarmFilter())
    assert ids(rows) == ["a7", "a5", "a6", "a3", "a2", "a1"]  # a4 is a plain event
    assert rows[0].panel_name == "Depot 100%_off" and rows[0].org_id == 2
    assert ids(read.recent_alarms(db, read.AlarmFilter(alarms_only=False), limit=2)) == ["a7", "a5"]


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        (read.AlarmFilter(org_id=2), ["a7", "a3"]),
        (read.AlarmFilter(resource_id=10, violation_type="alarm"), ["a2", "a1"]),
        (read.AlarmFilter(event_type="error"), ["a5", "a6"]),
        (read.AlarmFilter(since=MONDAY + 3 * HOUR, until=NOW - HOUR), ["a6", "a3"]),
        (read.AlarmFilter(text="DOOR"), ["a1"]),
        (read.AlarmFilter(text="tamp"), ["a5", "a6"]),
        (read.AlarmFilter(text="north gate"), ["a5", "a6", "a2", "a1"]),
        (read.AlarmFilter(text="100%_"), ["a7", "a3"]),
        (read.AlarmFilter(text="0%x"), []),
        (read.AlarmFilter(text="armed", alarms_only=False), ["a4"]),
    ],
)
def test_recent_alarms_filters(db: sqlite_utils.Database, flt: read.AlarmFilter, expected: list[str]) -> None:
    assert ids(read.recent_alarms(db, flt)) == expected
    assert read.count_alarms(db, flt) == len(expected)


def test_camera_summary_problems_first(db: sqlite_utils.Database) -> None:
    cams = read.camera_summary(db)
    assert [(c.name, c.problems) for c in cams] == [
        ("Annex", ("offline",)),
        ("Basement", ("sd card: error",)),
        ("Lobby", ()),
    ]
    assert cams[2].capabilities == ("ptz", "ir")
    assert [c.name for c in read.camera_summary(db, org_id=1, problems_only=True)] == ["Annex"]
    assert [c.name for c in read.camera_summary(db, text="lob")] == ["Lobby"]


def test_find_panels_by_id_or_name(db: sqlite_utils.Database) -> None:
    assert [p.resource_id for p in read.find_panels(db, "11")] == [11]
    assert [p.name for p in read.find_panels(db, "GATE")] == ["North Gate"]
    assert [p.resource_id for p in read.find_panels(db, org_id=1)] == [10, 11]
    assert read.find_panels(db, "nothing like it") == []
    assert read.find_panels(db, "11")[0].enabled is False


def test_panel_detail(db: sqlite_utils.Database) -> None:
    detail = read.panel_detail(db, 10, activities=3)
    assert detail is not None
    assert detail.panel.name == "North Gate" and detail.panel.enabled is True
    zone = detail.sensors_by_type["zone"]
    assert [s.name for s in zone] == ["Window", "Door"]
    assert zone[1].partitions == ("Main (1)",)
    values = {c.name: (c.value, c.last_update) for c in detail.controllers}
    # By resourceControllerId, else by order number on the panel, else nothing.
    assert values == {"Siren": ("on", 5), "Light": ("42", 6), "Lock": (None, None)}
    assert ids(detail.last_activities) == ["a5", "a6", "a2"]
    assert detail.data_as_of is None  # never synced
    assert read.panel_detail(db, 12345) is None


def test_panel_detail_data_as_of_is_the_oldest_sync(db: sqlite_utils.Database) -> None:
    tables = ["panels", "sensors", "controllers", "controller_values", "activities"]
    upsert_dicts(
        db,
        "sync_state",
        [{"table_name": t, "last_success": 100 + i} for i, t in enumerate(tables)],
        "table_name",
    )
    detail = read.panel_detail(db, 10)
    assert detail is not None and detail.data_as_of == 100


def test_noisiest_panels(db: sqlite_utils.Database) -> None:
    noisy = read.noisiest_panels(db, since=MONDAY)
    assert [(p.resource_id, n) for p, n in noisy] == [(10, 4), (20, 2)]
    assert noisy[0][0].name == "North Gate"


def test_hourly_counts(db: sqlite_utils.Database) -> None:
    counts = read.hourly_counts(db, MONDAY, MONDAY + 24 * HOUR)
    assert [(c.hour - MONDAY, c.violation_type, c.count) for c in counts] == [
        (HOUR, "alarm", 2),
        (3 * HOUR, "warning", 1),
    ]
    assert read.hourly_counts(db, MONDAY, MONDAY + 24 * HOUR, org_id=2)[0].violation_type == "warning"
    # Errors without a violationType are counted under their eventType.
    assert {c.violation_type for c in read.hourly_counts(db, MONDAY, NOW)} == {"alarm", "warning", "error"}


def test_weekday_hour_counts(db: sqlite_utils.Database) -> None:
    counts = read.weekday_hour_counts(db, read.AlarmFilter())
    assert [(c.weekday, c.hour, c.count) for c in counts] == [(0, 1, 2), (0, 3, 1), (1, 22, 1), (1, 23, 2)]
    panel = read.weekday_hour_counts(db, read.AlarmFilter(text="depot"))
    assert [(c.weekday, c.hour, c.count) for c in panel] == [(0, 3, 1), (1, 23, 1)]


def test_weekday_hour_counts_on_a_zones_wall_clock(db: sqlite_utils.Database) -> None:
    """The heat map in the viewer's zone (it was UTC whatever zone was picked): every UTC hour moved to its
    local weekday and hour, from the rollup and from the activities alike."""
    from zoneinfo import ZoneInfo

    tokyo = read.weekday_hour_counts(db, read.AlarmFilter(), ZoneInfo("Asia/Tokyo"))  # +09:00
    assert [(c.weekday, c.hour, c.count) for c in tokyo] == [(0, 10, 2), (0, 12, 1), (2, 7, 1), (2, 8, 2)]
    panel = read.weekday_hour_counts(db, read.AlarmFilter(text="depot"), ZoneInfo("Asia/Tokyo"))
    assert [(c.weekday, c.hour, c.count) for c in panel] == [(0, 12, 1), (2, 8, 1)]
    kolkata = read.weekday_hour_counts(db, read.AlarmFilter(), ZoneInfo("Asia/Kolkata"))  # +05:30
    assert [(c.weekday, c.hour) for c in kolkata] == [(0, 6), (0, 8), (2, 3), (2, 4)]  # where each starts
    assert read.weekday_hour_counts(db, read.AlarmFilter(), ZoneInfo("UTC")) == read.weekday_hour_counts(
        db, read.AlarmFilter()
    )


def test_freshness(db: sqlite_utils.Database) -> None:
    upsert_dicts(
        db,
        "sync_state",
        [{"table_name": "cameras", "last_success": 7, "last_error": "panel 3: boom", "last_error_at": 8}],
        "table_name",
    )
    fresh = {f.table: f for f in read.freshness(db)}
    assert fresh["cameras"] == read.TableFreshness("cameras", 7, "panel 3: boom", 8, 3)
    assert fresh["activities"].rows == 7 and fresh["activities"].last_success is None
    assert "sync_state" not in fresh


def test_kpis(db: sqlite_utils.Database) -> None:
    k = read.kpis(db, NOW)
    assert k.alarms_24h == 3  # a5, a6 (errors), a7
    assert k.panels_with_alarms_24h == 2
    assert k.cameras_offline == 1 and k.sd_card_problems == 1
    assert k.sensors_with_errors_24h == 1  # panel 10 "Tamper", twice
    assert len(k.alarms_per_hour_24h) == 24
    assert (
        k.alarms_per_hour_24h[-1] == 2 and k.alarms_per_hour_24h[-2] == 1 and sum(k.alarms_per_hour_24h) == 3
    )


KINDS = [
    ("event", None),
    ("violation", "alarm"),
    ("violation", "warning"),
    ("error", "error"),
    ("error", None),
]


def test_an_alarm_rewritten_into_another_hour_leaves_its_old_hour(tmp_path: Path) -> None:
    """The hourly rollup recounts the hour an event leaves, not only the one it lands in."""
    db = open_cache(tmp_path / "c.db")
    alarm = {"eventId": "e1", "activityTime": MONDAY, "eventType": "violation", "violationType": "alarm"}
    moved = {"eventId": "e1", "activityTime": MONDAY + 10 * HOUR, "eventType": "event"}
    for record in (alarm, moved):
        with write_transaction(db):
            upsert_activities(db, "activities", [activity_row(record, 1, 1)])
    assert read.hourly_counts(db, MONDAY, MONDAY + 24 * HOUR, None) == []
    db.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    events=st.lists(
        st.tuples(
            st.integers(0, 30 * HOUR), st.sampled_from(KINDS), st.sampled_from([1, 2]), st.integers(0, 40)
        ),
        max_size=60,
    ),
    since=st.integers(-HOUR, 31 * HOUR),
    span=st.integers(0, 31 * HOUR),
    org=st.sampled_from([None, 1, 2]),
)
def test_hourly_and_weekday_counts_equal_counting_by_hand(
    tmp_path_factory: pytest.TempPathFactory,
    events: list[tuple[int, tuple[str, str | None], int, int]],
    since: int,
    span: int,
    org: int | None,
) -> None:
    """The rollup plus the partial hours at the edges, after upserts that rewrite earlier events, is exact."""
    db = open_cache(tmp_path_factory.mktemp("prop") / "c.db")
    final: dict[str, tuple[int, str, str | None, int]] = {}
    for t, (event_type, violation_type), org_id, n in events:  # a later batch may rewrite an event
        a = {
            "eventId": f"e{n}",
            "activityTime": MONDAY + t,
            "eventType": event_type,
            "violationType": violation_type,
        }
        with write_transaction(db):
            upsert_activities(db, "activities", [activity_row(a, 1, org_id)])
        final[f"e{n}"] = (MONDAY + t, event_type, violation_type, org_id)
    lo, hi = MONDAY + since, MONDAY + since + span
    expected: dict[tuple[int, str], int] = {}
    for t, event_type, violation_type, org_id in final.values():
        is_alarm = event_type == "violation" or violation_type is not None
        if is_alarm and lo <= t < hi and org in (None, org_id):
            key = (t // HOUR * HOUR, violation_type or event_type)
            expected[key] = expected.get(key, 0) + 1
    got = {(c.hour, c.violation_type): c.count for c in read.hourly_counts(db, lo, hi, org)}
    assert got == expected
    cells: dict[tuple[int, int], int] = {}
    for (hour, _), n in expected.items():
        cell = ((hour - MONDAY) // (24 * HOUR) % 7, hour // HOUR % 24)
        cells[cell] = cells.get(cell, 0) + n
    heat = read.weekday_hour_counts(db, read.AlarmFilter(org_id=org, since=lo, until=hi))
    assert {(c.weekday, c.hour): c.count for c in heat} == cells
    db.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    events=st.lists(
        st.tuples(st.integers(0, 30 * HOUR), st.sampled_from(KINDS), st.sampled_from([1, 2, None])),
        max_size=40,
    ),
    now=st.integers(0, 31 * HOUR),
)
def test_kpis_equal_counting_by_hand(
    tmp_path_factory: pytest.TempPathFactory,
    events: list[tuple[int, tuple[str, str | None], int | None]],
    now: int,
) -> None:
    db = open_cache(tmp_path_factory.mktemp("kpis") / "c.db")
    rows = [
        activity_row(
            {
                "eventId": f"e{i}",
                "activityTime": MONDAY + t,
                "eventType": e,
                "violationType": v,
                "violationName": "Z",
            },
            rid,
            1,
        )
        for i, (t, (e, v), rid) in enumerate(events)
    ]
    with write_transaction(db):
        upsert_activities(db, "activities", rows)
    end = MONDAY + now
    day = [(MONDAY + t, e, v, rid) for t, (e, v), rid in events if end - 24 * HOUR <= MONDAY + t < end]
    alarms = [(t, rid) for t, e, v, rid in day if e == "violation" or v is not None]
    per_hour = [0] * 24
    for t, _ in alarms:
        per_hour[(t - (end - 24 * HOUR)) // HOUR] += 1
    k = read.kpis(db, end)
    assert k.alarms_per_hour_24h == per_hour and k.alarms_24h == len(alarms)
    assert k.panels_with_alarms_24h == len({rid for _, rid in alarms if rid is not None})
    assert k.sensors_with_errors_24h == len({rid for _, e, _, rid in day if e == "error"})
    db.close()
