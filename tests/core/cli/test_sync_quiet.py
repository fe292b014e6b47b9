"""`samops sync --every` (what `samops up` runs) says a cycle only when it changed something (issue 37: a line
"synced 16 panels in 0.0 s: push_history 0" every 30 s read as news, and as health): a real sync process
against a real simulator with no new activity."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from core.cli.sync import changed
from core.sync import SyncReport
from tests.support.processes import ROOT, run_simulator, samops_cmd, stop


def test_a_cycle_changed_something_when_it_fetched_deleted_or_failed() -> None:
    assert not changed(SyncReport(0, rows={"push_history": 0}, panels=16))
    assert changed(SyncReport(0, rows={"panels": 3}))
    assert changed(SyncReport(0, deleted={"cameras": 1}))
    assert changed(SyncReport(0, errors=["sensors: 500"]))


def test_the_periodic_sync_is_silent_while_nothing_changes(tmp_path: Path) -> None:
    with run_simulator("--alarm-rate", "0", "--panels", "4", "--history-days", "1") as sim:
        log_path = tmp_path / "sync.log"
        env = {
            **os.environ,
            "SAM_BASE_URL": sim.base_url,
            "SAM_SCREEN_NAME": "demo",
            "SAM_PASSWORD": "demo",
            "SAMOPS_DATA_DIR": str(tmp_path / "data"),
        }
        with log_path.open("w") as log:
            proc = subprocess.Popen(
                samops_cmd("sync", "--every", "0.3", "--no-activities"),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + 120
            while "synced " not in log_path.read_text():  # the first cycle fetches everything: said
                assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.2)
            time.sleep(4)  # some ten cycles that find nothing new
        finally:
            stop(proc)
    text = log_path.read_text()
    summaries = [line for line in text.splitlines() if "synced " in line]
    assert len(summaries) == 1, text
    assert "Traceback" not in text
