"""Where new alarms come from.

`service` (the default): the notifier hosts the one alarm poller (`core/poller.py`). Each cycle it polls
operation 3 over all of each organization's panels, attributes what is new to its panel by group testing
(`core/attribution.py`), writes it to the cache, and discovers the new alarms in the same cycle: an alarm
waits for one poll. The dashboard reads the same activities table.
With site incidents on, the service source also lists each organization's cameras (operation 17, one request
per organization) every `[notify.incidents] cameras_every` (default 60 s): a camera going down is evidence
of an incident, seen within a minute rather than at the sync's next camera refresh (10 min under `samops
up`), for about 0.017 requests/s per organization on top of the idle budget's ~0.7.
`cache`: another process keeps the activities table fresh (`samops sync` with activities); the notifier
only reads it. Discovery of new alarms is the same query for both (see `service.py`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from core import cache, read
from core.cache import camera_row, upsert_dicts, write_transaction
from core.client import SamClient
from core.clock import now_ms
from core.errors import SamError
from core.history import History
from core.poller import Poller
from core.sqlite_lib import sqlite_utils


class Source(Protocol):
    name: str

    def poll(self, db: sqlite_utils.Database, since: int) -> None: ...

    def data_as_of(self, db: sqlite_utils.Database) -> int | None: ...

    def floor(self, db: sqlite_utils.Database) -> int | None:
        """The oldest activity time this source may still write (None: within the discovery overlap)."""
        ...

    def poll_cameras(self, db: sqlite_utils.Database) -> None:
        """What the source reads once a cycle's cards are out (the cameras, for incidents' evidence)."""
        ...


class CacheSource:
    name = "cache"

    def poll(self, db: sqlite_utils.Database, since: int) -> None:
        return None

    def floor(self, db: sqlite_utils.Database) -> int | None:
        return None  # the sync re-reads 10 minutes, as discovery does (outbox.DISCOVERY_OVERLAP_MS)

    def poll_cameras(self, db: sqlite_utils.Database) -> None:
        return None  # the sync keeps the cameras

    def data_as_of(self, db: sqlite_utils.Database) -> int | None:
        try:
            rows = read.freshness(db)
        except NotImplementedError:
            return None
        return next((r.last_success for r in rows if r.table == "activities"), None)


class ServiceSource:
    name = "service"

    def __init__(
        self,
        client: SamClient,
        history_hours: float = 24,
        overlap_s: float | None = None,
        concurrency: int | None = None,
        cameras_every: float | None = None,
    ) -> None:
        settings = client.settings
        self.cameras_every = cameras_every  # seconds; None: cameras are left to the sync
        self._cameras_due = 0.0
        self.poller = Poller(
            client,
            overlap_ms=int((settings.poll_overlap if overlap_s is None else overlap_s) * 1000),
            # The very first poll also reads this much history, for the first-start summary (never replayed).
            history_ms=int(history_hours * 3_600_000),
            concurrency=concurrency or settings.poll_concurrency,
        )

        self.history: History | None = None

    def start_history(self, db_path: Path) -> History:
        """Reconciliation (late events) and the backfill of the dashboard's week beside the poller, on a
        thread of their own (core/history.py, docs/history.md)."""
        poller = self.poller
        self.history = History(self.client, lambda: poller.panels, poller.history_ms, poller.overlap_ms)
        self.history.start(db_path)
        return self.history

    @property
    def client(self) -> SamClient:
        return self.poller.client

    @client.setter
    def client(self, client: SamClient) -> None:
        self.poller.client = client

    @property
    def last_success(self) -> int | None:
        return self.poller.last_success

    def poll(self, db: sqlite_utils.Database, since: int) -> None:
        """New activities of every organization into the cache; raises SamError when the service fails (what
        succeeded is written, what failed is asked again next poll)."""
        self.poller.poll(db, since)

    def poll_cameras(self, db: sqlite_utils.Database) -> None:
        """Every `cameras_every`, each organization's cameras into the cache, a camera going down recorded
        as it is written (core/cache/incidents.py). A failure waits for the next turn: alarms come first, so
        the notifier calls this once the cycle's cards are out (a listing per organization can take seconds
        on a busy service), and the next cycle's discovery sees what it recorded."""
        if self.cameras_every is None or time.monotonic() < self._cameras_due:
            return
        self._cameras_due = time.monotonic() + self.cameras_every
        wanted = self.client.settings.organization_id
        orgs = read.panel_org_ids(db)
        for org in orgs if wanted is None or wanted not in orgs else [wanted]:
            try:
                rows = [camera_row(c, org) for c in self.client.list_cameras(org=org)]
            except SamError:
                continue
            rows = [r for r in rows if r.get("resource_id") is not None]
            with write_transaction(db):
                cache.note_camera_changes(db, rows, now_ms())
                if rows:
                    upsert_dicts(db, "cameras", rows, "resource_id")

    def data_as_of(self, db: sqlite_utils.Database) -> int | None:
        return self.poller.last_success

    def floor(self, db: sqlite_utils.Database) -> int | None:
        return self.poller.floor(db)


__all__ = ["CacheSource", "SamError", "ServiceSource", "Source"]
