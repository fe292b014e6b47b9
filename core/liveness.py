"""The notifier's sign of life for `samops up`'s hang watch: a small file beside the cache (`notify.alive`
beside `cache.db`, `x-notify.alive` beside `x.db`, named as the run locks are) holding the wall-clock time
(epoch ms) by which the notifier promises to finish its next cycle. The notifier rewrites it after each
cycle; `samops up` restarts a notifier whose promise has passed. A file, not a row: `samops up` reads it
without opening SQLite, and a stopped (SIGSTOP), deadlocked or endlessly waiting notifier simply stops
rewriting it.

How long a cycle may take: `SAMOPS_HANG_AFTER` seconds when set, else `HANG_INTERVALS` poll intervals, at
least `HANG_MIN_S` (a cycle at fleet size waits seconds for the service; a minute is never a hang).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from core.clock import now_ms

HANG_INTERVALS = 5
HANG_MIN_S = 60.0
FIRST_CYCLE_TIMES = 3  # the first cycle (a login, the fleet's panels learnt) may take this many times longer


def hang_after_s(interval_s: float, configured: float | None) -> float:
    """How long a cycle may stay unfinished before the notifier counts as hung."""
    return configured if configured is not None else max(HANG_INTERVALS * interval_s, HANG_MIN_S)


def alive_path(cache: Path) -> Path:
    name = "notify.alive" if cache.name == "cache.db" else f"{cache.stem}-notify.alive"
    return cache.with_name(name)


def promise(path: Path, within_s: float) -> None:
    """Say that the next cycle ends within `within_s`: written whole (a reader never sees half a number)."""
    part = path.with_name(path.name + ".part")
    part.write_text(str(now_ms() + int(within_s * 1000)))
    os.replace(part, path)


def overdue_s(path: Path, since_ms: int) -> float | None:
    """How many seconds the promise in `path` has passed (≤ 0: not yet); None when there is no promise made
    after `since_ms` (a notifier that has not finished its first cycle since it started)."""
    try:
        text = path.read_text()
        written = path.stat().st_mtime_ns // 1_000_000
    except OSError:
        return None
    with contextlib.suppress(ValueError):
        if written >= since_ms:
            return (now_ms() - int(text)) / 1000
    return None
