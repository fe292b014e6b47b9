"""core.keyholder_reads against the spec-exact simulator and a real cache: only panels with alarms are read,
the time-to-live is respected (no second read inside it, one after it), the requests keep the pace they are
given (measured from the simulator's own request log), and a read that fails is recorded so the line says
so."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from core.cache import get_alarm
from core.cache.db import open_cache
from core.cache.transactions import write_transaction
from core.client import SamClient
from core.clock import now_ms
from core.keyholder_reads import MAX_RETRY_MS, KeyholderReads
from core.keyholders import Verdict, context_of
from core.pacing import Pacer
from core.read.keyholders import access_reads
from core.settings import Settings
from core.sqlite_lib import sqlite_utils
from tests.support.narrow import known
from tests.support.processes import Simulator, free_port, run_simulator
from tests.support.seed_cache import insert_posted_alarms

OP2 = "2 GET /enterprise/bulk/get-organization-users"
OP15 = "15 GET /role/user/{}/privilege-groups"
TTL_S = 3600.0
ISTANBUL = ZoneInfo("Europe/Istanbul")


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", seed=5) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def client(sim: Simulator) -> Iterator[SamClient]:
    with SamClient(Settings(base_url=sim.base_url)) as c:
        yield c


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    cache = open_cache(tmp_path / "cache.db")
    yield cache
    cache.conn.close()


def panels_of(client: SamClient) -> tuple[int, list[int]]:
    """An organization and its panels, as the login lists them."""
    resources = [r for r in client.login().resources or [] if r.resource_id is not None]
    org = known(resources[0].org_id)
    return org, [known(r.resource_id) for r in resources if r.org_id == org]


def alarms_on(db: sqlite_utils.Database, org: int, panels: list[int], at: int) -> None:
    with write_transaction(db):
        insert_posted_alarms(db, [(f"k{p}", p, org, at, "violation", "alarm") for p in panels])


def stats(sim: Simulator) -> dict[str, int]:
    return httpx.get(f"{sim.root_url}/_sim/stats").json()["operations"]


def reset(sim: Simulator) -> None:
    httpx.post(f"{sim.root_url}/_sim/stats/reset")


def test_only_panels_with_alarms_are_read_and_the_ttl_is_respected(
    sim: Simulator, client: SamClient, db: sqlite_utils.Database
) -> None:
    org, panels = panels_of(client)
    with_alarms, quiet = panels[:2], panels[2:]
    clock = [now_ms()]
    alarms_on(db, org, with_alarms, clock[0] - 60_000)
    reads = KeyholderReads(client, Pacer(50.0), TTL_S, clock=lambda: clock[0])
    reset(sim)
    assert reads.step(db)
    first = stats(sim)
    assert first.get(OP2) == 1 and first.get(OP15, 0) >= 2  # the listing once, then each authorized user
    recorded = access_reads(db, panels)
    assert set(recorded) == set(with_alarms) and not set(quiet) & set(recorded)
    assert all(r.read_at == clock[0] and r.error is None for r in recorded.values())

    clock[0] += int(TTL_S * 1000) - 1000  # inside the TTL: nothing is due, nothing is asked
    assert not reads.step(db)
    assert stats(sim) == first
    clock[0] += 2000  # past it: read again
    assert reads.step(db)
    assert stats(sim).get(OP2) == 2


def test_the_reads_keep_the_pace_they_are_given(
    sim: Simulator, client: SamClient, db: sqlite_utils.Database
) -> None:
    """The requests of one step, from the simulator's own log: never closer than the pace allows, and on
    average at most its rate (the history thread gives 0.2/s; 2/s here keeps the test short)."""
    org, panels = panels_of(client)
    alarms_on(db, org, panels[:4], now_ms() - 60_000)
    rate = 2.0
    reads = KeyholderReads(client, Pacer(rate), TTL_S)
    started = now_ms()
    assert reads.step(db)
    log = httpx.get(f"{sim.root_url}/_sim/requests").json()
    times = sorted(
        int(r["at"])
        for r in log
        if int(r["at"]) >= started
        and ("get-organization-users" in r["path"] or "/privilege-groups" in r["path"])
    )
    assert len(times) >= 5  # the listing and at least one user per panel
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Received times: each request's own latency moves it a little off its slot (a loaded machine's more).
    assert min(gaps) >= 0.6 * 1000 / rate, gaps
    measured = (len(times) - 1) / ((times[-1] - times[0]) / 1000)
    assert measured <= rate * 1.15, measured  # unpaced, these would come 10-30 ms apart


def test_a_read_that_fails_is_recorded_and_the_line_says_so(
    client: SamClient, db: sqlite_utils.Database
) -> None:
    org, panels = panels_of(client)
    when = now_ms() - 60_000
    alarms_on(db, org, panels[:1], when)
    nowhere = Settings(base_url=f"http://127.0.0.1:{free_port()}/api", timeout=1.0, max_retries=0)
    with SamClient(nowhere) as down:
        reads = KeyholderReads(down, Pacer(50.0), TTL_S)
        assert reads.step(db)
        assert not reads.step(db)  # tried again only after the retry time
    alarm = known(get_alarm(db, f"k{panels[0]}"))
    found = context_of(db, alarm, ISTANBUL)
    assert found is not None and found.verdict is Verdict.FAILED
    assert found.text == "Authorizations could not be read: the service did not answer"
    # The service answers again: the next read (after the retry time) replaces the failure.
    later = KeyholderReads(client, Pacer(50.0), TTL_S, clock=lambda: now_ms() + MAX_RETRY_MS + 1)
    assert later.step(db)
    found = context_of(db, alarm, ISTANBUL)
    assert found is not None and found.verdict in {Verdict.INSIDE, Verdict.OUTSIDE, Verdict.NOBODY}
