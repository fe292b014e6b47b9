"""When samops last heard from each panel: the newest activity of any kind it holds (samops' own supervision
alarms excepted) and the newest controller update (operation 19's `lastUpdate`). Read from the cache alone,
which the poller and the tiered refresh keep: supervision asks the service nothing (core/supervision.py).

Per panel, an index walk each (`activities (resource_id, activity_time)`, `controller_values (resource_id,
...)`): the cost grows with the fleet, not with the history.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from core.cache.alarm_sql import service_event_sql
from core.read.rows import marks, tuples
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class Heard:
    """A panel and the last sign of life the cache holds of it (None: none at all)."""

    resource_id: int
    org_id: int | None
    name: str | None
    last_activity: int | None
    last_update: int | None

    @property
    def last(self) -> int | None:
        """The newest of the two, None when the cache holds neither."""
        known = [t for t in (self.last_activity, self.last_update) if t is not None]
        return max(known) if known else None


def last_heard(db: sqlite_utils.Database, panels: Collection[int] | None = None) -> list[Heard]:
    """Every panel in service (a panel the service lists as disabled is expected to say nothing), or those
    of `panels`, with the last time the cache heard from it."""
    only = "" if panels is None else f" AND p.resource_id IN ({marks(list(panels)) or 'NULL'})"
    sql = (
        "SELECT p.resource_id, p.org_id, p.name,"
        " (SELECT a.activity_time FROM activities a WHERE a.resource_id = p.resource_id"
        f"  AND {service_event_sql('a')} ORDER BY a.activity_time DESC LIMIT 1),"
        " (SELECT max(c.last_update) FROM controller_values c WHERE c.resource_id = p.resource_id)"
        f" FROM panels p WHERE p.enabled IS NOT 0{only} ORDER BY p.resource_id"
    )
    return [
        Heard(int(r[0]), None if r[1] is None else int(r[1]), r[2], r[3], r[4])
        for r in tuples(db, sql, [] if panels is None else list(panels))
        if r[0] is not None
    ]
