"""`samops up`: run the whole product as supervised child processes.

With no `SAM_BASE_URL` (environment or `.env`) it starts the embedded simulator first. Then it starts the
notifier (the alarm poller: alarms flow from here on), runs one sync of the slow tables in the foreground
(its progress bar on the terminal), and keeps `sync --every`, `notify`, `bot` and `dashboard` running,
restarting a child that crashes with backoff, and a notifier that hangs: one whose liveness promise
(core/liveness.py: the next cycle ends within 5 poll intervals, at least 60 s, or `SAMOPS_HANG_AFTER`) has
passed, stopped or not (a SIGSTOP, a deadlock), is stopped (SIGTERM, then SIGKILL) and started again, with
one console line. Ctrl-C (or SIGTERM) stops everything within a few seconds:
each child runs in its own process group, so grandchildren (Streamlit under `samops dashboard`) go with it.

It composes `samops` subcommands as processes and imports none of their packages, only the one
configuration (`core.settings`), which it resolves once and hands to every child, and the data folder's lock
(`core.run_lock`): a second `samops up` on the same data folder is refused, whatever its ports (exit 3).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO

from core import liveness
from core.clock import now_ms
from core.run_lock import ALREADY_RUNNING, RunLock, hold, holder_of, refusal
from core.settings import (
    DEMO_PASSWORD,
    DEMO_SCREEN_NAME,
    SLASH_USER,
    Settings,
    dashboard_address,
    reachable_host,
    settings_or_report,
)

STOP_GRACE_S = 3.0  # SIGTERM, then SIGKILL: the whole stop stays within 5 s
BACKOFF_MAX_S = 30.0
STABLE_AFTER_S = 60.0  # a child that ran this long has its backoff reset
# A watched child that has made no liveness promise this long after its start is hung before its first
# cycle (its start opens the cache and reads the config: seconds).
FIRST_PROMISE_S = 180.0


def samops(*args: str) -> list[str]:
    return [sys.executable, "-m", "samops", *args]


def log(message: str) -> None:
    print(f"[up] {message}", flush=True)


@dataclass
class Child:
    name: str
    argv: list[str]
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    failures: int = 0
    restart_at: float | None = None
    pumps: list[threading.Thread] = field(default_factory=list)
    alive: Path | None = None  # its liveness promise (core/liveness.py); None: only its exit is watched
    started_ms: int = 0

    def start(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            self.argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.started_at = time.monotonic()
        self.started_ms = now_ms()
        self.restart_at = None
        pump = threading.Thread(target=_prefix_lines, args=(self.name, self.proc.stdout), daemon=True)
        pump.start()
        self.pumps = [pump]

    def signal_group(self, sig: signal.Signals) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)


def _prefix_lines(name: str, stream: IO[bytes]) -> None:
    for raw in iter(stream.readline, b""):
        sys.stdout.write(f"[{name}] {raw.decode(errors='replace')}")
        sys.stdout.flush()


LOOPBACK = "127.0.0.1"


def port_is_free(host: str, port: int) -> bool:
    """Is `port` free for a server? Probed as the servers bind it: with SO_REUSEADDR (uvicorn, Streamlit's
    tornado and the bot's server all set it), so a connection of the last run still in TIME-WAIT does not
    count; only a socket that really listens there does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return False
            raise
        return True


def free_port(host: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def simulator_port(wanted: int) -> int:
    """`wanted` unless something listens there; then any free port, and say so."""
    if port_is_free(LOOPBACK, wanted):
        return wanted
    port = free_port()
    log(f"port {wanted} is in use by {who_holds(wanted)}; the simulator uses port {port} instead")
    return port


def who_holds(port: int) -> str:
    """ "samops itself (`samops up`, pid 4242 in /home/me/samops)" when it is, else "another program"."""
    from samops.port_owner import samops_holding  # here: /proc is read only when a port is taken

    owner = samops_holding(port)
    return f"samops itself ({owner.describe()})" if owner is not None else "another program"


def busy(port: int, how: str) -> str:
    """Why up cannot take `port`, and what to do: a second samops is told apart from another program."""
    holder = who_holds(port)
    if holder == "another program":
        return f"port {port} is in use by {holder}; stop it, or choose another port with {how}"
    return (
        f"port {port} is in use by {holder}: samops already runs; use that one, or stop it (Ctrl-C in its "
        f"terminal) before starting another, or choose another port with {how}"
    )


def wait_http(url: str, child: Child, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.proc is None or child.proc.poll() is not None:
            return False
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1):
            return True
        time.sleep(0.1)
    return False


USAGE_ERROR = 2  # every samops program's exit code for a bad argument, setting or configuration file


def config_problem(settings: Settings) -> str | None:
    """What is wrong with the TOML configuration (`SAMOPS_CONFIG`), checked as the bot and the notifier
    will read it, before anything starts; None when nothing is."""
    from core.config import ConfigError, load_config  # here: the other subcommands need no bot imports

    try:
        load_config(settings.config_path, settings.is_set("config_path"))
    except ConfigError as err:
        return str(err)
    return None


class Supervisor:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.children: list[Child] = []
        self.stopping = threading.Event()

    def add(self, name: str, argv: list[str]) -> Child:
        child = Child(name, argv)
        self.children.append(child)
        child.start(self.env)
        return child

    def watch(self) -> int:
        """Restart crashed children with exponential backoff until asked to stop (0), or until one refuses
        its configuration (USAGE_ERROR: restarting it would only refuse again, while looking alive)."""
        while not self.stopping.wait(0.2):
            now = time.monotonic()
            for child in self.children:
                assert child.proc is not None
                code = child.proc.poll()
                if code is None:
                    if now - child.started_at > STABLE_AFTER_S:
                        child.failures = 0
                    if (late := self._hung_for(child, now)) is not None:
                        log(f"{child.name} hangs (its cycle is {late:.0f} s overdue); restarting it")
                        self._kill(child)
                        child.start(self.env)
                    continue
                if code == USAGE_ERROR:
                    log(f"{child.name} refused its configuration (exit code {code}, reason above); stopping")
                    return USAGE_ERROR
                if code == ALREADY_RUNNING:
                    log(f"{child.name} found another samops on this data folder (reason above); stopping")
                    return ALREADY_RUNNING
                if child.restart_at is None:
                    delay = min(2.0**child.failures, BACKOFF_MAX_S)
                    child.failures += 1
                    child.restart_at = now + delay
                    log(f"{child.name} exited with code {code}; restarting in {delay:.0f} s")
                elif now >= child.restart_at:
                    log(f"restarting {child.name}")
                    child.start(self.env)
        return 0

    @staticmethod
    def _hung_for(child: Child, now: float) -> float | None:
        """Seconds the child's liveness promise has passed (its first one not made in FIRST_PROMISE_S
        counts too); None when it keeps it, or is not watched."""
        if child.alive is None:
            return None
        late = liveness.overdue_s(child.alive, child.started_ms)
        if late is None:
            late = now - child.started_at - FIRST_PROMISE_S
        return late if late > 0 else None

    def _kill(self, child: Child) -> None:
        """SIGTERM (with SIGCONT, so that a stopped process can act on it), then SIGKILL after the grace."""
        assert child.proc is not None
        child.signal_group(signal.SIGTERM)
        child.signal_group(signal.SIGCONT)
        try:
            child.proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            child.signal_group(signal.SIGKILL)
            child.proc.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.proc.pid, signal.SIGKILL)  # what is left of its group

    def stop(self) -> None:
        self.stopping.set()
        for child in self.children:
            child.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for child in self.children:
            if child.proc is None:
                continue
            try:
                child.proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log(f"{child.name} did not stop in time; killing it")
                child.signal_group(signal.SIGKILL)
                child.proc.wait()
        for child in self.children:
            # A process group can outlive its leader: make sure nothing of it is left.
            if child.proc is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(child.proc.pid, signal.SIGKILL)
        if self.children:  # the last line: after Ctrl-C, nothing of samops is left running
            log(f"stopped: {', '.join(child.name for child in self.children)} ended")


def parse_args(argv: list[str]) -> argparse.Namespace:
    summary = __doc__.splitlines()[0] if __doc__ else None
    parser = argparse.ArgumentParser(prog="samops up", description=summary)
    parser.add_argument(
        "--sim-port", type=int, help="the embedded simulator's port (default: SAMOPS_SIM_PORT or 8080)"
    )
    parser.add_argument("--bot-port", type=int, help="the bot's port (default: SAMOPS_BOT_PORT or 3000)")
    parser.add_argument(
        "--dashboard-port", type=int, help="the dashboard's port (default: SAMOPS_DASHBOARD_PORT or 8501)"
    )
    parser.add_argument("--sync-every", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument(
        "--notify-interval", type=float, metavar="SECONDS", help="alarm polls (default: SAMOPS_POLL_INTERVAL)"
    )
    parser.add_argument("--no-bot", action="store_true")
    parser.add_argument("--no-notify", action="store_true")
    parser.add_argument("--no-dashboard", action="store_true")
    parser.add_argument(
        "--simulator-option",
        action="append",
        default=[],
        metavar="OPT",
        help="extra option for the embedded simulator, e.g. --simulator-option=--alarm-rate=30",
    )
    args = parser.parse_args(argv)
    for name in ("sim_port", "bot_port", "dashboard_port"):
        value = getattr(args, name)
        if value is not None and not 0 < value < 65536:
            parser.error(f"--{name.replace('_', '-')} must be a port number (1-65535)")
    if args.sync_every <= 0 or (args.notify_interval is not None and args.notify_interval <= 0):
        parser.error("--sync-every and --notify-interval must be positive")
    return args


@dataclass
class Plan:
    """What `samops up` runs, resolved once from the options and the settings (environment and `.env`)."""

    env: dict[str, str]  # every child's environment: what the user configured, plus what up decided
    embedded: bool  # start the simulator (no SAM_BASE_URL anywhere)
    bot_port: int
    dashboard_port: int
    cache: str
    problem: str | None = None  # why up cannot start, in one line
    sim_port: int | None = None  # the embedded simulator's, once chosen


def wanted_sim_port(args: argparse.Namespace, settings: Settings) -> int:
    """The embedded simulator's port: `--sim-port`, else SAMOPS_SIM_PORT (`make run` passes no flag)."""
    return args.sim_port if args.sim_port is not None else settings.sim_port


def plan(args: argparse.Namespace, settings: Settings) -> Plan:
    bot_port = args.bot_port if args.bot_port is not None else settings.bot_port
    dashboard_port = args.dashboard_port if args.dashboard_port is not None else settings.dashboard_port
    # Children read the settings again; handing them the resolved values makes every part agree even if
    # they were to find another `.env` (the dashboard's Streamlit process) or it changes while they run.
    env = dict(os.environ) | settings.as_env()
    env |= {
        "PYTHONUNBUFFERED": "1",
        "SAMOPS_BOT_PORT": str(bot_port),
        "SAMOPS_DASHBOARD_PORT": str(dashboard_port),
    }
    if not settings.is_set("dashboard_url"):
        env["SAMOPS_DASHBOARD_URL"] = dashboard_address(settings.dashboard_host, dashboard_port)
    embedded = not settings.is_set("base_url")
    result = Plan(env, embedded, bot_port, dashboard_port, str(settings.db_path.absolute()))
    account = (settings.screen_name, settings.password.get_secret_value())
    if embedded and account != (DEMO_SCREEN_NAME, DEMO_PASSWORD):
        # Credentials without a service: they belong to a service the user forgot to name, not to the
        # simulator. Sending them to it (or replacing them with demo/demo) would not be what they chose.
        result.problem = (
            "SAM_SCREEN_NAME/SAM_PASSWORD are set but SAM_BASE_URL is not: set SAM_BASE_URL to the service "
            "they belong to, or remove them to run on the embedded simulator (demo / demo)"
        )
    return result


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    settings = settings_or_report("samops up")
    if settings is None:
        return 2
    where = plan(args, settings)
    problem = where.problem or config_problem(settings)
    if problem is not None:
        print(f"samops up: {problem}", file=sys.stderr)
        return 2
    folder = hold_folder(args, settings, where)  # held until up ends (the kernel frees it however it ends)
    if isinstance(folder, str):
        print(f"samops up: {folder}", file=sys.stderr)
        return ALREADY_RUNNING
    busy = busy_ports(args, settings, where)
    if busy:
        print(f"samops up: {busy}", file=sys.stderr)
        return 1
    supervisor = Supervisor(where.env)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        supervisor.stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not start_service(args, where, settings, supervisor):
            return 1
        if where.sim_port is not None:
            folder.describe_as(folder_ports(args, settings, where) | {"simulator": where.sim_port})
        if not where.embedded and (refused := login_refused(settings)) is not None:
            print(f"samops up: {refused}", file=sys.stderr)
            return USAGE_ERROR
        log(f"cache: {where.cache}")
        if not args.no_notify:
            # First, so that the first alarm does not wait for the first sync (minutes at fleet size).
            start_notifier(args, supervisor, where.cache)
        first_sync(where.env, supervisor, activities=args.no_notify)
        if supervisor.stopping.is_set():
            return 0
        parts = start_parts(args, where, supervisor)
        late = wait_listening(parts, where, settings, supervisor.stopping)
        if supervisor.stopping.is_set():
            return 0
        print_where(args, where, settings, late)
        code = supervisor.watch()
        log("stopping …")
        return code
    finally:
        supervisor.stop()


def folder_ports(args: argparse.Namespace, settings: Settings, where: Plan) -> dict[str, int]:
    """The ports this `samops up` listens on, to name it to a second one."""
    ports = {}
    if not args.no_bot and settings.slack_app_token is None:  # Socket Mode listens on no port
        ports["bot"] = where.bot_port
    if not args.no_dashboard:
        ports["dashboard"] = where.dashboard_port
    return ports


def hold_folder(args: argparse.Namespace, settings: Settings, where: Plan) -> RunLock | str:
    """One samops per data folder (core/run_lock.py): up's own lock, held for its lifetime, and the parts it
    is about to start looked at first (a notifier or sync loop started by hand there): the lock, or the line
    refusing to start."""
    cache = Path(where.cache)
    lock = hold(cache, "up", "samops up", folder_ports(args, settings, where))
    if isinstance(lock, str):
        return lock
    for role in ("sync", *(() if args.no_notify else ("notify",))):
        found = holder_of(cache, role)
        if found is not None:
            lock.release()
            return refusal(cache, role, found)
    return lock


def busy_ports(args: argparse.Namespace, settings: Settings, where: Plan) -> str | None:
    """The bot's and the dashboard's ports are the ones users and links know: never moved, so a busy one
    stops up at once (the simulator's moves instead: only up's children use it)."""
    wanted = []
    if not args.no_bot and settings.slack_app_token is None:  # Socket Mode listens on no port
        wanted.append(("--bot-port or SAMOPS_BOT_PORT", settings.bot_host, where.bot_port))
    if not args.no_dashboard:
        wanted.append(
            ("--dashboard-port or SAMOPS_DASHBOARD_PORT", settings.dashboard_host, where.dashboard_port)
        )
    for how, host, port in wanted:
        probe = LOOPBACK if host in {"", "0.0.0.0", "localhost"} else host
        # Another kind of address (IPv6, not this machine's): the child itself will say what is wrong.
        with contextlib.suppress(OSError):
            if not port_is_free(probe, port):
                return busy(port, how)
    return None


def start_service(args: argparse.Namespace, where: Plan, settings: Settings, supervisor: Supervisor) -> bool:
    env = where.env
    if not where.embedded:
        source = "environment" if os.environ.get("SAM_BASE_URL") else ".env"
        log(f"using the service at {settings.base_url} (SAM_BASE_URL from the {source})")
        log(f"account: {settings.screen_name}")
        return True
    port = where.sim_port = simulator_port(wanted_sim_port(args, settings))
    options = [opt for raw in args.simulator_option for opt in raw.split("=", 1)]
    sim = supervisor.add("simulator", samops("simulator", "--port", str(port), *options))
    if not wait_http(f"http://{LOOPBACK}:{port}/healthz", sim, timeout=60):
        log("the simulator did not start; see its output above")
        return False
    # The simulator's URL and its account, for every child alike.
    env |= {
        "SAM_BASE_URL": f"http://{LOOPBACK}:{port}/api",
        "SAM_SCREEN_NAME": DEMO_SCREEN_NAME,
        "SAM_PASSWORD": DEMO_PASSWORD,
    }
    log(f"using the embedded simulator at {env['SAM_BASE_URL']}, its demo account {DEMO_SCREEN_NAME}")
    log(f"roles: {SLASH_USER}, the user of `samops slash`, is an admin of the demo (embedded simulator only)")
    return True


def login_refused(settings: Settings) -> str | None:
    """One login with the configured account before anything starts: a refused one (401 or 403) stops up
    with one line, instead of every part retrying it (many services lock an account after a few wrong
    passwords). A service that does not answer yet is only said: the parts keep trying, paced."""
    from core.client import SamClient  # here: `samops up --help` stays instant
    from core.client.login_backoff import ADVICE, reason, refused
    from core.errors import SamError

    once = settings.model_copy(update={"max_retries": 0})  # one request, not the client's retries
    # The client's own WARNING would repeat the line below (up configures no logging: Python's last resort).
    logging.getLogger("samops.client").addHandler(logging.NullHandler())
    try:
        with SamClient(once) as client:
            client.login()
    except SamError as err:
        if refused(err):
            who = f"the service at {settings.base_url} refused the login of {settings.screen_name!r}"
            return f"{who} ({reason(err)}); {ADVICE}"
        log(f"cannot log in to the service yet ({err}); starting anyway, the parts keep trying")
    return None


def first_sync(env: dict[str, str], supervisor: Supervisor, activities: bool) -> None:
    """One sync in the foreground, on this terminal, so its progress bar shows. Without `activities` the
    notifier's alarm poller, already running, reads them (over all panels at once, not panel by panel)."""
    log("first sync of the cache …")
    only = [] if activities else ["--no-activities"]
    proc = subprocess.Popen(samops("sync", "--once", *only), env=env, start_new_session=True)
    while proc.poll() is None:
        if supervisor.stopping.wait(0.2):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            return
    if proc.returncode != 0:
        log("the first sync reported errors; the periodic sync keeps trying")


def start_notifier(args: argparse.Namespace, supervisor: Supervisor, cache: str) -> None:
    interval = [] if args.notify_interval is None else ["--interval", str(args.notify_interval)]
    child = supervisor.add("notify", samops("notify", "--source", "service", *interval))
    child.alive = liveness.alive_path(Path(cache))  # its hang watch


def start_parts(args: argparse.Namespace, where: Plan, supervisor: Supervisor) -> dict[str, Child]:
    # Exactly one process polls activities: the notifier (it hosts the alarm poller, so an alarm reaches its
    # card in one poll; started before the first sync); the sync keeps the slow tables. Without the
    # notifier, the sync polls them itself.
    if args.no_notify:
        supervisor.add("sync", samops("sync", "--every", str(args.sync_every)))
    else:
        supervisor.add("sync", samops("sync", "--every", str(args.sync_every), "--no-activities"))
    parts: dict[str, Child] = {}
    if not args.no_bot:
        # On the embedded simulator, samops slash's user is an admin of the demo: every command can be tried.
        demo = ["--demo-admin", SLASH_USER] if where.embedded else []
        parts["bot"] = supervisor.add("bot", samops("bot", *demo))
    if not args.no_dashboard:
        parts["dashboard"] = supervisor.add(
            "dashboard", samops("dashboard", "--port", str(where.dashboard_port))
        )
    return parts


LISTEN_TIMEOUT_S = 120.0  # the dashboard's cold start imports pandas and pyarrow: seconds on a small machine


def wait_listening(
    parts: dict[str, Child], where: Plan, settings: Settings, stopping: threading.Event
) -> list[str]:
    """Wait until the bot and the dashboard answer their health checks, so that the summary's URLs work when
    it is printed; returns the parts that did not in LISTEN_TIMEOUT_S (or exited meanwhile)."""
    checks = {}
    if "bot" in parts and settings.slack_app_token is None:  # Socket Mode listens on no port
        checks["bot"] = f"http://{reachable_host(settings.bot_host)}:{where.bot_port}/healthz"
    if "dashboard" in parts:
        checks["dashboard"] = (
            f"http://{reachable_host(settings.dashboard_host)}:{where.dashboard_port}/_stcore/health"
        )
    deadline = time.monotonic() + LISTEN_TIMEOUT_S
    while checks and time.monotonic() < deadline and not stopping.is_set():
        for name, url in list(checks.items()):
            proc = parts[name].proc
            if proc is None or proc.poll() is not None:
                continue  # it exited: the supervisor says so and restarts it
            with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1):
                del checks[name]
        stopping.wait(0.2)
    return list(checks)


def print_where(args: argparse.Namespace, where: Plan, settings: Settings, late: list[str]) -> None:
    """The summary, printed once the bot and the dashboard listen (`late`: those that did not in time)."""
    env = where.env
    lines = [f"service:   {env['SAM_BASE_URL']}"]
    if where.embedded:
        lines.append(f"           (embedded simulator; its demo account {DEMO_SCREEN_NAME}, see the README)")
    lines.append(f"cache:     {where.cache}")
    if not args.no_dashboard:
        lines.append(f"dashboard: http://{reachable_host(settings.dashboard_host)}:{where.dashboard_port}")
    if not args.no_bot:
        if settings.slack_app_token is not None:
            lines.append("bot:       Socket Mode (SLACK_APP_TOKEN)")
        else:
            bot = f"http://{reachable_host(settings.bot_host)}:{where.bot_port}"
            lines.append(f"bot:       {bot}/slack/events (health: /healthz)")
            lines.append('try:       .venv/bin/samops slash "/sam help"   or   "/sam cameras"')
            if where.embedded:
                lines.append(
                    f"           as {SLASH_USER}, an admin of the demo; --as U123 to try as someone else"
                )
    if not args.no_notify:
        where_to = "Slack" if settings.slack_bot_token else "this console (no SLACK_BOT_TOKEN)"
        lines.append(f"alarms:    posted to {where_to}")
        if not settings.slack_bot_token:  # the printed cards' buttons are pressed from another terminal
            lines.append("           press a card's buttons: samops slash --click <card> <number>  (--cards)")
    if late:
        lines.append(f"not yet:   {' and '.join(late)} not answering after {LISTEN_TIMEOUT_S:g} s; see above")
    lines.append("stop:      Ctrl-C")
    print("\n".join(["", *lines, ""]), flush=True)
