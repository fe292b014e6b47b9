"""Owner-only files: the data folder is 0700 and the files samops keeps 0600, fixed on every start.

Creating files private is not enough: a folder or cache left 0755/0644 by an older samops, a restore from
backup or a hand-made `mkdir` would stay readable by every local user. So each program tightens what it
uses when it starts, and says so in its log when it had to.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("samops.files")

GROUP_AND_OTHERS = 0o077


def owner_only(path: Path) -> bool:
    """Take every group and other permission away from `path` (0755 → 0700, 0644 → 0600); log a warning
    naming it when that changed anything. A missing path is left alone; True if the mode was tightened."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return False
    if not mode & GROUP_AND_OTHERS:
        return False
    os.chmod(path, mode & ~GROUP_AND_OTHERS)
    log.warning(
        "%s was readable by others (mode %04o): now owner-only (%04o)", path, mode, mode & ~GROUP_AND_OTHERS
    )
    return True


def sqlite_files(path: Path) -> list[Path]:
    """A SQLite database and the files SQLite keeps beside it."""
    return [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]
