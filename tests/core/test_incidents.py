"""The site-incident rule (core/incidents.py) and its record in a real cache (core/cache/incidents.py): kinds
of evidence, window edges, parts arriving out of order, camera matching, camera changes from the sync's
write, and the `[notify.incidents]` settings."""

from __future__ import annotations

import itertools
import json
import random
import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from slack_sdk import WebClient

from bot.notify.delivery import SlackDelivery
from bot.notify.service import Notifier
from bot.render.incidents import incident_card
from core import lifecycle
from core.cache import incidents as store
from core.cache import outbox
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.config import NotifyConfigError, parse_notify
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
from core.lifecycle import Change, State
from core.notify.source import CacheSource
from core.read.incidents import incident_of, open_incidents
from core.views import IncidentView, incident_view
from tests.core.test_lifecycle import FakeClock, card_ts, deliver_all
from tests.support.bot import blocks_text
from tests.support.slack_standin import SlackStandIn

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
    found = correlate([ev("a", 0), ev("b", 10, TAMPER), ev("c", 20.001, TAMPER)], WINDOW)
    assert [[e.ref for e in i.evidence] for i in found] == [["a", "b"], ["c"]]
    assert found[0].is_incident and not found[1].is_incident
    # Two kinds make an incident; alarms of one kind alone stay alarms (storm control groups those).
    assert not correlate([ev("a", 0), ev("b", 1)], WINDOW)[0].is_incident
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
    it does not merge them; see docs/incidents.md.)"""
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


# Issue 26: `/` is the root every resource of the service sits under, so it names no site.
ROOTS = ["/", "//", " / ", "/ /", "", "   ", None]
paths = st.one_of(st.sampled_from(ROOTS), st.text(alphabet="/ ab", max_size=6))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(camera_path=paths, panel_path=paths, org=st.integers(min_value=1, max_value=3))
def test_fuzz_a_root_or_blank_tree_path_names_no_site(
    camera_path: str | None, panel_path: str | None, org: int
) -> None:
    same = camera_on_site("Yard cam", camera_path, org, "Kreuzberg Branch 3", panel_path, org)
    place = [(p or "").strip().strip("/").strip() for p in (camera_path, panel_path)]
    assert same is (bool(place[0]) and place[0] == place[1])
    assert not camera_on_site("Yard cam", "/", org, "Kreuzberg Branch 3", "/", org)


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
    assert incident.kinds == 3
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
            db.table("cameras").upsert_all(rows, pk="resource_id", alter=True)
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


# --- the notifier: the first card becomes the incident card (fake clock, real cache, Slack stand-in) -------


def add_activity(db: Any, event_id: str, at: int, name: str, rid: int = 101) -> None:
    row = (event_id, rid, 1001, at, f"{name} on Depot", "violation", name, "alarm", 2, 1, 1)
    with write_transaction(db):
        upsert_activities(db, "activities", [row])


def test_the_first_card_becomes_the_incident_card_and_escalates_as_one(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db", check_same_thread=False)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 101, "org_id": 1001, "name": "Depot"}], "resource_id")
    clock = FakeClock()
    route = {"channel": "C_FIRE", "panels": [101], "escalate_after": [10], "escalate_to": ["S0FIRE"]}
    config = parse_notify({"routes": [route], "storm": {"posts_per_second": 50}})
    with SlackStandIn() as slack:
        delivery = SlackDelivery(WebClient(token="xoxb-test", base_url=slack.api_url), 50)
        n = Notifier(db, config, delivery, CacheSource(), "http://dash.local", clock=clock)
        n.start()
        now = clock.real_now()
        add_activity(db, "E-BURGLARY", now + 2000, "Burglary alarm")
        deliver_all(n)
        [first] = [c for c in slack.calls_to("chat.postMessage") if c.params.get("attachments")]
        ts = card_ts(db, "E-BURGLARY")
        assert ts is not None and slack.calls_to("chat.update") == []  # one alarm: an alarm card
        add_activity(db, "E-TAMPER", now + 1000, "Tamper alarm")  # arrives later, happened earlier
        deliver_all(n)
        posts = [c for c in slack.calls_to("chat.postMessage") if c.params.get("attachments")]
        assert posts == [first]  # not posted on its own: grouped under the first card
        assert outbox.entry(db, "E-TAMPER") == ("C_FIRE", "grouped", ts)
        [edit] = [c for c in slack.calls_to("chat.update") if c.params["ts"] == ts]
        text = blocks_text(edit.params["attachments"][0]["blocks"])
        assert "Incident on Depot (101): alarm, tamper" in text
        assert text.index("Tamper alarm on Depot") < text.index("Burglary alarm on Depot")  # time order

        # Someone acknowledges the incident; an alarm joining it later does not escalate on its own.
        lifecycle.apply(db, "E-TAMPER", Change.ACKNOWLEDGED, "U_A", clock.now, opened_at=now)
        add_activity(db, "E-LATE", now + 3000, "Burglary alarm")
        deliver_all(n)
        assert outbox.entry(db, "E-LATE") == ("C_FIRE", "grouped", ts)
        clock.advance(11)
        time.sleep(0.05)
        assert n.escalate() == 0

        # A restart reposts nothing, and an edit a crash lost is made again.
        with write_transaction(db):
            db.execute("UPDATE incidents SET edited = 0")
        updates = len(slack.calls_to("chat.update"))
        n = Notifier(db, config, delivery, CacheSource(), "http://dash.local", clock=clock)
        n.start()
        deliver_all(n)
        assert [c for c in slack.calls_to("chat.postMessage") if c.params.get("attachments")] == [first]
        assert len(slack.calls_to("chat.update")) == updates + 1


def test_the_read_api_lists_open_incidents_and_finds_an_alarms(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    with write_transaction(db):
        panels = [
            {"resource_id": r, "org_id": o, "name": n} for r, o, n in ((1, 7, "Depot"), (2, 8, "Office"))
        ]
        upsert_dicts(db, "panels", panels, "resource_id")
        store.record(db, [ev("A1", 0), ev("T1", 1, TAMPER)], WINDOW, T0, alarms=["A1", "T1"])
        store.record(db, [ev("A2", 60), ev("C2", 61, CAMERA_OFFLINE)], WINDOW, T0, alarms=["A2"])
        store.record(db, [Evidence(ALARM, T0, 2, 8, "B1", ""), Evidence(ALARM, T0 + 1, 2, 8, "B2", "")],
                     WINDOW, T0, alarms=["B1", "B2"])  # fmt: skip  # one kind: no incident
        lifecycle.open_alarms(db, [("A1", T0), ("T1", T0), ("A2", T0)], T0)
    first, second = store.of_event(db, "A1"), store.of_event(db, "A2")
    assert first is not None and second is not None
    listed = open_incidents(db)
    assert [(i.id, i.panel_name, i.kinds, i.state) for i in listed] == [
        (second.id, "Depot", (ALARM, CAMERA_OFFLINE), "open"),
        (first.id, "Depot", (ALARM, TAMPER), "open"),
    ]
    assert listed[1].alarms == ("A1", "T1") and listed[1].first_time == T0 and listed[1].evidence == 2
    assert [i.id for i in open_incidents(db, org_ids=[8])] == [] and open_incidents(db, org_ids=[]) == []
    assert len(open_incidents(db, limit=1)) == 1
    with write_transaction(db):
        lifecycle.apply(db, "A1", Change.ACKNOWLEDGED, "U", T0, opened_at=T0)
    assert incident_of(db, "T1") is not None and incident_of(db, "T1").state == "open"  # type: ignore[union-attr]
    with write_transaction(db):
        lifecycle.apply(db, "T1", Change.RESOLVED, "U", T0, opened_at=T0)
    assert incident_of(db, "T1").state == "acknowledged"  # type: ignore[union-attr]
    with write_transaction(db):
        lifecycle.apply(db, "A1", Change.RESOLVED, "U", T0, opened_at=T0)
    assert [i.id for i in open_incidents(db)] == [second.id]  # resolved incidents are not open
    assert incident_of(db, "B1") is None and incident_of(db, "nothing") is None


def test_a_long_timeline_is_clipped_to_slacks_limits() -> None:
    timeline = tuple(ev(f"EV-{i:04d}", i / 10, TAMPER if i % 2 else ALARM) for i in range(400))
    view = IncidentView(1, "Depot (1)", (ALARM, TAMPER), timeline, {State.OPEN: 200})
    card = incident_card(view, ZoneInfo("UTC"), None, "http://d")
    blocks = card.attachments[0]["blocks"]
    assert len(blocks) <= 50
    texts = [b["text"]["text"] for b in blocks if b.get("text")]
    assert all(len(t) <= 3000 for t in texts)
    assert any("more" in t for t in texts) and "EV-0000" in texts[1]  # the earliest first, the rest counted


def test_the_card_says_who_holds_the_incident(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    now = T0 + 60 * MIN
    with db.conn:
        [incident_id] = store.record(
            db, [ev("EV-1", 1), ev("EV-2", 2, TAMPER)], WINDOW, now, alarms=["EV-1", "EV-2"]
        )
    lifecycle.open_alarms(db, [("EV-1", T0 + MIN), ("EV-2", T0 + 2 * MIN)], now)
    lifecycle.apply(db, "EV-2", Change.ASSIGNED, "U_TECH", now, opened_at=T0 + 2 * MIN)
    incident = store.get(db, incident_id)
    assert incident is not None
    card = incident_card(incident_view(db, incident), ZoneInfo("UTC"), None, "http://d")
    assert "held by <@U_TECH>" in blocks_text(card.attachments[0]["blocks"])
    lifecycle.apply(db, "EV-2", Change.RESOLVED, "U_TECH", now, opened_at=T0 + 2 * MIN)
    card = incident_card(incident_view(db, incident), ZoneInfo("UTC"), None, "http://d")
    assert "held by" not in blocks_text(card.attachments[0]["blocks"])  # a resolved alarm is held no more
