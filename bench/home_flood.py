"""Benchmark of the App Home under a flood (issue 26). Prints figures; not a test (the test is
tests/bot/events/test_home.py::test_a_flood_of_home_opens_keeps_to_slacks_tiers_and_half_a_core).

Two setups:
- default: `samops bot` alone against the Slack stand-in; N signed `app_home_opened` (default 2,000, 8
  senders at once, as fast as they go);
- `--up`: the whole product as `make run` starts it (`samops up`: embedded simulator, sync, notifier, bot,
  dashboard) with the Slack stand-in in Slack's place and `[roles.from_service]` on, so each new person
  costs a `users.info` and an operation-13 lookup; N opens (default 1,000) sent at `--rate` a second
  (default 200), each from a new person with an e-mail.

Then: the bot's CPU (from /proc) while they come, over the next `--settle` seconds, and over `--idle`
seconds in which nothing changes (before issue 26: 72% of a core with 2,000 Homes open); the Slack calls
made, with the most in any minute against Slack's tiers; with `--up`, the service requests a second (all,
and operation 13's) against the budget of 1 a second per organization; and the load average.

    python bench/home_flood.py [--opens 2000] [--settle 10] [--idle 30]
    python bench/home_flood.py --up [--opens 1000] [--rate 200] [--settle 60] [--idle 30]
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.bot import SIGNING_SECRET, run_bot, slack_signature  # noqa: E402
from tests.support.processes import ctrl_c, free_port, samops_cmd, samops_free_env  # noqa: E402
from tests.support.slack_standin import TEAM_ID, Call, SlackStandIn  # noqa: E402

CONFIG = '[roles]\ntechnicians = ["U_TECH"]\n\n[roles.from_service]\n"Installer" = "technician"\n'
UP_CONFIG = CONFIG + '\n[notify]\ndefault_channel = "C_ALARMS"\n'  # `samops up` posts alarms to Slack
# Slack's documented floor of each method's tier, calls a minute (Tier 4 100+, Tier 3 50+).
TIERS = {"views.publish": 100, "users.conversations": 50, "users.info": 100}
SERVICE_BUDGET = 1.0  # requests a second per organization (the service's budget)
ORG_HEADER = "organizationid"  # the simulator logs header names in lower case


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def most_in_a_minute(calls: list[Call]) -> int:
    times = sorted(c.at for c in calls)
    return max((bisect.bisect_left(times, t + 60) - i for i, t in enumerate(times)), default=0)


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def event_body(user: str, n: int) -> bytes:
    event = {"type": "app_home_opened", "user": user, "channel": "D1", "tab": "home"}
    envelope = {"token": "t", "team_id": TEAM_ID, "api_app_id": "A_SAMOPS", "type": "event_callback",
                "event_id": f"EvFlood{n:08d}", "event_time": int(time.time()), "event": event}  # fmt: skip
    return json.dumps(envelope).encode()


def post_signed(http: httpx.Client, url: str, body: bytes) -> int:
    stamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": slack_signature(SIGNING_SECRET, stamp, body),
    }
    return http.post(url, content=body, headers=headers, timeout=30).status_code


def flood(url: str, users: list[str], rate: float | None) -> tuple[float, dict[int, int]]:
    """Send one open per user, at `rate` a second (None: as fast as 8 senders go); seconds taken, statuses."""
    http = httpx.Client()
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    start = time.monotonic()

    def send(n: int) -> None:
        if rate:
            delay = start + n / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        status = post_signed(http, url, event_body(users[n], n))
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    with ThreadPoolExecutor(32 if rate else 8) as pool:
        list(pool.map(send, range(len(users))))
    return time.monotonic() - start, statuses


def measure(pid: int, send: Callable[[], tuple[float, dict[int, int]]], settle: float, idle: float) -> dict:
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    sent, statuses = send()
    sending = (cpu_seconds(pid) - cpu0) / sent
    time.sleep(settle)
    settled = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
    cpu1, t1 = cpu_seconds(pid), time.monotonic()
    time.sleep(idle)
    idled = (cpu_seconds(pid) - cpu1) / (time.monotonic() - t1)
    return {"sent": sent, "statuses": statuses, "sending": sending, "settled": settled, "idle": idled}


def report(args: argparse.Namespace, m: dict, slack: SlackStandIn, elapsed: float) -> None:
    rate = f" at {args.rate:.0f}/s" if args.up else ""
    print(f"{args.opens} opens{rate} sent in {m['sent']:.1f} s, answers {m['statuses']}")
    print(
        f"bot CPU: {m['sending']:.0%} of a core while they came, {m['settled']:.0%} with {args.settle:.0f} s"
        f" after, {m['idle']:.0%} over {args.idle:.0f} s idle with {args.opens} Homes open"
        f" (goal < 50%: ratio {max(m['sending'], m['settled']) / 0.5:.2f})"
    )
    for method, tier in TIERS.items():
        calls = slack.calls_to(method)
        most = most_in_a_minute(calls)
        print(f"{method}: {len(calls)} calls over {elapsed:.0f} s, at most {most} in a minute"
              f" (Slack's tier {tier}+: ratio {most / tier:.2f})")  # fmt: skip


@contextlib.contextmanager
def samops_up(tmp: Path, slack: SlackStandIn) -> Iterator[tuple[subprocess.Popen[bytes], int, int]]:
    """`samops up` as `make run` starts it, the Slack stand-in in its place: (process, bot, sim ports)."""
    sim_port, bot_port, dash_port = free_port(), free_port(), free_port()
    (tmp / "samops.toml").write_text(UP_CONFIG)
    env = samops_free_env()
    env.update(
        SAMOPS_DATA_DIR=str(tmp / "data"),
        SAMOPS_CONFIG=str(tmp / "samops.toml"),
        SLACK_BOT_TOKEN="xoxb-bench",
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_API_URL=slack.api_url,
    )
    cmd = samops_cmd(
        "up", *("--sim-port", str(sim_port), "--bot-port", str(bot_port), "--dashboard-port", str(dash_port))
    )
    with (tmp / "up.log").open("wb") as log:
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 240
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"http://127.0.0.1:{bot_port}/healthz", timeout=2).is_success:
                        break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"samops up did not start; see {tmp / 'up.log'}")
                time.sleep(1)
            yield proc, bot_port, sim_port
        finally:
            ctrl_c(proc)
            keep = Path(tempfile.gettempdir()) / "home_flood_up.log"  # read after the temporary folder goes
            keep.write_bytes((tmp / "up.log").read_bytes())
            print(f"samops up's console: {keep}")


def bot_pid(up: int) -> int:
    """The bot under `samops up` (pid `up`): its child process running `samops bot`."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            argv = (stat.parent / "cmdline").read_bytes().split(b"\0")
            if parent == up and b"bot" in argv:
                return int(stat.parent.name)
    raise SystemExit("no `samops bot` under samops up")


class ServiceRequests:
    """The simulator's request log (its last 1,000), read every second so that none is missed."""

    def __init__(self, sim_port: int) -> None:
        self.url = f"http://127.0.0.1:{sim_port}/_sim/requests"
        self.seen: dict[str, dict] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.stop.wait(1.0):
            with contextlib.suppress(httpx.HTTPError):
                for entry in httpx.get(self.url, timeout=5).json():
                    self.seen[json.dumps(entry, sort_keys=True)] = entry

    def between(self, start_ms: float, end_ms: float) -> list[dict]:
        return [e for e in self.seen.values() if start_ms <= e["at"] <= end_ms]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--up", action="store_true", help="against `samops up` as `make run` starts it")
    parser.add_argument("--opens", type=int)
    parser.add_argument("--rate", type=float, default=200.0, help="opens a second (with --up)")
    parser.add_argument("--settle", type=float)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args()
    args.opens = args.opens or (1000 if args.up else 2000)
    args.settle = args.settle if args.settle is not None else (60.0 if args.up else 10.0)
    print(f"load average before: {load()}")
    users = [f"U_FLOOD{i:05d}" for i in range(args.opens)]
    if not args.up:
        with tempfile.TemporaryDirectory() as tmp, SlackStandIn() as slack:
            with run_bot(Path(tmp), slack, config=CONFIG, args=("--log-level", "INFO")) as bot:
                started = time.monotonic()
                m = measure(bot.proc.pid, lambda: flood(bot.url, users, None), args.settle, args.idle)
            report(args, m, slack, time.monotonic() - started)
        print(f"load average after: {load()}")
        return
    emails = {u: f"{u.lower()}@flood.example" for u in users}
    with (
        tempfile.TemporaryDirectory() as tmp,
        SlackStandIn(users=emails) as slack,
        samops_up(Path(tmp), slack) as (up, bot_port, sim_port),
    ):
        requests = ServiceRequests(sim_port)
        time.sleep(5)  # the log's first read
        pid = bot_pid(up.pid)
        print(f"bot pid {pid}: {(Path('/proc') / str(pid) / 'cmdline').read_bytes()!r:.80}")
        url = f"http://127.0.0.1:{bot_port}/slack/events"
        quiet_from = time.time() * 1000
        time.sleep(20)  # what the product asks of the service with no one at it, for comparison
        started, start_ms = time.monotonic(), time.time() * 1000
        m = measure(pid, lambda: flood(url, users, args.rate), args.settle, args.idle)
        end_ms = time.time() * 1000
        requests.stop.set()
        report(args, m, slack, time.monotonic() - started)
        seconds = (end_ms - start_ms) / 1000
        quiet = requests.between(quiet_from, start_ms)
        during = requests.between(start_ms, end_ms)
        lookups = [e for e in during if e["path"].startswith("/api/user/email/")]  # operation 13
        orgs = max(1, len({json.dumps(e.get("headers", {}).get(ORG_HEADER)) for e in during}))
        print(
            f"service: {len(during) / seconds:.2f} requests/s during and after the flood ({len(during)} in"
            f" {seconds:.0f} s; {len(quiet) / 20:.2f}/s before it, no one at it), {orgs} organization(s):"
            f" ratio {len(during) / seconds / orgs / SERVICE_BUDGET:.2f} of 1/s each;"
            f" role lookups {len(lookups)}"
        )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
