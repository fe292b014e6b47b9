"""Benchmark of the dashboard's Alarms page (issue 7 item 9). Prints figures as ratios against baselines
measured in the same run; not a test.

Builds two caches, a small one (the baseline, --baseline activities) and a big one (--activities, 1,000,000 by
default, inserted with one direct executemany), then for each:
(a) the Alarms page's queries through the read API, median of --repeat runs (goal <= 50 ms each);
(b) in headless Chromium, from opening /alarms to its table rendered, each as a ratio against a bare
    Streamlit page (one small table, nothing of ours) served alike in the same run, tab by tab (goals,
    issue 25: cold <= 1.0x the bare page, warm <= 1.1x; the seconds are shown beside them):
    - cold: the server's first tab, in a fresh browser profile;
    - warm, fresh browser: the median of --repeat later tabs, each in a fresh profile (nothing cached: the
      browser fetches and compiles Streamlit's 4.5 MB of JavaScript every time), as this bench always did;
    - warm, returning browser: the median of --repeat later tabs in one profile that has opened the page
      before (its HTTP cache holds Streamlit's static files), as a supervisor's own browser would;
    with the load average at the start and end of each block, and where the warm /alarms tab spends its time:
    to the server's first websocket message, to the message carrying the table, to the table drawn, and
    how many websocket messages (and KB) arrived until then.

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

from playwright.sync_api import Browser, BrowserContext, ViewportSize, WebSocket, sync_playwright  # noqa: E402

from core import read  # noqa: E402
from core.cache.db import open_cache, open_reader  # noqa: E402
from core.cache.schema import rebuild_activity_hours  # noqa: E402
from core.cache.writes import ACTIVITY_FIELDS, write_transaction  # noqa: E402
from dashboard.serve import no_runtime_warnings  # noqa: E402

with no_runtime_warnings():  # the pages' modules, outside any Streamlit server
    from dashboard import alarm_table
    from dashboard.cli import streamlit_command
    from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.browser import CHROMIUM, launch  # noqa: E402
from tests.support.processes import ROOT as REPO  # noqa: E402
from tests.support.processes import free_port, streamlit_serving  # noqa: E402
from tests.support.seed_cache import ORGS, seed_cache  # noqa: E402

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
        # The hourly rollup a sync keeps (writes.upsert_activities): without it the page's heat map is empty.
        rebuild_activity_hours(db)
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


VIEWPORT: ViewportSize = {"width": 1440, "height": 1100}
GOALS = {"cold": 1.0, "warm": 1.1}  # the Alarms page's time over the bare page's, same run (issue 25)
# The message carrying a table: an st.dataframe's Arrow bytes carry pandas' schema metadata (the bare page);
# the Alarms page's HTML table carries its label (dashboard/alarm_table.py).
TABLE_MARKS = (b'"index_columns"', f'aria-label="{alarm_table.LABEL}"'.encode())
# A table rendered: a grid's first cell (the bare page, or /alarms?grid=1), or the HTML table's first cell.
TABLE_DRAWN = f'[data-testid=stDataFrame] [role=gridcell], table[aria-label="{alarm_table.LABEL}"] td'


@dataclass(frozen=True)
class Tab:
    """Seconds from goto(url) in a new tab."""

    first_message: float  # the server's first websocket message (the session is up, the script starts)
    table_sent: float  # the message carrying the table's rows has arrived
    drawn: float  # the table's first cell is in the DOM
    messages: float = 0  # websocket messages received until then
    kilobytes: float = 0  # and their size


def open_once(context: BrowserContext, url: str) -> Tab:
    page = context.new_page()
    started = time.perf_counter()
    seen: dict[str, float] = {}
    received = [0, 0]  # messages, bytes

    def frame(payload: bytes | str) -> None:
        now = time.perf_counter() - started
        seen.setdefault("first", now)
        received[0] += 1
        received[1] += len(payload)
        if isinstance(payload, bytes) and any(mark in payload for mark in TABLE_MARKS):
            seen.setdefault("table", now)

    def socket(ws: WebSocket) -> None:
        ws.on("framereceived", frame)

    page.on("websocket", socket)
    page.goto(url)
    page.locator(TABLE_DRAWN).first.wait_for(state="attached", timeout=120_000)
    drawn = time.perf_counter() - started
    messages, size = received  # read now: the messages after the table is drawn are not counted
    page.close()
    return Tab(seen.get("first", drawn), seen.get("table", drawn), drawn, messages, size / 1000)


def fresh_tab(browser: Browser, url: str) -> Tab:
    """A tab in a fresh browser profile: nothing cached."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        return open_once(context, url)
    finally:
        context.close()


def median_tab(tabs: list[Tab]) -> Tab:
    return Tab(*(statistics.median(getattr(t, name) for t in tabs) for name in Tab.__dataclass_fields__))


@dataclass(frozen=True)
class Row:
    name: str
    goal: str  # "cold" or "warm"
    bare: Tab
    page: Tab
    ratio: float  # of the drawn times; for warm rows the median of the rounds' ratios


def alternate(open_tab: Callable[[str], Tab], bare: str, alarms: str, repeat: int) -> tuple[Tab, Tab, float]:
    """Tabs alternating bare, Alarms, bare, ... so that both see the same moments of a shared, noisy machine,
    and the ratio is taken round by round."""
    rounds = [(open_tab(bare), open_tab(alarms)) for _ in range(repeat)]
    ratio = statistics.median(p.drawn / b.drawn for b, p in rounds)
    return median_tab([b for b, _ in rounds]), median_tab([p for _, p in rounds]), ratio


def open_tabs(bare: str, alarms: str, repeat: int) -> list[Row]:
    """Both servers up: each one's cold tab, then the warm tabs, fresh profiles first, then returning."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        bare_cold, cold = fresh_tab(browser, bare), fresh_tab(browser, alarms)
        fresh = alternate(lambda url: fresh_tab(browser, url), bare, alarms, repeat)
        returning = browser.new_context(viewport=VIEWPORT)
        for url in (bare, alarms):  # the first visits, which fill its cache
            open_once(returning, url)
        again = alternate(lambda url: open_once(returning, url), bare, alarms, repeat)
        browser.close()
    return [
        Row("cold (server's first)", "cold", bare_cold, cold, cold.drawn / bare_cold.drawn),
        Row(f"warm, fresh browser, median of {repeat}", "warm", *fresh),
        Row(f"warm, returning browser, median of {repeat}", "warm", *again),
    ]


def measure_tabs(folder: Path, db: Path, repeat: int) -> list[Row]:
    with bare_streamlit(folder) as bare, dashboard(db) as base:
        return open_tabs(bare, f"{base}/alarms", repeat)


def report_tabs(size: int, rows: list[Row], load_start: float, load_end: float) -> None:
    print(
        f"\n(b) /alarms over {size:,} activities, to its table in headless Chromium, against a bare Streamlit"
        f" page; load average {load_start:.1f} at the start, {load_end:.1f} at the end"
    )
    print(f"  {'tab':<40} {'bare page':>10} {'/alarms':>10}   ratio   goal (same run)")
    for row in rows:
        goal = GOALS[row.goal]
        verdict = "met" if row.ratio <= goal else "MISSED"
        print(
            f"  {row.name:<40} {row.bare.drawn:>8.2f} s {row.page.drawn:>8.2f} s {row.ratio:>6.2f}x"
            f"   <= {goal}x the bare page {verdict}"
        )
    print(
        "  where the time goes (s from opening the tab): first websocket message / table sent / table drawn"
        " (websocket messages, KB until drawn)"
    )
    for row in rows:
        bare, page = row.bare, row.page
        print(
            f"  {row.name:<40} bare {bare.first_message:.2f} / {bare.table_sent:.2f} / {bare.drawn:.2f}"
            f" ({bare.messages:.0f}, {bare.kilobytes:.0f} KB)   /alarms {page.first_message:.2f} /"
            f" {page.table_sent:.2f} / {page.drawn:.2f} ({page.messages:.0f}, {page.kilobytes:.0f} KB)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
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
            load_start = os.getloadavg()[0]
            rows = measure_tabs(Path(tmp), db, args.repeat)
            report_tabs(size, rows, load_start, os.getloadavg()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
