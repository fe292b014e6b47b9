"""The seeded data set: deterministic for a seed, and realistic in the ways the spec names."""

from __future__ import annotations

import random

from simulator.data import Scale, World, activities_of, build, new_activity

NOW = 1_795_000_000_000


def every_activity(world: World) -> list[dict]:
    """Every panel's history (made on first use), oldest first per panel."""
    return [a for rid in world.panels for a in activities_of(world, rid)]


def test_same_seed_same_records_other_seed_other_records() -> None:
    first, again, other = build(Scale(seed=5), NOW), build(Scale(seed=5), NOW), build(Scale(seed=6), NOW)
    assert every_activity(first) == every_activity(again) != every_activity(other)
    assert first == again
    assert first.panels != other.panels


def test_scale_options_shape_the_data() -> None:
    world = build(Scale(orgs=4, panels=10, history_days=2), NOW)
    assert sorted(world.orgs) == [1001, 1002, 1003, 1004]
    assert len(world.panels) == 10
    assert sorted(p["orgId"] for p in world.panels.values()).count(1001) == 3
    assert all(NOW - 2 * 86_400_000 <= a["activityTime"] < NOW for a in every_activity(world))
    demo = world.users[7001]
    assert demo["orgIds"] == [1001, 1002] and 1003 not in demo["orgIds"]


def test_activities_have_every_kind_and_unique_ids() -> None:
    world = build(Scale(), NOW)
    activities = every_activity(world)
    assert len({a["eventId"] for a in activities}) == len(activities)
    assert {a["eventType"] for a in activities} == {"event", "violation", "error"}
    assert {a["violationType"] for a in activities} == {None, "alarm", "warning", "error"}
    per_panel_day = len(activities) / len(world.panels) / 7
    assert 2 <= per_panel_day <= 5


def test_one_organization_is_enough() -> None:
    world = build(Scale(orgs=1, panels=3), NOW)
    assert world.users[7001]["orgIds"] == [1001] and 7002 not in world.users


def test_a_restarted_simulator_never_reuses_a_live_event_id() -> None:
    """A client's cache outlives the simulator: an alarm made after a restart must not carry an id the cache
    already holds from the run before (it would be taken for a known event and never shown)."""
    first, restarted = build(Scale(), NOW), build(Scale(), NOW + 60_000)
    rid = next(iter(first.panels))
    history = {a["eventId"] for a in activities_of(first, rid)}
    assert history == {a["eventId"] for a in activities_of(restarted, rid)}  # the same history, the same ids
    before = new_activity(first, random.Random(1), rid, NOW + 1, "alarm", live=True)["eventId"]
    after = new_activity(restarted, random.Random(1), rid, NOW + 60_001, "alarm", live=True)["eventId"]
    assert before != after and not {before, after} & history


def test_the_demo_holds_what_the_help_uses_and_names_stay_plain() -> None:
    """Issue 37: `/sam user ana@example.com`, `20001`, a Warehouse, `+90 555 111 22 33` are in the demo;
    screen names are plain ASCII with no dot (a dotted one reads as a host name to Slack's linker)."""
    world = build(Scale(), NOW)
    ana = world.users[20001]
    assert (ana["emailAddress"], ana["screenName"], ana["orgIds"]) == ("ana@example.com", "ana", [1001])
    assert any(pu["userId"] == 20001 for pu in world.panel_users[100101])
    assert world.panels[100102]["resourceName"].endswith(" Warehouse")
    phones = [c["contactMedium"][0]["characteristic"]["phoneNumber"] for c in world.customers[1001]]
    assert "+90 555 111 22 33" in phones
    for user in world.users.values():
        assert user["screenName"].isascii() and "." not in user["screenName"], user["screenName"]


def test_live_activities_name_a_sensor_of_their_panel() -> None:
    """The card's "Sensor / zone" is read from "<name> on <panel> - <sensor>": live alarms say it too."""
    from simulator.store import Store

    store = Store(Scale(panels=6), 3600)
    rid = next(iter(store.world.panels))
    sensors = {s["sensorName"] for s in store.world.panels[rid]["resourceSensors"][0]["sensors"]}
    added = store.add_activities(rid, 3, "alarm") + store.add_activities(rid, 1, "alarm", name="Panic")
    for activity in added:
        assert activity["description"].rsplit(" - ", 1)[1] in sensors, activity["description"]
