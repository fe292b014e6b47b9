"""The time zone an organization lives in, as far as the cache can tell.

The service's Organization record holds only a name and an id; its users carry a `timeZoneId` (the login
result and the organization's users, operations 1 and 2). An organization's zone is therefore the zone most of
its cached users have, ties going to the alphabetically first; names that are not IANA zones are skipped.

This is the fallback of `core.timefmt.org_zone`, where the config names no zone for the organization: the bot
and the notifier (`UsersZones`, through `NotifyConfig.zone_for`) and the dashboard read it alike.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

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


def users_zone(db: sqlite_utils.Database, org_id: int | None) -> str | None:
    """The zone most of the organization's cached users have, else most of all cached users (None: no user
    with a valid zone is cached)."""
    return organization_time_zone(db, org_id) or organization_time_zone(db)


class UsersZones:
    """`users_zone` per organization for a process that shows times all day (the bot, the notifier): re-read
    at most every `ttl` seconds, since a card or an App Home asks for it on every time it shows."""

    def __init__(self, db: Callable[[], sqlite_utils.Database], ttl: float = 60.0) -> None:
        self._db = db  # this thread's connection (SQLite connections stay in their thread)
        self._ttl = ttl
        self._known: dict[int | None, tuple[float, str | None]] = {}
        self._lock = threading.Lock()

    def __call__(self, org_id: int | None) -> str | None:
        now = time.monotonic()
        with self._lock:
            known = self._known.get(org_id)
        if known is not None and known[0] > now:
            return known[1]
        try:
            name = users_zone(self._db(), org_id)
        except (sqlite3.Error, RuntimeError):  # no cache yet, or a busy one: UTC this time, ask again next
            return None
        with self._lock:
            self._known[org_id] = (now + self._ttl, name)
        return name
