"""The subscriptions samops knows of: each panel's `resourceSubscriptionId` from the login (kept in the
panel's raw record), per organization. `core.bills` reads their bills."""

from __future__ import annotations

from core.read.rows import tuples
from core.sqlite_lib import sqlite_utils


def subscriptions_by_org(db: sqlite_utils.Database) -> dict[int, list[int]]:
    """{organization (0: none): its subscription ids, ascending}."""
    sql = (
        "SELECT DISTINCT coalesce(org_id, 0), json_extract(raw, '$.resourceSubscriptionId') AS s FROM panels"
        " WHERE json_valid(raw) AND typeof(json_extract(raw, '$.resourceSubscriptionId')) = 'integer'"
        " ORDER BY 1, 2"
    )
    subs: dict[int, list[int]] = {}
    for org, sub in tuples(db, sql):
        subs.setdefault(int(org), []).append(int(sub))
    return subs
