"""Raw SQL on a samops data folder, as the product sees it: `cache.db` with `records.db` attached, so a test
names a table without its file (core/cache/records.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.cache.records import SCHEMA, records_path


def connect(cache: Path, read_only: bool = False) -> sqlite3.Connection:
    """A connection to `cache` with its records file attached when there is one (never created here)."""
    suffix = "?mode=ro" if read_only else ""
    conn = sqlite3.connect(f"{cache.resolve().as_uri()}{suffix}", uri=True)
    records = records_path(cache)
    if records.exists():
        conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", [f"{records.resolve().as_uri()}{suffix}"])
    return conn


def table_names(conn: sqlite3.Connection) -> set[str]:
    """Every table of every file of the connection."""
    schemas = [str(row[1]) for row in conn.execute("PRAGMA database_list")]
    return {
        str(row[0])
        for schema in schemas
        for row in conn.execute(f"SELECT name FROM [{schema}].sqlite_master WHERE type = 'table'")
    }
