"""Benchmark of the dashboard's Alarms page (issue 7 item 9). Prints figures as ratios against baselines
measured in the same run; not a test.

Builds two caches, a small one (the baseline, --baseline activities) and a big one (--activities, 1,000,000 by
default, inserted with one direct executemany), then for each:
(a) the Alarms page's queries through the read API, median of --repeat runs (goal <= 50 ms each);
(b) in headless Chromium, from opening /alarms to its table rendered, a cold tab (the server's first) and
    the median of --repeat warm tabs after it (goals: cold <= 2.5 s, warm <= 1.2 s, issue 16), each also as
    a ratio against a bare Streamlit page (one small table, nothing of ours) served alike in the same run.

    python bench/dashboard.py [--activities 1000000] [--baseline 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from core import read  # noqa: E402
from core.cache.db import open_cache, open_reader  # noqa: E402
from core.cache.writes import ACTIVITY_FIELDS, write_transaction  # noqa: E402
from dashboard.cli import streamlit_command  # noqa: E402
from tests.support.browser import CHROMIUM, launch  # noqa: E402
from tests.support.processes import ROOT as REPO  # noqa: E402
from tests.support.processes import free_port, streamlit_serving  # noqa: E402
from tests.support.seed_cache import ORGS, seed_cache  # noqa: E402
from tests.test_dashboard_browser import dashboard  # noqa: E402

DAY_MS = 86_400_000
# The floor: what Streamlit itself needs to show a table in a fresh tab, served with the dashboard's options.
BARE_PAGE = """
import streamlit as st

st.title("Bare")
st.dataframe({"a": [1, 2, 3], "b": ["x", "y", "z"]})
"""
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


@contextlib.contextmanager
def bare_streamlit(folder: Path) -> Iterator[str]:
    """A bare Streamlit page on a free loopback port, started like the dashboard; yields its page URL."""
    app = folder / "bare.py"
    app.write_text(BARE_PAGE)
    port = free_port()
    command = streamlit_command("127.0.0.1", port, app)
    if "dashboard.serve" in command:  # plain `streamlit run`: nothing of ours preloaded
        command[command.index("dashboard.serve")] = "streamlit"
    with streamlit_serving(command, port, folder) as base:
        yield f"{base}/"


def open_once(browser: Browser, url: str) -> float:
    """Seconds from goto(url) in a new tab to a table's first cell in the DOM."""
    page = browser.new_page(viewport={"width": 1440, "height": 1100})
    started = time.perf_counter()
    page.goto(url)
    page.locator("[data-testid=stDataFrame] [role=gridcell]").first.wait_for(
        state="attached", timeout=120_000
    )
    elapsed = time.perf_counter() - started
    page.close()
    return elapsed


@dataclass(frozen=True)
class Tabs:
    bare_cold: float  # seconds, each server's first tab
    cold: float
    bare_warm: float  # medians of the warm rounds
    warm: float
    warm_ratio: float  # median of the rounds' ratios


def open_tabs(bare: str, alarms: str, repeat: int) -> Tabs:
    """Both servers up: each one's cold tab, then warm tabs alternating bare, Alarms, bare, ... so that both
    see the same moments of a shared, noisy machine, and the ratio is taken round by round."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        bare_cold, cold = open_once(browser, bare), open_once(browser, alarms)
        rounds = [(open_once(browser, bare), open_once(browser, alarms)) for _ in range(repeat)]
        browser.close()
    return Tabs(
        bare_cold=bare_cold,
        cold=cold,
        bare_warm=statistics.median(b for b, _ in rounds),
        warm=statistics.median(p for _, p in rounds),
        warm_ratio=statistics.median(p / b for b, p in rounds),
    )


def measure_tabs(folder: Path, db: Path, repeat: int) -> Tabs:
    with bare_streamlit(folder) as bare, dashboard(db) as base:
        return open_tabs(bare, f"{base}/alarms", repeat)


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

        for size, db in ((args.baseline, small), (args.activities, big)):
            tabs = measure_tabs(Path(tmp), db, args.repeat)
            print(
                f"\n(b) /alarms over {size:,} activities, to its table in headless Chromium, against a bare"
                f" Streamlit page; load average {os.getloadavg()[0]:.1f}"
            )
            print(f"  {'tab':<24} {'bare page':>10} {'/alarms':>10}   ratio   goal")
            for name, bare, page, ratio, goal in (
                ("cold (server's first)", tabs.bare_cold, tabs.cold, tabs.cold / tabs.bare_cold, 2.5),
                (f"warm, median of {args.repeat}", tabs.bare_warm, tabs.warm, tabs.warm_ratio, 1.2),
            ):
                verdict = "ok" if page <= goal else "MISSED"
                print(f"  {name:<24} {bare:>8.2f} s {page:>8.2f} s {ratio:>6.2f}x   <= {goal} s {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
