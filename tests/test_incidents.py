"""The site-incident rule (core/incidents.py) and its record in a real cache (core/cache/incidents.py): kinds
of evidence, window edges, parts arriving out of order, camera matching, camera changes from the sync's
write, and the `[notify.incidents]` settings."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.notify.config import NotifyConfigError, parse_notify
from core.cache import incidents as store
from core.cache.db import open_cache
from core.incidents import (
    ALARM,
    CAMERA_OFFLINE,
    SENSOR_ERROR,
    SUPERVISION,
    TAMPER,
    Evidence,
    camera_on_site,
    correlate,
    evidence_kind,
)

MIN = 60_000
WINDOW = 10 * MIN
T0 = 1_800_000_000_000


def ev(ref: str, minutes: float, kind: str = ALARM, panel: int = 1) -> Evidence:
    return Evidence(kind, T0 + int(minutes * MIN), panel, 7, ref, ref)


@pytest.mark.parametrize(
    ("event_type", "violation_type", "name", "description", "kind"),
    [
        ("violation", "alarm", "Burglary alarm", "Burglary alarm on X - Door", ALARM),
        ("violation", "alarm", "Tamper alarm", "Tamper alarm on X", TAMPER),
        ("violation", "warning", "Low battery", "", ALARM),
        ("error", "error", "Sensor supervision lost", "on X - PIR 2", SUPERVISION),
        ("error", "error", "AC power loss", "AC power loss on X", SUPERVISION),
        ("error", None, "Sensor failure", "Sensor failure on X - PIR 2", SENSOR_ERROR),
        ("event", None, "tamper switch", "", TAMPER),  # named tamper: evidence even as a plain event
        ("event", None, "Armed away", "Armed away on X", None),
        (None, None, None, None, None),
    ],
)
def test_what_an_activity_is_as_evidence(
    event_type: str | None,
    violation_type: str | None,
    name: str | None,
    description: str | None,
    kind: str | None,
) -> None:
    assert evidence_kind(event_type, violation_type, name, description) == kind


def test_evidence_within_the_window_is_one_incident_and_beyond_it_a_new_one() -> None:
    found = correlate([ev("a", 0), ev("b", 10), ev("c", 20.001)], WINDOW)
    assert [[e.ref for e in i.evidence] for i in found] == [["a", "b"], ["c"]]
    assert found[0].is_incident and not found[1].is_incident
    # The window is measured from the incident's span: exactly `window` after its last part still joins.
    assert len(correlate([ev("a", 0), ev("b", 10), ev("c", 20)], WINDOW)) == 1


def test_parts_arriving_out_of_order_join_by_their_own_time() -> None:
    # The camera (seen at minute 5) arrives first, then the tamper (minute 3), then the alarm (minute 1).
    arrivals = [ev("cam", 5, CAMERA_OFFLINE), ev("tamper", 3, TAMPER), ev("alarm", 1)]
    [incident] = correlate(arrivals, WINDOW)
    assert [e.ref for e in incident.timeline()] == ["alarm", "tamper", "cam"]  # time order, not arrival
    assert incident.kinds == (ALARM, TAMPER, CAMERA_OFFLINE)
    # A late part with an earlier time joins the incident whose span minus the window covers it.
    late = correlate([ev("a", 30), ev("b", 35), ev("early", 21)], WINDOW)
    assert len(late) == 1 and late[0].span.first == T0 + 21 * MIN
    assert len(correlate([ev("a", 30), ev("b", 35), ev("early", 19.99)], WINDOW)) == 2


def test_other_panels_and_repeated_refs_are_apart() -> None:
    found = correlate([ev("a", 0, panel=1), ev("b", 1, panel=2), ev("a", 2, panel=1)], WINDOW)
    assert [(i.panel, len(i.evidence)) for i in found] == [(1, 1), (2, 1)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, WINDOW), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_arrival_order_does_not_split_parts_a_window_apart(gaps: list[int], rng: random.Random) -> None:
    """Parts each at most a window after the one before: one incident, with its timeline in time order, when
    each part arrives close to one already there (the first part, then any order among its neighbours);
    in any order nothing is lost, and every part is within the window of its incident's span. (Two parts
    more than two windows apart that arrive first stay two incidents: a part bridging them joins the earlier,
    it does not merge them; see the README.)"""
    times = list(itertools.accumulate(gaps, initial=T0))
    parts = [Evidence(ALARM, t, 1, 7, f"e{i}", "") for i, t in enumerate(times)]
    [incident] = correlate(parts[::-1] if rng.random() < 0.5 else parts, WINDOW)
    assert [e.time for e in incident.timeline()] == times
    found = correlate(rng.sample(parts, len(parts)), WINDOW)
    assert sorted(e.ref for i in found for e in i.evidence) == sorted(p.ref for p in parts)
    for one in found:
        assert all(one.span.covers(e.time, WINDOW) for e in one.evidence)


@pytest.mark.parametrize(
    ("camera", "camera_path", "camera_org", "panel", "panel_path", "panel_org", "same"),
    [
        ("Kreuzberg Branch 3 entrance", None, 1, "Kreuzberg Branch 3", "/1/Berlin/Kreuzberg", 1, True),
        ("kreuzberg branch 3 - yard", None, 1, "Kreuzberg Branch 3", None, 1, True),  # any case
        ("Kreuzberg Branch 31 yard", None, 1, "Kreuzberg Branch 3", None, 1, False),  # whole words only
        ("Kreuzberg Branch 3 entrance", None, 2, "Kreuzberg Branch 3", None, 1, False),  # another org
        ("Yard cam", "/1/Berlin/Kreuzberg/", 1, "Kreuzberg Branch 3", "/1/Berlin/Kreuzberg", 1, True),
        ("Yard cam", "/1/cameras", 1, "Kreuzberg Branch 3", "/1/Berlin/Kreuzberg", 1, False),
        ("Yard cam", None, 1, "Kreuzberg Branch 3", None, 1, False),
        ("Yard cam", "", 1, "", "", 1, False),  # empty names and paths match nothing
    ],
)
def test_which_cameras_belong_to_a_panels_site(
    camera: str, camera_path: str | None, camera_org: int, panel: str, panel_path: str | None, panel_org: int,
    same: bool,
) -> None:  # fmt: skip
    assert camera_on_site(camera, camera_path, camera_org, panel, panel_path, panel_org) is same


def test_the_cache_joins_late_parts_and_counts_versions(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    now = T0 + 60 * MIN  # a fake clock: the record's arrival time only
    with db.conn:
        touched = store.record(db, [ev("EV-2", 5)], WINDOW, now, alarms=["EV-2"])
        [first] = touched
        assert store.record(db, [ev("cam:1", 8, CAMERA_OFFLINE)], WINDOW, now) == {first}
        assert store.record(db, [ev("EV-1", -4, TAMPER)], WINDOW, now, alarms=["EV-1"]) == {first}
        assert store.record(db, [ev("EV-1", -4, TAMPER)], WINDOW, now, alarms=["EV-1"]) == set()  # once
        apart = store.record(db, [ev("EV-9", 30)], WINDOW, now, alarms=["EV-9"])
    assert apart != {first}
    incident = store.get(db, first)
    assert incident is not None and incident.is_incident and incident.evidence == 3 and incident.version == 3
    assert (incident.first_time, incident.last_time) == (T0 - 4 * MIN, T0 + 8 * MIN)
    assert [e.ref for e in store.timeline(db, first)] == ["EV-1", "EV-2", "cam:1"]
    assert store.alarms(db, first) == [("EV-1", T0 - 4 * MIN), ("EV-2", T0 + 5 * MIN)]
    with db.conn:
        assert store.set_card(db, first, "C1", "111.1") and not store.set_card(db, first, "C1", "222.2")
    assert store.by_card(db, "C1", "111.1") == store.get(db, first)
    assert store.of_event(db, "EV-2") == store.get(db, first)


def test_a_camera_going_down_is_recorded_once_when_it_changes(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")

    def camera(rid: int, enabled: bool, status: str | None = None) -> dict[str, object]:
        raw = {"resourceId": rid, "resourceName": f"Cam {rid}", "enabled": enabled, "treePath": "/1/x"}
        return {
            "resource_id": rid,
            "org_id": 1,
            "name": f"Cam {rid}",
            "status": status,
            "raw": json.dumps(raw),
        }

    def write(rows: list[dict[str, object]], now: int) -> int:
        with db.conn:
            found = store.note_camera_changes(db, rows, now)
            db["cameras"].upsert_all(rows, pk="resource_id", alter=True)
        return found

    assert write([camera(1, False), camera(2, True, "online")], T0) == 0  # first sight: no change
    assert write([camera(1, False), camera(2, True, "offline"), camera(3, True)], T0 + MIN) == 1
    assert write([camera(2, True, "offline")], T0 + 2 * MIN) == 0  # still down: no new change
    assert write([camera(1, True)], T0 + 3 * MIN) == 0
    assert write([camera(1, False)], T0 + 4 * MIN) == 1  # spec-exact: no status, disabled counts
    changes = store.camera_changes_since(db, 0)
    assert [(c.camera_id, c.problem, c.first_seen, c.tree_path) for c in changes] == [
        (2, "offline", T0 + MIN, "/1/x"),
        (1, "disabled", T0 + 4 * MIN, "/1/x"),
    ]


def test_incident_settings_are_checked() -> None:
    assert parse_notify({}).incidents.window_ms == WINDOW
    config = parse_notify({"incidents": {"window": "90s", "enabled": False}}).incidents
    assert (config.window_ms, config.enabled) == (90_000, False)
    assert parse_notify({"incidents": {"window": "1h"}}).incidents.window_ms == 3_600_000
    for bad, message in [
        ({"window": "ten minutes"}, "is not a duration"),
        ({"window": "5s"}, "between 10 seconds and 24 hours"),
        ({"window": True}, "duration"),
        ({"enabled": "maybe"}, "notify.incidents.enabled"),
        ({"windows": "10m"}, "notify.incidents.windows"),
    ]:
        with pytest.raises(NotifyConfigError, match=message):
            parse_notify({"incidents": bad})
