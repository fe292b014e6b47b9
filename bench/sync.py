"""Benchmark of the cache and the sync (issue 4 item 6). Prints figures as ratios against baselines measured
in the same run; not a test.

(a) upsert N activities through the cache's writes against raw sqlite3 executemany into the same schema
    (goal >= 0.6 of the raw rate);
(b) a full `samops sync` of P panels against the simulator at --latency-ms against the ideal
    requests x latency / concurrency, requests counted by the simulator (goal <= 1.5);
(c) recent alarms and hourly counts over the N activities of (a) (goal <= 50 ms each).

    python bench/sync.py [--activities 1000000] [--panels 2000] [--latency-ms 50] [--concurrency 8]
                         [--skip a,b,c]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import read  # noqa: E402
from core.cache.db import CACHE_PRAGMAS, open_cache  # noqa: E402
from core.cache.writes import ACTIVITY_FIELDS, activity_row, upsert_activities, write_transaction  # noqa: E402

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
KINDS = (
    [("event", None)] * 12
    + [("violation", "alarm")] * 3
    + [("violation", "warning")] * 3
    + [("error", "error")] * 2
)


def make_activities(n: int, panels: int, days: int, now: int, seed: int = 1) -> list[dict[str, Any]]:
    """Activities shaped as the service sends them (JSON names), spread over `days` before `now`."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        event_type, violation_type = rng.choice(KINDS)
        rid = 1 + i % panels
        out.append(
            {
                "eventId": f"EV-{rid}-{i:08d}",
                "activityTime": now - rng.randrange(days * DAY_MS),
                "description": f"Sensor {i % 17} on Panel {rid}",
                "eventType": event_type,
                "violationName": "Intrusion" if violation_type else "Arm",
                "violationType": violation_type,
                "msgType": 2,
                "vioType": 1,
                "group": 1 + i % 4,
                "resourceId": rid,
            }
        )
    return out


def bench_upsert(activities: list[dict[str, Any]], folder: Path, chunks: int = 10) -> Path:
    """Both sides write the same chunks in turn (raw, cache, raw, cache, ...) into two files that grow alike,
    each chunk one transaction, so that a busy machine slows both sides the same way."""
    raw_path, ours_path = folder / "raw.db", folder / "ours.db"
    open_cache(raw_path).close()  # the same schema, indexes included
    conn = sqlite3.connect(raw_path)
    # The same connection settings as the cache's, so that the ratio measures our code, not the pragmas.
    for pragma in ("PRAGMA synchronous = NORMAL", *CACHE_PRAGMAS):
        conn.execute(pragma)
    marks = ", ".join("?" for _ in ACTIVITY_FIELDS)
    sql = f"INSERT INTO activities ({', '.join(ACTIVITY_FIELDS)}) VALUES ({marks})"
    keys = ("eventId", "resourceId", "orgId", "activityTime", "description", "eventType", "violationName")
    keys += ("violationType", "msgType", "vioType", "group")
    db = open_cache(ours_path)

    raw = ours = 0.0
    size = -(-len(activities) // chunks)
    for start in range(0, len(activities), size):
        chunk = activities[start : start + size]
        started = time.perf_counter()
        with conn:
            conn.executemany(sql, (tuple(a.get(k) for k in keys) for a in chunk))
        raw += time.perf_counter() - started
        started = time.perf_counter()
        with write_transaction(db):
            upsert_activities(
                db, "activities", (activity_row(a, None, 1 + a["resourceId"] % 3) for a in chunk)
            )
        ours += time.perf_counter() - started
    conn.close()
    assert db["activities"].count == len(activities)
    db.close()

    n = len(activities)
    print(
        f"(a) upsert {n:,} activities in {chunks} transactions:"
        f" raw sqlite3 {n / raw:,.0f}/s, cache {n / ours:,.0f}/s"
    )
    print(f"    ratio cache/raw = {raw / ours:.2f}  (goal >= 0.60)", flush=True)
    return ours_path


def timed_ms(func: Callable[[], object], runs: int = 15) -> float:
    func()  # warm the page cache
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def bench_queries(path: Path, now: int, n: int) -> None:
    db = open_cache(path)
    figures = {
        "recent alarms (500, no filter)": lambda: read.recent_alarms(db, read.AlarmFilter()),
        "recent alarms (org, 24 h)": lambda: read.recent_alarms(
            db, read.AlarmFilter(org_id=2, since=now - DAY_MS)
        ),
        "recent alarms (one panel)": lambda: read.recent_alarms(db, read.AlarmFilter(resource_id=7)),
        # Text search: common (the first 500 matches come early), rare (one panel's text), absent.
        "recent alarms (text 'sensor 3')": lambda: read.recent_alarms(db, read.AlarmFilter(text="sensor 3")),
        "recent alarms (text 'on panel 1234')": lambda: read.recent_alarms(
            db, read.AlarmFilter(text="on panel 1234")
        ),
        "recent alarms (text, no match)": lambda: read.recent_alarms(
            db, read.AlarmFilter(text="no such text")
        ),
        "hourly counts (7 days)": lambda: read.hourly_counts(db, now - 7 * DAY_MS, now),
        "hourly counts (7 days, one org)": lambda: read.hourly_counts(db, now - 7 * DAY_MS, now, org_id=1),
    }
    others = {
        "weekday x hour (30 days)": lambda: read.weekday_hour_counts(
            db, read.AlarmFilter(since=now - 30 * DAY_MS)
        ),
        "kpis (24 h)": lambda: read.kpis(db, now),
        "freshness": lambda: read.freshness(db),
    }
    print(f"(c) read API over {n:,} activities, median of 15 runs (goal <= 50 ms each):")
    for name, func in figures.items():
        ms = timed_ms(func)
        print(f"    {name:<38} {ms:7.1f} ms  = {ms / 50:.2f} of the goal", flush=True)
    print("    for information, other dashboard queries:")
    for name, func in others.items():
        print(f"    {name:<38} {timed_ms(func, runs=5):7.1f} ms")
    db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--activities", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=30, help="activities spread over this many days")
    parser.add_argument("--panels", type=int, default=2000, help="panels the sync of (b) sees")
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: a, b, c")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    now = int(time.time() * 1000)
    with tempfile.TemporaryDirectory(prefix="samops-bench-") as tmp:
        folder = Path(tmp)
        if not {"a", "c"} <= skip:
            activities = make_activities(args.activities, args.panels, args.days, now)
            path = bench_upsert(activities, folder)
            del activities
            if "c" not in skip:
                bench_queries(path, now, args.activities)
        if "b" not in skip:
            bench_full_sync(folder, args.panels, args.latency_ms, args.concurrency)
    return 0


def bench_full_sync(folder: Path, panels: int, latency_ms: int, concurrency: int) -> None:
    from core.client import SamClient
    from core.settings import Settings
    from core.sync import SyncOptions, run_sync
    from tests.support.processes import run_simulator

    # The demo user sees two of the simulator's three organizations: make the third one's share extra.
    total = -(-panels * 3 // 2)
    options = ("--alarm-rate", "0", "--panels", str(total), "--latency-ms", str(latency_ms))
    with run_simulator(*options) as sim:
        settings = Settings(base_url=sim.base_url, _env_file=None)
        db = open_cache(folder / "sync.db")
        with SamClient(settings) as client:
            requests = [0]
            # Count what really goes on the wire, retries and every page included (bench only: the hook is
            # set on the client's httpx.Client).
            client._http.event_hooks["request"].append(lambda _: requests.__setitem__(0, requests[0] + 1))
            started = time.perf_counter()
            report = run_sync(db, client, SyncOptions(full=True, concurrency=concurrency))
            elapsed = time.perf_counter() - started
        db.close()
    ideal = requests[0] * latency_ms / 1000 / concurrency
    status = "ok" if report.ok else f"{len(report.errors)} errors"
    print(
        f"(b) full sync of {report.panels:,} panels at {latency_ms} ms latency, concurrency {concurrency}: "
        f"{requests[0]:,} requests in {elapsed:.1f} s ({status})"
    )
    print(
        f"    ideal (requests x latency / concurrency) {ideal:.1f} s;"
        f" ratio {elapsed / ideal:.2f}  (goal <= 1.50)"
    )


if __name__ == "__main__":
    sys.exit(main())
