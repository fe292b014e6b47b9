"""The alarm poller (core/poller.py) and the notifier that hosts it, against the spec-exact simulator: paging
past a page, the service failing halfway through a poll, a restart in the middle of a split, the idle cost
(one request per organization per poll) and discovery from a watermark."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.notify.delivery import ConsoleDelivery
from bot.notify.service import Notifier
from core.cache import outbox
from core.cache.db import open_cache
from core.client import SamClient
from core.config import parse_notify
from core.errors import SamError
from core.notify.source import ServiceSource
from core.poller import CURSOR_TABLE, Poller
from core.settings import Settings
from tests.core.test_attribution import attributed, inject
from tests.support.processes import Simulator, run_simulator
from tests.support.seed_cache import insert_posted_alarms

PANELS = 64


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", str(PANELS), "--orgs", "1", seed=15) as s:
        yield s


def set_faults(sim: Simulator, error_rate: float) -> None:
    httpx.post(f"{sim.root_url}/_sim/faults", json={"errorRate": error_rate}, timeout=10).raise_for_status()


@pytest.fixture
def healthy(sim: Simulator) -> Iterator[Simulator]:
    """The simulator, answered without faults again whatever the test did."""
    yield sim
    set_faults(sim, 0.0)


class FailsFromRequest(SamClient):
    """A real client that, at its `fail_at`-th request of operation 3, makes the simulator fail every
    request from then on (through the simulator's own fault control): the service breaks mid-poll."""

    def __init__(self, settings: Settings, sim: Simulator) -> None:
        super().__init__(settings)
        self.sim = sim
        self.calls = 0
        self.fail_at: int | None = None
        self._lock = threading.Lock()

    def list_activities(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.calls += 1
            if self.calls == self.fail_at:
                set_faults(self.sim, 1.0)
        return super().list_activities(*args, **kwargs)


def cursor(db: Any) -> int | None:
    row = db.execute("SELECT cursor FROM panel_cursors WHERE table_name = ?", [CURSOR_TABLE]).fetchone()
    return row[0] if row else None


def settle(db: Any, poller: Poller) -> None:
    now = int(time.time() * 1000)
    poller.poll(db, now)
    poller.poll(db, now)  # what earlier tests injected into the overlap window is known from here on


def panels_of(client: SamClient) -> list[int]:
    return sorted(int(p.resource_id or 0) for p in client.login().panels)


def test_windows_larger_than_a_page_are_walked_page_by_page(tmp_path: Path, healthy: Simulator) -> None:
    with SamClient(Settings(base_url=healthy.base_url, max_retries=0, page_size=4)) as client:
        db = open_cache(tmp_path / "cache.db")
        poller = Poller(client, history_ms=0)
        settle(db, poller)
        panels = panels_of(client)
        expected = {e: panels[5] for e in inject(healthy, panels[5], 9)}
        expected |= {e: panels[40] for e in inject(healthy, panels[40], 6)}
        report = poller.poll(db)
    assert attributed(db, list(expected)) == expected
    assert report.new == 15
    state = db.execute("SELECT last_success, rows FROM sync_state WHERE table_name = 'activities'").fetchone()
    count = db.execute("SELECT count(*) FROM activities").fetchone()[0]
    assert state == (report.started_at, count)  # what status and the dashboard show as activities' freshness


def test_the_service_failing_halfway_through_a_poll_loses_nothing(tmp_path: Path, healthy: Simulator) -> None:
    with FailsFromRequest(Settings(base_url=healthy.base_url, max_retries=0), healthy) as client:
        db = open_cache(tmp_path / "cache.db")
        poller = Poller(client, history_ms=0)
        settle(db, poller)
        panels = panels_of(client)
        expected = {e: rid for rid in (panels[1], panels[33], panels[62]) for e in inject(healthy, rid)}
        before = cursor(db)
        client.fail_at = client.calls + 3  # the probe and the first level answer; the next level fails
        with pytest.raises(SamError):
            poller.poll(db)
        assert cursor(db) == before  # the cursor did not move over what was not attributed
        assert attributed(db, list(expected)) == {}  # nothing half-written
        set_faults(healthy, 0.0)
        report = poller.poll(db)  # the next poll asks the same window again
    assert attributed(db, list(expected)) == expected
    assert report.new == 3 and cursor(db) != before


def test_a_restart_in_the_middle_of_a_split_posts_every_alarm_once(
    tmp_path: Path, healthy: Simulator
) -> None:
    path = tmp_path / "cache.db"
    config = parse_notify({})
    out = io.StringIO()

    def notifier(client: SamClient) -> Notifier:
        source = ServiceSource(client, history_hours=0)
        return Notifier(open_cache(path), config, ConsoleDelivery(out), source, "http://d")

    with FailsFromRequest(Settings(base_url=healthy.base_url, max_retries=0), healthy) as client:
        first = notifier(client)
        first.start()
        first.cycle()
        first.cycle()
        panels = panels_of(client)
        expected = {e: rid for rid in (panels[2], panels[20], panels[50]) for e in inject(healthy, rid)}
        client.fail_at = client.calls + 4  # in the middle of the split
        first.cycle()  # the service fails: logged, nothing discovered
        assert outbox.counts_by_state(first.db).get(outbox.CONSOLE, 0) == 0
        first.db.close()
    set_faults(healthy, 0.0)

    with SamClient(Settings(base_url=healthy.base_url, max_retries=0)) as client:
        second = notifier(client)  # a new process: only the cache carries over
        second.start()
        second.cycle()
        second.cycle()
        second.cycle()
        db = second.db
    assert attributed(db, list(expected)) == expected
    assert outbox.counts_by_state(db) == {outbox.CONSOLE: 3}  # each alarm once, none replayed
    assert {e for e in expected if out.getvalue().count(e) == 1} == set(expected)


def test_an_idle_notifier_cycle_costs_one_request_per_organization(
    tmp_path: Path, healthy: Simulator
) -> None:
    with SamClient(Settings(base_url=healthy.base_url, max_retries=0)) as client:
        source = ServiceSource(client, history_hours=0)
        n = Notifier(open_cache(tmp_path / "c.db"), parse_notify({}), ConsoleDelivery(io.StringIO()), source,
                     "http://d")  # fmt: skip
        n.start()
        n.cycle()
        n.cycle()
        before = stats(healthy)["total"]
        for _ in range(3):
            n.cycle()
        assert stats(healthy)["total"] - before == 3  # one organization, three polls, nothing else


def stats(sim: Simulator) -> dict[str, Any]:
    return httpx.get(f"{sim.root_url}/_sim/stats", timeout=10).json()


# --- discovery from a watermark (bot/notify/service.py, core/cache/outbox.py) ----------------------------

HOUR = 3_600_000


def cache_with_discovered_alarms(path: Path, count: int, baseline: int, now: int) -> Any:
    """`count` alarms after the baseline, and 500 in the last five minutes, every one of them already in the
    outbox (already posted); the watermark at now."""
    db = open_cache(path)
    step = (now - HOUR - baseline) // count
    rows = [(f"E{i}", 1, 1, baseline + i * step, "violation", "alarm") for i in range(count)]
    rows += [(f"R{i}", 1, 1, now - 300_000 + i * 600, "violation", "alarm") for i in range(500)]
    with db.conn:
        insert_posted_alarms(db, rows)
        outbox.set_state(db, outbox.WATERMARK, str(now))
    return db


def discovery_steps(db: Any, since: int) -> int:
    """SQLite virtual-machine steps (in hundreds) of one discovery query: a cost that no clock moves."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    db.conn.set_progress_handler(tick, 100)
    try:
        assert outbox.undiscovered_alarms(db, since) == []
    finally:
        db.conn.set_progress_handler(None, 100)
    return steps


def test_discovery_costs_the_same_over_a_small_and_a_large_history(tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    baseline = now - 30 * 24 * HOUR
    small = cache_with_discovered_alarms(tmp_path / "small.db", 5_000, baseline, now)
    large = cache_with_discovered_alarms(tmp_path / "large.db", 50_000, baseline, now)
    flat = [discovery_steps(db, outbox.discovery_since(db, baseline)) for db in (small, large)]
    from_baseline = [discovery_steps(db, baseline) for db in (small, large)]
    assert from_baseline[1] > 5 * from_baseline[0]  # what discovery cost before: it grows with history
    # From the watermark: the overlap's rows, whatever the history.
    assert flat[0] > 0 and flat[1] <= flat[0] + 2


def test_the_discovery_query_reads_the_activity_time_index(tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    db = cache_with_discovered_alarms(tmp_path / "c.db", 100, now - HOUR * 2, now)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    outbox.undiscovered_alarms(db, outbox.discovery_since(db, 0))
    db.conn.set_trace_callback(None)
    query = next(s for s in statements if "FROM activities" in s)
    plan = " ".join(str(row[-1]) for row in db.execute("EXPLAIN QUERY PLAN " + query).fetchall())
    assert "SEARCH a USING" in plan and "activity_time>?" in plan, plan


def test_the_watermark_waits_for_an_organization_that_failed(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "c.db")
    baseline, now = 1_000_000, 50 * HOUR
    assert outbox.discovery_since(db, baseline) == baseline  # nothing discovered yet
    alarm = outbox.Alarm("E", 1, 1, now + HOUR, None, "violation", None, "alarm", None)
    outbox.advance_watermark(db, [alarm], now)  # a panel's clock an hour fast does not move it past now
    assert outbox.discovery_since(db, baseline) == now - outbox.DISCOVERY_OVERLAP_MS
    # A poller whose oldest cursor is older (an organization failing for a while) holds discovery back.
    assert (
        outbox.discovery_since(db, baseline, floor=now - 5 * HOUR)
        == now - 5 * HOUR - outbox.DISCOVERY_OVERLAP_MS
    )
    assert outbox.discovery_since(db, baseline, floor=0) == baseline
