"""The App Home's data (core/read/home.py) over a real cache file: which alarms a person sees (their channels,
their organizations, or all when neither is known), most severe then newest first with the total kept,
what is assigned to them, quiet windows in force, freshness; and the fingerprint the refresher compares,
which moves with every change a Home shows and stays put otherwise."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core import lifecycle
from core.cache import incidents, quiet
from core.cache.db import open_cache
from core.cache.transactions import joined
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.incidents import CAMERA_OFFLINE, TAMPER, Evidence
from core.lifecycle import Change, State
from core.read.freshness import STALE_AFTER_MS
from core.read.home import Scope, fingerprint, home_data
from core.sqlite_lib import sqlite_utils

NOW = int(time.time() * 1000)


def add_alarm(db: sqlite_utils.Database, event_id: str, at: int, channel: str, kind: str = "alarm",
              org: int = 1001, panel: int = 777, outbox_state: str = "posted") -> None:  # fmt: skip
    with joined(db):
        row = (
            event_id,
            panel,
            org,
            at,
            f"{kind} on Depot - Door",
            "violation",
            f"{kind} event",
            kind,
            2,
            1,
            1,
        )
        upsert_activities(db, "activities", [row])
        db.execute(
            "INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
            " VALUES (?, ?, ?, ?, ?, 0)",
            [event_id, channel, outbox_state, f"{at}.1", at],
        )
        lifecycle.open_alarms(db, [(event_id, at)], at)


@pytest.fixture
def db(tmp_path: Path) -> sqlite_utils.Database:
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        panels = [{"resource_id": 777, "org_id": 1001, "name": "Depot"},
                  {"resource_id": 888, "org_id": 1002, "name": "Yard"}]  # fmt: skip
        upsert_dicts(db, "panels", panels, "resource_id")
        upsert_dicts(
            db, "sync_state", [{"table_name": "activities", "last_success": NOW - 60_000}], "table_name"
        )
    return db


def test_alarms_of_the_persons_channels_most_severe_then_newest(db: sqlite_utils.Database) -> None:
    add_alarm(db, "OLD-RED", NOW - 50_000, "C_ALARMS", "alarm")
    add_alarm(db, "NEW-GRAY", NOW - 10_000, "C_ALARMS", "gray")
    add_alarm(db, "NEW-RED", NOW - 20_000, "C_ALARMS", "red")
    add_alarm(db, "MID-YELLOW", NOW - 30_000, "C_ALARMS", "warning")
    add_alarm(db, "ELSEWHERE", NOW - 5_000, "C_ELSE", "alarm", org=1002, panel=888)
    add_alarm(db, "HELD", NOW - 5_000, "C_ALARMS", "alarm", outbox_state="silenced")
    add_alarm(db, "DONE", NOW - 5_000, "C_ALARMS", "alarm")
    lifecycle.apply(db, "DONE", Change.RESOLVED, "U_X", NOW, opened_at=NOW - 5_000)

    data = home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"})), NOW)
    assert [a.alarm.event_id for a in data.alarms] == ["NEW-RED", "OLD-RED", "MID-YELLOW", "NEW-GRAY"]
    assert data.alarms_total == 4
    assert {a.channel for a in data.alarms} == {"C_ALARMS"}

    capped = home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"})), NOW, limit=2)
    assert [a.alarm.event_id for a in capped.alarms] == ["NEW-RED", "OLD-RED"]
    assert capped.alarms_total == 4  # "and 2 more"

    by_org = home_data(db, "U_TECH", Scope(org_ids=frozenset({1002})), NOW)
    assert [a.alarm.event_id for a in by_org.alarms] == ["ELSEWHERE"]
    both = home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"}), org_ids=frozenset({1002})), NOW)
    assert both.alarms_total == 5
    nowhere = home_data(db, "U_TECH", Scope(channels=frozenset()), NOW)
    assert nowhere.alarms == () and nowhere.alarms_total == 0
    unknown = home_data(db, "U_TECH", Scope(), NOW)  # neither known: every alarm, the Home says why
    assert not unknown.scope.known and unknown.alarms_total == 5


def test_assigned_acknowledged_and_quiet_windows(db: sqlite_utils.Database) -> None:
    add_alarm(db, "EV-1", NOW - 10_000, "C_ALARMS")
    add_alarm(db, "EV-2", NOW - 9_000, "C_OTHER")
    lifecycle.apply(db, "EV-2", Change.ASSIGNED, "U_TECH", NOW, opened_at=NOW - 9_000)
    lifecycle.apply(db, "EV-1", Change.ACKNOWLEDGED, "U_OTHER", NOW, opened_at=NOW - 10_000)
    with write_transaction(db):
        quiet.silence_panel(db, 888, NOW + 3_600_000, "U_OTHER", NOW)
        quiet.silence_panel(db, 777, NOW - 1, "U_OTHER", NOW - 60_000)  # ended already

    data = home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"})), NOW)
    [acked] = data.alarms
    assert acked.state is not None and acked.state.state is State.ACKNOWLEDGED
    assert acked.state.acknowledged_by == "U_OTHER"
    # What is assigned to them shows wherever it is.
    assert [a.alarm.event_id for a in data.assigned] == ["EV-2"] and data.assigned_total == 1
    assert [(w.resource_id, w.created_by) for w in data.quiet] == [(888, "U_OTHER")]
    assert not data.fresh.stale and data.fresh.as_of == NOW - 60_000
    assert home_data(db, "U_TECH", Scope(), NOW + STALE_AFTER_MS).fresh.stale


def test_the_fingerprint_moves_with_what_a_home_shows_and_only_then(db: sqlite_utils.Database) -> None:
    add_alarm(db, "EV-1", NOW - 10_000, "C_ALARMS")
    first = fingerprint(db, NOW)
    assert fingerprint(db, NOW) == first  # nothing changed
    assert fingerprint(db, NOW + 60_000) == first  # time alone changes nothing a Home shows...
    assert fingerprint(db, NOW + STALE_AFTER_MS) != first  # ...until the data turns stale

    steps = [
        lambda: add_alarm(db, "EV-2", NOW, "C_ALARMS"),
        lambda: lifecycle.apply(db, "EV-1", Change.ACKNOWLEDGED, "U_TECH", NOW, opened_at=NOW - 10_000),
        lambda: lifecycle.apply(db, "EV-1", Change.ASSIGNED, "U_TECH", NOW, opened_at=NOW - 10_000),
        lambda: quiet.silence_panel(db, 777, NOW + 60_000, "U_TECH", NOW),
        lambda: upsert_dicts(
            db, "sync_state", [{"table_name": "panels", "last_success": NOW - 70_000}], "table_name"
        ),  # now the oldest: the Home's "data as of" moves
        lambda: upsert_dicts(
            db, "sync_state", [{"table_name": "panels", "last_error_at": NOW}], "table_name"
        ),
    ]
    seen = {first}
    for step in steps:
        with write_transaction(db):
            step()
        found = fingerprint(db, NOW)
        assert found not in seen
        seen.add(found)
    # A quiet window that ends changes it too (it leaves the Home).
    assert fingerprint(db, NOW + 61_000) != fingerprint(db, NOW)
    # A newer sync of a table that is not the oldest changes nothing a Home shows.
    before = fingerprint(db, NOW)
    with write_transaction(db):
        upsert_dicts(db, "sync_state", [{"table_name": "activities", "last_success": NOW}], "table_name")
    assert fingerprint(db, NOW) == before


def add_incident(
    db: sqlite_utils.Database, panel: int, org: int, channel: str, tamper: str, camera: str
) -> int:
    """An alarm's card turned incident: a tamper alarm and a camera of the site going offline."""
    add_alarm(db, tamper, NOW - 60_000, channel, org=org, panel=panel)
    parts = [Evidence(TAMPER, NOW - 60_000, panel, org, tamper, "Tamper alarm"),
             Evidence(CAMERA_OFFLINE, NOW - 30_000, panel, org, camera, "Gate camera offline")]  # fmt: skip
    with write_transaction(db):
        [incident] = incidents.record(db, parts, 600_000, NOW, alarms=[tamper])
        incidents.set_card(db, incident, channel, f"{NOW}.9")
    return incident


def test_site_incidents_where_the_person_works_and_the_fingerprint_follows_them(
    db: sqlite_utils.Database,
) -> None:
    add_incident(db, 777, 1001, "C_ALARMS", "EV-T1", "cam:1")
    before = fingerprint(db, NOW)
    add_incident(db, 888, 1002, "C_ELSE", "EV-T2", "cam:2")
    assert fingerprint(db, NOW) != before  # its evidence, not only its alarm, moves the fingerprint

    by_channel = home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"})), NOW)
    assert [(i.resource_id, i.kinds, i.state) for i in by_channel.incidents] == [
        (777, ("tamper", "camera offline"), "open")
    ]
    by_org = home_data(db, "U_TECH", Scope(channels=frozenset(), org_ids=frozenset({1002})), NOW)
    assert [i.resource_id for i in by_org.incidents] == [888]
    unknown = home_data(db, "U_TECH", Scope(), NOW)
    assert sorted(i.resource_id for i in unknown.incidents) == [777, 888]

    lifecycle.apply(db, "EV-T1", Change.RESOLVED, "U_X", NOW, opened_at=NOW - 60_000)
    assert home_data(db, "U_TECH", Scope(channels=frozenset({"C_ALARMS"})), NOW).incidents == ()


def test_with_priorities_alarms_come_by_priority_then_oldest_first_overdue_marked(
    db: sqlite_utils.Database,
) -> None:
    from core.priorities import Priorities, Priority, PriorityRule, SlaConfig

    rule = PriorityRule.model_validate({"priority": "P1", "violation_name": "*door forced*"})
    rules = Priorities((rule,), SlaConfig.model_validate({"P3": "10m"}))
    add_alarm(db, "EV-WARN-OLD", NOW - 20 * 60_000, "C_ALARMS", kind="warning")  # P3, past 10 min
    add_alarm(db, "EV-WARN-NEW", NOW - 60_000, "C_ALARMS", kind="warning")  # P3, within
    add_alarm(db, "EV-GRAY", NOW - 30 * 60_000, "C_ALARMS", kind="gray")  # P4: no SLA
    add_alarm(db, "EV-ALARM", NOW - 5 * 60_000, "C_ALARMS", kind="alarm")  # P1, past 2 min
    add_alarm(db, "EV-ACKED", NOW - 10 * 60_000, "C_ALARMS", kind="alarm")  # P1, acknowledged
    with write_transaction(db):
        lifecycle.apply(db, "EV-ACKED", Change.ACKNOWLEDGED, "U1", NOW - 9 * 60_000, opened_at=NOW)
    with write_transaction(db):  # a rule by name: a gray alarm named "door forced" is P1
        db.execute("UPDATE activities SET violation_name = 'Door FORCED' WHERE event_id = 'EV-GRAY'")
    scope = Scope(channels=frozenset({"C_ALARMS"}))
    data = home_data(db, "U_TECH", scope, NOW, priorities=rules)
    listed = [(a.alarm.event_id, a.priority, a.overdue) for a in data.alarms]
    assert listed == [
        ("EV-GRAY", Priority.P1, True),
        ("EV-ACKED", Priority.P1, False),
        ("EV-ALARM", Priority.P1, True),
        ("EV-WARN-OLD", Priority.P3, True),
        ("EV-WARN-NEW", Priority.P3, False),
    ]
    capped = home_data(db, "U_TECH", scope, NOW, limit=2, priorities=rules)
    assert [a.alarm.event_id for a in capped.alarms] == ["EV-GRAY", "EV-ACKED"]
    assert capped.alarms_total == 5


def test_with_priorities_the_fingerprint_moves_when_an_alarm_crosses_its_sla(
    db: sqlite_utils.Database,
) -> None:
    from core.priorities import Priorities

    add_alarm(db, "EV-P1", NOW - 60_000, "C_ALARMS", kind="alarm")  # P1: due at NOW + 60 s
    add_alarm(db, "EV-P4", NOW - 60_000, "C_ALARMS", kind="gray")  # P4: never due
    rules = Priorities()
    first = fingerprint(db, NOW, rules)
    assert fingerprint(db, NOW + 59_000, rules) == first  # time alone: nothing a Home shows changed
    crossed = fingerprint(db, NOW + 60_000, rules)
    assert crossed != first
    assert fingerprint(db, NOW + 10 * 60_000, rules) == crossed  # crossed once
    with write_transaction(db):
        lifecycle.apply(db, "EV-P1", Change.ACKNOWLEDGED, "U1", NOW + 61_000, opened_at=NOW - 60_000)
    assert fingerprint(db, NOW + 10 * 60_000, rules) != crossed
