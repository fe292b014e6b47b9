"""Benchmark of the dashboard's Alarms page (issue 7 item 9). Prints figures as ratios against baselines
measured in the same run; not a test.

Builds two caches, a small one (the baseline, --baseline activities) and a big one (--activities, 1,000,000 by
default, inserted with one direct executemany), then for each:
(a) the Alarms page's queries through the read API, median of --repeat runs (goal <= 50 ms each);
(b) in headless Chromium, from opening /alarms to its table rendered (goal <= 2 s), median of --repeat warm
    loads after one cold load.

    python bench/dashboard.py [--activities 1000000] [--baseline 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from core import read  # noqa: E402
from core.cache.db import open_cache, open_reader  # noqa: E402
from core.cache.writes import ACTIVITY_FIELDS, write_transaction  # noqa: E402
from tests.support.browser import CHROMIUM, launch  # noqa: E402
from tests.support.processes import ROOT as REPO  # noqa: E402
from tests.support.seed_cache import ORGS, seed_cache  # noqa: E402
from tests.test_dashboard_browser import dashboard  # noqa: E402

DAY_MS = 86_400_000
PANELS = 24
KINDS = (
    [("event", "gray")] * 12
    + [("violation", "alarm")] * 3
    + [("violation", "warning")] * 3
    + [("error", "error")] * 2
)


def build(path: Path, n: int, now: int) -> None:
    """The seeded small tables, then `n` activities in one executemany (no per-row Python mapping)."""
    seed_cache(path, now, panels=PANELS, activities=0)
    rng = random.Random(1)
    # In time order, as a sync writes them: the activity_time indexes then grow at one end.
    times = sorted((now - rng.randrange(30 * DAY_MS) for _ in range(n)), reverse=True)
    rows = (
        (
            f"EV-{i:08d}",
            5001 + i % PANELS,
            ORGS[(i % PANELS) % 2][0],
            when,
            f"Sensor {i % 17} on panel {5001 + i % PANELS}",
            kind,
            "Intrusion" if vtype == "alarm" else "Arm",
            vtype,
            2,
            1,
            0,
        )
        for i, when in enumerate(times)
        for kind, vtype in [KINDS[i % len(KINDS)]]
    )
    db = open_cache(path)
    marks = ", ".join("?" for _ in ACTIVITY_FIELDS)
    with write_transaction(db):
        db.conn.executemany(f"INSERT INTO activities ({', '.join(ACTIVITY_FIELDS)}) VALUES ({marks})", rows)
    db.execute("ANALYZE")
    db.conn.close()


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def page_queries(path: Path, now: int, repeat: int) -> dict[str, float]:
    """The reads the Alarms page makes on open (default filters: last 7 days)."""
    db = open_reader(path)
    flt = read.AlarmFilter(since=now - 7 * DAY_MS)
    by_panel = read.AlarmFilter(since=now - 7 * DAY_MS, resource_id=5003, violation_type="alarm")
    found = {
        "freshness": median_ms(lambda: read.freshness(db), repeat),
        "organizations": median_ms(lambda: read.organizations(db), repeat),
        "find_panels": median_ms(lambda: read.find_panels(db, None, None, 10_000), repeat),
        "recent_alarms": median_ms(lambda: read.recent_alarms(db, flt, 500), repeat),
        "recent_alarms (panel, type)": median_ms(lambda: read.recent_alarms(db, by_panel, 500), repeat),
        "recent_alarms (text)": median_ms(
            lambda: read.recent_alarms(db, read.AlarmFilter(since=now - 7 * DAY_MS, text="sensor 3"), 500),
            repeat,
        ),
        "weekday_hour_counts": median_ms(lambda: read.weekday_hour_counts(db, flt), repeat),
    }
    db.conn.close()
    return found


def page_open_seconds(path: Path, repeat: int) -> tuple[float, float]:
    """(cold, median warm) seconds from goto(/alarms) to the table's first cell in the DOM."""
    times = []
    with dashboard(path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        for _ in range(repeat + 1):
            page = browser.new_page(viewport={"width": 1440, "height": 1100})
            started = time.perf_counter()
            page.goto(f"{base}/alarms")
            page.locator("[data-testid=stDataFrame] [role=gridcell]").first.wait_for(
                state="attached", timeout=120_000
            )
            times.append(time.perf_counter() - started)
            page.close()
        browser.close()
    return times[0], statistics.median(times[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--activities", type=int, default=1_000_000)
    parser.add_argument("--baseline", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is missing: install Debian's chromium package", file=sys.stderr)
        return 2
    now = int(time.time() * 1000)
    with tempfile.TemporaryDirectory(dir=REPO) as tmp:
        small, big = Path(tmp) / "small.db", Path(tmp) / "big.db"
        build(small, args.baseline, now)
        started = time.perf_counter()
        build(big, args.activities, now)
        print(f"seeded {args.activities:,} activities in {time.perf_counter() - started:.1f} s")

        base_q, big_q = page_queries(small, now, args.repeat), page_queries(big, now, args.repeat)
        print(
            f"\n(a) Alarms page queries, median of {args.repeat} (goal <= 50 ms each at {args.activities:,})"
        )
        print(f"  {'query':<28} {args.baseline:>10,} {args.activities:>12,}   ratio   goal")
        for name, ms in big_q.items():
            verdict = "ok" if ms <= 50 else "MISSED"
            ratio = ms / max(base_q[name], 0.01)
            print(f"  {name:<28} {base_q[name]:>8.2f}ms {ms:>10.2f}ms {ratio:>7.1f}x   {verdict}")

        base_cold, base_warm = page_open_seconds(small, args.repeat)
        big_cold, big_warm = page_open_seconds(big, args.repeat)
        print(
            f"\n(b) open /alarms to table rendered in headless Chromium (goal <= 2 s at {args.activities:,})"
        )
        print(f"  cold (first load): {base_cold:.2f} s vs {big_cold:.2f} s")
        print(
            f"  warm, median of {args.repeat}: {base_warm:.2f} s at {args.baseline:,} vs {big_warm:.2f} s at "
            f"{args.activities:,} = {big_warm / base_warm:.2f}x   {'ok' if big_warm <= 2 else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
