"""The simulator's silent-panel controls (`POST /_sim/panels/{id}/silence` and `/report`): a silenced panel
sends no activity (the live feed passes it by, an injection is refused) and its controllers' lastUpdate
(operation 19) stays frozen, while the rest of the fleet goes on; reporting again sends one event now and
moves a lastUpdate. Through the simulator as a real process, read back through the service's operations."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from core.client import SamClient
from core.settings import Settings
from tests.support.processes import Simulator, run_simulator


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator(
        "--alarm-rate", "1200", "--orgs", "1", "--panels", "3"
    ) as sim:  # 20 activities a second
        yield sim


def last_updates(client: SamClient, panel: int) -> list[int]:
    return sorted(int(e.last_update or 0) for e in client.list_controller_data_log(resource_id=panel))


def activities_since(sim: Simulator, since: int) -> list[dict[str, object]]:
    return list(httpx.get(f"{sim.root_url}/_sim/activities", params={"since": since}, timeout=10).json())


def test_a_silenced_panel_says_nothing_until_it_reports(sim: Simulator) -> None:
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
        panels = sorted(int(p.resource_id or 0) for p in client.login().panels)
        panel = panels[0]
        answer = httpx.post(f"{sim.root_url}/_sim/panels/{panel}/silence", timeout=10)
        assert answer.status_code == 200 and answer.json()["silenced"] is True
        frozen = last_updates(client, panel)
        since = int(time.time() * 1000)
        time.sleep(1.5)
        others = {a["resourceId"] for a in activities_since(sim, since)}
        assert others and panel not in others  # the fleet goes on, the silenced panel says nothing
        assert last_updates(client, panel) == frozen
        refused = httpx.post(f"{sim.root_url}/_sim/activities", json={"resourceId": panel}, timeout=10)
        assert refused.status_code == 409 and "silenced" in refused.json()["message"]

        reported = httpx.post(f"{sim.root_url}/_sim/panels/{panel}/report", timeout=10)
        assert reported.status_code == 200
        [event] = reported.json()
        assert (event["eventType"], event["violationName"]) == ("event", "Communication restored")
        page = client.list_activities([panel], start_time=event["activityTime"])
        assert event["eventId"] in {a.event_id for a in page.activities or []}
        assert max(last_updates(client, panel)) >= since


def test_an_unknown_panel_is_not_found(sim: Simulator) -> None:
    for control in ("silence", "report"):
        answer = httpx.post(f"{sim.root_url}/_sim/panels/999999999/{control}", timeout=10)
        assert answer.status_code == 404
