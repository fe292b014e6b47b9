"""One samops per data folder (issue 33): with `samops up` running in a folder, a second `samops up` there on
other ports, a notifier or a sync loop started by hand are each refused with one line naming the running
one, its pid and its ports (exit 3), and start nothing; once it stops, the folder is free again."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from core.run_lock import ROLES, holder_of
from tests.support.processes import ROOT, ctrl_c, free_port, samops_cmd, samops_free_env


def test_a_second_samops_in_the_same_folder_is_refused_whatever_its_ports(tmp_path: Path) -> None:
    env = samops_free_env(PYTHONPATH=str(ROOT))
    sim, bot = free_port(), free_port()
    first = ["--no-dashboard", "--sim-port", str(sim), "--bot-port", str(bot), "--sync-every", "60"]
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(samops_cmd("up", *first), cwd=tmp_path, env=env, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 180
        while "stop:      Ctrl-C" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        running = (
            f"samops already runs on this data folder ({tmp_path / '.samops'}): `samops up`, pid {proc.pid}"
        )
        ports = f"ports bot {bot}, simulator {sim}"

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                samops_cmd(*args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
            )

        other_ports = ["--sim-port", str(free_port()), "--bot-port", str(free_port())]
        again = run("up", *other_ports, "--dashboard-port", str(free_port()))
        assert again.returncode == 3, again.stdout + again.stderr
        [line] = again.stderr.strip().splitlines()
        assert line.startswith(f"samops up: {running}, {ports}"), line
        assert (
            "--bot-port" not in line and "choose another port" not in line
        )  # no second copy on the same data
        assert again.stdout == ""  # nothing started: no simulator, no first sync

        # The parts `samops up` runs, started by hand: refused too, naming the `samops up` that runs theirs.
        notify = run("notify")
        assert (
            notify.returncode == 3 and f"samops notify: {running}, {ports} (its notify: pid " in notify.stderr
        )
        sync = run("sync", "--every", "5")
        assert sync.returncode == 3 and f"samops sync: {running}, {ports} (its sync: pid " in sync.stderr
    finally:
        assert ctrl_c(proc) == 0, log.read_text()[-3000:]
    cache = tmp_path / ".samops" / "cache.db"
    assert [role for role in ROLES if holder_of(cache, role) is not None] == []  # stopped: the folder is free
