"""Ordering reads by priority (core/priorities.py) in SQL, so that a read by priority keeps its LIMIT."""

from __future__ import annotations

from core.priorities import Priorities
from core.sqlite_lib import sqlite_utils


def priority_sql(db: sqlite_utils.Database, priorities: Priorities, table: str = "a") -> str:
    """An SQL expression giving the priority's number (1 for P1) of the alarm in `table` (an `activities`
    row), through a function registered on `db`'s connection: a read can order by priority and keep its
    LIMIT, whatever the rules."""
    name, rank = priorities.rank_sql()
    db.conn.create_function(name, 5, rank, deterministic=True)
    columns = ("violation_name", "violation_type", "event_type", "org_id", "resource_id")
    return f"{name}({', '.join(f'{table}.{c}' for c in columns)})"
