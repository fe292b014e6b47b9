"""Benchmark: alarms in seconds at fleet size (issue 14), tried as a new user would.

For each fleet size it runs a spec-exact simulator (`--latency-ms 50`, no live activity of its own) and the
Slack stand-in, then `samops up` as a real process in a fresh folder whose `.env` sets only what a user
must: where the service is (`SAM_BASE_URL`; the simulator's demo account is samops' default), the bot's
Slack token and where Slack is (the stand-in), and, on this shared machine, free ports for the bot and the
dashboard; `samops.toml` names the alarm channel. Every other setting is samops' default (the alarm poller
every `SAMOPS_POLL_INTERVAL` = 5 s, group-testing attribution, tiered refresh, response limits). Then:

- it waits for the first start (up's first sync done and the notifier watching), and a minute more;
- counts the requests the service answers over two idle minutes (`/_sim/stats`), per operation;
- injects alarms one at a time on random panels at random phases of the poll interval, and times each
  from its injection to its card in the Slack stand-in; checks the cache put it on its own panel;
- counts the requests per alarm.

The baseline of the same run is the ideal: half a poll interval plus one service round trip (one request
of operation 3 over an organization's panels, timed here). Then, once, the notifier's per-poll cache work
(discovery from the watermark, and the poller's eventId look-up) over 10 thousand and 1 million cached alarms.

With `--load N` it starts N busy processes (`while True: pass`) for the whole run, as a busy server beside
samops would be, and prints the load average sampled over each size's alarms; they are killed at the end
whatever happens (and die with this process: PR_SET_PDEATHSIG).

    .venv/bin/python bench/scale.py [--sizes 1000 10000] [--alarms 30] [--cached 10000 1000000] [--load 4]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
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
from tests.support.processes import Simulator, free_port, run_simulator, samops_cmd, stop  # noqa: E402
from tests.support.seed_cache import insert_posted_alarms  # noqa: E402
from tests.support.slack_standin import SlackStandIn  # noqa: E402

INTERVAL = Settings(_env_file=None).poll_interval  # samops' default
HOUR = 3_600_000
IDLE_S = 120  # long enough for several ticks of `sync --every` (30 s) and its paced refreshes
P50_GOAL_S, P99_GOAL_S = 5.0, 10.0
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In a hog, before exec: the kernel kills it when this bench dies, even by SIGKILL."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def cpu_hogs(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` busy processes for the block; killed on the way out, whatever happens."""
    hogs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            cmd = [sys.executable, "-c", "while True: pass"]
            hogs.append(subprocess.Popen(cmd, preexec_fn=_die_with_parent))
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


class LoadSampler:
    """The 1-minute load average every few seconds, on a daemon thread; `window()` marks a span to report."""

    def __init__(self, every: float = 5.0) -> None:
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            self.samples.append((time.monotonic(), os.getloadavg()[0]))
            if self._stop.wait(self._every):
                return

    def between(self, start: float, end: float) -> tuple[float, float]:
        """(min, max) of the samples taken in [start, end] (the current load when there were none)."""
        loads = [load for at, load in self.samples if start <= at <= end] or [os.getloadavg()[0]]
        return min(loads), max(loads)


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def stats(sim: Simulator) -> dict[str, Any]:
    return httpx.get(f"{sim.root_url}/_sim/stats", timeout=30).json()


def requests_served(sim: Simulator) -> int:
    return int(stats(sim)["total"])


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
    with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
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


def new_user_folder(folder: Path, sim: Simulator, slack: SlackStandIn) -> None:
    """What a new user writes: `.env` (from .env.example, the service and Slack filled in) and the alarm
    channel in `samops.toml`."""
    (folder / ".env").write_text(
        f"SAM_BASE_URL={sim.base_url}\n"
        "SLACK_BOT_TOKEN=xoxb-bench\n"
        f"SLACK_API_URL={slack.api_url}\n"
        # This machine is shared: the default ports 3000 and 8501 may be taken by someone else's run.
        f"SAMOPS_BOT_PORT={free_port()}\n"
        f"SAMOPS_DASHBOARD_PORT={free_port()}\n"
    )
    (folder / "samops.toml").write_text('[notify]\ndefault_channel = "C_ALARMS"\n')


def one_size(size: int, alarms: int, loads: LoadSampler) -> dict[str, Any]:
    options = ("--panels", str(size), "--latency-ms", "50", "--alarm-rate", "0")
    with (
        run_simulator(*options, seed=14) as sim,
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
        Path(tmp, "up.log").open("w+") as log,
    ):
        folder = Path(tmp)
        with SamClient(Settings(_env_file=None, base_url=sim.base_url)) as client:
            login = client.login()
            panels = [int(p.resource_id or 0) for p in login.panels]
            orgs = len({p.org_id for p in login.panels})
        new_user_folder(folder, sim, slack)
        # Nothing of this shell's samops configuration: only the folder's .env and samops.toml count.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAM_", "SAMOPS_"))}
        env["PYTHONPATH"] = str(ROOT)
        proc = subprocess.Popen(samops_cmd("up"), cwd=folder, env=env, stdout=log, stderr=log)
        started = time.monotonic()
        try:

            def up_log() -> str:
                return Path(tmp, "up.log").read_text(errors="replace")

            def started_up() -> bool:
                if proc.poll() is not None:
                    raise RuntimeError(f"samops up exited with {proc.returncode}:\n{up_log()[-3000:]}")
                watching = any("watching" in str(c.params) for c in slack.calls_to("chat.postMessage"))
                return watching and "stop:      Ctrl-C" in up_log()

            wait_for(started_up, 1800, "samops up's first start")
            first_start = time.monotonic() - started
            # The first `sync --every` tick (a fresh process: its own login) and the poller's catching up.
            time.sleep(60)
            before = stats(sim)
            time.sleep(IDLE_S)
            after = stats(sim)
            idle = (after["total"] - before["total"]) * 60 / IDLE_S
            idle_ops = {
                op: (n - before["operations"].get(op, 0)) * 60 / IDLE_S
                for op, n in after["operations"].items()
                if n - before["operations"].get(op, 0)
            }

            latencies, costs, wrong = [], [], 0
            measured_from = time.monotonic()
            for _ in range(alarms):
                time.sleep(random.uniform(0, INTERVAL))  # a random phase of the poll cycle
                rid = random.choice(panels)
                before_n = requests_served(sim)
                t0 = time.monotonic()
                body = {"resourceId": rid, "count": 1, "violationType": "alarm"}
                [alarm] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=30).json()
                event = alarm["eventId"]
                wait_for(lambda event=event: card_posted(slack, event), 120, f"the card of {event}")
                latencies.append(time.monotonic() - t0)
                time.sleep(INTERVAL * 0.6)  # let the poll that found it finish before counting
                spent = INTERVAL * 0.6 + latencies[-1]  # the idle share of what was counted
                costs.append(requests_served(sim) - before_n - idle * spent / 60)
                wrong += panel_of(folder / ".samops" / "cache.db", event) != rid
            load = loads.between(measured_from, time.monotonic())
        finally:
            stop(proc, timeout=15)
        rtt = round_trip(sim)
    return {
        "size": size,
        "orgs": orgs,
        "first_start": first_start,
        "idle_per_minute": idle,
        "idle_ops": idle_ops,
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "per_alarm": statistics.mean(costs),
        "wrong": wrong,
        "baseline": INTERVAL / 2 + rtt,
        "rtt": rtt,
        "load": load,
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--alarms", type=int, default=30)
    parser.add_argument("--cached", type=int, nargs="*", default=[10_000, 1_000_000])
    parser.add_argument("--load", type=int, default=0, help="busy processes beside the run (CPU hogs)")
    args = parser.parse_args()
    # A SIGTERM (or a Ctrl-C) unwinds through the `finally`s: the hogs, samops and the simulator are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    with cpu_hogs(args.load), LoadSampler() as loads:
        if args.load:
            print(f"{args.load} busy processes started beside the run", flush=True)
        measure(args, loads)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


def measure(args: argparse.Namespace, loads: LoadSampler) -> None:
    for size in args.sizes:
        r = one_size(size, args.alarms, loads)
        per_org = r["idle_per_minute"] / 60 / r["orgs"]
        verdict = {True: "met", False: "missed"}
        low, high = r["load"]
        print(
            f"{r['size']:>6} panels ({r['orgs']} orgs), `samops up` with default settings: "
            f"first start {r['first_start']:.0f} s\n"
            f"  alarm → card p50 {r['p50']:.2f} s, p99 {r['p99']:.2f} s; baseline {r['baseline']:.2f} s "
            f"(= {INTERVAL / 2:g} s + round trip {r['rtt'] * 1000:.0f} ms): ratio p50 "
            f"{r['p50'] / r['baseline']:.2f}, p99 {r['p99'] / r['baseline']:.2f}\n"
            f"  goal p99 ≤ {P99_GOAL_S:g} s: {verdict[r['p99'] <= P99_GOAL_S]} "
            f"(p50 ≤ {P50_GOAL_S:g} s: {verdict[r['p50'] <= P50_GOAL_S]}; "
            f"{args.alarms} alarms, load average {low:.1f}–{high:.1f} while they were timed, "
            f"{args.load} busy processes beside)\n"
            f"  {r['wrong']} on a wrong panel; ~{r['per_alarm']:.1f} requests per alarm\n"
            f"  idle {r['idle_per_minute']:.0f} requests/min = {per_org:.2f}/s per organization "
            f"(goal 1; ratio {per_org:.2f}): "
            + ", ".join(f"{op} {n:.1f}/min" for op, n in sorted(r["idle_ops"].items())),
            flush=True,
        )
    for count in args.cached:
        ms = poll_cache_time(count) * 1000
        print(f"notifier poll, cache work over {count:,} cached alarms: {ms:.2f} ms", flush=True)


if __name__ == "__main__":
    sys.exit(main())
