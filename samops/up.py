"""`samops up`: run the whole product as supervised child processes.

With no `SAM_BASE_URL` it starts the embedded simulator first. Then it runs one sync in the foreground (its
progress bar on the terminal), and keeps `sync --every`, `notify`, `bot` and `dashboard` running, restarting
a child that crashes with backoff. Ctrl-C (or SIGTERM) stops everything within a few seconds: each child runs
in its own process group, so grandchildren (Streamlit under `samops dashboard`) go with it.

It composes `samops` subcommands as processes and imports none of their packages.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from types import FrameType

STOP_GRACE_S = 3.0  # SIGTERM, then SIGKILL: the whole stop stays within 5 s
BACKOFF_MAX_S = 30.0
STABLE_AFTER_S = 60.0  # a child that ran this long has its backoff reset


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
        self.restart_at = None
        pump = threading.Thread(target=_prefix_lines, args=(self.name, self.proc.stdout), daemon=True)
        pump.start()
        self.pumps = [pump]

    def signal_group(self, sig: signal.Signals) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)


def _prefix_lines(name: str, stream: object) -> None:
    for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
        sys.stdout.write(f"[{name}] {raw.decode(errors='replace')}")
        sys.stdout.flush()


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def wait_http(url: str, child: Child, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.proc is None or child.proc.poll() is not None:
            return False
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1):
            return True
        time.sleep(0.1)
    return False


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

    def watch(self) -> None:
        """Restart crashed children with exponential backoff until asked to stop."""
        while not self.stopping.wait(0.2):
            now = time.monotonic()
            for child in self.children:
                assert child.proc is not None
                code = child.proc.poll()
                if code is None:
                    if now - child.started_at > STABLE_AFTER_S:
                        child.failures = 0
                    continue
                if child.restart_at is None:
                    delay = min(2.0**child.failures, BACKOFF_MAX_S)
                    child.failures += 1
                    child.restart_at = now + delay
                    log(f"{child.name} exited with code {code}; restarting in {delay:.0f} s")
                elif now >= child.restart_at:
                    log(f"restarting {child.name}")
                    child.start(self.env)

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


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="samops up", description=__doc__.splitlines()[0])
    parser.add_argument("--sim-port", type=int, default=8080, help="simulator port (embedded default only)")
    parser.add_argument("--bot-port", type=int, default=int(os.environ.get("SAMOPS_BOT_PORT", "3000")))
    parser.add_argument(
        "--dashboard-port", type=int, default=int(os.environ.get("SAMOPS_DASHBOARD_PORT", "8501"))
    )
    parser.add_argument("--sync-every", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--notify-interval", type=float, default=15.0, metavar="SECONDS")
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
        if not 0 < getattr(args, name) < 65536:
            parser.error(f"--{name.replace('_', '-')} must be a port number (1-65535)")
    if args.sync_every <= 0 or args.notify_interval <= 0:
        parser.error("--sync-every and --notify-interval must be positive")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("SAMOPS_DASHBOARD_URL", f"http://127.0.0.1:{args.dashboard_port}")
    supervisor = Supervisor(env)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        supervisor.stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not start_service(args, env, supervisor):
            return 1
        first_sync(env, supervisor)
        if supervisor.stopping.is_set():
            return 0
        start_parts(args, supervisor)
        print_where(args, env)
        supervisor.watch()
        log("stopping …")
        return 0
    finally:
        supervisor.stop()


def start_service(args: argparse.Namespace, env: dict[str, str], supervisor: Supervisor) -> bool:
    if env.get("SAM_BASE_URL"):
        log(f"using the service at {env['SAM_BASE_URL']}")
        return True
    port = args.sim_port
    if not port_is_free("127.0.0.1", port):
        port = free_port()
        log(f"port {args.sim_port} is busy; the simulator uses {port}")
    options = [opt for raw in args.simulator_option for opt in raw.split("=", 1)]
    sim = supervisor.add("simulator", samops("simulator", "--port", str(port), *options))
    if not wait_http(f"http://127.0.0.1:{port}/healthz", sim, timeout=60):
        log("the simulator did not start; see its output above")
        return False
    env["SAM_BASE_URL"] = f"http://127.0.0.1:{port}/api"
    supervisor.env = env
    return True


def first_sync(env: dict[str, str], supervisor: Supervisor) -> None:
    """One sync in the foreground, on this terminal, so its progress bar shows."""
    log("first sync of the cache …")
    proc = subprocess.Popen(samops("sync", "--once"), env=env, start_new_session=True)
    while proc.poll() is None:
        if supervisor.stopping.wait(0.2):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            return
    if proc.returncode != 0:
        log("the first sync reported errors; the periodic sync keeps trying")


def start_parts(args: argparse.Namespace, supervisor: Supervisor) -> None:
    supervisor.add("sync", samops("sync", "--every", str(args.sync_every)))
    if not args.no_notify:
        supervisor.add("notify", samops("notify", "--interval", str(args.notify_interval)))
    if not args.no_bot:
        supervisor.env["SAMOPS_BOT_PORT"] = str(args.bot_port)
        supervisor.add("bot", samops("bot"))
    if not args.no_dashboard:
        supervisor.add("dashboard", samops("dashboard", "--port", str(args.dashboard_port)))


def print_where(args: argparse.Namespace, env: dict[str, str]) -> None:
    lines = [f"service:   {env['SAM_BASE_URL']}"]
    if not env.get("SAM_SCREEN_NAME"):
        lines.append("           (embedded simulator; demo credentials demo / demo)")
    if not args.no_dashboard:
        lines.append(f"dashboard: http://127.0.0.1:{args.dashboard_port}")
    if not args.no_bot:
        lines.append(f"bot:       http://127.0.0.1:{args.bot_port}/slack/events (health: /healthz)")
        lines.append('try:       .venv/bin/samops slash "/sam help"   or   "/sam cameras"')
    if not args.no_notify:
        where = "Slack" if env.get("SLACK_BOT_TOKEN") else "this console (no SLACK_BOT_TOKEN)"
        lines.append(f"alarms:    posted to {where}")
    lines.append("stop:      Ctrl-C")
    print("\n".join(["", *lines, ""]), flush=True)
