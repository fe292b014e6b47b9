"""The time zone an organization lives in, as far as the cache can tell.

The service's Organization record holds only a name and an id; its users carry a `timeZoneId` (the login
result and the organization's users, operations 1 and 2). An organization's zone is therefore the zone most of
its cached users have, ties going to the alphabetically first; names that are not IANA zones are skipped.
"""

from __future__ import annotations

from core import timefmt
from core.read.rows import query
from core.sqlite_lib import sqlite_utils


def organization_time_zone(db: sqlite_utils.Database, org_id: int | None = None) -> str | None:
    """The most common valid `timeZoneId` among the users of `org_id` (of every organization when None)."""
    scope, params = ("", []) if org_id is None else (" AND org_id = ?", [org_id])
    rows = query(
        db,
        "SELECT json_extract(raw, '$.timeZoneId') AS zone, count(*) AS n FROM users"
        f" WHERE json_valid(raw){scope} GROUP BY zone ORDER BY n DESC, zone",
        params,
    )
    return next((row["zone"] for row in rows if timefmt.zone(row["zone"]) is not None), None)
