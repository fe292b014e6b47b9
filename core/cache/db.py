"""Opening the cache: a private SQLite file in WAL mode, migrated to the current schema by writers and only
read, never changed, by readers."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Generator
from pathlib import Path

from core.cache.schema import SCHEMA_VERSION, migrate, schema_version
from core.cache.sql import execute
from core.private import owner_only, sqlite_files
from core.settings import load_settings
from core.sqlite_lib import sqlite_utils

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
        _use_wal(db)
        execute(db, "PRAGMA synchronous = NORMAL")
        for pragma in CACHE_PRAGMAS:
            execute(db, pragma)
    return db


def open_cache(path: str | Path | None = None, check_same_thread: bool = True) -> sqlite_utils.Database:
    """Open (creating it 0600 if needed) the cache for reading and writing, migrated to the current schema.

    The cache and its -wal/-shm are made owner-only on every open, even when they existed with looser
    modes; the folder is made 0700 when this creates it (a folder the user chose for SAMOPS_DB may be
    shared, so an existing one is left as it is: the data folder is tightened by the programs)."""
    path = Path(path) if path is not None else default_path()
    _create_private_file(path)
    # Before connecting: SQLite gives the -wal and -shm it creates the database file's mode.
    for file in sqlite_files(path):
        owner_only(file)
    db = _connect(path, check_same_thread)
    with _private_umask():
        migrate(db)
    return db


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
