"""The data folder's lock (core/run_lock.py): held by a real process, refused to a second one with who holds
it, and free again the moment its holder is killed with -9 (no stale pid file)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from core.run_lock import RunLock, hold, holder_of, lock_path
from tests.support.processes import ROOT

HOLDER = """
import sys, time
from pathlib import Path
from core.run_lock import hold
lock = hold(Path(sys.argv[1]), "notify", "samops notify", {"bot": 3000})
print("held" if not isinstance(lock, str) else lock, flush=True)
time.sleep(60)
"""


def test_the_lock_is_refused_while_held_and_free_after_a_kill_9(tmp_path: Path) -> None:
    cache = tmp_path / "data" / "cache.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(cache)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        found = holder_of(cache, "notify")
        assert found is not None and found.pid == proc.pid and found.ports == {"bot": 3000}
        refused = hold(cache, "notify", "samops notify")
        folder = tmp_path / "data"
        assert refused == (
            f"samops already runs on this data folder ({folder}): `samops notify`, pid {proc.pid}, ports bot "
            "3000; use that one, or stop it (Ctrl-C in its terminal) before starting another"
        )
        assert holder_of(cache, "sync") is None  # each role its own lock
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert holder_of(cache, "notify") is None
    lock = hold(cache, "notify", "samops notify")
    assert isinstance(lock, RunLock)
    lock.release()


def test_lock_files_are_named_after_their_cache() -> None:
    assert lock_path(Path("/d/cache.db"), "up") == Path("/d/up.lock")
    assert lock_path(Path("/d/x.db"), "notify") == Path("/d/x-notify.lock")  # another cache, another lock
