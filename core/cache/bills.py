"""Writes of `bills`: each subscription's bills (operation 7) as `core.bills` last read them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.sqlite_lib import sqlite_utils

TABLE = "bills"


def replace_bills(db: sqlite_utils.Database, subscription_id: int, rows: Sequence[dict[str, Any]]) -> None:
    """`rows` in place of what the cache held for the subscription, in the caller's transaction: a bill the
    service no longer lists is not kept as if it were still owed."""
    db.conn.execute(f"DELETE FROM {TABLE} WHERE subscription_id = ?", [subscription_id])
    db.conn.executemany(
        f"INSERT OR REPLACE INTO {TABLE} (subscription_id, bill_id, org_id, bill_no, due_at, paid_at, amount,"
        " unit, state, fetched_at) VALUES (:subscription_id, :bill_id, :org_id, :bill_no, :due_at, :paid_at,"
        " :amount, :unit, :state, :fetched_at)",
        rows,
    )
