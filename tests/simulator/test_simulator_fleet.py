"""The simulator at fleet scale: requests counted per operation at `/_sim/stats`, histories made lazily yet
the same whichever panel is read first, and time windows found without reading whole histories."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from simulator.data import Scale
from simulator.store import Store
from tests.support.processes import Simulator, run_simulator
from tests.support.spec_client import SpecClient


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=3) as simulator:
        yield simulator


def stats(sim: Simulator) -> dict[str, Any]:
    return httpx.get(f"{sim.root_url}/_sim/stats").json()


def test_requests_are_counted_per_operation_and_status(sim: Simulator) -> None:
    before = httpx.post(f"{sim.root_url}/_sim/stats/reset").json()
    assert before["total"] == 0 and before["operations"] == {}
    with SpecClient(sim.base_url) as client:
        login = client.login()
        rid = next(p["resourceId"] for p in login["resources"] if p["orgId"] == 1001)
        for _ in range(3):
            client.ok("POST", "/activities", {"resourceIds": [rid], "pageSize": 5})
        client.ok("GET", f"/panel/{rid}/sensor/list")
        client.ok("GET", f"/panel/{rid + 1}/sensor/list")
        assert client.call("GET", "/camera/list", auth=False).status_code == 401
        assert client.call("GET", "/no/such/operation").status_code == 404
        assert client.call("GET", "/activities").status_code == 405  # the path, not the method
    httpx.get(f"{sim.root_url}/_sim/requests")  # test controls are not the service: not counted
    counted = stats(sim)
    assert counted["operations"] == {
        "1 POST /auth/login": 1,
        "3 POST /activities": 3,
        "17 GET /camera/list": 1,
        "18 GET /panel/{}/sensor/list": 2,
        "other": 2,
    }
    assert counted["statuses"] == {"200": 6, "401": 1, "404": 1, "405": 1}
    assert counted["total"] == 9 and counted["since"] >= before["since"]
    assert httpx.post(f"{sim.root_url}/_sim/stats/reset").json()["total"] == 0
    assert stats(sim)["operations"] == {}


def test_simulated_faults_and_replays_are_counted_too(sim: Simulator) -> None:
    httpx.post(f"{sim.root_url}/_sim/stats/reset")
    httpx.post(f"{sim.root_url}/_sim/faults", json={"throttleRate": 1.0})
    try:
        assert httpx.get(f"{sim.base_url}/camera/list").status_code == 429
    finally:
        httpx.post(f"{sim.root_url}/_sim/faults", json={"throttleRate": 0.0})
    assert stats(sim)["operations"] == {"17 GET /camera/list": 1}
    assert stats(sim)["statuses"] == {"429": 1}


def query(**fields: Any) -> SimpleNamespace:
    names = ("resourceIds", "page", "pageSize", "startTime", "endTime", "startSec", "finishSec", "types",
             "groupIds", "resourceId")  # fmt: skip
    return SimpleNamespace(**{name: fields.get(name) for name in names})


def history(store: Store, rid: int) -> list[tuple[str, int, str]]:
    """A panel's activities as (eventId, age at build, description): times move with the start time."""
    page = store.activities(store.world.panels[rid]["orgId"], query(resourceIds=[rid], pageSize=1000))
    return [
        (a["eventId"], store.world.built_at - a["activityTime"], a["description"]) for a in page["activities"]
    ]


def test_lazy_histories_do_not_depend_on_which_panel_is_read_first() -> None:
    first, second = Store(Scale(seed=9, panels=30), 3600), Store(Scale(seed=9, panels=30), 3600)
    assert not first.world.activities  # nothing made at start
    panels = list(first.world.panels)
    forward = {rid: history(first, rid) for rid in panels}
    backward = {rid: history(second, rid) for rid in reversed(panels)}
    assert forward == backward and all(forward.values())
    assert len(first.world.activities) == len(panels)


def test_time_windows_match_a_full_scan() -> None:
    store = Store(Scale(seed=4, panels=12), 3600)
    org = 1001
    everything = store.activities(org, query(pageSize=1000))["activities"]
    times = sorted(a["activityTime"] for a in everything)
    lo, hi = times[len(times) // 4], times[3 * len(times) // 4]
    window = store.activities(org, query(pageSize=1000, startTime=lo, endTime=hi))
    expected = [a for a in everything if lo <= a["activityTime"] <= hi]
    assert window["totalRecords"] == len(expected) and window["activities"] == expected
    rid = next(iter(store.world.panels))
    pushed = store.push_history(org, query(resourceId=rid, pageSize=1000, startTime=lo, endTime=hi))[0]
    assert all(lo <= a["activityTime"] <= hi and a["eventType"] != "event" for a in pushed["activities"])
