"""One samops per data folder: `samops up`, the notifier and the sync loop each hold an OS lock on a file
beside the cache for as long as they run, so that a second one on the same data is refused with one line
naming the first (its pid and ports), whatever ports it was given.

The lock is `fcntl.flock` on `<role>.lock` beside `cache.db` (beside another cache name, `x.db`:
`x-<role>.lock`, as records.db is named): the kernel frees it when the process ends, however it ends (a
kill -9 too), so it never goes stale as a pid file would. The file's text (one JSON line) only describes
the holder; the lock is what counts. Roles: `up` (held by `samops up`), `notify` (`samops notify`, which
`samops up` starts as its child) and `sync` (`samops sync --every`); each part takes its own role's lock, so
`samops up`'s children do not refuse themselves, and `samops up` looks at its children's locks before it
starts them. Imports nothing of ours: `samops up` uses it before anything else. (Not
`core.cache.service.folder_lock`: that one is held for a moment, while the processes starting together
decide a switch of service; this one for a whole run.)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

# Every samops program's exit code when another samops already runs on its data folder.
ALREADY_RUNNING = 3

ROLES = ("up", "notify", "sync")


def lock_path(cache: Path, role: str) -> Path:
    """The lock file of `role` for the cache file `cache` (`up.lock` beside `cache.db`, else `x-up.lock`)."""
    name = f"{role}.lock" if cache.name == "cache.db" else f"{cache.stem}-{role}.lock"
    return cache.absolute().with_name(name)


@dataclass
class Holder:
    """What a lock file says of the process holding it."""

    pid: int | None
    command: str
    ports: dict[str, int]
    parent: int | None

    def describe(self) -> str:
        pid = f", pid {self.pid}" if self.pid else ""
        ports = ", ".join(f"{name} {port}" for name, port in self.ports.items())
        return f"`{self.command}`{pid}" + (f", ports {ports}" if ports else "")


class RunLock:
    """A role's lock, held until `release` or the process's end."""

    def __init__(self, path: Path, fd: int, command: str) -> None:
        self.path = path
        self._fd = fd
        self.command = command

    def describe_as(self, ports: dict[str, int]) -> None:
        """Write who holds the lock (this process, its command and `ports`) into the lock file."""
        text = json.dumps(
            {"pid": os.getpid(), "command": self.command, "ports": ports, "parent": os.getppid()}
        )
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, (text + "\n").encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the file frees the lock
            self._fd = -1


def _read(path: Path) -> Holder | None:
    # The holder writes its line right after it takes the lock: a reader that comes in between waits a moment.
    for _ in range(20):
        with contextlib.suppress(OSError, ValueError, TypeError):
            data = json.loads(path.read_text())
            ports = {str(k): int(v) for k, v in dict(data.get("ports") or {}).items()}
            pid, parent = data.get("pid"), data.get("parent")
            return Holder(
                int(pid) if pid else None, str(data.get("command") or "samops"), ports, parent and int(parent)
            )
        time.sleep(0.05)
    return None


def _try(path: Path) -> int | None:
    """The lock file's descriptor with the lock taken, or None when another process holds it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def holder_of(cache: Path, role: str) -> Holder | None:
    """Who holds `role`'s lock for `cache`, or None when nobody does."""
    path = lock_path(cache, role)
    fd = _try(path)
    if fd is not None:
        os.close(fd)
        return None
    return _read(path) or Holder(None, f"samops {role}", {}, None)


def refusal(cache: Path, role: str, found: Holder) -> str:
    """The one line that refuses a second `role` on `cache`: who runs there (the `samops up` that started
    it, when it is one's child), and what to do; never another port, which would start a second copy on the
    same data."""
    up = holder_of(cache, "up") if role != "up" else None
    if up is not None and up.pid is not None and found.parent == up.pid:
        who = f"{up.describe()} (its {role}: pid {found.pid})"
    else:
        who = found.describe()
    return (
        f"samops already runs on this data folder ({cache.absolute().parent}): {who}; use that one, or stop "
        "it (Ctrl-C in its terminal) before starting another"
    )


def hold(cache: Path, role: str, command: str, ports: dict[str, int] | None = None) -> RunLock | str:
    """Take `role`'s lock for `cache` for this process's lifetime: the lock, or the line refusing it."""
    path = lock_path(cache, role)
    fd = _try(path)
    if fd is None:
        found = _read(path) or Holder(None, f"samops {role}", {}, None)
        return refusal(cache, role, found)
    lock = RunLock(path, fd, command)
    lock.describe_as(ports or {})
    return lock
