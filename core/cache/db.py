"""Opening the cache: two private SQLite files in WAL mode, `cache.db` (what the service can give again)
with `records.db` (samops' own records, core/cache/records.py) attached to every connection, migrated to the
current schema by writers and only read, never changed, by readers.

A writer notices its cache file deleted or replaced (`samops cache reset`, a user's `rm`) at its next
`reopen_if_replaced`, and opens a fresh one there; a records file deleted under it stops it instead
(`RecordsLostError`): that is the team's data, and only a restore from backup can bring it back."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sqlite3
import time
import weakref
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

from core.cache import records
from core.cache.records import RECORDS_VERSION, records_path, records_version
from core.cache.schema import RECORDS_APART, SCHEMA_VERSION, migrate, schema_version
from core.cache.service import Service, folder_lock, stamp, switch_if_other
from core.cache.sql import execute
from core.cache.transactions import write_transaction
from core.private import owner_only, sqlite_files
from core.settings import load_settings
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.cache")

BUSY_TIMEOUT_MS = 10_000
# Per connection: a page cache big enough for the activity indexes (random keys thrash a small one), and
# reads through mmap rather than one read() per page. Both are upper bounds, not allocations.
CACHE_PRAGMAS = ("PRAGMA cache_size = -65536", "PRAGMA mmap_size = 268435456")


def default_path() -> Path:
    """`SAMOPS_DB`, else `$SAMOPS_DATA_DIR/cache.db`, from the environment or `.env` (core.settings)."""
    return load_settings().db_path


@contextlib.contextmanager
def _private_umask() -> Generator[None, None, None]:
    # SQLite creates -wal and -shm next to the file; the umask keeps them owner-only too.
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _create_private_file(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Create the file ourselves so that it is 0600 before SQLite ever writes a byte into it.
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _use_wal(db: sqlite_utils.Database) -> None:
    """Switch the file to WAL (a no-op once it is). Switching a new file needs it to itself, and SQLite may
    answer "database is locked" at once, without waiting out busy_timeout, while another connection opens
    or switches it too (several threads opening a fresh cache): ask again until busy_timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            execute(db, "PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _connect(path: Path, check_same_thread: bool) -> sqlite_utils.Database:
    with _private_umask():
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=check_same_thread)
        db = sqlite_utils.Database(conn)
        execute(db, f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        records.attach(conn, str(records_path(path)))
        _use_wal(db)
        execute(db, "PRAGMA synchronous = NORMAL")
        for pragma in CACHE_PRAGMAS:
            execute(db, pragma)
    return db


@dataclass(frozen=True)
class _Opened:
    """Which files a connection opened, to notice them deleted or replaced under it."""

    path: Path
    cache: tuple[int, int]  # (st_dev, st_ino)
    records: tuple[int, int]
    check_same_thread: bool
    service: Service | None


_opened: weakref.WeakKeyDictionary[sqlite_utils.Database, _Opened] = weakref.WeakKeyDictionary()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


# (cache, service) this process has opened and stamped: its other threads' connections need no second look,
# nor the folder's lock, which would queue every thread of the bot behind one open waiting on a busy cache.
_settled: set[tuple[Path, Service]] = set()

# (cache, the fresh file's identity) already said: the threads of one process (the notifier's loop and its
# history thread) each hold a connection and each notice the same deletion, which is one line, not one each.
_announced: set[tuple[Path, tuple[int, int] | None]] = set()


def _open_files(
    path: Path, check_same_thread: bool, service: Service | None
) -> tuple[sqlite_utils.Database, _Opened]:
    if service is None or (path, service) in _settled:
        db, opened = _open_checked(path, check_same_thread, None)
        return db, dataclasses.replace(opened, service=service)
    with folder_lock(path):
        opened = _open_checked(path, check_same_thread, service)
    _settled.add((path, service))
    return opened


def _open_checked(
    path: Path, check_same_thread: bool, service: Service | None
) -> tuple[sqlite_utils.Database, _Opened]:
    switched = None if service is None else switch_if_other(path, service)
    other = records_path(path)
    split_before = path.is_file() and path.stat().st_size > 0 and not other.exists()
    _create_private_file(path)
    _create_private_file(other)
    # Before connecting: SQLite gives the -wal and -shm it creates the database file's mode.
    for file in [*sqlite_files(path), *sqlite_files(other)]:
        owner_only(file)
    db = _connect(path, check_same_thread)
    try:
        if split_before and schema_version(db) >= RECORDS_APART:
            log.warning(
                "%s is missing beside %s: samops starts with no records (acknowledgements, silences, "
                "windows, incidents, audit log); restore it from a backup to get them back",
                other,
                path,
            )
        with _private_umask():
            migrate(db)
        if service is not None:
            with write_transaction(db):
                stamp(db, service, switched)
    except BaseException:
        db.conn.close()
        raise
    if switched is not None:
        log.warning("%s", switched)
    cache_id, records_id = _identity(path), _identity(other)
    assert cache_id is not None and records_id is not None  # created above
    return db, _Opened(path, cache_id, records_id, check_same_thread, service)


def open_cache(
    path: str | Path | None = None, check_same_thread: bool = True, service: Service | None = None
) -> sqlite_utils.Database:
    """Open (creating them 0600 if needed) the cache and its records for reading and writing, migrated to
    the current schema; a cache of the layout before records.db has its records moved there.

    With `service` (what the process reads: `Service.of(settings)`), files filled from another service or
    account are first moved aside and fresh ones started, saying so (core/cache/service.py); the files
    then record `service`. Without it (tests, tools on a given file) nothing is checked nor recorded.

    The files and their -wal/-shm are made owner-only on every open, even when they existed with looser
    modes; the folder is made 0700 when this creates it (a folder the user chose for SAMOPS_DB may be
    shared, so an existing one is left as it is: the data folder is tightened by the programs)."""
    path = Path(path) if path is not None else default_path()
    db, opened = _open_files(path, check_same_thread, service)
    _opened[db] = opened
    return db


class RecordsLostError(RuntimeError):
    """records.db was deleted or replaced while this process had it open."""


def reopen_if_replaced(db: sqlite_utils.Database) -> bool:
    """If the cache file `db` (from open_cache) was opened on is gone or another file now, open a fresh one
    there in its place (same object: every holder of `db` sees it), log one line (once per process for each
    fresh file) and return True; the next sync refills it. Raises RecordsLostError when the records file is
    gone or replaced: samops stops rather than go on writing into a deleted file. Outside a transaction
    only; cheap (two stat calls)."""
    opened = _opened.get(db)
    if opened is None or db.conn.in_transaction:
        return False
    other = records_path(opened.path)
    if _identity(other) != opened.records:
        raise RecordsLostError(
            f"{other} was deleted or replaced while samops ran: stop samops and restore it from a backup"
            " (or start samops again to begin with empty records)"
        )
    if _identity(opened.path) == opened.cache:
        return False
    if opened.service is not None:  # a fresh file: record the service in it again
        _settled.discard((opened.path, opened.service))
    fresh, now = _open_files(opened.path, opened.check_same_thread, opened.service)
    if now.records != opened.records:  # created anew between the two looks: the same answer as above
        fresh.conn.close()
        raise RecordsLostError(f"{other} was deleted or replaced while samops ran: restore it from a backup")
    old = db.conn
    db.conn = fresh.conn
    _opened[db] = now
    old.close()
    if (opened.path, now.cache) not in _announced:
        _announced.add((opened.path, now.cache))
        log.warning(
            "the cache %s was deleted or replaced under samops: a fresh one is open, the next sync refills"
            " it",
            opened.path,
        )
    return True


class CacheUnavailableError(RuntimeError):
    """The cache cannot be read as it is: missing, or at another schema version than this samops."""


def open_reader(path: str | Path | None = None) -> sqlite_utils.Database:
    """Open the cache read-only for the read API, from any thread (Streamlit, bolt listeners).

    Never writes: no file is created, no migration runs, the journal mode is left as the sync set it (WAL,
    so an open write never blocks this reader). Raises CacheUnavailableError when the file is missing or
    its schema is not this samops' one, sqlite3.DatabaseError when it is not a database."""
    path = Path(path) if path is not None else default_path()
    if not path.is_file():
        raise CacheUnavailableError(f"no cache at {path}: run `samops sync` first")
    with _private_umask():  # SQLite may create the -wal and -shm files beside it
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro",
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        )
    db = sqlite_utils.Database(conn)
    try:
        execute(db, f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        for pragma in CACHE_PRAGMAS:
            execute(db, pragma)
        _check_version(db, path)
        other = records_path(path)
        if not other.is_file():
            raise CacheUnavailableError(f"no records file at {other}: run `samops sync` to create it")
        with _private_umask():
            records.attach(conn, f"{other.resolve().as_uri()}?mode=ro")
        _check_records_version(db, other)
    except BaseException:
        conn.close()
        raise
    return db


def _check_version(db: sqlite_utils.Database, path: Path) -> None:
    found = schema_version(db)
    if found < SCHEMA_VERSION:
        raise CacheUnavailableError(
            f"the cache at {path} has schema version {found}, older than this samops ({SCHEMA_VERSION}):"
            " run `samops sync` to upgrade it"
        )
    if found > SCHEMA_VERSION:
        raise CacheUnavailableError(
            f"the cache at {path} has schema version {found}, newer than this samops ({SCHEMA_VERSION}):"
            " upgrade samops, or run `samops sync` with the samops that wrote it"
        )


def _check_records_version(db: sqlite_utils.Database, other: Path) -> None:
    found = records_version(db)
    if found != RECORDS_VERSION:
        raise CacheUnavailableError(
            f"the records at {other} have schema version {found}, not this samops' ({RECORDS_VERSION}):"
            " run `samops sync` with this samops to bring them to it"
        )
