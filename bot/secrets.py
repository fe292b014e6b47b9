"""The signing secret of a local run: made once, kept owner-only in the data folder.

Slack gives a real app its signing secret; a local run (`samops bot` + `samops slash`, no Slack) makes its
own and both sides read it from `$SAMOPS_DATA_DIR/signing-secret`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from core.private import owner_only

FILE_NAME = "signing-secret"


def secret_path(data_dir: Path) -> Path:
    return data_dir / FILE_NAME


def secure_data_dir(data_dir: Path) -> None:
    """The data folder 0700 and the local secret 0600, however they were left (each tightening is logged)."""
    owner_only(data_dir)
    owner_only(secret_path(data_dir))


def read_local_secret(data_dir: Path) -> str | None:
    path = secret_path(data_dir)
    try:
        value = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return value or None


def local_signing_secret(data_dir: Path) -> str:
    """The data folder's secret, created (folder 0700, file 0600) if there is none yet."""
    secure_data_dir(data_dir)
    if existing := read_local_secret(data_dir):
        return existing
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = secret_path(data_dir)
    value = secrets.token_hex(32)
    # O_EXCL: two processes starting together agree on whichever secret was written first.
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(value + "\n")
        return value
    return read_local_secret(data_dir) or value
