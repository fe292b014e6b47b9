"""Benchmark: alarms in seconds at fleet size (issue 14).

For each fleet size it runs a spec-exact simulator (`--latency-ms 50`, no live activity of its own), the
Slack stand-in and `samops notify` as a real process with samops' default settings but one
(SAM_MAX_RESPONSE_BYTES, see below) (the alarm poller every
`SAMOPS_POLL_INTERVAL` = 5 s, group-testing attribution), waits for its first start, then:

- counts the requests the service answers over an idle minute (`/_sim/stats`);
- injects alarms one at a time on random panels at random phases of the poll interval, and times each
  from its injection to its card in the Slack stand-in; checks the cache put it on its own panel;
- counts the requests per alarm.

The baseline of the same run is the ideal: half a poll interval plus one service round trip (one request
of operation 3 over an organization's panels, timed here). Then, once, the notifier's per-poll cache work
(discovery from the watermark, and the poller's eventId look-up) over 10 thousand and 1 million cached alarms.

    .venv/bin/python bench/scale.py [--sizes 1000 10000] [--alarms 30] [--cached 10000 1000000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.cache import outbox  # noqa: E402
from core.cache.db import open_cache, open_reader  # noqa: E402
from core.client import SamClient  # noqa: E402
from core.poller import known_events  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.support.processes import Simulator, run_simulator, samops_cmd, stop  # noqa: E402
from tests.support.seed_cache import insert_posted_alarms  # noqa: E402
from tests.support.slack_standin import SlackStandIn  # noqa: E402

INTERVAL = Settings().poll_interval  # samops' default (unless the environment sets it)
# The one setting changed from its default: the login answer of 10,000 simulated panels (every panel with
# its sensors and controllers) is about 17.7 MB, over the default 16 MiB bound.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
HOUR = 3_600_000


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


def requests_served(sim: Simulator) -> int:
    return int(httpx.get(f"{sim.root_url}/_sim/stats", timeout=30).json()["total"])


def card_posted(slack: SlackStandIn, event_id: str) -> bool:
    return any(event_id in str(c.params) for c in slack.calls_to("chat.postMessage"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def panel_of(path: Path, event_id: str) -> int | None:
    db = open_reader(path)
    try:
        row = db.execute("SELECT resource_id FROM activities WHERE event_id = ?", [event_id]).fetchone()
    finally:
        db.close()
    return row[0] if row else None


def round_trip(sim: Simulator) -> float:
    """One request of operation 3 over the panels of the largest organization (median of 5)."""
    with SamClient(Settings(base_url=sim.base_url, max_response_bytes=MAX_RESPONSE_BYTES)) as client:
        panels = client.login().panels
        org = max({p.org_id for p in panels}, key=lambda o: sum(p.org_id == o for p in panels))
        ids = [int(p.resource_id or 0) for p in panels if p.org_id == org]
        now = int(time.time() * 1000)
        times = []
        for _ in range(5):
            started = time.monotonic()
            client.list_activities(ids, start_time=now - 120_000, end_time=now + 60_000, org=org)
            times.append(time.monotonic() - started)
    return statistics.median(times)


def one_size(size: int, alarms: int) -> dict[str, Any]:
    options = ("--panels", str(size), "--latency-ms", "50", "--alarm-rate", "0")
    with (
        run_simulator(*options, seed=14) as sim,
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
        Path(tmp, "notify.log").open("w") as log,
    ):
        with SamClient(Settings(base_url=sim.base_url, max_response_bytes=MAX_RESPONSE_BYTES)) as client:
            login = client.login()
            panels = [int(p.resource_id or 0) for p in login.panels]
            orgs = len({p.org_id for p in login.panels})
        Path(tmp, "samops.toml").write_text('[notify]\ndefault_channel = "C_ALARMS"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAM_", "SAMOPS_"))}
        env |= {"PYTHONPATH": str(ROOT), "SAM_BASE_URL": sim.base_url, "SLACK_API_URL": slack.api_url,
                "SAMOPS_DB": str(Path(tmp, "cache.db")), "SAMOPS_CONFIG": str(Path(tmp, "samops.toml")),
                "SLACK_BOT_TOKEN": "xoxb-bench",
                "SAM_MAX_RESPONSE_BYTES": str(MAX_RESPONSE_BYTES)}  # fmt: skip
        proc = subprocess.Popen(samops_cmd("notify"), cwd=tmp, env=env, stdout=log, stderr=log)
        started = time.monotonic()
        try:
            wait_for(
                lambda: any("watching" in str(c.params) for c in slack.calls_to("chat.postMessage")),
                1800,
                "the notifier's first start",
            )
            first_start = time.monotonic() - started
            time.sleep(2 * INTERVAL)  # past the first polls
            before = requests_served(sim)
            time.sleep(60)
            idle = requests_served(sim) - before

            latencies, costs, wrong = [], [], 0
            for _ in range(alarms):
                time.sleep(random.uniform(0, INTERVAL))  # a random phase of the poll cycle
                rid = random.choice(panels)
                before = requests_served(sim)
                t0 = time.monotonic()
                body = {"resourceId": rid, "count": 1, "violationType": "alarm"}
                [alarm] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=30).json()
                event = alarm["eventId"]
                wait_for(lambda event=event: card_posted(slack, event), 120, f"the card of {event}")
                latencies.append(time.monotonic() - t0)
                time.sleep(INTERVAL * 0.6)  # let the poll that found it finish before counting
                polls = (INTERVAL * 0.6 + latencies[-1]) / INTERVAL  # the idle share of what was counted
                costs.append(requests_served(sim) - before - polls * orgs)
                wrong += panel_of(Path(tmp, "cache.db"), event) != rid
        finally:
            stop(proc)
        rtt = round_trip(sim)
    return {
        "size": size,
        "orgs": orgs,
        "first_start": first_start,
        "idle_per_minute": idle,
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "per_alarm": statistics.mean(costs),
        "wrong": wrong,
        "baseline": INTERVAL / 2 + rtt,
        "rtt": rtt,
    }


def cache_of(path: Path, count: int, now: int) -> Any:
    """`count` alarms over the last 30 days, already discovered, plus 500 in the last five minutes."""
    db = open_cache(path)
    start = now - 30 * 24 * HOUR
    step = max(1, (now - HOUR - start) // count)
    batch = 50_000
    with db.conn:
        for at in range(0, count + 500, batch):
            rows = []
            for i in range(at, min(at + batch, count + 500)):
                t = start + i * step if i < count else now - 300_000 + (i - count) * 600
                rows.append((f"E{i}", 100_000 + i % 10_000, 1001, t, "violation", "alarm"))
            insert_posted_alarms(db, rows)
        outbox.set_state(db, outbox.WATERMARK, str(now))
    return db


def poll_cache_time(count: int) -> float:
    """Median seconds of one poll's cache work: discovery from the watermark and the eventId look-up of
    the window's records (200 of them)."""
    now = int(time.time() * 1000)
    with tempfile.TemporaryDirectory() as tmp:
        db = cache_of(Path(tmp, "cache.db"), count, now)
        window = [f"E{i}" for i in range(count, count + 200)]
        times = []
        for _ in range(50):
            started = time.perf_counter()
            known_events(db, window)
            outbox.undiscovered_alarms(db, outbox.discovery_since(db, now - 60 * 24 * HOUR))
            times.append(time.perf_counter() - started)
        db.close()
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--alarms", type=int, default=30)
    parser.add_argument("--cached", type=int, nargs="+", default=[10_000, 1_000_000])
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    results = []
    for size in args.sizes:
        result = one_size(size, args.alarms)
        results.append(result)
        r = result
        print(
            f"{r['size']:>6} panels ({r['orgs']} orgs): first start {r['first_start']:.0f} s; "
            f"alarm → card p50 {r['p50']:.2f} s, p99 {r['p99']:.2f} s "
            f"(baseline {r['baseline']:.2f} s = {INTERVAL / 2:g} s + round trip {r['rtt'] * 1000:.0f} ms); "
            f"{r['wrong']} on a wrong panel; idle {r['idle_per_minute']} requests/min "
            f"({r['idle_per_minute'] / 60 / r['orgs']:.2f}/s per org); "
            f"~{r['per_alarm']:.1f} requests per alarm",
            flush=True,
        )
    for count in args.cached:
        ms = poll_cache_time(count) * 1000
        print(f"notifier poll, cache work over {count:,} cached alarms: {ms:.2f} ms")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
