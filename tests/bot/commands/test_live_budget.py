"""Issue 26: `/sam who-can` and `/sam panel` asked the service on every call, unpaced, and any viewer may
send them (100 `/sam who-can` in 12 s made 400 requests). Flooded through the running bot against its own
simulator, whose request log counts what reached the service: at most the organization's burst and its
refill (bot/live_budget.py), and every command still gets an answer."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from bot.live_budget import BURST, PANEL_COST, PER_SECOND
from core.client import SamClient
from core.settings import Settings
from tests.support.bot import BotProcess, run_bot
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn


@pytest.fixture(scope="module")
def own_sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=13) as sim:
        yield sim


@pytest.fixture(scope="module")
def panels(own_sim: Simulator) -> list[int]:
    """Panels of the simulator's first organization."""
    with SamClient(Settings(base_url=own_sim.base_url)) as client:
        resources = known(client.login().resources)
    org = resources[0].org_id
    return [known(r.resource_id) for r in resources if r.org_id == org and r.resource_id is not None]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory, own_sim: Simulator) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("live-budget")
    with SlackStandIn() as slack, run_bot(tmp, slack, simulator=own_sim) as bot:
        yield bot


def service_requests(sim: Simulator, since: float) -> int:
    entries = httpx.get(f"{sim.root_url}/_sim/requests", timeout=5).json()
    return sum(1 for e in entries if e["at"] >= since and not e["path"].endswith("/login"))


def at_of(sim: Simulator) -> float:
    """The simulator's clock as its request log writes it (the newest entry's `at`)."""
    entries = httpx.get(f"{sim.root_url}/_sim/requests", timeout=5).json()
    return max((e["at"] for e in entries), default=0)


def test_a_flood_of_who_can_and_panel_stays_within_the_organizations_budget(
    bot: BotProcess, own_sim: Simulator, panels: list[int]
) -> None:
    bot.send_command(f"panel {panels[0]}")  # logged in, the panels known: the flood is what is counted
    time.sleep(BURST / PER_SECOND / 4)  # part of the bucket refilled, so the bound below is not exact luck
    since = at_of(own_sim)
    started = time.monotonic()
    texts = [f"who-can {panels[i % len(panels)]}" for i in range(100)]
    texts += [f"panel {panels[i % len(panels)]}" for i in range(50)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda text: bot.send_command(text, timeout=30), texts))
    elapsed = time.monotonic() - started
    made = service_requests(own_sim, since + 1e-6)
    bound = BURST + PER_SECOND * elapsed + 2 * PANEL_COST  # two commands' worth of debt may be in flight
    assert made <= bound, f"{made} service requests for {len(texts)} commands in {elapsed:.0f} s"
    answers = [json.dumps(r.responses[0]) for r in results]
    assert all(r.responses[0]["text"] for r in results), "every command is answered"
    busy = [a for a in answers if "busy, try again in" in a]
    cached = [a for a in answers if "these are the authorizations it read at" in a]
    assert busy and len(busy) + len(cached) >= len(texts) - (bound // 2)
    output = bot.output()
    assert "Traceback" not in output and " ERROR " not in output
