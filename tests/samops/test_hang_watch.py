"""`samops up` restarts a hung notifier: one SIGSTOPped (it still runs, so its exit never comes) stops
rewriting its liveness promise; once the promise has passed, up stops it and starts a new one, saying so in
one console line."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from core import liveness
from core.run_lock import holder_of
from tests.support.processes import ROOT, ctrl_c, free_port, samops_cmd, samops_free_env

HANG_AFTER_S = 6  # short for the test, yet a cycle on a busy machine keeps it
T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float, log: Path, proc: subprocess.Popen[bytes]) -> T:
    deadline = time.monotonic() + timeout
    while not (found := predicate()):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.1)
    return found


@pytest.mark.slow  # a whole `samops up`: the simulator, the first sync, the notifier
def test_a_sigstopped_notifier_is_restarted(tmp_path: Path) -> None:
    env = samops_free_env(PYTHONPATH=str(ROOT), SAMOPS_HANG_AFTER=str(HANG_AFTER_S))
    args = ["--no-dashboard", "--no-bot", "--sim-port", str(free_port()), "--notify-interval", "0.5"]
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            samops_cmd("up", *args, "--sync-every", "60"), cwd=tmp_path, env=env, stdout=out, stderr=out
        )
    cache = tmp_path / ".samops" / "cache.db"
    alive = liveness.alive_path(cache)
    try:
        wait_for(lambda: "stop:      Ctrl-C" in log.read_text(), 180, log, proc)
        wait_for(alive.exists, 60, log, proc)
        # The promise made before the first cycle is thrice as long: wait for a cycle's.
        first = alive.stat().st_mtime_ns
        wait_for(lambda: alive.stat().st_mtime_ns != first, 60, log, proc)
        holder = holder_of(cache, "notify")
        assert holder is not None and holder.pid is not None
        hung = holder.pid
        os.kill(hung, signal.SIGSTOP)
        stopped_at = time.monotonic()

        def told() -> list[str]:
            return [line for line in log.read_text().splitlines() if "[up] notify hangs" in line]

        wait_for(told, 60, log, proc)
        took = time.monotonic() - stopped_at
        assert took < HANG_AFTER_S + 10, took  # its promise, plus up's look every 0.2 s (and a busy machine)

        def restarted() -> int | None:
            now = holder_of(cache, "notify")
            return now.pid if now is not None and now.pid not in (None, hung) else None

        new = wait_for(restarted, 60, log, proc)
        assert len(told()) == 1, log.read_text()[-3000:]
        with contextlib.suppress(ProcessLookupError):
            os.kill(hung, 0)
            raise AssertionError("the hung notifier still runs")
        # The new one renews its promise each cycle: past one whole promise, no second restart.
        renewed = alive.stat().st_mtime_ns
        wait_for(lambda: alive.stat().st_mtime_ns != renewed, 60, log, proc)
        time.sleep(HANG_AFTER_S + 1)
        now = holder_of(cache, "notify")
        assert now is not None and now.pid == new
        assert sum("[up] notify hangs" in line for line in log.read_text().splitlines()) == 1
    finally:
        assert ctrl_c(proc) == 0, log.read_text()[-3000:]
