"""Benchmark of the App Home under a flood (issue 26). Prints figures; not a test (the test is
tests/bot/events/test_home.py::test_a_flood_of_home_opens_keeps_to_slacks_tiers_and_half_a_core).

N signed `app_home_opened` events (default 2,000, 8 senders at once) to a running `samops bot` against the
Slack stand-in; then the bot's CPU (from /proc) while they come, over the next `--settle` seconds, and over
`--idle` seconds in which nothing changes (before issue 26: 72% of a core with 2,000 Homes open), and the
Slack calls made, with the most in any minute (Slack's tiers: views.publish 100+, users.conversations 50+).

    python bench/home_flood.py [--opens 2000] [--settle 10] [--idle 30]
"""

from __future__ import annotations

import argparse
import bisect
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.bot import run_bot  # noqa: E402
from tests.support.slack_standin import Call, SlackStandIn  # noqa: E402

CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n\n[roles.from_service]\n"Installer" = "technician"\n'


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def most_in_a_minute(calls: list[Call]) -> int:
    times = sorted(c.at for c in calls)
    return max((bisect.bisect_left(times, t + 60) - i for i, t in enumerate(times)), default=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--opens", type=int, default=2000)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, SlackStandIn() as slack:
        with run_bot(Path(tmp), slack, config=CONFIG, args=("--log-level", "INFO")) as bot:
            pid = bot.proc.pid
            cpu0, t0 = cpu_seconds(pid), time.monotonic()
            event = {"type": "app_home_opened", "channel": "D1", "tab": "home"}
            users = [f"U_FLOOD{i:05d}" for i in range(args.opens)]
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda u: bot.send_event({**event, "user": u}), users))
            sent = time.monotonic() - t0
            sending = (cpu_seconds(pid) - cpu0) / sent
            time.sleep(args.settle)
            settled = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
            cpu1, t1 = cpu_seconds(pid), time.monotonic()
            time.sleep(args.idle)
            idle = (cpu_seconds(pid) - cpu1) / (time.monotonic() - t1)
        print(f"{args.opens} opens sent in {sent:.1f} s")
        print(
            f"bot CPU: {sending:.0%} of a core while they came, {settled:.0%} with {args.settle:.0f} s after,"
            f" {idle:.0%} over {args.idle:.0f} s idle with {args.opens} Homes open"
        )
        for method in ("views.publish", "users.conversations", "users.info"):
            calls = slack.calls_to(method)
            print(f"{method}: {len(calls)} calls, at most {most_in_a_minute(calls)} in a minute")


if __name__ == "__main__":
    main()
