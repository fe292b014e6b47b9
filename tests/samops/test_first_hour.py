"""A first hour that tells the truth (issue 22 items 2 and 7), with real processes against a real simulator:

- a wrong password is one clear line and no stream of logins: `samops up` stops at start (exit 2) after one
  login; a long-running part (the sync loop, the notifier) backs off, says so once per refused login, and
  `samops status` says so too; the logins are counted at the simulator;
- an outage is one line when it starts and one when it ends, not a line per cycle;
- `samops up`'s summary comes once the bot and the dashboard listen; on the embedded simulator the user of
  `samops slash` is an admin of the demo, and a second `samops up` in the same folder names the first.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.processes import (
    ROOT,
    Simulator,
    ctrl_c,
    free_port,
    run_simulator,
    samops_cmd,
    samops_free_env,
)

WRONG = "wrong-pass-7731"


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    with run_simulator("--alarm-rate", "0", "--panels", "6", "--history-days", "1", seed=5) as simulator:
        yield simulator


def logins(sim: Simulator) -> int:
    return sum(r["path"] == "/api/auth/login" for r in httpx.get(f"{sim.root_url}/_sim/requests").json())


def env_for(sim: Simulator, folder: Path, password: str, **extra: str) -> dict[str, str]:
    return samops_free_env(
        PYTHONPATH=str(ROOT),
        SAM_BASE_URL=sim.base_url,
        SAM_SCREEN_NAME="demo",
        SAM_PASSWORD=password,
        SAMOPS_DATA_DIR=str(folder / "data"),
        COLUMNS="250",
        **extra,
    )


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.2)


class Part:
    """A long-running samops part, its output (stdout and stderr) in a file."""

    def __init__(self, folder: Path, name: str, env: dict[str, str], *args: str) -> None:
        self.log = folder / f"{name}.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(samops_cmd(*args), cwd=folder, env=env, stdout=out, stderr=out)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def test_up_stops_at_start_on_a_wrong_password_after_one_login(tmp_path: Path, sim: Simulator) -> None:
    before = logins(sim)
    cmd = samops_cmd("up", "--bot-port", str(free_port()), "--dashboard-port", str(free_port()))
    done = subprocess.run(
        cmd, cwd=tmp_path, env=env_for(sim, tmp_path, WRONG), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert "refused the login of 'demo' (401" in line and "SAM_PASSWORD" in line
    assert WRONG not in done.stdout + done.stderr
    assert "[notify]" not in done.stdout and "[sync]" not in done.stdout and "[bot]" not in done.stdout
    assert logins(sim) == before + 1


def test_the_sync_and_the_notifier_back_off_and_status_says_so(tmp_path: Path, sim: Simulator) -> None:
    env = env_for(sim, tmp_path, WRONG)
    before = logins(sim)
    # The sync and the notifier would log in every cycle (every 0.5 s, every 0.3 s); the bot at start,
    # then for each command that needs the service.
    parts = [
        Part(tmp_path, "sync", env, "sync", "--every", "0.5", "--no-activities"),
        Part(tmp_path, "notify", env, "notify", "--source", "service", "--interval", "0.3"),
        Part(tmp_path, "bot", env | {"SAMOPS_BOT_PORT": str(free_port())}, "bot"),
    ]
    try:
        for part in parts:
            wait_for(
                lambda part=part: "refused the login" in part.text(), 90, f"{part.log.name}'s first line"
            )
        time.sleep(8)  # some 40 cycles between them
        assert all(part.proc.poll() is None for part in parts)  # they go on, paced
        status = subprocess.run(
            samops_cmd("status"), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
    finally:
        for part in parts:
            part.stop()
    assert logins(sim) == before + 3  # one each: the next is 30 s away
    sync, notify, bot = (part.text() for part in parts)
    for text in (sync, notify, bot):
        assert text.count("refused the login of 'demo'") == 1, text
        assert "next attempt in 30 s" in text and "SAM_PASSWORD" in text and WRONG not in text
        assert "ERROR" not in text and "Traceback" not in text
    assert sync.count("the service is unavailable") == 1 and "samops.sync: synced" not in sync
    assert notify.count("the service failed") == 1
    assert "is now watching for alarms" not in notify  # no first-start summary it could not check
    assert status.returncode == 0, status.stderr
    for part in ("bot", "sync", "notify"):
        assert f"Login ({part}): the service refuses the login (401" in status.stdout, status.stdout
    assert "next attempt in" in status.stdout and WRONG not in status.stdout


def test_an_outage_is_one_line_when_it_starts_and_one_when_it_ends(tmp_path: Path, sim: Simulator) -> None:
    env = env_for(sim, tmp_path, "demo", SAM_MAX_RETRIES="0", SAMOPS_REFRESH_SENSORS="1")
    parts = [
        Part(tmp_path, "sync", env, "sync", "--every", "0.5", "--no-activities"),
        Part(tmp_path, "notify", env, "notify", "--source", "service", "--interval", "0.3"),
    ]
    sync, notify = parts
    faults = f"{sim.root_url}/_sim/faults"
    try:
        wait_for(lambda: "samops.sync: synced" in sync.text(), 90, "the first sync")
        wait_for(lambda: "samops notify: source service" in notify.text(), 90, "the notifier's start")
        time.sleep(1)
        httpx.post(faults, json={"errorRate": 1.0}).raise_for_status()
        wait_for(lambda: "the service is unavailable" in sync.text(), 30, "the sync's outage line")
        wait_for(lambda: "the service failed" in notify.text(), 30, "the notifier's outage line")
        time.sleep(5)  # some 25 failed cycles between them
        httpx.post(faults, json={"errorRate": 0.0}).raise_for_status()
        wait_for(lambda: "answers again" in sync.text(), 30, "the sync's end of outage")
        wait_for(lambda: "answers again" in notify.text(), 30, "the notifier's end of outage")
    finally:
        httpx.post(faults, json={"errorRate": 0.0})
        for part in parts:
            part.stop()
    text = sync.text()
    down, up = text.index("the service is unavailable"), text.index("answers again")
    assert text.count("the service is unavailable") == 1 and text.count("answers again") == 1, text
    assert "samops.sync: synced" not in text[down:up]  # no "synced … 0.0 s" while it is down
    assert "after " in text[up:].splitlines()[0] and "unavailable (since " in text[up:].splitlines()[0]
    assert "fetched" not in text  # the periodic sync: one line per cycle, no progress lines
    text = notify.text()
    assert text.count("the service failed") == 1 and text.count("answers again, after ") == 1, text


@pytest.mark.slow
def test_the_embedded_first_hour(tmp_path: Path) -> None:
    """`make run` as a new user: the summary once everything listens, the demo's admin, every form through
    `samops slash`, and a second `samops up` in the same folder told that samops already runs there."""
    ports = {"--sim-port": free_port(), "--bot-port": free_port(), "--dashboard-port": free_port()}
    argv = [arg for option, port in ports.items() for arg in (option, str(port))]
    env = samops_free_env(PYTHONPATH=str(ROOT), SAMOPS_BOT_PORT=str(ports["--bot-port"]))
    bot = f"http://127.0.0.1:{ports['--bot-port']}/healthz"
    dashboard = f"http://127.0.0.1:{ports['--dashboard-port']}/_stcore/health"
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(samops_cmd("up", *argv), cwd=tmp_path, env=env, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 240
        while "stop:      Ctrl-C" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.05)
        # The summary's URLs work the moment it is printed.
        assert httpx.get(bot, timeout=2).is_success and httpx.get(dashboard, timeout=2).is_success
        text = log.read_text()
        assert "[up] roles: U_SAMOPS_CLI, the user of `samops slash`, is an admin of the demo" in text
        assert "press a card's buttons: samops slash --click <card> <number>" in text  # no Slack token
        assert "as U_SAMOPS_CLI, an admin of the demo" in text and "not yet:" not in text

        def slash(*args: str) -> subprocess.CompletedProcess[str]:
            cmd = samops_cmd("slash", *args, "--timeout", "60")
            return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

        whoami = slash("/sam whoami")
        assert "You are an admin" in whoami.stdout and "demo" in whoami.stdout, whoami.stderr
        task = slash("/sam task update 100201 org:1002", "--submit", "name=Night patrol")
        assert task.returncode == 0 and "Night patrol" in task.stdout, task.stdout + task.stderr
        someone = slash("/sam task update 100201 org:1002", "--as", "U_SOMEONE")
        assert "needs the technician role" in someone.stdout  # only samops slash's own user is the admin

        again = subprocess.run(
            samops_cmd("up", *argv), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert again.returncode == 3  # the folder lock, before any port (tests/samops/test_one_per_folder.py)
        assert f"samops already runs on this data folder ({tmp_path}" in again.stderr, again.stderr
        assert f"`samops up`, pid {proc.pid}" in again.stderr and "another program" not in again.stderr
    finally:
        ctrl_c(proc)
    assert proc.returncode == 0, log.read_text()[-3000:]


def test_a_port_held_by_another_samops_part_is_named(tmp_path: Path, sim: Simulator) -> None:
    done = subprocess.run(
        samops_cmd("up", "--bot-port", str(sim.port), "--no-dashboard"),
        cwd=tmp_path,
        env=samops_free_env(PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"port {sim.port} is in use by samops itself (`samops simulator`" in done.stderr, done.stderr
    assert "SAMOPS_BOT_PORT" in done.stderr and "[simulator]" not in done.stdout
    assert os.path.isdir(tmp_path)


def test_an_unreachable_service_at_start_is_said_and_up_starts_anyway(tmp_path: Path) -> None:
    env = samops_free_env(
        PYTHONPATH=str(ROOT),
        SAM_BASE_URL=f"http://127.0.0.1:{free_port()}/api",  # nothing listens there
        SAM_SCREEN_NAME="field-ops",
        SAM_PASSWORD="field-secret",
        SAM_MAX_RETRIES="0",
    )
    log = tmp_path / "up.log"
    cmd = samops_cmd("up", "--no-bot", "--no-dashboard", "--no-notify", "--sync-every", "0.5")
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=out, stderr=out)
    try:
        wait_for(lambda: "[sync]" in log.read_text(), 120, "the periodic sync")
        time.sleep(3)  # some cycles of it
    finally:
        ctrl_c(proc)
    text = log.read_text()
    assert proc.returncode == 0, text
    assert "[up] cannot log in to the service yet (network error" in text and "starting anyway" in text
    periodic = [line for line in text.splitlines() if line.startswith("[sync]")]
    assert sum("the service is unavailable" in line for line in periodic) == 1, text
    assert "field-secret" not in text and "Traceback" not in text
    # Ctrl-C ends with a line saying so, once every part has ended (issue 37).
    assert text.rstrip().splitlines()[-1] == "[up] stopped: sync ended", text[-500:]
