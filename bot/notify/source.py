"""Where new alarms come from.

`cache`: the sync (`samops sync`) keeps the activities table fresh; the notifier only reads it.
`service`: the notifier polls operation 3 and, every few polls, operation 20 per panel itself, and writes
what it gets into the activities table, so that every alarm is in the cache either way. Discovery of new
alarms is then the same query for both (see `service.py`).

The spec's Activity record names no panel (decisions.md, "which panel an activity belongs to"): an
activity is known to be a panel's only when a request whose `resourceIds` held that panel alone returned
it. So each poll first asks once over all of an organization's panels; nothing new costs that one
request. When something is new, a `resourceId` on the records (a service may send one) is used as is;
without it every panel is asked on its own, a few at a time (`Attribution`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import sqlite_utils

from core import read
from core.cache.outbox import get_state, set_state
from core.cache.writes import (
    activity_row,
    as_dict,
    panel_row,
    upsert_activities,
    upsert_dicts,
    write_transaction,
)
from core.client import SamClient
from core.errors import SamError

OVERLAP_MS = 120_000  # re-read this much before the last poll: activities can land a little late
RELOGIN_EVERY = 200  # polls
PANEL_CONCURRENCY = 8  # per-panel requests in flight at once


class Source(Protocol):
    name: str

    def poll(self, db: sqlite_utils.Database, since: int) -> None: ...

    def data_as_of(self, db: sqlite_utils.Database) -> int | None: ...


class CacheSource:
    name = "cache"

    def poll(self, db: sqlite_utils.Database, since: int) -> None:
        return None

    def data_as_of(self, db: sqlite_utils.Database) -> int | None:
        try:
            rows = read.freshness(db)
        except NotImplementedError:
            return None
        return next((r.last_success for r in rows if r.table == "activities"), None)


class ServiceSource:
    name = "service"

    def __init__(self, client: SamClient, push_history_every: int = 10, history_hours: float = 24) -> None:
        self.client = client
        # The very first poll also reads this much history, for the first-start summary (never replayed).
        self.history_ms = int(history_hours * 3_600_000)
        self.push_history_every = push_history_every
        self._panels: dict[int, list[int]] = {}  # org -> panel ids
        self._last_poll: int | None = None
        self._polls = 0
        self.last_success: int | None = None

    def _login(self, db: sqlite_utils.Database) -> None:
        result = self.client.login()
        panels = [p for p in result.panels if p.resource_id is not None]
        self._panels = {}
        for panel in panels:
            self._panels.setdefault(panel.org_id or 0, []).append(int(panel.resource_id or 0))
        with write_transaction(db):
            upsert_dicts(db, "panels", [panel_row(p) for p in panels], "resource_id")

    def poll(self, db: sqlite_utils.Database, since: int) -> None:
        """Fetch activities from `since` (or the last poll, minus an overlap) to now into the cache.
        Raises SamError when the service fails; nothing is half-written (one transaction per poll)."""
        now = int(time.time() * 1000)
        if not self._panels or self._polls % RELOGIN_EVERY == 0:
            self._login(db)  # also picks up panels added since
        # After a restart, go on from the last successful poll (kept in the cache), not from the baseline.
        cursor = self._last_poll or get_state(db, "service_cursor")
        start = max(since, int(cursor) - OVERLAP_MS) if cursor else since - self.history_ms
        rows = []
        attribution = Attribution(self.client, start, now + 60_000)
        for org, ids in self._panels.items():
            org_arg = org or None
            rows += attribution.rows(ids, org_arg)
            if self._polls % self.push_history_every == 0:
                for rid in ids:
                    rows += [activity_row(a, rid, org_arg) for a in self.client.iter_push_history(
                        rid, start_time=start, end_time=now + 60_000, org=org_arg)]  # fmt: skip
        with write_transaction(db):
            upsert_activities(db, "activities", [r for r in rows if r[0] is not None])
            set_state(db, "service_cursor", str(now))
        self._polls += 1
        self._last_poll = now
        self.last_success = now

    def data_as_of(self, db: sqlite_utils.Database) -> int | None:
        return self.last_success


class Attribution:
    """Activity rows of a set of panels in a time window, each row naming its own panel."""

    def __init__(self, client: SamClient, start: int, end: int, concurrency: int = PANEL_CONCURRENCY) -> None:
        self.client = client
        self.start = start
        self.end = end
        self.concurrency = concurrency

    def rows(self, panel_ids: Sequence[int], org: int | None) -> list[tuple[Any, ...]]:
        if not panel_ids:
            return []
        probe = self.client.list_activities(
            panel_ids, page_size=1, start_time=self.start, end_time=self.end, org=org
        )
        if not probe.total_records and not probe.activities:
            return []  # nothing in the window: the one request was enough
        # A panel id on the records is trusted only when it is one of the panels asked about.
        asked = set(panel_ids)
        if all(_panel_of(a) in asked for a in probe.activities or []):
            named = [(a, _panel_of(a)) for a in self._walk(panel_ids, org)]
            if all(rid in asked for _, rid in named):
                return [activity_row(a, rid, org) for a, rid in named]
        return self.per_panel(panel_ids, org)

    def per_panel(self, panel_ids: Sequence[int], org: int | None) -> list[tuple[Any, ...]]:
        """Each panel asked alone, so that what comes back is known to be that panel's."""

        def one(rid: int) -> list[tuple[Any, ...]]:
            return [activity_row(a, rid, org) for a in self._walk([rid], org)]

        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="notify-panel") as pool:
            return [row for rows in pool.map(one, panel_ids) for row in rows]

    def _walk(self, panel_ids: Sequence[int], org: int | None) -> list[Any]:
        return list(self.client.iter_activities(panel_ids, start_time=self.start, end_time=self.end, org=org))


def _panel_of(activity: Any) -> int | None:
    """The `resourceId` a service sent on the record (not a spec field), when it is a usable int."""
    rid = as_dict(activity).get("resourceId")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


__all__ = ["Attribution", "CacheSource", "SamError", "ServiceSource", "Source"]
