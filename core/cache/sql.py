"""How core/cache runs a statement: through sqlite-utils, typed once.

sqlite-utils' `Database.execute` commits a write itself when no transaction is open (and joins one that
is), and `Database.query` runs a row-returning statement in a savepoint: the cache's writes rely on both, so
they go through sqlite-utils, not `db.conn`. Its parameter types (a bare `Sequence`, a bare `dict`) and its
rows (a bare `dict`) leave a strict checker with partially unknown types: these helpers take that on once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, cast

from core.sqlite_lib import sqlite_utils

# Positional (`?`) or named (`:name`) parameters, as sqlite3 takes them.
Params = Sequence[Any] | dict[str, Any]


def execute(db: sqlite_utils.Database, sql: str, params: Params | None = None) -> sqlite3.Cursor:
    """Run `sql` as `db.execute` does (a write commits unless a transaction is open)."""
    return db.execute(sql, params)  # pyright: ignore[reportUnknownMemberType]  # sqlite-utils' bare Sequence/dict


def query(db: sqlite_utils.Database, sql: str, params: Params | None = None) -> list[dict[str, Any]]:
    """The rows of `sql` as dicts keyed by column name, as `db.query` gives them."""
    rows = db.query(sql, params)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]  # bare dict rows
    return cast("list[dict[str, Any]]", list(rows))  # pyright: ignore[reportUnknownArgumentType]


def has_table(db: sqlite_utils.Database, name: str) -> bool:
    """Whether a table `name` exists in any schema of the connection (the cache's or the attached records',
    core/cache/records.py); sqlite-utils' `Table.exists` looks in the main one only."""
    schemas = [str(row[1]) for row in db.conn.execute("PRAGMA database_list")]
    sql = "SELECT 1 FROM [{}].sqlite_master WHERE type = 'table' AND name = ?"
    return any(db.conn.execute(sql.format(schema), [name]).fetchone() for schema in schemas)
