"""Transactions on the cache."""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from typing import Any

from core.sqlite_lib import sqlite_utils


@contextlib.contextmanager
def write_transaction(db: sqlite_utils.Database) -> Generator[sqlite_utils.Database, None, None]:
    """One IMMEDIATE transaction: takes the write lock up front, so a concurrent writer waits (busy_timeout)
    instead of failing half-way; readers keep reading the previous snapshot (WAL)."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


def joined(db: sqlite_utils.Database) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext() if db.conn.in_transaction else write_transaction(db)
