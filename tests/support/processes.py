"""Start samops processes as real servers on free loopback ports, and stop them cleanly."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from core.settings import DOTENV

ROOT = Path(__file__).resolve().parents[2]


OUR_PREFIXES = ("SAM_", "SAMOPS_", "SLACK_")  # the variables samops reads
# How long a started server may take to answer: `make test` runs several test workers on a 2-core machine,
# where a process importing its dependencies waits its turn for a core.
START_TIMEOUT_S = 90.0


def samops_free_env(**extra: str) -> dict[str, str]:
    """This process' environment without any samops or Slack variable (a developer's own must not reach a
    test's process), plus `extra`."""
    return {k: v for k, v in os.environ.items() if not k.startswith(OUR_PREFIXES) or k == DOTENV} | extra


# For a process run in a test's own folder, reading the `.env` the test wrote there: the suite reads none
# (tests/conftest.py), so that a developer's own reaches no test.
OWN_DOTENV = {DOTENV: ".env"}


def folder_env(**extra: str) -> dict[str, str]:
    """For a samops command a test runs in its own folder, as a user there would: none of this process'
    samops variables, that folder's `.env`, this checkout importable."""
    return samops_free_env(PYTHONPATH=str(ROOT), **OWN_DOTENV, **extra)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = START_TIMEOUT_S) -> None:
    """Wait until `url` answers with a success, failing early if the process died.

    Any answer is not enough: between free_port() and the process binding it, another worker's server
    (a Slack stand-in's 404) can take the port, and the test would then talk to that server."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1.0).is_success:
                return
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


def stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float = 5.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def streamlit_serving(
    command: list[str], port: int, cwd: Path, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Run `command`, a Streamlit server on 127.0.0.1:`port`, until its health check answers; yields its base
    URL (no trailing slash) and stops the server after."""
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/_stcore/health", proc)
        yield base
    finally:
        stop(proc, timeout=15)


def ctrl_c(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> int:
    """Interrupt `proc` as Ctrl-C does and wait for it; its exit code. One still running after `timeout` is
    killed, and that is a failure: TimeoutExpired propagates."""
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def samops_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "samops", *args]


@dataclass
class Simulator:
    base_url: str  # ends with /api
    root_url: str  # without /api
    port: int
    proc: subprocess.Popen[bytes]


@contextlib.contextmanager
def run_simulator(*options: str, seed: int = 1) -> Iterator[Simulator]:
    """Run `samops simulator` on a free port; `options` are extra command-line flags."""
    port = free_port()
    cmd = samops_cmd("simulator", "--port", str(port), "--seed", str(seed), *options)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ)
    try:
        root = f"http://127.0.0.1:{port}"
        wait_http(f"{root}/healthz", proc)
        yield Simulator(base_url=f"{root}/api", root_url=root, port=port, proc=proc)
    finally:
        stop(proc)
