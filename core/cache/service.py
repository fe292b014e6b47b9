"""One service per cache: which service (base URL) and account filled a data folder, and what happens when
another one is configured.

Both files record the service that filled them (`meta` in cache.db, `records_meta` in records.db). When a
process opens them for another service or account, the old files move aside, whole, to
`previous/<host>-<account>-<UTC time>/` beside them, fresh ones start, and one line says so (in the log
and, from `switched`, in `samops status`). Nothing is deleted and nothing of two services is ever mixed.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import sqlite3
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core import timefmt
from core.cache import records
from core.cache.records import records_path
from core.cache.sql import execute
from core.clock import now_ms
from core.private import sqlite_files
from core.sqlite_lib import sqlite_utils

if TYPE_CHECKING:
    from core.settings import Settings

log = logging.getLogger("samops.cache")

URL, ACCOUNT, SWITCHED = "service_url", "service_account", "service_switched"
PREVIOUS = "previous"  # the folder, beside the files, that old services' files move to
EMBEDDED = "the embedded simulator"  # what a loopback simulator's demo account is recorded as
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Service:
    """A service and the account samops reads it as."""

    url: str
    account: str

    @classmethod
    def of(cls, settings: Settings) -> Service:
        # Without any user:password@ in the URL: this is said on the console and in `samops status`.
        parts = urlsplit(str(settings.base_url))
        if parts.hostname in LOOPBACK_HOSTS and settings.demo_account:
            # The embedded simulator (or one like it) as its demo account: one service whatever its port,
            # which `samops up` moves when 8080 is taken; counting each port apart would move the records
            # aside on every such start.
            return cls(EMBEDDED, settings.screen_name)
        url = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
        return cls(url.rstrip("/"), settings.screen_name)

    def __str__(self) -> str:
        return f"{self.url} as {self.account}"


@dataclass(frozen=True)
class Recorded:
    """What the files record about the service that filled them."""

    service: Service | None
    switched: str | None  # the line said when this folder last changed service


@contextlib.contextmanager
def folder_lock(cache: Path) -> Generator[None, None, None]:
    """Hold the data folder's lock (a file beside the cache), so that the processes that start together
    (`samops up`: the notifier and the first sync) decide a switch once, not each on its own."""
    cache.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # A hidden name: `rm .samops/cache.db*` must not take the lock file away from under a holder.
    fd = os.open(cache.with_name(f".{cache.name}.lock"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_meta(path: Path, table: str) -> dict[str, str]:
    if not path.is_file() or path.stat().st_size == 0:
        return {}
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            rows = conn.execute(f"SELECT key, value FROM [{table}]").fetchall()
    except sqlite3.Error:  # no such table yet: nothing recorded
        return {}
    return {str(key): str(value) for key, value in rows}


def _service(meta: dict[str, str]) -> Service | None:
    if URL not in meta or ACCOUNT not in meta:
        return None
    return Service(meta[URL], meta[ACCOUNT])


def recorded_in_files(cache: Path) -> Service | None:
    """The service the files at `cache` were filled from (the records' word first), None if unknown."""
    return _service(_read_meta(records_path(cache), records.META)) or _service(_read_meta(cache, "meta"))


def recorded(db: sqlite_utils.Database) -> Recorded:
    """What an open cache records (for `samops status`)."""
    meta = {key: records.get_meta(db, key) for key in (URL, ACCOUNT, SWITCHED)}
    service = None
    if meta[URL] is not None and meta[ACCOUNT] is not None:
        service = Service(meta[URL] or "", meta[ACCOUNT] or "")
    return Recorded(service, meta[SWITCHED])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")[:60] or "service"


def move_aside(cache: Path, old: Service) -> Path:
    """Move the cache, the records and their -wal/-shm to a new folder named for `old` and the time."""
    host = urlsplit(old.url).netloc or old.url
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = cache.parent / PREVIOUS / f"{_slug(host)}-{_slug(old.account)}-{stamp}"
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(target.parent, 0o700)
    for file in [*sqlite_files(cache), *sqlite_files(records_path(cache))]:
        if file.exists():
            file.rename(target / file.name)
    return target


def switch_if_other(cache: Path, service: Service) -> str | None:
    """Before the files are opened (holding `folder_lock`): when they were filled from another service or
    account, move them aside and return the line that says so; else None."""
    old = recorded_in_files(cache)
    if old is None or old == service:
        return None
    target = move_aside(cache, old)
    return (
        f"the data folder held {old}; samops is now configured for {service}: moved the old cache and"
        f" records to {target} (nothing deleted) and started fresh ones"
    )


def stamp(db: sqlite_utils.Database, service: Service, switched: str | None) -> None:
    """Record `service` in both files if they record none yet (new files, or a cache from before this), in
    the caller's transaction."""
    if records.get_meta(db, URL) is None:
        records.set_meta(db, URL, service.url)
        records.set_meta(db, ACCOUNT, service.account)
    if switched is not None:
        # Read by `samops status` on this machine's console: on its clock, named.
        records.set_meta(db, SWITCHED, f"{timefmt.host(now_ms())}: {switched}")
    for key, value in ((URL, service.url), (ACCOUNT, service.account)):
        execute(db, "INSERT OR IGNORE INTO main.meta (key, value) VALUES (?, ?)", [key, value])
