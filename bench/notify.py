"""Benchmark: from an alarm appearing in the simulator to its card reaching the Slack stand-in.

Runs a simulator, the Slack stand-in and `samops notify --source service` as a real process, injects alarms
one at a time at random phases of the poll interval, and times each until its card is posted. The baseline,
measured in the same run, is a naive poller (same interval, same client, post at once, no outbox, no cache).
Goal: p50 ≤ poll interval + 1 s.

    .venv/bin/python bench/notify.py [--interval 1.0] [--alarms 15]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from slack_sdk import WebClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.client import SamClient  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.support.processes import Simulator, run_simulator, samops_cmd, stop  # noqa: E402
from tests.support.slack_standin import SlackStandIn  # noqa: E402


def wait_for(predicate: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("timed out")
        time.sleep(0.01)


def posted(slack: SlackStandIn, event_id: str) -> bool:
    return any(event_id in str(c.params) for c in slack.calls_to("chat.postMessage"))


def measure(sim: Simulator, slack: SlackStandIn, panel: int, alarms: int, interval: float) -> list[float]:
    latencies = []
    for _ in range(alarms):
        time.sleep(random.uniform(0, interval))  # a random phase of the poll cycle
        started = time.monotonic()
        body = {"resourceId": panel, "count": 1, "violationType": "alarm"}
        [alarm] = httpx.post(f"{sim.root_url}/_sim/activities", json=body, timeout=10).json()
        event_id = alarm["eventId"]
        wait_for(lambda event_id=event_id: posted(slack, event_id), timeout=60)
        latencies.append(time.monotonic() - started)
    return latencies


def naive_poller(sim: Simulator, slack: SlackStandIn, interval: float, stop_: threading.Event) -> None:
    """The baseline: poll operation 3 and post each new alarm at once; nothing recorded."""
    client = SamClient(Settings(base_url=sim.base_url))
    web = WebClient(token="xoxb-bench", base_url=slack.api_url)
    login = client.login()
    by_org: dict[int | None, list[int]] = {}
    for p in login.panels:
        by_org.setdefault(p.org_id, []).append(int(p.resource_id or 0))
    seen: set[str] = set()
    since = int(time.time() * 1000)
    while not stop_.is_set():
        now = int(time.time() * 1000)
        for org, ids in by_org.items():
            for a in client.iter_activities(ids, start_time=since - 60_000, end_time=now + 60_000, org=org):
                if a.event_id and a.event_id not in seen and a.violation_type:
                    seen.add(a.event_id)
                    web.chat_postMessage(channel="C_BASE", text=f"alarm {a.event_id}")
        stop_.wait(interval)


def summary(name: str, values: list[float]) -> str:
    p50 = statistics.median(values)
    p95 = sorted(values)[max(0, int(len(values) * 0.95) - 1)]
    return f"{name:<10} p50 {p50:6.2f} s   p95 {p95:6.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--alarms", type=int, default=15)
    args = parser.parse_args()
    with (
        run_simulator("--alarm-rate", "0") as sim,
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
    ):
        activities = httpx.get(f"{sim.root_url}/_sim/activities", timeout=10).json()
        orgs = sorted({a["orgId"] for a in activities})[:2]
        panel = next(a["resourceId"] for a in activities if a["orgId"] in orgs)

        stop_ = threading.Event()
        baseline_thread = threading.Thread(
            target=naive_poller, args=(sim, slack, args.interval, stop_), daemon=True
        )
        baseline_thread.start()
        time.sleep(2 * args.interval)
        baseline = measure(sim, slack, panel, args.alarms, args.interval)
        stop_.set()
        baseline_thread.join(10)

        Path(tmp, "samops.toml").write_text('[notify]\ndefault_channel = "C_ALARMS"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SAM_", "SAMOPS_"))}
        env |= {"PYTHONPATH": str(ROOT), "SAM_BASE_URL": sim.base_url, "SLACK_API_URL": slack.api_url,
                "SAMOPS_DB": str(Path(tmp, "cache.db")), "SAMOPS_CONFIG": str(Path(tmp, "samops.toml")),
                "SLACK_BOT_TOKEN": "xoxb-bench"}  # fmt: skip
        cmd = samops_cmd("notify", "--source", "service", "--interval", str(args.interval))
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(
                lambda: any("watching" in str(c.params) for c in slack.calls_to("chat.postMessage")), 120
            )
            notifier = measure(sim, slack, panel, args.alarms, args.interval)
        finally:
            stop(proc)

    goal = args.interval + 1.0
    print(f"alarm → card in Slack, {args.alarms} alarms, poll interval {args.interval:g} s")
    print(summary("baseline", baseline))
    print(summary("notifier", notifier))
    print(f"notifier / baseline p50: {statistics.median(notifier) / statistics.median(baseline):.2f}x")
    print(f"notifier p50 / goal (interval + 1 s = {goal:g} s): {statistics.median(notifier) / goal:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
