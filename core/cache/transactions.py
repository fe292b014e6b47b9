"""Transactions on the cache."""

from __future__ import annotations

import contextlib
import sqlite3
import weakref
from collections.abc import Callable, Generator
from typing import Any

from core.sqlite_lib import sqlite_utils


class BusyError(sqlite3.OperationalError):
    """The write lock (of cache.db or records.db, attached) was not free within the wait: the transaction
    never began, so nothing of it was done. A person's write is refused with "busy, try again"
    (bot/writes.py), never half done."""


# Connections inside a write_transaction: a write_transaction begun inside one joins it (one commit for
# an act and its audit row, docs/security.md), where a second BEGIN would fail. Only ours: a transaction the
# sqlite3 module began implicitly is not joined (it would never be committed).
_open: weakref.WeakSet[sqlite_utils.Database] = weakref.WeakSet()


def is_busy(error: BaseException) -> bool:
    """SQLite's answer when the lock stayed taken past the busy timeout."""
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


@contextlib.contextmanager
def write_transaction(
    db: sqlite_utils.Database, wait_ms: int | None = None
) -> Generator[sqlite_utils.Database, None, None]:
    """One IMMEDIATE transaction: takes the write lock up front, so a concurrent writer waits (busy_timeout,
    or `wait_ms` for this one) instead of failing half-way; readers keep reading the previous snapshot (WAL).
    Raises BusyError when the lock is not had in time (nothing was done). Inside another write_transaction
    on the same handle, joins it: its writes commit, or roll back, with the outer ones."""
    if db in _open and db.conn.in_transaction:
        yield db
        return
    _begin(db, wait_ms)
    _open.add(db)
    try:
        yield db
    except BaseException:
        _open.discard(db)
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    _open.discard(db)
    try:
        db.conn.execute("COMMIT")
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise


def _begin(db: sqlite_utils.Database, wait_ms: int | None) -> None:
    before = None
    if wait_ms is not None:
        before = db.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        db.conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
    try:
        db.conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as err:
        if is_busy(err):
            raise BusyError(str(err)) from err
        raise
    finally:
        if before is not None:
            db.conn.execute(f"PRAGMA busy_timeout = {int(before)}")


@contextlib.contextmanager
def savepoint(db: sqlite_utils.Database, name: str = "act") -> Generator[Callable[[], None], None, None]:
    """A savepoint inside the transaction open on `db`: the callable it gives undoes what was written since
    (a failed act, while its claim and audit row stay to be committed); released at the end either way."""

    def undo() -> None:
        db.conn.execute(f"ROLLBACK TO {name}")

    db.conn.execute(f"SAVEPOINT {name}")
    try:
        yield undo
    finally:
        db.conn.execute(f"RELEASE {name}")


def joined(db: sqlite_utils.Database) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext() if db.conn.in_transaction else write_transaction(db)
