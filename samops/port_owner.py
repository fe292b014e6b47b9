"""Who listens on a port, when it is samops itself: a second `make run` should say "samops already runs
here", not blame another program. Read from Linux's /proc (the listening socket's inode, the process
holding it, its parents); anywhere else, or for another user's process, the answer is "unknown" (None)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
LISTEN = "0A"  # the TCP state of a listening socket, as /proc/net/tcp writes it


@dataclass(frozen=True)
class SamopsProcess:
    pid: int
    command: str  # "samops up", "samops bot", ...
    cwd: str | None

    def describe(self) -> str:
        where = f" in {self.cwd}" if self.cwd else ""
        return f"`{self.command}`, pid {self.pid}{where}"


def listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in (PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) > 9 and fields[3] == LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(fields[9])
    return inodes


def holder(port: int) -> int | None:
    """The pid of a process of ours (readable /proc/<pid>/fd) that listens on `port`."""
    sockets = {f"socket:[{inode}]" for inode in listening_inodes(port)}
    if not sockets:
        return None
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in sockets:
                        return int(entry.name)
    return None


def samops_command(pid: int) -> str | None:
    """ "samops <subcommand>" when `pid` runs the samops CLI (`python -m samops …` or the console script)."""
    try:
        argv = (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    args = [a.decode(errors="replace") for a in argv if a]
    for i, arg in enumerate(args[:3]):
        if (arg == "samops" and i > 0 and args[i - 1] == "-m") or os.path.basename(arg) == "samops":
            sub = next((a for a in args[i + 1 :] if not a.startswith("-")), "")
            return f"samops {sub}".strip()
    return None


def parent(pid: int) -> int | None:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    ppid = int(stat.rsplit(")", 1)[1].split()[1])  # after the command name, which may hold spaces
    return ppid if ppid > 1 else None


def samops_holding(port: int) -> SamopsProcess | None:
    """The outermost samops process (`samops up`, if it started the part) whose part listens on `port`."""
    pid = holder(port)
    found: SamopsProcess | None = None
    for _ in range(8):  # the dashboard's server is a grandchild of `samops up`
        if pid is None:
            break
        command = samops_command(pid)
        if command is not None:
            cwd = None
            with contextlib.suppress(OSError):
                cwd = os.readlink(PROC / str(pid) / "cwd")
            found = SamopsProcess(pid, command, cwd)
        pid = parent(pid)
    return found
