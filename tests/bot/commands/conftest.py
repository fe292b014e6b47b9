"""The read commands of `/sam`, over signed HTTP to one running bot, against its own simulator.

The simulator is this package's own (it injects alarms and faults); the expected values come from the
service itself through SamClient and from the simulator's /_sim test controls.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.cache.db import open_cache
from core.client import SamClient
from core.settings import Settings
from core.sync import run_sync
from tests.support.bot import BotProcess, run_bot
from tests.support.narrow import known
from tests.support.processes import Simulator, run_simulator
from tests.support.slack_standin import SlackStandIn


@pytest.fixture(scope="package")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=7) as sim:
        yield sim


@pytest.fixture(scope="package")
def client(sim: Simulator) -> Iterator[SamClient]:
    with SamClient(Settings(base_url=sim.base_url)) as client:
        client.login()
        yield client


def fill_cache(db_path: Path, client: SamClient) -> None:
    """One real sync (core.sync) into the bot's cache, as `samops sync` does."""
    db = open_cache(db_path)
    try:
        report = run_sync(db, client)
        assert report.ok, report.errors
    finally:
        db.close()


@pytest.fixture(scope="package")
def injected(sim: Simulator, client: SamClient) -> list[dict]:
    """Two fresh alarms on the first panel, injected before the cache is filled."""
    panel = (known(client.session).resources or [])[0]
    body = {"resourceId": panel.resource_id, "count": 2, "violationType": "alarm"}
    return httpx.post(f"{sim.root_url}/_sim/activities", json=body).json()


@pytest.fixture(scope="package")
def bot(
    tmp_path_factory: pytest.TempPathFactory, sim: Simulator, client: SamClient, injected: list
) -> Iterator[BotProcess]:
    tmp = tmp_path_factory.mktemp("reads")
    db_path = tmp / "cache.db"
    fill_cache(db_path, client)
    with (
        SlackStandIn() as slack,
        run_bot(
            tmp, slack, simulator=sim, db_path=db_path, env={"SAM_TIMEOUT": "3"}, config=TECHNICIAN
        ) as bot,
    ):
        yield bot


TECHNICIAN = '[roles]\ntechnicians = ["U_TECH"]\n'
