"""`samops up` and the one configuration: what it starts, which service and cache every part uses, and
which ports it keeps.

The end-to-end test is the issue's "new user" run: a `.env` names a service on another port with other
credentials, a data folder and the ports; `samops up` must start no simulator of its own, and sync, the
notifier, the bot and the dashboard must all use the one cache in that data folder.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.settings import Settings
from samops import up
from tests.support.browser import alarms_page_shows
from tests.support.cache_files import connect as connect_cache
from tests.support.processes import (
    ROOT,
    ctrl_c,
    folder_env,
    free_port,
    run_simulator,
    samops_cmd,
)

START_TIMEOUT_S = 180.0  # first sync, then bot and dashboard cold starts on a loaded 2-core box


def plan_for(*argv: str) -> up.Plan:
    return up.plan(up.parse_args(list(argv)), Settings())


# --- what up decides --------------------------------------------------------------------------------------


def test_without_a_service_up_runs_the_simulator(no_samops_env: Path) -> None:
    where = plan_for("--dashboard-port", "8600")
    assert where.embedded and where.problem is None
    assert "SAM_BASE_URL" not in where.env  # set to the simulator's URL once it runs
    assert where.env["SAMOPS_DASHBOARD_URL"] == "http://127.0.0.1:8600"
    assert where.cache == str(no_samops_env / ".samops" / "cache.db")


def test_the_demo_account_written_out_still_means_the_simulator(no_samops_env: Path) -> None:
    (no_samops_env / ".env").write_text("SAM_SCREEN_NAME=demo\nSAM_PASSWORD=demo\n")
    where = plan_for()
    assert where.embedded and where.problem is None


def test_credentials_without_a_service_are_refused_not_replaced(no_samops_env: Path) -> None:
    (no_samops_env / ".env").write_text("SAM_SCREEN_NAME=field-ops\nSAM_PASSWORD=real-secret\n")
    where = plan_for()
    assert where.problem is not None and "SAM_BASE_URL" in where.problem
    assert "real-secret" not in where.problem


def test_a_configured_service_is_used_as_configured(
    no_samops_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (no_samops_env / ".env").write_text(
        "SAM_BASE_URL=http://127.0.0.1:1/api\nSAM_SCREEN_NAME=field-ops\nSAM_PASSWORD=real-secret\n"
        "SAMOPS_DATA_DIR=field\nSAMOPS_BOT_PORT=3300\nSAMOPS_DASHBOARD_URL=https://dash.example.com\n"
    )
    monkeypatch.setenv("SAMOPS_DASHBOARD_PORT", "8700")
    where = plan_for()
    assert not where.embedded and where.problem is None
    assert where.env["SAM_BASE_URL"] == "http://127.0.0.1:1/api"
    assert (where.env["SAM_SCREEN_NAME"], where.env["SAM_PASSWORD"]) == ("field-ops", "real-secret")
    assert (where.bot_port, where.dashboard_port) == (3300, 8700)
    assert where.env["SAMOPS_DASHBOARD_URL"] == "https://dash.example.com"  # the user's, not up's
    assert where.cache == str(no_samops_env / "field" / "cache.db")
    assert up.plan(up.parse_args(["--bot-port", "3400"]), Settings()).bot_port == 3400  # an option wins


def up_refusing(folder: Path) -> subprocess.CompletedProcess[str]:
    """`samops up` run in `folder`, which is expected to refuse to start (so a short timeout)."""
    cmd = samops_cmd("up", "--sim-port", str(free_port()))
    return subprocess.run(cmd, cwd=folder, env=folder_env(), capture_output=True, text=True, timeout=60)


def test_up_refuses_credentials_without_a_service_in_one_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SAM_SCREEN_NAME=field-ops\nSAM_PASSWORD=real-secret\n")
    done = up_refusing(tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "SAM_BASE_URL" in done.stderr
    assert "real-secret" not in done.stdout + done.stderr
    assert not (tmp_path / ".samops").exists()


def test_a_bad_configuration_file_stops_up_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "samops.toml").write_text(
        '[[notify.routes]]\nchannel = "C1"\nescalate_after = 5\nescalate_to = ["U_LEAD"]\n'
    )
    done = up_refusing(tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "U_LEAD" in done.stderr and "escalate_to" in done.stderr
    assert "[simulator]" not in done.stdout and not (tmp_path / ".samops").exists()


def test_a_child_refusing_its_configuration_stops_up_rather_than_restarting(tmp_path: Path) -> None:
    supervisor = up.Supervisor(dict(os.environ))
    child = supervisor.add("notify", [sys.executable, "-c", "raise SystemExit(2)"])
    try:
        assert supervisor.watch() == up.USAGE_ERROR
        assert child.failures == 0  # never restarted
    finally:
        supervisor.stop()


# --- ports across restarts --------------------------------------------------------------------------------


def tcp_states(port: int) -> set[str]:
    """States (hex, as /proc/net/tcp shows them) of the loopback sockets whose local port is `port`."""
    states = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            states.add(fields[3])
    return states


TIME_WAIT = "06"


def leave_time_wait() -> int:
    """A port whose only socket is a server-side connection in TIME-WAIT, as after a Ctrl-C'd server."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((up.LOOPBACK, 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection((up.LOOPBACK, port))
        served, _ = listener.accept()
        served.close()  # the server closes first: its side is the one left in TIME-WAIT
        assert client.recv(1) == b""
        client.close()
    deadline = time.monotonic() + 10
    while tcp_states(port) != {TIME_WAIT}:
        assert time.monotonic() < deadline, f"no TIME-WAIT on {port}: {tcp_states(port)}"
        time.sleep(0.01)
    return port


def test_a_port_in_time_wait_is_free_and_kept() -> None:
    port = leave_time_wait()
    # A probe without SO_REUSEADDR (what up did) calls this port busy ...
    with socket.socket() as naive, pytest.raises(OSError) as refused:
        naive.bind((up.LOOPBACK, port))
    assert refused.value.errno == errno.EADDRINUSE
    # ... the server would bind it fine, and so up keeps it.
    assert up.port_is_free(up.LOOPBACK, port)
    assert up.simulator_port(port) == port


def test_a_listening_port_is_busy_and_the_simulator_moves_saying_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((up.LOOPBACK, 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert not up.port_is_free(up.LOOPBACK, port)
        moved = up.simulator_port(port)
    assert moved != port
    assert (
        f"port {port} is in use by another program; the simulator uses port {moved}"
        in capsys.readouterr().out
    )


def test_a_busy_bot_port_stops_up_at_once(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind((up.LOOPBACK, 0))
        listener.listen()
        port = listener.getsockname()[1]
        done = subprocess.run(
            samops_cmd("up", "--sim-port", str(free_port()), "--no-dashboard"),
            cwd=tmp_path,
            env=folder_env(SAMOPS_BOT_PORT=str(port)),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"port {port} is in use" in done.stderr and "SAMOPS_BOT_PORT" in done.stderr
    assert "[simulator]" not in done.stdout  # nothing was started


# --- make ---------------------------------------------------------------------------------------------------


def make_env() -> dict[str, str]:
    """The environment without what an outer `make test` passes down (MAKELEVEL makes a nested make print
    "Entering directory" lines, MAKEFLAGS carries its options)."""
    return {k: v for k, v in os.environ.items() if k not in {"MAKELEVEL", "MAKEFLAGS", "MFLAGS"}}


def make_without_chromium(target: str) -> subprocess.CompletedProcess[str]:
    """`make -n target` on a machine without chromium (nor apt-get to install it)."""
    return subprocess.run(
        ["make", "-n", target, "CHROMIUM=/nonexistent/chromium", "APT_GET=/nonexistent/apt-get"],
        cwd=ROOT,
        env=make_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_make_test_without_chromium_stops_first_with_one_line() -> None:
    done = make_without_chromium("test")
    assert done.returncode != 0
    assert done.stdout == ""  # nothing else would have run first
    [line] = done.stderr.splitlines()
    assert "chromium" in line and "apt-get install -y chromium" in line


def test_make_run_does_not_need_chromium() -> None:
    done = make_without_chromium("run")
    assert done.returncode == 0, done.stderr
    assert "chromium" not in done.stdout + done.stderr


# --- the new user's run -----------------------------------------------------------------------------------


def wait_for(predicate: Callable[[], Any], what: str, proc: subprocess.Popen[bytes], log: Path) -> Any:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"samops up exited while waiting for {what}:\n{log.read_text()[-3000:]}"
        with contextlib.suppress(httpx.HTTPError, sqlite3.Error):
            if result := predicate():
                return result
        time.sleep(0.25)
    raise TimeoutError(f"{what} did not happen within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


def cached(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    if not db.exists():  # connecting would create it
        return []
    with contextlib.closing(connect_cache(db, read_only=True)) as conn:
        return conn.execute(sql, params).fetchall()


def run_samops(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A samops command as the user types it in that folder: everything it knows comes from `.env`."""
    return subprocess.run(
        samops_cmd(*args), cwd=cwd, env=folder_env(COLUMNS="200"), capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_dotenv_service_and_data_folder_are_what_every_part_uses(tmp_path: Path) -> None:
    sim_port, bot_port, dash_port = free_port(), free_port(), free_port()
    options = ("--demo-screen-name", "field-ops", "--demo-password", "field-secret-9", "--alarm-rate", "0")
    with run_simulator(*options, seed=7) as service:
        (tmp_path / ".env").write_text(
            f"SAM_BASE_URL={service.base_url}\nSAM_SCREEN_NAME=field-ops\nSAM_PASSWORD=field-secret-9\n"
            f"SAMOPS_DATA_DIR=field-data\nSAMOPS_BOT_PORT={bot_port}\nSAMOPS_DASHBOARD_PORT={dash_port}\n"
        )
        db = tmp_path / "field-data" / "cache.db"
        log = tmp_path / "up.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                samops_cmd("up", "--sim-port", str(sim_port), "--sync-every", "2", "--notify-interval", "1"),
                cwd=tmp_path,
                env=folder_env(),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            try:
                check_every_part(tmp_path, service.root_url, db, proc, log, bot_port, dash_port)
                # No simulator of its own: nothing listens on the port it would have used.
                assert up.port_is_free(up.LOOPBACK, sim_port)
            finally:
                ctrl_c(proc)
        text = log.read_text()
        assert proc.returncode == 0, text[-3000:]
        assert f"using the service at {service.base_url} (SAM_BASE_URL from the .env)" in text
        assert f"cache: {db}" in text
        assert "[simulator]" not in text and "field-secret-9" not in text
        assert not (tmp_path / ".samops").exists()  # nobody fell back to the default data folder


def check_every_part(
    cwd: Path, service: str, db: Path, proc: subprocess.Popen[bytes], log: Path, bot_port: int, dash_port: int
) -> None:
    bot, dashboard = f"http://127.0.0.1:{bot_port}", f"http://127.0.0.1:{dash_port}"
    wait_for(lambda: httpx.get(f"{bot}/healthz", timeout=2).is_success, "the bot", proc, log)
    wait_for(
        lambda: httpx.get(f"{dashboard}/_stcore/health", timeout=2).is_success, "the dashboard", proc, log
    )
    # The notifier has taken its first-start baseline, so the next alarm is a new one it posts.
    wait_for(
        lambda: cached(db, "SELECT count(*) FROM notify_state")[0][0], "the notifier's baseline", proc, log
    )

    # A new alarm at that service, on a panel of the account's first organization.
    history = httpx.get(f"{service}/_sim/activities", params={"since": 0}).json()
    panel = next(a["resourceId"] for a in history if a["orgId"] == 1001)
    [alarm] = httpx.post(
        f"{service}/_sim/activities", json={"resourceId": panel, "count": 1, "violationType": "alarm"}
    ).json()
    event = alarm["eventId"]

    # sync wrote it into the data folder's cache, and the notifier (console) delivered it from there.
    wait_for(lambda: cached(db, "SELECT 1 FROM activities WHERE event_id = ?", event), "the sync", proc, log)
    # The row exists as 'pending' before it is delivered, so wait for its final state, not for the row.
    delivered = "SELECT state FROM notify_outbox WHERE event_id = ?"
    wait_for(lambda: cached(db, delivered, event) == [("console",)], "the notifier's delivery", proc, log)

    # `samops status`, run in that folder, reads the same cache.
    status = run_samops(cwd, "status")
    assert status.returncode == 0, status.stderr
    assert "field-data/cache.db" in status.stdout and "activities" in status.stdout

    # The bot answers from that cache (`/sam alarms` reads it), signed with its data folder's secret.
    answer = run_samops(cwd, "slash", f"/sam alarms {panel}", "--timeout", "60")
    assert answer.returncode == 0, answer.stderr
    assert f"{alarm['violationName']} ({alarm['violationType']})" in answer.stdout  # as text, not mrkdwn

    # The dashboard's pages show that service's alarm.
    alarms_page_shows(dashboard, panel, alarm["description"], "up-config-alarms")


def test_parse_args_takes_ports_from_the_settings_only_when_not_given() -> None:
    args = up.parse_args([])
    assert isinstance(args, argparse.Namespace) and args.bot_port is None and args.dashboard_port is None
