"""Where new alarms come from.

`service` (the default): the notifier hosts the one alarm poller (`core/poller.py`). Each cycle it polls
operation 3 over all of each organization's panels, attributes what is new to its panel by group testing
(`core/attribution.py`), writes it to the cache, and discovers the new alarms in the same cycle: an alarm
waits for one poll. The dashboard reads the same activities table.
`cache`: another process keeps the activities table fresh (`samops sync` with activities); the notifier
only reads it. Discovery of new alarms is the same query for both (see `service.py`).
"""

from __future__ import annotations

from typing import Protocol

from core import read
from core.client import SamClient
from core.errors import SamError
from core.poller import Poller
from core.sqlite_lib import sqlite_utils


class Source(Protocol):
    name: str

    def poll(self, db: sqlite_utils.Database, since: int) -> None: ...

    def data_as_of(self, db: sqlite_utils.Database) -> int | None: ...

    def floor(self, db: sqlite_utils.Database) -> int | None:
        """The oldest activity time this source may still write (None: within the discovery overlap)."""
        ...


class CacheSource:
    name = "cache"

    def poll(self, db: sqlite_utils.Database, since: int) -> None:
        return None

    def floor(self, db: sqlite_utils.Database) -> int | None:
        return None  # the sync re-reads 10 minutes, as discovery does (outbox.DISCOVERY_OVERLAP_MS)

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
    ) -> None:
        settings = client.settings
        self.poller = Poller(
            client,
            overlap_ms=int((settings.poll_overlap if overlap_s is None else overlap_s) * 1000),
            # The very first poll also reads this much history, for the first-start summary (never replayed).
            history_ms=int(history_hours * 3_600_000),
            concurrency=concurrency or settings.poll_concurrency,
        )

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

    def data_as_of(self, db: sqlite_utils.Database) -> int | None:
        return self.poller.last_success

    def floor(self, db: sqlite_utils.Database) -> int | None:
        return self.poller.floor(db)


__all__ = ["CacheSource", "SamError", "ServiceSource", "Source"]
